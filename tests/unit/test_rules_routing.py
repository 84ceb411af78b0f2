"""A replica forwards what it does not own, and refuses a forwarded call it does not own."""

from __future__ import annotations

from typing import Any

import pytest

from services.platform.errors import Unavailable
from services.platform.replicas import Replicas, owner_of
from services.platform.settings import Settings
from services.rules.routing import FORWARDED, Router

PEERS = ("127.0.0.1:1", "127.0.0.1:2")


class Context:
    def __init__(self, *metadata: tuple[str, Any]) -> None:
        self.metadata = metadata

    def invocation_metadata(self) -> tuple[tuple[str, Any], ...]:
        return self.metadata


def ids_owned_by(replica: int) -> str:
    return next(m for m in (f"m{i}" for i in range(100)) if owner_of(m, 2) == replica)


def test_a_call_goes_to_the_owner_unless_this_replica_owns_it() -> None:
    router = Router(Replicas(PEERS, 0))
    assert router.owner_elsewhere(ids_owned_by(1), Context()) == 1
    assert router.owner_elsewhere(ids_owned_by(0), Context()) is None
    assert router.owner_elsewhere("", Context()) is None  # refused by validation, here


def test_a_forwarded_call_is_served_by_its_owner_and_never_forwarded_again() -> None:
    router = Router(Replicas(PEERS, 0))
    mark = (FORWARDED, router.replicas.fingerprint)
    assert router.owner_elsewhere(ids_owned_by(0), Context(mark)) is None
    with pytest.raises(Unavailable, match="disagree"):
        router.owner_elsewhere(ids_owned_by(1), Context(mark))


def test_replicas_with_different_lists_do_not_trust_each_others_forwarding() -> None:
    router = Router(Replicas(PEERS, 0))
    other_list = Replicas((*PEERS, "127.0.0.1:3"), 1).fingerprint
    with pytest.raises(Unavailable):
        router.owner_elsewhere(ids_owned_by(0), Context((FORWARDED, other_list)))


def test_the_owner_gets_the_callers_token_and_request_id_and_the_forwarding_mark() -> None:
    router = Router(Replicas(PEERS, 1))
    sent = router.metadata(Context(("authorization", "Bearer t"), ("x-request-id", "r1"),
                                   ("user-agent", "grpc-python"), (FORWARDED, "stale")))
    assert sent == (("authorization", "Bearer t"), ("x-request-id", "r1"),
                    (FORWARDED, router.replicas.fingerprint))
    fresh = dict(router.metadata(Context()))
    assert fresh["x-request-id"] and "authorization" not in fresh


def test_a_single_replica_routes_nothing_and_a_bad_ordinal_stops_the_start() -> None:
    assert Router.from_settings(Settings()) is None
    assert Router.from_settings(Settings(rules_peers=PEERS[:1], rules_ordinal=0)) is None
    assert Router.from_settings(Settings(rules_peers=PEERS, rules_ordinal=1)) is not None
    with pytest.raises(ValueError, match="NEON_RULES_ORDINAL"):
        Router.from_settings(Settings(rules_peers=PEERS))


def test_every_call_about_a_match_goes_through_the_router() -> None:
    """A new RPC must be routed too, or it would be served by a replica that does not own
    the match; only GetGameInfo and CheckMatchConfig (about the game, not a match) are
    answered locally."""
    from services.genproto.neon.rules.v1 import rules_pb2
    from services.rules.routing import RoutedRulesServicer

    methods = set(rules_pb2.DESCRIPTOR.services_by_name["RulesService"].methods_by_name)
    assert {m for m in methods if m in vars(RoutedRulesServicer)} == methods - {"GetGameInfo",
                                                                           "CheckMatchConfig"}
