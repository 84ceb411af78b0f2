"""Several replicas of one service, one owner per key: rendezvous hashing of the key over the
replicas, and the forwarding of a call to the owner. Game-agnostic: the rules service routes
by match id (services/rules/routing.py), matchmaking by queue (services/matchmaking/routing.py).

Every replica of one service holds the same list of replicas (in ordinal order), so each
computes the same owner for a key without talking to the others. Rendezvous (highest random
weight) hashing scores every replica with SHA-256 of its ordinal and the key and picks the
highest: the choice is stable across processes and machines, spreads keys evenly, and when a
replica is added only the keys the new one wins change owner (about 1/N of them), never a key
between two old replicas.

Cost: one SHA-256 of a short string per replica per call (a few microseconds for N <= 16).
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import grpc
from structlog.contextvars import get_contextvars

from services.platform.errors import Unavailable
from services.platform.grpc_kit import channel, current_client
from services.platform.logs import get_logger
from services.platform.stream_limits import CLIENT_METADATA

_DOMAIN = b"neon-rules-owner\x00"
"""Part of every weight; changing it moves every key to another owner."""

FORWARDED = "x-neon-forwarded"
"""Metadata on a forwarded call: the forwarding replica's replica-list fingerprint."""
log = get_logger("replicas")
"""Module-level lines (relay_status); a router's own lines name its service (PeerRouter.log)."""


def weight(replica: int, key: str) -> int:
    digest = hashlib.sha256(_DOMAIN + f"{replica}\x00{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def owner_of(key: str, replicas: int) -> int:
    """The ordinal (0..replicas-1) of the replica that owns ``key``."""
    if replicas < 1:
        raise ValueError("there must be at least one replica")
    return max(range(replicas), key=lambda r: weight(r, key))


@dataclass(frozen=True)
class Replicas:
    """The replicas of one service (addresses in ordinal order) and which one this is."""

    peers: tuple[str, ...]
    me: int

    def __post_init__(self) -> None:
        if not self.peers:
            raise ValueError("NEON_RULES_PEERS lists no replica")
        if not 0 <= self.me < len(self.peers):
            raise ValueError(
                f"this replica's ordinal {self.me} is not a place in NEON_RULES_PEERS "
                f"({len(self.peers)} replicas): set NEON_RULES_ORDINAL or run as a StatefulSet pod"
            )

    @property
    def fingerprint(self) -> str:
        """Names the replica list: two replicas with different lists must not trust each other's
        forwarding (during a rollout that changes the count, say)."""
        return hashlib.sha256("\n".join(self.peers).encode()).hexdigest()[:16]

    def owner(self, key: str) -> int:
        return owner_of(key, len(self.peers))

    def mine(self, key: str) -> bool:
        return self.owner(key) == self.me


_TRANSPORT = re.compile(
    r"ipv[46]:|unix:|dns resolution|failed to connect|connection refused|connection reset|"
    r"socket closed|connections to all backends|\b\d{1,3}(\.\d{1,3}){3}\b",
    re.IGNORECASE,
)
"""gRPC's own words about a connection (or an address in them): the owner was not reached."""
SERVER_STOPPING = "Cancelling all calls"
"""gRPC's status details for the calls open on a server when it stops (after its grace): the
owner is going away, no refusal of its own."""


class PeerRouter:
    """This replica's place among the replicas, and channels to the others (opened on first
    use). Subclasses name their service and what a key stands for (for the refusal), and the
    stub class the peers are called through."""

    service = "rules"
    owned = "match"
    stub_class: Callable[[grpc.aio.Channel], Any]

    def __init__(self, replicas: Replicas) -> None:
        self.replicas = replicas
        self.log = get_logger(self.service)
        self._channels: dict[int, grpc.aio.Channel] = {}
        self._stubs: dict[int, Any] = {}

    def stub(self, ordinal: int) -> Any:
        if ordinal not in self._stubs:
            # grpc_kit.channel: a restarted owner is reached again within a second or two
            self._channels[ordinal] = channel(self.replicas.peers[ordinal])
            self._stubs[ordinal] = type(self).stub_class(self._channels[ordinal])
        return self._stubs[ordinal]

    def owner_elsewhere(self, key: str, context: grpc.aio.ServicerContext) -> int | None:
        """The owner's ordinal when another replica owns ``key``; None: serve it here."""
        if not key:
            return None
        owner = self.replicas.owner(key)
        hop = metadata_value(context, FORWARDED)
        if hop is None:
            return None if owner == self.replicas.me else owner
        if hop != self.replicas.fingerprint or owner != self.replicas.me:
            self.log.warning(
                "forwarded call refused",
                owner=owner,
                me=self.replicas.me,
                same_replica_list=hop == self.replicas.fingerprint,
            )
            raise Unavailable(
                f"the {self.service} replicas disagree on who owns this {self.owned} "
                "(their replica lists differ during a rollout); try again shortly"
            )
        return None

    def metadata(self, context: grpc.aio.ServicerContext) -> tuple[tuple[str, Any], ...]:
        """The caller's metadata worth passing on, the request id, and the forwarding mark.

        The client a trusted gateway named (``x-neon-client``) is passed on only as this
        replica took it (``current_client``), never as the caller wrote it: the owner may
        trust this replica as a gateway (the pod network), and a direct caller naming a new
        client on each stream would then escape its limit there."""
        passed = [
            (k, v)
            for k, v in context.invocation_metadata() or ()
            if (k == "authorization" or k.startswith("x-")) and k not in (FORWARDED, CLIENT_METADATA)
        ]
        if not any(k == "x-request-id" for k, _ in passed):
            request_id = get_contextvars().get("request_id") or uuid.uuid4().hex[:16]
            passed.append(("x-request-id", request_id))
        if (client := current_client.get()) is not None:
            passed.append((CLIENT_METADATA, client))
        return (*passed, (FORWARDED, self.replicas.fingerprint))

    @property
    def owner_down(self) -> str:
        """A forwarded call's reason when its owner was never reached (gRPC's own text names
        the owner's internal address and port, which no caller is told)."""
        return (f"the {self.service} replica that holds this {self.owned} does not answer (it "
                "may be restarting); try again shortly")

    def unreached(self, err: grpc.aio.AioRpcError, owner: int) -> bool:
        """Whether ``err`` is the transport's (the owner never answered), not the owner's:
        UNAVAILABLE or DEADLINE_EXCEEDED with gRPC's text about the connection or naming an
        address (the owner's own reasons never do), or the calls a stopping owner cancels
        (:data:`SERVER_STOPPING`)."""
        if err.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
            return False
        details = err.details() or ""
        if err.code() == grpc.StatusCode.UNAVAILABLE and details == SERVER_STOPPING:
            return True
        host = self.replicas.peers[owner].rsplit(":", 1)[0]
        return bool(_TRANSPORT.search(details)) or (bool(host) and host in details)

    async def _failed(self, context: grpc.aio.ServicerContext, err: grpc.aio.AioRpcError,
                      owner: int) -> None:
        """End the call as its owner's call ended: UNAVAILABLE with :attr:`owner_down` when
        the owner was not reached, else the owner's status relayed unchanged."""
        if self.unreached(err, owner):
            self.log.warning("owner replica unavailable", owner=owner, details=err.details())
            raise Unavailable(self.owner_down) from None
        await relay_status(context, err, owner)

    async def forward(
        self, name: str, request: Any, context: grpc.aio.ServicerContext, owner: int
    ) -> Any:
        """The owner's answer to the unary call ``name``, made with the caller's metadata and
        what is left of its deadline; when it fails, :meth:`_failed`."""
        try:
            return await getattr(self.stub(owner), name)(
                request, metadata=self.metadata(context), timeout=context.time_remaining()
            )
        except grpc.aio.AioRpcError as err:
            await self._failed(context, err, owner)

    async def relay(
        self, call: Any, context: grpc.aio.ServicerContext, owner: int
    ) -> AsyncIterator[Any]:
        """The owner's stream ``call`` item by item; when it fails, :meth:`_failed`. The call
        is cancelled when the caller goes away."""
        try:
            async for item in call:
                yield item
        except grpc.aio.AioRpcError as err:
            await self._failed(context, err, owner)
        finally:
            call.cancel()

    async def close(self) -> None:
        for ch in self._channels.values():
            await ch.close()
        self._channels.clear()
        self._stubs.clear()


def metadata_value(context: grpc.aio.ServicerContext, key: str) -> str | None:
    for k, v in context.invocation_metadata() or ():
        if k == key:
            return v.decode() if isinstance(v, bytes) else str(v)
    return None


async def relay_status(
    context: grpc.aio.ServicerContext, err: grpc.aio.AioRpcError, owner: int
) -> None:
    """End this call with the owner's status, details and trailing metadata, unchanged: the
    owner's own refusal (an owner not reached is PeerRouter._failed's, logged there)."""
    if err.code() == grpc.StatusCode.UNAVAILABLE:
        log.warning("owner replica refused the call as unavailable", owner=owner,
                    details=err.details())
    trailers = tuple(
        (k, v) for k, v in (err.trailing_metadata() or ()) if not k.startswith("grpc-")
    )
    await context.abort(err.code(), err.details() or "", trailers)
