"""Which matchmaking replica owns a game's queue: from NEON_MATCHMAKING_PEERS and the ordinal."""

from __future__ import annotations

import pytest

from services.matchmaking.routing import QueueRouter, owner_check, queue_key, replicas_from_env
from services.platform.errors import Unavailable
from services.platform.replicas import FORWARDED, owner_of

PEERS = "mm-0.peers:50052,mm-1.peers:50052,mm-2.peers:50052"
GAMES = [f"game-{i}" for i in range(30)]


def test_one_replica_owns_every_queue() -> None:
    assert replicas_from_env({}) is None
    assert replicas_from_env({"NEON_MATCHMAKING_PEERS": "only:50052"}) is None
    assert all(owner_check(None)(g) for g in GAMES)


def test_the_ordinal_comes_from_the_setting_or_the_pod_name() -> None:
    assert (
        replicas_from_env({"NEON_MATCHMAKING_PEERS": PEERS, "NEON_MATCHMAKING_ORDINAL": "2"}).me
        == 2
    )  # type: ignore[union-attr]
    assert (
        replicas_from_env({"NEON_MATCHMAKING_PEERS": PEERS, "NEON_POD_NAME": "matchmaking-1"}).me
        == 1
    )  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="ordinal"):
        replicas_from_env({"NEON_MATCHMAKING_PEERS": PEERS, "HOSTNAME": "laptop"})


def test_every_queue_has_exactly_one_owner_and_they_are_spread() -> None:
    owns = [
        owner_check(
            replicas_from_env({"NEON_MATCHMAKING_PEERS": PEERS, "NEON_MATCHMAKING_ORDINAL": str(i)})
        )
        for i in range(3)
    ]
    for game in GAMES:
        owners = [i for i, own in enumerate(owns) if own(game)]
        assert owners == [owner_of(queue_key(game), 3)]
    assert all(any(own(g) for g in GAMES) for own in owns)  # 30 games: each replica owns some


class _Context:
    def __init__(self, *metadata: tuple[str, str]) -> None:
        self._metadata = metadata

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata


def test_a_forwarded_call_for_a_queue_held_elsewhere_is_refused_in_matchmaking_words() -> None:
    replicas = replicas_from_env({"NEON_MATCHMAKING_PEERS": PEERS, "NEON_MATCHMAKING_ORDINAL": "0"})
    router = QueueRouter(replicas)  # type: ignore[arg-type]
    elsewhere = next(g for g in GAMES if owner_of(queue_key(g), 3) != 0)
    here = next(g for g in GAMES if owner_of(queue_key(g), 3) == 0)
    assert router.owner_elsewhere(queue_key(elsewhere), _Context()) == owner_of(
        queue_key(elsewhere), 3
    )
    mark = (FORWARDED, router.replicas.fingerprint)
    assert router.owner_elsewhere(queue_key(here), _Context(mark)) is None
    with pytest.raises(Unavailable, match="matchmaking replicas disagree on who owns this queue"):
        router.owner_elsewhere(queue_key(elsewhere), _Context(mark))


def test_every_call_about_a_ticket_goes_through_the_router() -> None:
    """A new RPC must be routed too (DeclineInvite was added after the router), or it would be
    served by a replica that does not own the ticket's queue; only MintPlayerToken (about a
    player, not a queue) is answered locally."""
    from services.genproto.neon.matchmaking.v1 import matchmaking_pb2
    from services.matchmaking.routing import RoutedMatchmakingServicer

    methods = set(matchmaking_pb2.DESCRIPTOR.services_by_name["MatchmakingService"].methods_by_name)
    routed = {m for m in methods if m in vars(RoutedMatchmakingServicer)}
    assert routed == methods - {"MintPlayerToken"}
