"""DiceService (neon.dice.v1): decodes requests, calls DiceApplication, encodes replies."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc

from services.dice.app import DiceApplication, SessionView
from services.genproto.neon.dice.v1 import dice_pb2, dice_pb2_grpc
from services.platform.errors import FailedPrecondition, InvalidArgument
from services.platform.grpc_kit import claims, require_claims

OP_NAMES = {
    dice_pb2.DRAW_OP_RANDBELOW: "randbelow",
    dice_pb2.DRAW_OP_SHUFFLE: "shuffle",
    dice_pb2.DRAW_OP_ROLL: "roll",
}
OP_ENUMS = {name: value for value, name in OP_NAMES.items()}
SERVICE_NAME = dice_pb2.DESCRIPTOR.services_by_name["DiceService"].full_name


def session_message(s: SessionView, counter: bool = True) -> dice_pb2.Session:
    """``counter=False`` leaves the block counter out (0) while the session is open."""
    return dice_pb2.Session(
        match_id=s.match_id, stream_id=s.stream_id, commitment=s.commitment,
        client_seeds=[dice_pb2.ClientSeed(seat=seat, seed=seed) for seat, seed in s.client_seeds],
        counter=s.counter if counter or s.closed else 0, closed=s.closed, dev=s.dev,
    )


def _sees_counter() -> bool:
    """The services and the organiser. How many blocks an open match has drawn is a running
    signal of its hidden play (rerolls, shuffles, secret picks), so a seat, a player or an
    anonymous caller of the public reads gets 0 until the seed is revealed."""
    found = claims()
    return found is not None and found.role in ("service", "organiser")


def _match_id(request: Any) -> str:
    if not request.match_id:
        raise InvalidArgument("match_id is required")
    return str(request.match_id)


class DiceServicer(dice_pb2_grpc.DiceServiceServicer):
    """Mutating calls need a service or organiser token (ReserveBlocks, CloseSession and
    AddClientSeed: service); reads are public. Only a service token sees a session's state key; only a service or organiser
    token sees an open session's counter."""

    def __init__(self, app: DiceApplication) -> None:
        self.app = app

    async def OpenSession(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        claims = require_claims("service", "organiser")
        # a service's is a rules service's, for its match: Draw takes it no more
        session = await asyncio.to_thread(self.app.open, _match_id(request), request.dev_seed,
                                          claims.role == "service")
        # The state key hides state hashes until the seal: only the rules service gets it.
        key = session.state_key_hex if claims.role == "service" else ""
        return dice_pb2.OpenSessionResponse(session=session_message(session), state_key=key)

    async def AddClientSeed(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        # Seats add their seeds through the rules service, which takes them under its match's
        # lock before it reads them for MatchStarted and reserves the first blocks; a seed
        # added here by anyone else between those two steps would be mixed into the draws
        # but missing from the record, and the honest match would fail `neon verify`.
        require_claims("service")
        session = await asyncio.to_thread(
            self.app.add_client_seed, _match_id(request), request.seat, request.seed
        )
        return dice_pb2.AddClientSeedResponse(session=session_message(session))

    async def Draw(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        require_claims("service", "organiser")
        op = OP_NAMES.get(request.op)
        if op is None:
            raise InvalidArgument("op must be RANDBELOW, SHUFFLE or ROLL")
        record = await asyncio.to_thread(
            self.app.draw, _match_id(request), request.request_id, op, request.n,
            request.count or 1,
        )
        return dice_pb2.DrawResponse(draw=draw_message(record))

    async def ReserveBlocks(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        require_claims("service")
        blocks = await asyncio.to_thread(
            self.app.reserve_blocks, _match_id(request), request.first, request.count
        )
        return dice_pb2.ReserveBlocksResponse(first=blocks.first, words=list(blocks.words))

    async def GetCommitment(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        session = await asyncio.to_thread(self.app.session, _match_id(request))
        return dice_pb2.GetCommitmentResponse(session=session_message(session, _sees_counter()))

    async def CloseSession(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        # The seal is the rules service's, once the match's end is stored: a close reveals
        # the seed to anyone (RevealSeed), so one made while the match runs would publish
        # its future draws and its state key.
        require_claims("service")
        session = await asyncio.to_thread(self.app.close_session, _match_id(request))
        return dice_pb2.CloseSessionResponse(session=session_message(session), seed=session.seed_hex)

    async def RevealSeed(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        session = await asyncio.to_thread(self.app.session, _match_id(request))
        if not session.closed:
            raise FailedPrecondition("the seed is revealed only once the match has ended")
        return dice_pb2.RevealSeedResponse(session=session_message(session), seed=session.seed_hex)


def draw_message(record: Any) -> dice_pb2.Draw:
    return dice_pb2.Draw(
        op=OP_ENUMS[record.op], n=record.n, count=record.count, result=list(record.result),
        first=record.first, next=record.next,
    )


def register(server: grpc.aio.Server, app: DiceApplication) -> None:
    dice_pb2_grpc.add_DiceServiceServicer_to_server(DiceServicer(app), server)
