"""The live-match cache: bounded by bytes, finished matches leave first and soon."""

from services.rules.games.contract import MatchConfig
from services.rules.live import SEALED_KEEP, LiveMatch, LiveMatches
from tests.support import toy


def live(match_id: str, status: str = "running", state_bytes: int = 1000) -> LiveMatch:
    match = LiveMatch(match_id, toy.ENGINE, {"dice": {}}, MatchConfig("race", 2))
    match.status, match.state_bytes = status, state_bytes
    return match


def test_only_the_most_recently_sealed_matches_stay():
    cache = LiveMatches(budget_bytes=10**12)
    for i in range(SEALED_KEEP + 50):
        cache.put(live(f"done-{i}", "sealed"))
    cache.put(live("running"))
    assert len(cache) == SEALED_KEEP + 1
    assert cache.get("done-0") is None and cache.get(f"done-{SEALED_KEEP + 49}") is not None
    assert cache.get("running") is not None


def test_over_budget_finished_matches_go_before_running_ones():
    one = live("x").size()
    cache = LiveMatches(budget_bytes=one * 10)
    for i in range(5):
        cache.put(live(f"run-{i}"))
    for i in range(5):
        cache.put(live(f"done-{i}", "sealed"))
    cache.put(live("run-new"))  # over budget: evict down to 90%
    assert all(cache.get(f"run-{i}") is not None for i in range(5))
    assert cache.get("run-new") is not None
    assert sum(cache.get(f"done-{i}") is None for i in range(5)) >= 1
    assert cache.total <= one * 10
