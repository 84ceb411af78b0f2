"""A seat that never made a move of its own (services/rules/noshow.py): the rule, the rules
host's MatchEnded field and its tally, verify's recomputation of it, and scoring, which
records such a result but rates none of it (FIDE: a forfeit, or a game in which a player made
no move, is not rated)."""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.rules import records as rec
from services.rules.export import build_export, parse_export
from services.rules.games import load_engine
from services.rules.host import MatchHost
from services.rules.live import LiveMatch
from services.rules.noshow import FIELD, MoveTally, check, no_move_seats
from services.rules.selfplay import export_game, setups
from services.rules.verify import verify_export
from services.scoring.app import ScoringApplication
from services.scoring.results import MalformedResult, MatchOutcome, parse_match_ended

KEY = Ed25519PrivateKey.generate()


def act(seat: int, n: int, **mark: Any) -> dict[str, Any]:
    """An ActionAccepted of ``seat`` at position ``n``: the seat's own, or with ``mark``
    the service's (``timeout=True``, ``timeout="forfeit"``, ``by="bot"``)."""
    prefix = {True: "timeout:", "forfeit": "forfeit:", "bot": "bot:"}
    own = f"c{n}" if not mark else f"{prefix[next(iter(mark.values()))]}{n}"
    return {"type": "ActionAccepted", "n": n, "seat": seat, "command_id": own,
            "action": {"type": "x"}, **mark}


# -- the rule ---------------------------------------------------------------------------


def test_a_seat_forfeited_by_its_clock_without_a_move_is_a_no_move_seat() -> None:
    log = [act(0, 2), act(1, 3, timeout=True), act(1, 4, timeout="forfeit")]
    assert no_move_seats(log) == [1]


def test_a_seat_a_bot_played_from_the_start_is_a_no_move_seat() -> None:
    """no_show=bot: the clock gave the absent seat to a bot, which played it to the end."""
    log = [act(1, 2, timeout=True), act(1, 3, by="bot"), act(0, 4), act(1, 5, by="bot")]
    assert no_move_seats(log) == [1]


def test_one_move_of_its_own_makes_a_seat_no_no_show() -> None:
    log = [act(1, 2), act(1, 3, timeout=True), act(1, 4, timeout="forfeit")]
    assert no_move_seats(log) == []


def test_a_resignation_of_its_own_is_a_move() -> None:
    """A seat that timed out, then came back and resigned itself, moved."""
    log = [act(0, 2, timeout=True), act(0, 3)]
    assert no_move_seats(log) == []


def test_a_seat_whose_only_action_was_its_own_resignation_moved() -> None:
    """The ruling (scoring/__init__.py): a resignation the seat sent itself is a move, even
    its only one, whether or not the service had acted for it before."""
    resign = {**act(0, 2), "action": {"type": "resign"}}
    assert no_move_seats([resign]) == []
    assert no_move_seats([act(0, 2, timeout=True), {**resign, "n": 3}]) == []
    assert no_move_seats([act(0, 2, timeout=True), act(1, 3)]) == [0]  # no resignation: one


def test_a_seat_that_never_owed_a_decision_is_no_no_show() -> None:
    """The opponent resigned at once: seat 1 never moved, but nobody acted for it either."""
    assert no_move_seats([act(0, 2)]) == []
    assert no_move_seats([]) == []


def test_both_seats_timed_out_for_ever_are_both_named() -> None:
    log = [act(1, 2, timeout=True), act(0, 3, timeout=True), act(0, 4, timeout="forfeit")]
    assert no_move_seats(log) == [0, 1]


def test_markers_count_only_as_the_host_writes_them() -> None:
    """``"timeout": 1`` is not the host's ``true`` (verify's command-id check says the same):
    such a record is the seat's own."""
    odd = {**act(1, 2), "timeout": 1}
    assert no_move_seats([odd]) == []
    assert no_move_seats([{**act(1, 2), "seat": "1", "timeout": True}]) == []  # no seat


# -- the rules host ---------------------------------------------------------------------


class _Engine:
    game_id = "neon-reign"


def _live(records: list[dict[str, Any]]) -> LiveMatch:
    created = {"type": "MatchCreated", "n": 1, "hash": "h1", "players": ["ann", "bob"],
               "mode": "single"}
    live = LiveMatch("m", engine=None, created=created, config=None)  # type: ignore[arg-type]
    for record in [created, *records]:
        live.add({"hash": f"h{record['n']}", **record})
    return live


def _host() -> MatchHost:
    host = MatchHost.__new__(MatchHost)
    host.engine = _Engine()  # type: ignore[assignment]
    return host


def test_the_host_writes_the_no_move_seats_of_a_played_end_with_its_last_action() -> None:
    """The MatchEnded is written with the action that ends the match, before either is
    stored: that action (here the forfeit) counts too."""
    live = _live([act(0, 2), act(1, 3, timeout=True)])
    ended = _host()._ended(live, {"placements": [1, 2]}, act(1, 4, timeout="forfeit"))
    assert ended[FIELD] == [1]
    assert live.moves.seats() == [1]  # the tally is not moved by what is not stored yet
    mine = _host()._ended(_live([act(1, 2, timeout=True)]), {"placements": [1, 2]}, act(1, 3))
    assert mine[FIELD] == []  # the last action was the seat's own resignation


def test_every_played_end_names_its_no_move_seats_even_none() -> None:
    """``[]`` says the seats were counted and none failed to move; a MatchEnded without
    the field is one written before it (verify and scoring take it as they did)."""
    assert _host()._ended(_live([act(0, 2)]), {"placements": [1, 2]}, act(1, 3))[FIELD] == []


def test_an_abandons_end_names_none() -> None:
    live = _live([act(1, 2, timeout=True)])
    assert FIELD not in _host()._ended(live, rec.abandoned_outcome("broken table", "org"))


def test_a_played_end_without_its_last_action_is_a_bug() -> None:
    """Only an action ends a match with a result (the host's ``_finish`` passes it): a played
    end without it is refused rather than written from the stored tally alone."""
    with pytest.raises(AssertionError, match="the action that ended it"):
        _host()._ended(_live([act(0, 2)]), {"placements": [1, 2]})


def test_the_tally_is_rebuilt_from_the_records_of_a_loaded_match() -> None:
    """A match loaded from its records (a restart, an eviction) counts them all again in
    ``LiveMatch.add``, which keeps only the last few records in memory."""
    early_move = [act(1, 2)] + [act(0, n, timeout=True) for n in range(3, 60)]
    live = _live(early_move)
    assert len(live.recent) < len(early_move)  # the early move is no longer in memory
    assert live.moves.seats() == [0]


def test_the_public_match_ended_carries_the_field() -> None:
    body = {"type": "MatchEnded", "outcome": {"placements": [1, 2]}, "players": ["a", "b"],
            "mode": "single", FIELD: [1]}
    record = rec.seal_record("m", 5, "0" * 64, body)
    assert rec.project(record, None)[FIELD] == [1]
    old = {k: v for k, v in body.items() if k != FIELD}
    assert FIELD not in rec.project(rec.seal_record("m", 5, "0" * 64, old), None)


# -- verify -----------------------------------------------------------------------------


DROP = object()
"""``_rewritten``'s field that takes MatchEnded's field out (an export written before it)."""


@pytest.fixture(scope="module")
def fresh() -> bytes:
    """A whole self-play match of Neon Reign as self-play writes it today: both seats move,
    MatchEnded names the no-move seats (none) as the rules host does."""
    return export_game("neon-reign", "single", setups(load_engine("neon-reign"), "single")[0], 5, KEY)


@pytest.fixture(scope="module")
def played(fresh: bytes) -> bytes:
    """The same match as self-play wrote it before the field (MatchEnded holds none)."""
    return _rewritten(fresh, DROP)


def _rewritten(data: bytes, field: Any = ..., bot_seat: int | None = None) -> bytes:
    """``data`` with every action of ``bot_seat`` marked as a bot's (as the host writes a
    seat the clock gave to a bot: ``by`` bot, command id ``bot:N``) and MatchEnded's field
    set to ``field`` (``...``: as it is; ``DROP``: taken out), chained again and signed."""
    records, checkpoint = parse_export(data)
    bodies = []
    for record in records:
        body = {k: v for k, v in record.items() if k not in ("hash", "n", "prev", "match_id")}
        if record["type"] == "ActionAccepted" and record["seat"] == bot_seat:
            body.update(by="bot", command_id=f"bot:{record['n']}")
        if record["type"] == "MatchEnded" and field is DROP:
            body.pop(FIELD, None)
        elif record["type"] == "MatchEnded" and field is not ...:
            body[FIELD] = field
        bodies.append(body)
    chained: list[dict[str, Any]] = []
    for body in bodies:
        chained.append(rec.seal_record(checkpoint["match_id"], len(chained) + 1,
                                       rec.head(chained), body))
    return build_export(checkpoint["match_id"], checkpoint["game"], chained, KEY)


NO_MOVE_CHECK = "no-move seats named by MatchEnded match the actions"


def _ended_of(data: bytes) -> dict[str, Any]:
    return next(r for r in parse_export(data)[0] if r["type"] == "MatchEnded")


def test_an_export_from_before_the_field_verifies(played: bytes) -> None:
    assert FIELD not in _ended_of(played)
    report = verify_export(played)
    assert report.ok and NO_MOVE_CHECK not in report.checks
    assert verify_export(_rewritten(played, bot_seat=1)).ok  # no field: nothing to check


def test_published_self_play_exports_hold_no_field_and_verify() -> None:
    """The self-play exports published before the field (tests/fixtures/exports; all of them
    verify in test_old_exports) are taken as they are: promises."""
    from pathlib import Path

    folder = Path(__file__).resolve().parents[1] / "fixtures" / "exports"
    old = (folder / "neon-reign-1.1.0-single.jsonl").read_bytes()
    assert FIELD not in _ended_of(old)
    report = verify_export(old)
    assert report.ok, report.failure
    assert NO_MOVE_CHECK not in report.checks
    assert not any(FIELD.encode() in path.read_bytes() for path in folder.glob("*.jsonl"))


@pytest.mark.parametrize(("game", "mode", "seed"), [
    ("neon-reign", "single", 5), ("neon-reign", "solo", 2), ("neon", "rebirth", 1),
])
def test_self_play_writes_the_field_as_the_host_does_and_verify_checks_it(
        game: str, mode: str, seed: int, fresh: bytes) -> None:
    """Self-play's MatchEnded names its no-move seats from the records (rules/noshow.py), as
    the rules host's does: its bots make every move themselves, so none. verify recomputes
    it and says so; a wrong one fails."""
    data = fresh if seed == 5 else \
        export_game(game, mode, setups(load_engine(game), mode)[0], seed, KEY)
    records = parse_export(data)[0]
    end = _ended_of(data)
    assert end[FIELD] == no_move_seats(records) == []
    assert set(end) - {"n", "hash", "prev", "match_id"} == \
        {"type", "outcome", "players", "game", "mode", FIELD, "dev_seed"}  # the host's, without
    # a creator; self-play draws from a dev seed, which the end says as the host's does
    report = verify_export(data)
    assert report.ok, report.failure
    assert NO_MOVE_CHECK in report.checks
    wrong = verify_export(_rewritten(data, [0]))
    assert not wrong.ok and FIELD in wrong.failure


def test_an_export_whose_field_says_what_the_chain_says_verifies(played: bytes) -> None:
    report = verify_export(_rewritten(played, [1], bot_seat=1))
    assert report.ok, report.failure
    assert NO_MOVE_CHECK in report.checks  # and `neon verify` says it checked it
    both_moved = verify_export(_rewritten(played, []))
    assert both_moved.ok, both_moved.failure


@pytest.mark.parametrize(("field", "bot_seat", "says"), [
    ([], 1, "the seats that made no move were none, the records before it say [1]"),
    ([1], None, "the seats that made no move were [1], the records before it say none"),
    ([0], 1, "were [0], the records before it say [1]"),
    ([0, 1], 1, "were [0, 1]"),
    ([True], 1, "were [true]"),
    ("1", 1, 'were "1"'),
    (None, 1, "were null"),
])
def test_a_tampered_field_is_refused_naming_the_event(played: bytes, field: Any,
                                                      bot_seat: int | None, says: str) -> None:
    data = _rewritten(played, field, bot_seat)
    report = verify_export(data)
    ended = next(r for r in parse_export(data)[0] if r["type"] == "MatchEnded")
    assert not report.ok
    assert report.failure.startswith(f"event {ended['n']}: MatchEnded says"), report.failure
    assert says in report.failure and FIELD in report.failure


def test_check_reads_only_the_records_before_the_end() -> None:
    ended = {"type": "MatchEnded", "n": 4, FIELD: [1]}
    assert check([act(0, 2), act(1, 3, timeout=True), ended]) is None
    assert check([act(0, 2), act(1, 3), ended]) is not None
    assert check([act(1, 3, timeout=True), {"type": "MatchEnded", "n": 4}]) is None


def test_the_tally_counts_only_actions() -> None:
    tally = MoveTally()
    tally.note({"type": "MatchStarted", "seat": 1, "timeout": True})
    assert tally.seats() == []


# -- scoring ----------------------------------------------------------------------------


def ended(players: list[str], placements: list[int], match_id: str = "m1",
          **extra: Any) -> dict[str, Any]:
    return {"type": "MatchEnded", "match_id": match_id, "game": "neon-reign", "mode": "single",
            "players": players, "outcome": {"placements": placements, "scores": [0, 0],
                                            "reason": "r", "draw": False, "breakdown": {},
                                            "teams": []}, **extra}


@pytest.fixture
def app() -> ScoringApplication:
    return ScoringApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})


def test_a_result_with_a_no_move_seat_is_recorded_not_rated_and_counted_nowhere(
        app: ScoringApplication) -> None:
    scored = app.score(parse_match_ended(ended(["ann", "bob"], [1, 2], no_move_seats=[1])))
    data = scored.data
    assert not data["rated"] and data["ratings"] == []
    assert data["unrated_reason"] == (
        "seat 1 (bob) made no move: a forfeit, or a game a player made no move in, is not rated")
    assert data[FIELD] == [1]
    for player in ("ann", "bob"):
        got = app.standing("neon-reign", "", player)
        assert (got.matches, got.wins, got.losses, got.rated_matches, got.best_score) == \
            (0, 0, 0, 0, None)
    assert [r["match_id"] for r in app.history("neon-reign", "bob", 0)] == ["m1"]
    assert app.replay_ratings("neon-reign") == {}


def test_a_free_for_all_played_on_without_a_no_move_seat_is_rated_among_those_who_moved(
        app: ScoringApplication) -> None:
    """Three seats, carl never moved (his clock forfeited him): ann and bob played the game
    out, so they are rated on their order among themselves and counted; carl is neither.
    With a second no-move seat only one side that moved is left: not rated, counted nowhere."""
    three = ended(["ann", "bob", "carl"], [2, 1, 3], "m3", no_move_seats=[2])
    three["outcome"]["scores"] = [5, 9, 0]
    data = app.score(parse_match_ended(three)).data
    assert data["rated"] and data["unrated_reason"] == ""
    assert sorted(r["player"] for r in data["ratings"] if r["mode"] == "") == ["ann", "bob"]
    bob, ann = app.standing("neon-reign", "", "bob"), app.standing("neon-reign", "", "ann")
    assert (bob.wins, bob.rated_matches, ann.losses, ann.rated_matches) == (1, 1, 1, 1)
    assert bob.mu > ann.mu
    carl = app.standing("neon-reign", "", "carl")
    assert (carl.matches, carl.rated_matches) == (0, 0)
    replayed = app.replay_ratings("neon-reign")
    assert sorted(replayed) == ["ann", "bob"] and replayed["bob"].mu == bob.mu

    two_absent = ended(["dan", "eve", "fay"], [1, 2, 3], "m4", no_move_seats=[1, 2])
    two_absent["outcome"]["scores"] = [3, 0, 0]
    data = app.score(parse_match_ended(two_absent)).data
    assert not data["rated"]
    assert data["unrated_reason"].startswith("seats 1 (eve) and 2 (fay) made no move")
    assert app.standing("neon-reign", "", "dan").matches == 0


def test_several_no_move_seats_are_all_named() -> None:
    from services.scoring.results import no_move_refusal

    both = parse_match_ended(ended(["ann", "bob"], [1, 2], no_move_seats=[0, 1]))
    assert no_move_refusal(both).startswith("seats 0 (ann) and 1 (bob) made no move")
    anonymous = parse_match_ended(ended([], [1, 2], no_move_seats=[1]))
    assert no_move_refusal(anonymous).startswith("seat 1 made no move")


def test_a_result_where_every_seat_moved_is_rated(app: ScoringApplication) -> None:
    scored = app.score(parse_match_ended(ended(["ann", "bob"], [1, 2], no_move_seats=[])))
    assert scored.data["rated"] and scored.data["unrated_reason"] == ""
    assert app.standing("neon-reign", "", "ann").rated_matches == 1


def test_results_stored_before_the_field_replay_as_they_were_rated(
        app: ScoringApplication) -> None:
    """A result from before the field (no ``no_move_seats``: published by an older rules
    service, or stored by an older scoring) is rated as it always was, and the audit's
    replay gives the stored ratings, next to a new result that is not rated."""
    app.score(parse_match_ended(ended(["ann", "bob"], [1, 2], "old")))
    app.score(parse_match_ended(ended(["ann", "bob"], [2, 1], "new", no_move_seats=[0])))
    old = app.board.results[("neon-reign", "old")]
    assert FIELD not in old and old["rated"]
    assert MatchOutcome.from_json(old).no_move_seats is None
    assert MatchOutcome.from_json(app.board.results[("neon-reign", "new")]).no_move_seats == (0,)
    replayed = app.replay_ratings("neon-reign")
    for player in ("ann", "bob"):
        stored = app.standing("neon-reign", "", player)
        assert stored.rated_matches == 1
        assert (replayed[player].mu, replayed[player].sigma) == (stored.mu, stored.sigma)


@pytest.mark.parametrize(("value", "words"), [
    ([2], "seats of the match's 2"),
    ([1, 0], "ascending"),
    ([1, 1], "each once"),
    (["1"], "list of integers"),
    ([True], "list of integers"),
    ("1", "list of integers"),
])
def test_a_malformed_field_is_refused(value: Any, words: str) -> None:
    with pytest.raises(MalformedResult, match=words):
        parse_match_ended(ended(["ann", "bob"], [1, 2], no_move_seats=value))


def _coalition(players: list[str], placements: list[int], teams: list[list[int]],
               match_id: str, absent: list[int]) -> dict[str, Any]:
    body = ended(players, placements, match_id, no_move_seats=absent)
    body["mode"] = "coalition"
    body["outcome"]["teams"] = teams
    body["outcome"]["scores"] = [0] * len(players)
    return body


def test_a_team_with_a_no_move_seat_is_no_smaller_side(app: ScoringApplication) -> None:
    """Coalition, ann and bob against carl and dan; bob never moved (the service played his
    seat: defaults, or a bot), and his team won. Rating ann as a side of one would credit
    her alone with beating two players (more than a duel's win) and cost carl and dan
    nearly twice a 2-v-2 loss. The team that played short is no side of a rated game: with
    one side left the match is a duel with a no-show, unrated and counted nowhere."""
    data = app.score(parse_match_ended(_coalition(
        ["ann", "bob", "carl", "dan"], [1, 1, 2, 2], [[0, 1], [2, 3]], "c1", [1]))).data
    assert not data["rated"] and data["ratings"] == []
    assert data["unrated_reason"].startswith("seat 1 (bob) made no move")
    for player in ("ann", "bob", "carl", "dan"):
        got = app.standing("neon-reign", "", player)
        assert (got.matches, got.rated_matches, got.mu) == (0, 0, 25.0), player
    assert app.replay_ratings("neon-reign") == {}


def test_three_teams_one_short_the_other_two_are_rated_among_themselves(
        app: ScoringApplication) -> None:
    """Three teams of two, fay never moved: her team is left out whole (eve, her partner,
    neither rated nor counted); the two full teams are rated and counted on their order
    among themselves."""
    players = ["ann", "bob", "carl", "dan", "eve", "fay"]
    data = app.score(parse_match_ended(_coalition(
        players, [2, 2, 3, 3, 1, 1], [[0, 1], [2, 3], [4, 5]], "c3", [5]))).data
    assert data["rated"], data["unrated_reason"]
    assert sorted(r["player"] for r in data["ratings"] if r["mode"] == "") == \
        ["ann", "bob", "carl", "dan"]
    for player in ("eve", "fay"):
        got = app.standing("neon-reign", "", player)
        assert (got.matches, got.rated_matches) == (0, 0), player
    ann = app.standing("neon-reign", "", "ann")
    # 2nd of 3 behind the team left out, so 1st of the two rated: a win, not a loss
    assert (ann.matches, ann.wins, ann.losses, ann.rated_matches) == (1, 1, 0, 1)
    assert ann.mu > 25
    carl = app.standing("neon-reign", "", "carl")
    assert (carl.wins, carl.losses) == (0, 1)
    replayed = app.replay_ratings("neon-reign")
    assert sorted(replayed) == ["ann", "bob", "carl", "dan"]
    assert replayed["ann"].mu == ann.mu


def test_a_short_team_stored_rated_before_the_team_rule_replays_as_it_was_rated(
        app: ScoringApplication) -> None:
    """A result stored with ``ranking`` 2 rated a team short of a no-move seat as a smaller
    side: the audit's replay recomputes that, not today's rule."""
    from services.scoring.results import Side, sides

    short = parse_match_ended(_coalition(
        ["ann", "bob", "carl", "dan"], [1, 1, 2, 2], [[0, 1], [2, 3]], "c2", [1]))
    assert sides(short, 2) == ([Side(("ann",), 1), Side(("carl", "dan"), 2)], "")
    app.score(short)
    stored = app.board.results[("neon-reign", "c2")]
    stored.update(rated=True, ranking=2)  # as the release that rated it stored it
    replayed = app.replay_ratings("neon-reign")
    assert sorted(replayed) == ["ann", "carl", "dan"] and replayed["ann"].mu > 25


# -- the movers' order among themselves ---------------------------------------------------


def _royale(placements: list[int], absent: list[int], match_id: str, *,
            draw: bool = False) -> MatchOutcome:
    body = ended(["ann", "bob", "carl", "dan"], placements, match_id, no_move_seats=absent)
    body.update(game="neon", mode="battle-royale")
    body["outcome"].update(scores=[0] * 4, draw=draw)
    return parse_match_ended(body)


def _record(app: ScoringApplication, player: str) -> tuple[int, int, int]:
    got = app.standing("neon", "", player)
    return got.wins, got.draws, got.losses


def test_a_no_move_seat_placed_first_leaves_the_best_mover_the_winner(
        app: ScoringApplication) -> None:
    """Worked example: four seats, bob never moved (no_show=bot: a bot played his seat and
    won), ann 2nd, carl 3rd, dan 4th. Among the seats that moved ann is first, carl second,
    dan third: ann wins (not a loss to an absent seat), the others lose, and the sides are
    ranked 1, 2, 3, which openskill rates exactly as the raw places (it reads the order)."""
    from services.scoring.results import Side, sides
    from services.scoring.skill import rate

    result = _royale([2, 1, 3, 4], [1], "first")
    found, why = sides(result)
    assert why == "" and found == [Side(("ann",), 1), Side(("carl",), 2), Side(("dan",), 3)]
    assert rate(found, {}) == rate([Side(s.players, s.rank + 1) for s in found], {})
    data = app.score(result).data
    assert data["rated"]
    assert _record(app, "ann") == (1, 0, 0)
    assert _record(app, "carl") == (0, 0, 1) and _record(app, "dan") == (0, 0, 1)
    assert app.standing("neon", "", "bob").matches == 0
    ann, carl = app.standing("neon", "", "ann"), app.standing("neon", "", "carl")
    assert ann.mu > 25 and ann.mu > carl.mu
    replayed = app.replay_ratings("neon")
    assert (replayed["ann"].mu, replayed["ann"].sigma) == (ann.mu, ann.sigma)


def test_ties_among_the_movers_stay_ties(app: ScoringApplication) -> None:
    """bob (no move) shares first with ann, the engine flagging the shared first place a
    draw; carl and dan share third. Among the movers ann is first alone (a win, not a draw
    with an absent seat) and carl and dan tie for second (losses, rated equal). Then ann
    never moved and bob and carl share first below her: a first place the movers share is a
    draw for each."""
    from services.scoring.results import Side, sides
    from services.scoring.skill import rate

    tied = _royale([1, 1, 3, 3], [1], "tied", draw=True)
    assert sides(tied)[0] == [Side(("ann",), 1), Side(("carl",), 2), Side(("dan",), 2)]
    raw = [Side(("ann",), 1), Side(("carl",), 3), Side(("dan",), 3)]  # the placements
    assert rate(sides(tied)[0], {}) == rate(raw, {})  # so ranking 3 replays the same
    app.score(tied)
    assert _record(app, "ann") == (1, 0, 0)
    assert _record(app, "carl") == (0, 0, 1) == _record(app, "dan")
    carl, dan = app.standing("neon", "", "carl"), app.standing("neon", "", "dan")
    assert (carl.mu, carl.sigma) == (dan.mu, dan.sigma)

    shared = _royale([1, 2, 2, 4], [0], "shared")
    assert sides(shared)[0] == [Side(("bob",), 1), Side(("carl",), 1), Side(("dan",), 3)]
    app.score(shared)
    assert _record(app, "bob") == (0, 1, 0)
    assert _record(app, "carl") == (0, 1, 1)  # the first match a loss, this one a draw
    assert _record(app, "dan") == (0, 0, 2)


def test_a_no_move_seat_below_the_movers_leaves_the_engines_result(
        app: ScoringApplication) -> None:
    """Nothing left out at or above the top: the engine's own result stands (a first place
    shared without the draw flag, as Neon Knights places it, stays two wins)."""
    app.score(_royale([1, 1, 3, 4], [3], "below"))
    assert _record(app, "ann") == (1, 0, 0) == _record(app, "bob")
    assert _record(app, "carl") == (0, 0, 1)


@pytest.mark.parametrize(("placements", "results"), [
    ([2, 2, 3, 3, 1, 1], ["win", "win", "loss", "loss"]),
    ([2, 2, 2, 2, 1, 1], ["draw", "draw", "draw", "draw"]),
    ([1, 1, 3, 3, 1, 1], ["win", "win", "loss", "loss"]),
])
def test_teammates_sharing_a_place_are_one_side_not_a_draw(placements: list[int],
                                                           results: list[str]) -> None:
    """Three teams, the third left out (fay never moved): the first place among the two
    rated teams is a win for both partners, a draw only when the other team shares it."""
    from services.scoring.results import left_out, result_of

    short = parse_match_ended(_coalition(["ann", "bob", "carl", "dan", "eve", "fay"],
                                         placements, [[0, 1], [2, 3], [4, 5]], "t", [5]))
    absent = left_out(short)
    assert absent == {4, 5}
    assert [result_of(short, seat, absent) for seat in range(4)] == results


def test_scoring_works_out_the_seats_left_out_once_per_result(
        app: ScoringApplication, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app works out ``left_out`` once and hands it to ``sides`` and the standings."""
    from services.scoring import results

    calls = []
    real = results.left_out

    def counting(*args: Any, **kwargs: Any) -> set[int]:
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(results, "left_out", counting)
    app.score(_royale([2, 1, 3, 4], [1], "once"))
    assert len(calls) == 1
    assert _record(app, "ann") == (1, 0, 0)


@pytest.mark.parametrize("draw", [False, True])
def test_a_first_place_the_movers_share_with_a_no_move_seat_keeps_the_engines_draw_flag(
        app: ScoringApplication, draw: bool) -> None:
    """bob (no move) shares the first place with ann and carl. The engine's ``draw`` flag is
    its word on that shared first place: without it (Neon Knights places co-winners so) ann
    and carl each win, as they do when bob is placed last (the case above); with it they
    draw. bob's place next to them changes neither."""
    from services.scoring.results import left_out, result_of

    expected = "draw" if draw else "win"
    beside = _royale([1, 1, 1, 4], [1], f"beside-{draw}", draw=draw)
    below = _royale([1, 4, 1, 3], [1], f"below-{draw}", draw=draw)
    for result in (beside, below):
        absent = left_out(result)
        assert [result_of(result, s, absent) for s in (0, 2, 3)] == [expected, expected, "loss"]
    app.score(beside)
    assert _record(app, "ann") == _record(app, "carl") == (int(not draw), int(draw), 0)
    assert _record(app, "dan") == (0, 0, 1)
