"""Which rules replica owns a match: stable, balanced, and little movement when replicas change."""

from __future__ import annotations

from collections import Counter

import pytest

from services.platform.replicas import Replicas, owner_of
from services.platform.settings import load

IDS = [f"match-{i}" for i in range(6000)]


def test_the_owner_of_a_match_is_fixed_by_its_id_on_every_machine() -> None:
    # Known answers: a change of hash, domain tag or encoding would move live matches between
    # replicas of a running deployment, so it must show up here.
    assert [owner_of(m, 2) for m in ("a", "b", "c", "d", "e", "f")] == [0, 1, 0, 1, 0, 1]
    assert [owner_of(m, 3) for m in ("a", "b", "c", "d", "e", "f")] == [0, 1, 0, 1, 2, 1]
    assert all(owner_of(m, 3) == owner_of(m, 3) for m in IDS[:100])
    assert owner_of("anything", 1) == 0


@pytest.mark.parametrize("replicas", [2, 3, 4, 5])
def test_matches_spread_evenly_over_the_replicas(replicas: int) -> None:
    counts = Counter(owner_of(m, replicas) for m in IDS)
    fair = len(IDS) / replicas
    assert set(counts) == set(range(replicas))
    assert all(abs(c - fair) < 0.08 * fair for c in counts.values()), counts


@pytest.mark.parametrize("replicas", [1, 2, 3, 4])
def test_a_new_replica_takes_matches_only_for_itself(replicas: int) -> None:
    moved = [m for m in IDS if owner_of(m, replicas) != owner_of(m, replicas + 1)]
    assert all(owner_of(m, replicas + 1) == replicas for m in moved)
    share = len(moved) / len(IDS)
    assert abs(share - 1 / (replicas + 1)) < 0.03, share


def test_a_replica_knows_which_matches_are_its_own() -> None:
    peers = ("r-0:1", "r-1:1", "r-2:1")
    views = [Replicas(peers, i) for i in range(3)]
    for match_id in IDS[:300]:
        assert sum(v.mine(match_id) for v in views) == 1
    assert views[0].fingerprint == views[2].fingerprint
    assert Replicas(peers[:2], 0).fingerprint != views[0].fingerprint


@pytest.mark.parametrize("peers,me", [((), 0), (("a:1", "b:1"), 2), (("a:1", "b:1"), -1)])
def test_a_replica_outside_its_list_is_refused_at_start(peers: tuple[str, ...], me: int) -> None:
    with pytest.raises(ValueError, match="NEON_RULES"):
        Replicas(peers, me)


def test_settings_name_the_replicas_and_this_replicas_ordinal() -> None:
    peers = "rules-toy-0.rules-toy-peers:50061, rules-toy-1.rules-toy-peers:50061"
    alone = load({})
    assert alone.rules_peers == () and alone.rules_ordinal == -1
    from_pod = load({"NEON_RULES_PEERS": peers, "NEON_POD_NAME": "rules-toy-1", "HOSTNAME": "x-0"})
    assert from_pod.rules_peers == ("rules-toy-0.rules-toy-peers:50061",
                                    "rules-toy-1.rules-toy-peers:50061")
    assert from_pod.rules_ordinal == 1
    assert load({"NEON_RULES_PEERS": peers, "HOSTNAME": "rules-neon-reign-0"}).rules_ordinal == 0
    assert load({"NEON_RULES_ORDINAL": "1", "HOSTNAME": "rules-toy-0"}).rules_ordinal == 1
    # a plug-in engine's NEON_RULES_<GAME>_PORT is still told apart from these two
    assert "rules-peers" not in load({"NEON_RULES_PEERS": peers}).ports
