"""A rules replica passing a call on to the match's owner names the gateway's client
(x-neon-client) only as it took it itself (``current_client``: from a trusted gateway), never
as the caller wrote it: the owner may trust the replicas' network as gateways, and a direct
caller naming a new client on each stream would escape its per-host limit there."""

from __future__ import annotations

from typing import Any

from services.platform.grpc_kit import current_client
from services.platform.replicas import FORWARDED, PeerRouter, Replicas
from services.platform.stream_limits import CLIENT_METADATA


class Context:
    def __init__(self, metadata: list[tuple[str, str]]) -> None:
        self.metadata = metadata

    def invocation_metadata(self) -> Any:
        return self.metadata


CALLER = [("authorization", "Bearer t"), ("x-request-id", "req-1"),
          (CLIENT_METADATA, "made-up-by-the-caller"), ("user-agent", "x")]


def test_a_client_the_caller_wrote_is_not_passed_on() -> None:
    router = PeerRouter(Replicas(("a:1", "b:1"), 0))
    passed = router.metadata(Context(CALLER))  # type: ignore[arg-type]
    assert [k for k, _ in passed] == ["authorization", "x-request-id", FORWARDED]
    assert dict(passed)["x-request-id"] == "req-1"


def test_the_client_this_replica_took_from_a_trusted_gateway_is_passed_on() -> None:
    router = PeerRouter(Replicas(("a:1", "b:1"), 0))
    token = current_client.set("203.0.113.9")
    try:
        passed = router.metadata(Context(CALLER))  # type: ignore[arg-type]
    finally:
        current_client.reset(token)
    assert [v for k, v in passed if k == CLIENT_METADATA] == ["203.0.113.9"]
