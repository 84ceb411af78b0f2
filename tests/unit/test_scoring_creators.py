"""Who created a match decides whether scoring rates its result.

The rules service records who called CreateMatch (``created_by``: the token's role and name)
and its signed result carries it. A match an organiser created is recorded but not rated,
and counted in no standing, unless the scoring service is told to
(NEON_SCORING_RATE_ORGANISER_MATCHES): an organiser holds every seat token of the matches it
creates, so it could play "victim against me". Matches of matchmaking, tournaments and the
server's own tools are created with service tokens and rated as before; so are results
published before matches recorded their creator (no ``created_by``).
"""

from __future__ import annotations

from typing import Any

import pytest
from openskill.models import PlackettLuce

from services.scoring.app import ScoringApplication
from services.scoring.consumer import ConsumerOptions
from services.scoring.results import (
    MalformedResult,
    MatchOutcome,
    creator_refusal,
    parse_match_ended,
)

OS = PlackettLuce()
ORGANISER = {"role": "organiser", "name": "mallory"}
MATCHMAKING = {"role": "service", "name": "matchmaking"}
ON_BEHALF = {"role": "organiser", "name": "olga", "via": "matchmaking"}


def ended(players: list[str], placements: list[int], *, match_id: str = "m1",
          created_by: Any = None, mode: str = "duel", **extra: Any) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "type": "MatchEnded", "match_id": match_id, "game": "neon", "mode": mode,
        "players": players, "n": 9, "hash": "h",
        "outcome": {"placements": placements, "scores": [10 * (3 - p) for p in placements],
                    "reason": "over", "draw": False, "breakdown": {}, "teams": []},
        **extra,
    }
    if created_by is not None:
        payload["created_by"] = created_by
    return payload


def outcome(players: list[str], placements: list[int], **kw: Any) -> MatchOutcome:
    return parse_match_ended(ended(players, placements, **kw))


@pytest.fixture
def app() -> ScoringApplication:
    return ScoringApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})


# -- the decision --------------------------------------------------------------------


def test_the_decision_in_words() -> None:
    assert creator_refusal(None, False) == ""  # published before matches named their creator
    assert creator_refusal(MATCHMAKING, False) == ""
    assert creator_refusal({"role": "service", "name": "tournament"}, False) == ""
    assert creator_refusal(ORGANISER, False) == (
        "created by an organiser (mallory): only matches made by matchmaking, a tournament or "
        "the server's own tools are rated; NEON_SCORING_RATE_ORGANISER_MATCHES=1 rates them")
    assert creator_refusal(ORGANISER, True) == ""
    assert creator_refusal({"role": "organiser", "name": ""}, False).startswith(
        "created by an organiser: only matches made by")
    # a role the rules service does not give today is never rated on the organisers' setting
    other = creator_refusal({"role": "player", "name": "ann"}, True)
    assert other.startswith("created with a player token (ann): only matches made by")


def test_created_by_is_read_from_the_result() -> None:
    assert outcome(["ann", "bob"], [1, 2]).created_by is None
    assert outcome(["ann", "bob"], [1, 2], created_by=ORGANISER).created_by == ORGANISER


@pytest.mark.parametrize("created_by", [
    "organiser", ["organiser", "x"], {"role": 1, "name": "x"}, {"role": "organiser"},
    {"role": "", "name": "x"}, {"role": "x" * 65, "name": "x"},
    {"role": "organiser", "name": None},
])
def test_a_malformed_creator_is_refused(created_by: Any) -> None:
    with pytest.raises(MalformedResult, match="created_by"):
        parse_match_ended(ended(["ann", "bob"], [1, 2], created_by=created_by))


def test_a_creator_is_read_leniently() -> None:
    """A long name (a token minted without the command line's limit) and keys a later
    release may add do not lose the result; ``via`` and ``names`` are kept."""
    long = {"role": "organiser", "name": "n" * 500, "via": "desk", "badge": "gold"}
    assert outcome(["ann", "bob"], [1, 2], created_by=long).created_by == \
        {"role": "organiser", "name": "n" * 500, "via": "desk"}


@pytest.mark.parametrize("created_by", [
    {**ON_BEHALF, "via": 7}, {**ON_BEHALF, "names": "olga"}, {**ON_BEHALF, "names": ["a", 1]},
])
def test_a_malformed_via_or_names_is_refused(created_by: Any) -> None:
    with pytest.raises(MalformedResult, match="created_by"):
        parse_match_ended(ended(["ann", "bob"], [1, 2], created_by=created_by))


def test_a_match_made_on_an_organisers_behalf_says_by_whom_and_for_whom(
        app: ScoringApplication) -> None:
    """Matchmaking makes a match for an organiser who had a hand in it (``via``): its reason
    says that, not "created by an organiser", and the record keeps ``via``."""
    reason = creator_refusal(ON_BEHALF, False)
    assert reason == (
        "made by matchmaking on behalf of the organiser 'olga' (who queued a ticket of it, "
        "accepted it for its players or acted with a player token they minted): an "
        "organiser's matches are not rated; NEON_SCORING_RATE_ORGANISER_MATCHES=1 rates them")
    assert creator_refusal(ON_BEHALF, True) == ""
    other = {"role": "organiser", "name": "olga", "via": "desk"}
    assert creator_refusal(other, False).startswith(
        "made by the service 'desk' on behalf of the organiser 'olga': an organiser's")
    data = app.score(outcome(["ann", "bob"], [1, 2], created_by=ON_BEHALF)).data
    assert data["created_by"] == ON_BEHALF and data["unrated_reason"] == reason
    assert data["rated"] is False and app.standing("neon", "", "ann").matches == 0
    assert app.result("m1", "neon")["created_by"]["via"] == "matchmaking"


def test_several_organisers_are_named_one_by_one() -> None:
    """Several organisers' names are joined with ", " in ``name``, which a name may hold
    itself: the reason quotes each of ``names``, so 'oscar, jr' reads as one organiser."""
    two = {"role": "organiser", "name": "olga, oscar, jr", "names": ["olga", "oscar, jr"],
           "via": "matchmaking"}
    assert creator_refusal(two, False).startswith(
        "made by matchmaking on behalf of the organisers 'olga' and 'oscar, jr' (who queued")
    three = {**two, "names": ["a", "b, c", "d"], "name": "a, b, c, d"}
    assert "the organisers 'a', 'b, c' and 'd' (who" in creator_refusal(three, False)
    # one name (as matchmaking sent them before: joined) is quoted whole, as one
    joined = {**ON_BEHALF, "name": "olga, oscar"}
    assert "on behalf of the organiser 'olga, oscar' (who" in creator_refusal(joined, False)
    nameless = {**ON_BEHALF, "name": ""}
    assert "on behalf of an organiser (no name) (who" in creator_refusal(nameless, False)
    assert outcome(["ann", "bob"], [1, 2], created_by=two).created_by == two


def test_an_unrated_tournaments_match_is_never_rated(app: ScoringApplication) -> None:
    """The tournament service makes an unrated tournament's matches on its organiser's
    behalf (``via`` "tournament"): the organiser asked for them unrated, so not even
    NEON_SCORING_RATE_ORGANISER_MATCHES rates them."""
    unrated = {"role": "organiser", "name": "olga", "via": "tournament"}
    reason = ("made by the tournament service on behalf of the organiser 'olga', for an "
              "unrated tournament: its matches are recorded, never rated")
    assert creator_refusal(unrated, False) == creator_refusal(unrated, True) == reason
    data = app.score(outcome(["ann", "bob"], [1, 2], created_by=unrated),
                     rate_organiser_matches=True).data
    assert data["rated"] is False and data["unrated_reason"] == reason
    assert data["created_by"] == unrated and data["ratings"] == []
    assert app.standing("neon", "", "ann").matches == 0
    # a tournament's own (rated) match, created with its service token, is rated
    rated = app.score(outcome(["ann", "bob"], [1, 2], match_id="T-r1-t1",
                              created_by={"role": "service", "name": "tournament"})).data
    assert rated["rated"] is True


def test_the_reply_carries_via_and_names() -> None:
    from services.scoring.service import _creator_message

    two = {"role": "organiser", "name": "a, b", "names": ["a", "b"], "via": "matchmaking"}
    message = _creator_message(two)
    assert message is not None
    assert (message.role, message.name, message.via, list(message.names)) == \
        ("organiser", "a, b", "matchmaking", ["a", "b"])
    old = _creator_message(ORGANISER)  # stored before via and names were kept
    assert old is not None and (old.via, list(old.names)) == ("", [])


def test_the_setting_comes_from_the_environment() -> None:
    assert ConsumerOptions.from_env({}).rate_organiser_matches is False
    assert ConsumerOptions.from_env(
        {"NEON_SCORING_RATE_ORGANISER_MATCHES": "1"}).rate_organiser_matches is True
    assert ConsumerOptions.from_env(
        {"NEON_SCORING_RATE_ORGANISER_MATCHES": "true"}).rate_organiser_matches is True
    assert ConsumerOptions.from_env(
        {"NEON_SCORING_RATE_ORGANISER_MATCHES": "0"}).rate_organiser_matches is False
    with pytest.raises(ValueError, match="NEON_SCORING_RATE_ORGANISER_MATCHES"):
        ConsumerOptions.from_env({"NEON_SCORING_RATE_ORGANISER_MATCHES": "maybe"})


# -- the application -----------------------------------------------------------------


def test_an_organisers_match_is_recorded_and_not_rated(app: ScoringApplication) -> None:
    scored = app.score(outcome(["victim", "mallory"], [2, 1], created_by=ORGANISER))
    data = scored.data
    assert scored.new and data["rated"] is False and data["ratings"] == []
    assert data["unrated_reason"].startswith("created by an organiser (mallory)")
    assert data["created_by"] == ORGANISER
    # recorded: the result and both histories show it ...
    assert app.result("m1", "neon")["created_by"] == ORGANISER
    assert [r["match_id"] for r in app.history("neon", "victim", 0)] == ["m1"]
    # ... but no standing moved: no rating, no win or loss, no best score
    for player in ("victim", "mallory"):
        for mode in ("", "duel"):
            standing = app.standing("neon", mode, player)
            assert (standing.mu, standing.sigma) == (OS.rating().mu, OS.rating().sigma)
            assert (standing.matches, standing.wins, standing.losses, standing.best_score) == \
                (0, 0, 0, None)
    assert app.leaderboard("neon", "", True)[0] == []
    # the same result again changes nothing
    assert not app.score(outcome(["victim", "mallory"], [2, 1], created_by=ORGANISER)).new


def test_with_the_setting_an_organisers_match_is_rated(app: ScoringApplication) -> None:
    data = app.score(outcome(["ann", "bob"], [1, 2], created_by=ORGANISER),
                     rate_organiser_matches=True).data
    assert data["rated"] is True and data["unrated_reason"] == ""
    assert data["created_by"] == ORGANISER
    a, b = OS.rate([[OS.rating()], [OS.rating()]], ranks=[1, 2])
    assert app.standing("neon", "", "ann").mu == a[0].mu
    assert app.standing("neon", "", "bob").mu == b[0].mu


def test_service_matches_and_old_results_are_rated_as_before(app: ScoringApplication) -> None:
    old = app.score(outcome(["ann", "bob"], [1, 2], match_id="old")).data
    assert old["rated"] is True and "created_by" not in old
    made = app.score(outcome(["ann", "bob"], [2, 1], match_id="mm", created_by=MATCHMAKING)).data
    assert made["rated"] is True and made["created_by"] == MATCHMAKING
    first = OS.rate([[OS.rating(name="ann")], [OS.rating(name="bob")]], ranks=[1, 2])
    second = OS.rate([[first[0][0]], [first[1][0]]], ranks=[2, 1])
    ann = app.standing("neon", "", "ann")
    assert (ann.mu, ann.sigma) == (second[0][0].mu, second[0][0].sigma)
    assert (ann.matches, ann.rated_matches, ann.wins, ann.losses) == (2, 2, 1, 1)


def test_an_organisers_solo_match_counts_nowhere(app: ScoringApplication) -> None:
    """A solo match is rated by no one, but counts for its best score; an organiser's does
    not (its reason is the creator's: that is why it counts nowhere)."""
    data = app.score(outcome(["ann"], [1], mode="solo", created_by=ORGANISER)).data
    assert data["rated"] is False
    assert data["unrated_reason"].startswith("created by an organiser")
    assert app.standing("neon", "solo", "ann").matches == 0
    mine = app.score(outcome(["ann"], [1], match_id="s2", mode="solo", created_by=MATCHMAKING))
    assert mine.data["unrated_reason"] == "a solo match"
    assert app.standing("neon", "solo", "ann").matches == 1


def test_the_audit_replays_what_was_rated_not_the_setting_of_today(app: ScoringApplication) -> None:
    """replay_ratings follows each stored result's ``rated``: an organiser's match rated
    while the setting was on is replayed, one recorded while it was off is not."""
    app.score(outcome(["ann", "bob"], [1, 2], match_id="on", created_by=ORGANISER),
              rate_organiser_matches=True)
    app.score(outcome(["ann", "bob"], [2, 1], match_id="off", created_by=ORGANISER))
    app.score(outcome(["ann", "bob"], [1, 2], match_id="old"))
    replayed = app.replay_ratings("neon")
    for player in ("ann", "bob"):
        stored = app.standing("neon", "", player)
        assert (replayed[player].mu, replayed[player].sigma) == (stored.mu, stored.sigma)
        assert stored.rated_matches == 2
    once = OS.rate([[OS.rating(name="ann")], [OS.rating(name="bob")]], ranks=[1, 2])
    twice = OS.rate([[once[0][0]], [once[1][0]]], ranks=[1, 2])
    assert replayed["ann"].mu == twice[0][0].mu


def test_an_old_stored_result_replays_as_before(app: ScoringApplication) -> None:
    """Results stored before ``created_by`` (and whatever else) replay from their placements."""
    app.score(outcome(["ann", "bob"], [1, 2]))
    stored = app.board.results[("neon", "m1")]
    assert MatchOutcome.from_json(stored).created_by is None
    assert app.replay_ratings("neon")["ann"].mu == app.standing("neon", "", "ann").mu
