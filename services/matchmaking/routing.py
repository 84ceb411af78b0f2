"""Several matchmaking replicas, one owner per queue: a ticket call for a queue another
replica owns is forwarded to that owner.

A queue is one game's waiting tickets (regions are grouped inside it). Its owner is fixed by
rendezvous hashing of the game over the replicas (``NEON_MATCHMAKING_PEERS``, in ordinal
order), the same scheme and code as the rules service's match owners
(services/platform/replicas.py). Only the owner holds the queue's
tickets in memory, runs its cycle, times out its proposals and drives its bots, so replicas
never split a queue; the game's Queue version in the store is the safety net should two
ever think they own it (the second writer is refused and reloads).

- CreateTicket names its game; the other calls name a ticket, whose game a non-owner reads
  from the store (one read) before forwarding. An unknown ticket is answered here.
- ListMyInvitations and WatchMyInvitations are about a player, whose invitations may be in
  every queue: the replica asked answers with its own and every other replica's (asked with
  the forwarding mark, so they answer for their own queues only), merged oldest first. A
  replica that does not answer is left out (``partial``, and the games whose queues it
  holds): a ListMyInvitations answers without it; a WatchMyInvitations goes on without it,
  asks it again (with a growing pause) and merges it back in once it answers. A replica's own
  refusal still ends the call with its status.
- Forwarded calls carry the caller's metadata and what is left of its deadline, and the
  forwarder's replica-list fingerprint; a replica that does not own the queue, or holds
  another list (a rollout that changes the count), refuses with UNAVAILABLE: no loops.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

import grpc

from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as pb
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc
from services.matchmaking.identity import IdentityServicer
from services.matchmaking.matchmaker import MAX_INVITATIONS_LISTED
from services.platform.errors import Unavailable
from services.platform.logs import get_logger
from services.platform.replicas import (
    FORWARDED,
    PeerRouter,
    Replicas,
    metadata_value,
    relay_status,
)
from services.platform.tokens import TokenIssuer
from services.platform.waiting import within

Local = Callable[[Any, grpc.aio.ServicerContext], Awaitable[Any]]
PEER_LIST_TIMEOUT = 3.0
"""Longest a ListMyInvitations waits for a peer's own list before answering without it (and
a WatchMyInvitations for a peer's first message before sending its first without it)."""
PEER_RETRY_FIRST = 0.5
PEER_RETRY_MOST = 5.0
"""A WatchMyInvitations asks a peer that does not answer again after PEER_RETRY_FIRST
seconds, twice as long each time after, at most PEER_RETRY_MOST (each +-20%, so that the
watches of many players do not all ask at once)."""
log = get_logger("matchmaking")


def queue_key(game: str) -> str:
    """What the owner of a game's queue is chosen by."""
    return f"matchmaking-queue:{game}"


def replicas_from_env(environ: Mapping[str, str]) -> Replicas | None:
    """``NEON_MATCHMAKING_PEERS`` (addresses in ordinal order) and this replica's ordinal
    (``NEON_MATCHMAKING_ORDINAL``, else the number ending the pod name, as a StatefulSet
    names pods); None when matchmaking runs as one replica."""
    peers = tuple(
        p.strip() for p in environ.get("NEON_MATCHMAKING_PEERS", "").split(",") if p.strip()
    )
    if len(peers) < 2:
        return None
    ordinal = environ.get("NEON_MATCHMAKING_ORDINAL", "").strip()
    if not ordinal:
        pod = (environ.get("NEON_POD_NAME") or environ.get("HOSTNAME") or "").strip()
        tail = pod.rsplit("-", 1)[-1] if "-" in pod else ""
        ordinal = tail if tail.isdigit() else "-1"
    return Replicas(peers, int(ordinal))


def owner_check(replicas: Replicas | None) -> Callable[[str], bool]:
    """Whether this replica owns a game's queue (every queue, when it runs alone)."""
    if replicas is None:
        return lambda _game: True
    return lambda game: replicas.mine(queue_key(game))


class QueueRouter(PeerRouter):
    """Ownership and forwarding of queues, with matchmaking stubs to the peers. A call whose
    owner was not reached is UNAVAILABLE with ``owner_down`` (PeerRouter); the owner's own
    statuses are relayed unchanged. No other replica takes a queue over while its owner is
    down: its tickets wait in the store, and the owner loads them again when it is back."""

    service = "matchmaking"
    owned = "queue"
    stub_class = pb_grpc.MatchmakingServiceStub


class RoutedMatchmakingServicer(IdentityServicer):
    """The matchmaking servicer of one replica: serves the queues it owns, forwards the rest."""

    def __init__(self, matchmaker: Any, issuer: TokenIssuer, router: QueueRouter) -> None:
        super().__init__(matchmaker, issuer)
        self.router = router

    async def _game_of(self, ticket_id: str) -> str:
        held = self.mm.tickets.get(ticket_id)
        if held is not None:
            return str(held.game)
        if not ticket_id:
            return ""
        found = await self.mm._find(ticket_id)
        return str(found.game) if found is not None else ""

    def _owner(self, game: str, context: grpc.aio.ServicerContext) -> int | None:
        return self.router.owner_elsewhere(queue_key(game), context) if game else None

    async def _unary(
        self, name: str, request: Any, context: grpc.aio.ServicerContext, local: Local, game: str
    ) -> Any:
        owner = self._owner(game, context)
        if owner is None:
            return await local(request, context)
        return await self.router.forward(name, request, context, owner)

    async def CreateTicket(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._unary(
            "CreateTicket", request, context, super().CreateTicket, request.game
        )

    async def CancelTicket(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._unary(
            "CancelTicket",
            request,
            context,
            super().CancelTicket,
            await self._game_of(request.ticket_id),
        )

    async def GetTicket(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._unary(
            "GetTicket", request, context, super().GetTicket, await self._game_of(request.ticket_id)
        )

    async def AcceptMatch(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._unary(
            "AcceptMatch",
            request,
            context,
            super().AcceptMatch,
            await self._game_of(request.ticket_id),
        )

    async def DeclineInvite(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._unary(
            "DeclineInvite",
            request,
            context,
            super().DeclineInvite,
            await self._game_of(request.ticket_id),
        )

    async def ReadyForMatch(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._unary(
            "ReadyForMatch",
            request,
            context,
            super().ReadyForMatch,
            await self._game_of(request.ticket_id),
        )

    async def WatchTicket(
        self, request: Any, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[Any]:
        owner = self._owner(await self._game_of(request.ticket_id), context)
        if owner is None:
            async for item in super().WatchTicket(request, context):
                yield item
            return
        call = self.router.stub(owner).WatchTicket(
            request, metadata=self.router.metadata(context), timeout=context.time_remaining()
        )
        async with contextlib.aclosing(self.router.relay(call, context, owner)) as items:
            async for item in items:
                yield item

    def _asked_by_peer(self, context: grpc.aio.ServicerContext) -> bool:
        """A call another replica forwarded (answer for this replica's queues only); one from
        a replica with another list of replicas is refused, as owner_elsewhere does."""
        hop = metadata_value(context, FORWARDED)
        if hop is None:
            return False
        if hop != self.router.replicas.fingerprint:
            raise Unavailable(
                "the matchmaking replicas disagree on who owns which queue (their replica "
                "lists differ during a rollout); try again shortly"
            )
        return True

    def _peers(self) -> list[int]:
        me = self.router.replicas.me
        return [i for i in range(len(self.router.replicas.peers)) if i != me]

    async def ListMyInvitations(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        """This replica's invitations and every peer's. A peer that does not answer (down,
        restarting, stopping: PeerRouter.unreached; or slower than PEER_LIST_TIMEOUT) leaves
        its queues out: the answer says it is ``partial`` and names the games known here whose
        queues that peer holds, rather than failing the whole list for one replica. A peer's
        own refusal (UNAUTHENTICATED, a replica list that differs...) fails the list with that
        status, as it ends WatchMyInvitations."""
        local = await super().ListMyInvitations(request, context)  # checks the caller first
        if self._asked_by_peer(context):
            return local
        peers = self._peers()
        answers = await asyncio.gather(*(self._peer_list(request, context, i) for i in peers))
        for i, a in zip(peers, answers, strict=True):
            if isinstance(a, grpc.aio.AioRpcError):  # the peer's own refusal, as the watch
                await relay_status(context, a, i)  # ends the call: raises
        missing = [i for i, a in zip(peers, answers, strict=True) if a is None]
        reply = merged([local, *(a for a in answers if a is not None)], request.limit,
                       pb.ListMyInvitationsResponse)
        if missing:
            reply.partial = True
            reply.unavailable_games.extend(self._games_of(missing))
        return reply

    def _games_of(self, missing: list[int]) -> list[str]:
        """The games known here whose queues the replicas ``missing`` hold, sorted."""
        replicas = self.router.replicas
        known = {*self.mm.catalogue.games, *self.mm._games}
        return sorted(g for g in known if replicas.owner(queue_key(g)) in missing)

    async def _peer_list(
        self, request: Any, context: grpc.aio.ServicerContext, peer: int
    ) -> Any:
        """The peer's own invitations (asked with the forwarding mark); None when it does not
        answer (not reached, or slower than the timeout); its error when it refused."""
        left = context.time_remaining()
        timeout = PEER_LIST_TIMEOUT if left is None else min(left, PEER_LIST_TIMEOUT)
        try:
            return await self.router.stub(peer).ListMyInvitations(
                request, metadata=self.router.metadata(context), timeout=timeout
            )
        except grpc.aio.AioRpcError as err:
            if err.code() != grpc.StatusCode.DEADLINE_EXCEEDED \
                    and not self.router.unreached(err, peer):
                return err
            log.warning("a replica's invitations are missing from a list", replica=peer,
                        code=err.code().name)
            return None

    async def WatchMyInvitations(
        self, request: Any, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[Any]:
        """This replica's invitations and every peer's, merged, again each time one changes.

        A peer that does not answer (down, restarting, stopping: PeerRouter.unreached) does
        not end the stream: its queues' invitations are left out, the messages say ``partial``
        and name its games (as ListMyInvitations), and its stream is opened again after a pause
        (PEER_RETRY_FIRST, doubling up to PEER_RETRY_MOST) until it answers, when its
        invitations are merged back in. A peer waited for longer than PEER_LIST_TIMEOUT for
        its first message is left out the same way until it sends one. A peer's own refusal
        (UNAUTHENTICATED at the token's expiry, a replica list that differs...) ends the
        stream with that status, and so does this replica's own stream ending."""
        if self._asked_by_peer(context):
            async for item in super().WatchMyInvitations(request, context):
                yield item
            return
        me = self.router.replicas.me
        own = super().WatchMyInvitations(request, context)
        first = await anext(own)  # the caller is checked here before a peer is asked
        peers = self._peers()
        latest: dict[int, Any] = {me: first}
        down: set[int] = set()
        updates: asyncio.Queue[tuple[int, Any]] = asyncio.Queue()

        async def mine() -> None:
            try:
                async for item in own:
                    await updates.put((me, item))
                await updates.put((me, _ENDED))
            except BaseException as err:  # noqa: BLE001 (handed to the caller's stream)
                await updates.put((me, err))
                raise

        async def follow(peer: int) -> None:
            pause = PEER_RETRY_FIRST
            missing_since = False
            try:
                while True:
                    call = self.router.stub(peer).WatchMyInvitations(
                        request, metadata=self.router.metadata(context),
                        timeout=context.time_remaining(),
                    )
                    code = "OK"
                    try:
                        async for item in call:
                            if missing_since:
                                log.info("a replica's invitations are back in a watch",
                                         replica=peer)
                                missing_since = False
                            pause = PEER_RETRY_FIRST
                            await updates.put((peer, item))
                    except grpc.aio.AioRpcError as err:
                        if not self.router.unreached(err, peer):  # the peer's own refusal
                            await relay_status(context, err, peer)  # ends the call: raises
                        code = err.code().name
                    finally:
                        call.cancel()
                    await updates.put((peer, _DOWN))
                    if not missing_since:
                        log.warning("a replica's invitations are missing from a watch; "
                                    "asking it again", replica=peer, code=code)
                        missing_since = True
                    await asyncio.sleep(pause * random.uniform(0.8, 1.2))
                    pause = min(pause * 2, PEER_RETRY_MOST)
            except BaseException as err:  # noqa: BLE001 (handed to the caller's stream)
                await updates.put((peer, err))
                raise

        pumps = [asyncio.create_task(mine()), *(asyncio.create_task(follow(i)) for i in peers)]
        loop = asyncio.get_running_loop()
        first_wait_ends = loop.time() + PEER_LIST_TIMEOUT
        try:
            sent = None
            while True:
                waiting = [i for i in peers if i not in latest and i not in down]
                left = first_wait_ends - loop.time()
                if not waiting or left <= 0:
                    out = merged(list(latest.values()), request.limit,
                                 pb.WatchMyInvitationsResponse)
                    if missing := [i for i in peers if i not in latest]:
                        out.partial = True
                        out.unavailable_games.extend(self._games_of(missing))
                    if out != sent:
                        sent = out
                        yield out
                try:  # within, not asyncio.wait_for: it may drop the caller's cancellation
                    k, item = await within(updates.get(), left if waiting and left > 0 else None)
                except TimeoutError:
                    continue  # the first message goes out without the peers not heard yet
                if isinstance(item, BaseException):
                    raise item  # a peer's status (relayed above), or this replica's
                if item is _ENDED:
                    raise Unavailable(
                        "a matchmaking replica ended its invitations stream; watch again"
                    )
                if item is _DOWN:
                    latest.pop(k, None)
                    down.add(k)
                else:
                    latest[k] = item
                    down.discard(k)
        finally:
            for t in pumps:
                t.cancel()
            await asyncio.gather(*pumps, return_exceptions=True)


_ENDED = object()
"""This replica's own invitations stream ended."""
_DOWN = object()
"""A peer's invitations stream ended or failed without its refusal: asked again."""


def merged(answers: list[Any], limit: int, reply: Any) -> Any:
    """The invitations of every replica's answer, oldest first (by when each was queued:
    ``queued_at_ms``, the same on every replica, where ``waited_seconds`` is taken at each
    replica's own moment), at most ``limit`` (0: the most), and how many there are in all."""
    invitations = sorted(
        (i for a in answers for i in a.invitations), key=lambda i: (i.queued_at_ms, i.ticket_id)
    )
    return reply(
        invitations=invitations[: limit or MAX_INVITATIONS_LISTED],
        total=sum(a.total for a in answers),
    )


def register(
    server: grpc.aio.Server, matchmaker: Any, issuer: TokenIssuer, router: QueueRouter | None
) -> None:
    """The matchmaking service of one replica (plain, with MintPlayerToken, when alone)."""
    if router is None:
        pb_grpc.add_MatchmakingServiceServicer_to_server(
            IdentityServicer(matchmaker, issuer), server
        )
    else:
        pb_grpc.add_MatchmakingServiceServicer_to_server(
            RoutedMatchmakingServicer(matchmaker, issuer, router), server
        )
