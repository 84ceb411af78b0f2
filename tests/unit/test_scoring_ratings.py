"""Scoring maths: results become openskill sides, and ratings equal openskill's own."""

from __future__ import annotations

import time
from typing import Any

import pytest
from openskill.models import PlackettLuce

from services.scoring.app import ScoringApplication
from services.scoring.domain import Standing
from services.scoring.results import (
    MalformedResult,
    MatchOutcome,
    Side,
    parse_match_ended,
    result_of,
    sides,
)
from services.scoring.skill import Skill, rate

OS = PlackettLuce()


def outcome(players: list[str], placements: list[int], *, draw: bool = False,
            teams: list[list[int]] | None = None, match_id: str = "m1", mode: str = "duel",
            scores: list[int] | None = None) -> MatchOutcome:
    return parse_match_ended(ended(players, placements, draw=draw, teams=teams, match_id=match_id,
                                   mode=mode, scores=scores))


def ended(players: list[str], placements: list[int], *, draw: bool = False,
          teams: list[list[int]] | None = None, match_id: str = "m1", mode: str = "duel",
          scores: list[int] | None = None, game: str = "neon") -> dict[str, Any]:
    return {
        "type": "MatchEnded", "match_id": match_id, "game": game, "mode": mode,
        "players": players, "n": 9, "hash": "h",
        "outcome": {"placements": placements, "scores": scores or [0] * len(placements),
                    "reason": "over", "draw": draw, "breakdown": {"vp": [1, 2]},
                    "teams": teams or []},
    }


def mu_sigma(rating: Any) -> tuple[float, float]:
    return rating.mu, rating.sigma


def test_two_player_win_matches_openskill() -> None:
    got = rate(sides(outcome(["ann", "bob"], [1, 2]))[0], {})
    a, b = OS.rate([[OS.rating()], [OS.rating()]], ranks=[1, 2])
    assert (got["ann"].mu, got["ann"].sigma) == mu_sigma(a[0])
    assert (got["bob"].mu, got["bob"].sigma) == mu_sigma(b[0])
    assert got["ann"].mu > 25 > got["bob"].mu


def test_loss_is_the_mirror_of_a_win() -> None:
    got = rate(sides(outcome(["ann", "bob"], [2, 1]))[0], {})
    assert got["bob"].mu > 25 > got["ann"].mu


def test_draw_and_double_ko_rank_both_sides_equal() -> None:
    # The engines report a draw as every seat placed 1st with draw=True; a double KO the same.
    found, _ = sides(outcome(["ann", "bob"], [1, 1], draw=True))
    assert [s.rank for s in found] == [1, 1]
    got = rate(found, {})
    assert got["ann"] == got["bob"]
    assert got["ann"].mu == pytest.approx(25.0)
    assert got["ann"].sigma < 25 / 3


def test_a_shared_first_place_ties_only_the_winners(app: ScoringApplication) -> None:
    """NEON (two or more first places) and Barbaric at the round cap flag ``draw`` while
    the other seats keep their lower places: those seats lost, and are rated as losers."""
    result = outcome(["a", "b", "c", "d"], [1, 1, 3, 4], draw=True, mode="royale")
    found, _ = sides(result)
    assert [s.rank for s in found] == [1, 1, 3, 4]
    assert [result_of(result, seat) for seat in range(4)] == ["draw", "draw", "loss", "loss"]
    app.score(result)
    expected = OS.rate([[OS.rating()] for _ in range(4)], ranks=[1, 1, 3, 4])
    for player, team in zip("abcd", expected, strict=True):
        standing = app.standing("neon", "", player)
        assert (standing.mu, standing.sigma) == mu_sigma(team[0])
    assert app.standing("neon", "", "d").mu < 25 < app.standing("neon", "", "a").mu
    c = app.standing("neon", "", "c")
    assert (c.wins, c.draws, c.losses) == (0, 0, 1)


def test_a_result_stored_before_ranking_2_replays_as_it_was_rated(app: ScoringApplication) -> None:
    """The audit replay recomputes what was rated when the result was stored: a result from
    before ``ranking`` 2 (no ``ranking`` in its data) ranked every side of a draw 1st."""
    app.score(outcome(["a", "b", "c"], [1, 1, 3], draw=True, mode="royale"))
    stored = app.board.results[("neon", "m1")]
    assert stored["ranking"] == 3  # placements are the ranks since 2
    now = app.replay_ratings("neon")
    assert now["c"].mu == app.standing("neon", "", "c").mu < 25
    del stored["ranking"]  # as the stores written before it hold it
    before = app.replay_ratings("neon")
    tied = OS.rate([[OS.rating()] for _ in range(3)], ranks=[1, 1, 1])
    assert (before["c"].mu, before["c"].sigma) == mu_sigma(tied[2][0])


def test_rating_starts_from_the_stored_skill() -> None:
    before = {"ann": Skill(30.0, 4.0), "bob": Skill(20.0, 6.0)}
    got = rate(sides(outcome(["ann", "bob"], [2, 1]))[0], before)
    a, b = OS.rate([[OS.rating(30.0, 4.0)], [OS.rating(20.0, 6.0)]], ranks=[2, 1])
    assert (got["ann"].mu, got["ann"].sigma) == mu_sigma(a[0])
    assert (got["bob"].mu, got["bob"].sigma) == mu_sigma(b[0])


def test_free_for_all_uses_placements_as_ranks() -> None:
    found, _ = sides(outcome(["a", "b", "c", "d"], [3, 1, 4, 2]))
    assert [(s.players, s.rank) for s in found] == [(("a",), 3), (("b",), 1), (("c",), 4), (("d",), 2)]
    got = rate(found, {})
    expected = OS.rate([[OS.rating()] for _ in range(4)], ranks=[3, 1, 4, 2])
    for player, team in zip("abcd", expected, strict=True):
        assert (got[player].mu, got[player].sigma) == mu_sigma(team[0])
    assert got["b"].mu > got["d"].mu > got["a"].mu > got["c"].mu


def test_free_for_all_shared_place_is_a_tie_between_those_seats() -> None:
    got = rate(sides(outcome(["a", "b", "c"], [1, 2, 2]))[0], {})
    assert got["b"] == got["c"] and got["a"].mu > got["b"].mu


def test_teams_are_rated_as_openskill_teams() -> None:
    result = outcome(["a", "b", "c", "d"], [1, 2, 1, 2], teams=[[0, 2], [1, 3]], mode="coalition")
    found, _ = sides(result)
    assert found == [Side(("a", "c"), 1), Side(("b", "d"), 2)]
    got = rate(found, {})
    expected = OS.rate([[OS.rating(), OS.rating()], [OS.rating(), OS.rating()]], ranks=[1, 2])
    assert (got["a"].mu, got["a"].sigma) == mu_sigma(expected[0][0])
    assert (got["d"].mu, got["d"].sigma) == mu_sigma(expected[1][1])


def test_bots_are_left_out_and_humans_keep_their_order() -> None:
    found, _ = sides(outcome(["ann", "bot-random-1", "bob", "bot-random-2"], [4, 1, 2, 3]))
    assert found == [Side(("ann",), 4), Side(("bob",), 2)]
    bot_team, _ = sides(outcome(["ann", "bot-random-1", "bob", "cid"], [1, 1, 2, 2],
                                teams=[[0, 1], [2, 3]]))
    assert bot_team == [Side(("ann",), 1), Side(("bob", "cid"), 2)]


@pytest.mark.parametrize(("players", "placements", "reason"), [
    (["ann"], [1], "a solo match"),
    (["ann", "bot-random-1"], [1, 2], "fewer than two human sides"),
    ([], [1, 2], "the match has no player ids"),
    (["ann", "ann"], [1, 2], "one player held several seats"),
])
def test_results_that_are_not_rated(players: list[str], placements: list[int], reason: str) -> None:
    assert sides(outcome(players, placements)) == ([], reason)


def test_a_player_in_several_seats_counts_in_no_standing(app: ScoringApplication) -> None:
    """One player holding every seat wins every match they play against themselves: such a
    result is recorded (with why it is not rated) but counts no match, win or best score,
    or the wins and best-score boards could be farmed alone."""
    scored = app.score(outcome(["ann", "ann"], [1, 2], scores=[99, 0]))
    assert scored.data["unrated_reason"] == "one player held several seats"
    ann = app.standing("neon", "", "ann")
    assert (ann.matches, ann.wins, ann.losses, ann.best_score) == (0, 0, 0, None)
    assert app.leaderboard("neon", "", True)[0] == []


@pytest.mark.parametrize(("change", "words"), [
    ({"outcome": None}, "outcome must be an object"),
    ({"outcome": {"placements": []}}, "1-16 seats"),
    ({"outcome": {"placements": [1, "2"]}}, "list of integers"),
    ({"outcome": {"placements": [1, 2], "scores": [1]}}, "1 scores for 2 seats"),
    ({"players": ["a"]}, "1 players for 2 seats"),
    ({"match_id": "no spaces"}, "not a valid id"),
    ({"game": ""}, "not a valid id"),
    ({"outcome": {"placements": [1, 2], "teams": [[0], [0]]}}, "every seat exactly once"),
    ({"type": "MatchStarted"}, "not a MatchEnded"),
    # the replies carry them as int32: a result beyond that would fail every query of it
    ({"outcome": {"placements": [1, 2], "scores": [2**31, 0]}}, "32-bit"),
    ({"outcome": {"placements": [1, 2], "scores": [-(2**31) - 1, 0]}}, "32-bit"),
    ({"outcome": {"placements": [1, 2**31]}}, "32-bit"),
])
def test_malformed_events_are_refused_with_reasons(change: dict[str, Any], words: str) -> None:
    with pytest.raises(MalformedResult, match=words):
        parse_match_ended({**ended(["a", "b"], [1, 2]), **change})


# -- the application on the in-memory store ------------------------------------------


@pytest.fixture
def app() -> ScoringApplication:
    return ScoringApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})


def test_the_same_match_twice_changes_nothing(app: ScoringApplication) -> None:
    first = app.score(outcome(["ann", "bob"], [1, 2]), 10)
    second = app.score(outcome(["ann", "bob"], [1, 2]), 11)
    assert first.new and not second.new and second.data == first.data
    ann = app.standing("neon", "", "ann")
    assert (ann.matches, ann.wins, ann.rated_matches) == (1, 1, 1)
    assert app.board.results[("neon", "m1")]["sequence"] == 1


def test_stored_ratings_equal_openskill_over_the_stored_results(app: ScoringApplication) -> None:
    games = [
        (["ann", "bob"], [1, 2], None, False, "duel"),
        (["bob", "cid", "dee", "ann"], [2, 1, 4, 3], None, False, "royale"),
        (["ann", "bob", "cid", "dee"], [1, 2, 1, 2], [[0, 2], [1, 3]], False, "coalition"),
        (["cid", "ann"], [1, 1], None, True, "duel"),
        (["ann", "bot-random-1", "dee"], [2, 1, 3], None, False, "royale"),
        (["ann"], [1], None, False, "solo"),
    ]
    by_hand: dict[str, Any] = {}
    for i, (players, placements, teams, draw, mode) in enumerate(games):
        app.score(outcome(players, placements, teams=teams, draw=draw, match_id=f"g{i}", mode=mode))
        humans = [[p] for p in players if not p.startswith("bot-")]
        ranks = [pl for p, pl in zip(players, placements, strict=True) if not p.startswith("bot-")]
        if teams:
            humans = [[players[s] for s in t] for t in teams]
            ranks = [min(placements[s] for s in t) for t in teams]
        if len(humans) < 2:
            continue
        rated = OS.rate([[by_hand.get(p) or OS.rating(name=p) for p in team] for team in humans],
                        ranks=ranks)
        by_hand.update({r.name: r for team in rated for r in team})
    replayed = app.replay_ratings("neon")
    for player, expected in by_hand.items():
        stored = app.standing("neon", "", player)
        assert (stored.mu, stored.sigma) == mu_sigma(expected) == (replayed[player].mu, replayed[player].sigma)
    assert app.standing("neon", "", "bot-random-1").matches == 0
    royale = app.replay_ratings("neon", "royale")
    assert app.standing("neon", "royale", "dee").skill == royale["dee"]
    solo = app.standing("neon", "solo", "ann")
    assert (solo.matches, solo.rated_matches, solo.wins) == (1, 0, 1)


def test_leaderboards_per_game_and_mode(app: ScoringApplication) -> None:
    app.score(outcome(["ann", "bob"], [1, 2], match_id="a", mode="duel"))
    app.score(outcome(["cid", "dee", "bot-random-1"], [1, 3, 2], match_id="b", mode="royale"))
    app.score(outcome(["ann"], [1], match_id="c", mode="solo", scores=[40]))
    app.score(outcome(["bob"], [2], match_id="d", mode="solo", scores=[55]))
    rows, by_score = app.leaderboard("neon", "", None)
    assert not by_score and [r.player for r in rows][:2] in (["ann", "cid"], ["cid", "ann"])
    assert {r.player for r in rows} == {"ann", "bob", "cid", "dee"}
    duel, _ = app.leaderboard("neon", "duel", None)
    assert [r.player for r in duel] == ["ann", "bob"]
    solo, by_score = app.leaderboard("neon", "solo", None)
    assert by_score and [(r.player, r.best_score) for r in solo] == [("bob", 55), ("ann", 40)]
    history = app.history("neon", "ann", 0)
    assert [r["match_id"] for r in history] == ["c", "a"]
    assert history[1]["breakdown"] == {"vp": [1, 2]}


def test_a_result_is_found_without_reading_every_result(app: ScoringApplication) -> None:
    """GetMatchResult is public and unauthenticated: finding one result must not cost a
    sort of every stored result (0.17 s at 200,000 results, holding the board's lock)."""
    for i in range(200_000):
        app.board.results[("neon", f"old-{i}")] = {"game": "neon", "match_id": f"old-{i}"}
    app.score(outcome(["ann", "bob"], [1, 2], match_id="wanted"))
    started = time.perf_counter()
    for _ in range(100):
        assert app.result("wanted")["match_id"] == "wanted"
    assert time.perf_counter() - started < 2.0


def test_leaderboard_reads_cost_little_on_a_big_board(app: ScoringApplication) -> None:
    """GetLeaderboard is public and unauthenticated: with 50,000 players, copying and sorting
    the whole board per call held the board's lock for most of a second each time. The
    order is worked out once per change of the board; reads in between are cheap."""
    for i in range(50_000):
        standing = Standing("neon", "", f"p{i:05}", 20.0 + i % 97 / 10, 5.0)
        standing.count(f"m{i}", "win" if i % 2 else "loss", i % 1000, [standing.mu, 5.0])
        for domain_event in standing.collect_events():
            app.board._fold(domain_event)
    started = time.perf_counter()
    for _ in range(30):
        rows, by_score = app.leaderboard("neon", "", None)
    assert time.perf_counter() - started < 3.0
    assert not by_score and len(rows) >= 1000  # GetLeaderboard's largest page
    assert rows[0].mu == 20.0 + 96 / 10 and rows[0].player == "p00096"
    scores, by_score = app.leaderboard("neon", "", True)
    assert by_score and [r.best_score for r in scores[:3]] == [999, 999, 999]
    assert [r.player for r in scores[:2]] == ["p00999", "p01999"]  # most wins, then by name
    app.score(outcome(["zed", "amy"], [1, 2], match_id="record", scores=[5000, 0]))
    scores, _ = app.leaderboard("neon", "", True)  # a change of the board re-ranks it
    assert [r.player for r in scores[:2]] == ["zed", "p00999"]
