"""Several rules replicas, one writer per match: a call for a match another replica owns is
forwarded to that owner.

The owner of a match is fixed by its id (services/platform/replicas.py). A replica serves
the matches it owns from memory (the MatchHost) and forwards every other call, unary or
streaming (WatchMatch, Play), to the owner with the caller's metadata (authorization,
x-request-id) and what is left of the caller's deadline, then relays the owner's answer,
stream or status unchanged. So a match lives in the memory of one process only, and the
store's version check stays the safety net it was meant to be rather than a conflict every
other call.

- CreateMatch without a match id gets one here first, so the owner of that id creates it.
- GetGameInfo and CheckMatchConfig (about the game, not a match), and calls with no match id
  (which only fail validation), are served locally.
- When the owner does not answer, the caller gets UNAVAILABLE (it retries with its command id);
  the call is never served by a replica that does not own the match.
- A forwarded call carries the forwarder's replica-list fingerprint. A replica that does not own
  the match, or whose list differs (a rollout that changes the replica count), refuses it with
  UNAVAILABLE instead of forwarding again: no loops, and never two owners that both think so.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.grpc_kit import claims
from services.platform.logs import get_logger
from services.platform.replicas import (
    FORWARDED,
    PeerRouter,
    Replicas,
    metadata_value,
)
from services.platform.settings import Settings
from services.rules.host import MatchHost
from services.rules.service import RulesServicer, play_opening

log = get_logger("rules")

Local = Callable[[Any, grpc.aio.ServicerContext], Awaitable[Any]]


class Router(PeerRouter):
    """This replica's place among the rules replicas, and channels to the others."""

    stub_class = rules_pb2_grpc.RulesServiceStub

    @classmethod
    def from_settings(cls, settings: Settings) -> Router | None:
        """None when this rules service runs as a single replica."""
        if len(settings.rules_peers) < 2:
            return None
        return cls(Replicas(settings.rules_peers, settings.rules_ordinal))


async def _prepend(first: Any, rest: AsyncIterator[Any]) -> AsyncIterator[Any]:
    if first is not None:
        yield first
    async for item in rest:
        yield item


class RoutedRulesServicer(RulesServicer):
    """The RulesServicer of one replica: serves the matches it owns, forwards the others."""

    def __init__(self, host: MatchHost, router: Router) -> None:
        super().__init__(host)
        self.router = router

    async def _unary(self, name: str, request: Any, context: grpc.aio.ServicerContext,
                     local: Local) -> Any:
        owner = self.router.owner_elsewhere(request.match_id, context)
        if owner is None:
            return await local(request, context)
        return await self.router.forward(name, request, context, owner)

    async def CreateMatch(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        if not request.match_id:
            named = rules_pb2.CreateMatchRequest()
            named.CopyFrom(request)
            named.match_id = uuid.uuid4().hex
            request = named
        return await self._unary("CreateMatch", request, context, super().CreateMatch)

    async def AddClientSeed(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._unary("AddClientSeed", request, context, super().AddClientSeed)

    async def StartMatch(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._unary("StartMatch", request, context, super().StartMatch)

    async def SubmitAction(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._unary("SubmitAction", request, context, super().SubmitAction)

    async def ListLegalActions(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._unary("ListLegalActions", request, context, super().ListLegalActions)

    async def GetView(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._unary("GetView", request, context, super().GetView)

    async def ExportMatch(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._unary("ExportMatch", request, context, super().ExportMatch)

    async def AbandonMatch(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._unary("AbandonMatch", request, context, super().AbandonMatch)

    async def WatchMatch(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        owner = self.router.owner_elsewhere(request.match_id, context)
        if owner is None:
            async for item in super().WatchMatch(request, context):
                yield item
            return
        call = self.router.stub(owner).WatchMatch(
            request, metadata=self.router.metadata(context), timeout=context.time_remaining())
        async for item in self.router.relay(call, context, owner):
            yield item

    async def ExportMatchChunks(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        owner = self.router.owner_elsewhere(request.match_id, context)
        if owner is None:
            async for item in super().ExportMatchChunks(request, context):
                yield item
            return
        call = self.router.stub(owner).ExportMatchChunks(
            request, metadata=self.router.metadata(context), timeout=context.time_remaining())
        async for item in self.router.relay(call, context, owner):
            yield item

    async def ListMatches(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        """This replica's matches, plus every other replica's when the call is not itself a
        forwarded one; a replica that does not answer is left out of the list."""
        mine = await super().ListMatches(request, context)
        if metadata_value(context, FORWARDED) is not None:
            return mine
        others = [o for o in range(len(self.router.replicas.peers)) if o != self.router.replicas.me]
        answers = await asyncio.gather(*(
            self.router.stub(o).ListMatches(request, metadata=self.router.metadata(context),
                                            timeout=context.time_remaining())
            for o in others), return_exceptions=True)
        merged = list(mine.matches)
        for answer in answers:
            if isinstance(answer, grpc.aio.AioRpcError):
                log.warning("replica left out of ListMatches", details=answer.details())
            elif not isinstance(answer, BaseException):
                merged += list(answer.matches)
        merged.sort(key=lambda m: m.status == rules_pb2.MATCH_STATUS_ENDED)
        del mine.matches[:]
        mine.matches.extend(merged[: min(request.limit or 50, 200)])
        return mine

    async def Play(self, request_iterator: AsyncIterator[Any],
                   context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        who = claims()
        if who is None or who.role != "seat":
            # refused here, as on a single replica: within PLAY_OPEN_WAIT_S even if nothing
            # comes. Waiting for the first message to find the owner held, with no bound, a
            # stream (and its slot) of a caller without a seat token that sent nothing
            async for item in super().Play(request_iterator, context):
                yield item
            return
        # bounded as on a single replica: a seat that never opens its stream holds no slot
        first = await play_opening(request_iterator)
        requests = _prepend(first, request_iterator)
        opened = first is not None and first.WhichOneof("kind") == "open"
        owner = self.router.owner_elsewhere(first.open.match_id, context) if opened else None
        if owner is None:  # this replica's match, or a malformed stream the servicer refuses
            async for item in super().Play(requests, context):
                yield item
            return
        call = self.router.stub(owner).Play(
            requests, metadata=self.router.metadata(context), timeout=context.time_remaining())
        async for item in self.router.relay(call, context, owner):
            yield item


def owned_here(router: Router | None) -> Callable[[str], bool]:
    """Whether this replica owns a match (every match, when it runs alone): the host arms the
    turn clocks of these only, so a deadline is applied by one process."""
    return (lambda _: True) if router is None else router.replicas.mine


def register(server: grpc.aio.Server, host: MatchHost, router: Router | None) -> None:
    """The rules service of one replica (plain when it runs alone)."""
    servicer = RulesServicer(host) if router is None else RoutedRulesServicer(host, router)
    rules_pb2_grpc.add_RulesServiceServicer_to_server(servicer, server)
