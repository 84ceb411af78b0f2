"""MatchmakingService (neon.matchmaking.v1): decodes requests, calls the Matchmaker, encodes replies."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc

from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as pb
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc
from services.matchmaking.matchmaker import Matchmaker
from services.matchmaking.requests import TicketRequest
from services.platform.grpc_kit import claims

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["MatchmakingService"].full_name
STATUS = {
    "waiting": pb.TICKET_STATUS_WAITING, "proposed": pb.TICKET_STATUS_PROPOSED,
    "matched": pb.TICKET_STATUS_MATCHED, "cancelled": pb.TICKET_STATUS_CANCELLED,
    "expired": pb.TICKET_STATUS_EXPIRED,
    "declined": pb.TICKET_STATUS_DECLINED,  # shown only to the player who declined
}


def ticket_message(view: dict[str, Any]) -> pb.Ticket:
    a = view["assignment"]
    assignment = None
    if a is not None:
        assignment = pb.Assignment(
            match_id=a["match_id"], game=a["game"], mode=a["mode"],
            rules_address=a.get("rules_address", ""),
            seats=[pb.Assignment.Seat(seat=s["seat"], player=s["player"], token=s.get("token", ""),
                                      bot=s["bot"], team=s["team"]) for s in a["seats"]],
        )
    w = view.get("seed_window")
    window = None
    if w is not None:
        window = pb.SeedWindow(deadline=w["deadline"], seconds_left=w["seconds_left"],
                               ready=w["ready"], waiting_for=w["waiting_for"], ended=w["ended"],
                               started=w["started"], reason=w["reason"])
    return pb.Ticket(
        ticket_id=view["ticket_id"], game=view["game"], modes=view["modes"],
        players=view["players"], status=STATUS[view["status"]], reason=view["reason"],
        waited_seconds=view["waited_seconds"], assignment=assignment,
        accept_seconds_left=view["accept_seconds_left"], accepted=view["accepted"],
        declined=view["declined"], match_started=bool(view.get("match_started")),
        seed_window=window,
    )


def invitations_message(listed: dict[str, Any], reply: Any) -> Any:
    """ListMyInvitationsResponse or WatchMyInvitationsResponse (``reply``) of a list."""
    return reply(
        invitations=[
            pb.Invitation(
                ticket_id=i["ticket_id"], game=i["game"], modes=i["modes"],
                invited_by=i["invited_by"], party_size=i["party_size"],
                status=STATUS[i["status"]], match_id=i["match_id"],
                accept_seconds_left=i["accept_seconds_left"],
                waited_seconds=i["waited_seconds"], queued_at_ms=i["queued_at_ms"],
            )
            for i in listed["invitations"]
        ],
        total=listed["total"],
    )


class MatchmakingServicer(pb_grpc.MatchmakingServiceServicer):
    def __init__(self, matchmaker: Matchmaker) -> None:
        self.mm = matchmaker

    async def CreateTicket(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        req = TicketRequest(
            ticket_id=request.ticket_id, game=request.game, modes=tuple(request.modes),
            players=tuple(request.players), min_seats=request.min_seats,
            max_seats=request.max_seats, region=request.region,
            rating_window=request.rating_window, allow_bots=request.allow_bots,
        )
        return pb.CreateTicketResponse(ticket=ticket_message(await self.mm.create_ticket(claims(), req)))

    async def CancelTicket(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        view = await self.mm.cancel_ticket(claims(), request.ticket_id)
        return pb.CancelTicketResponse(ticket=ticket_message(view))

    async def GetTicket(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return pb.GetTicketResponse(ticket=ticket_message(await self.mm.get_ticket(claims(), request.ticket_id)))

    async def WatchTicket(self, request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        async for view in self.mm.watch(claims(), request.ticket_id):
            yield pb.WatchTicketResponse(ticket=ticket_message(view))

    async def AcceptMatch(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        view = await self.mm.accept_match(claims(), request.ticket_id, request.match_id)
        return pb.AcceptMatchResponse(ticket=ticket_message(view))

    async def DeclineInvite(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        view = await self.mm.decline_invite(claims(), request.ticket_id)
        return pb.DeclineInviteResponse(ticket=ticket_message(view))

    async def ReadyForMatch(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        view = await self.mm.ready_for_match(claims(), request.ticket_id, request.match_id)
        return pb.ReadyForMatchResponse(ticket=ticket_message(view))

    async def ListMyInvitations(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return invitations_message(self.mm.invitations(claims(), request.limit),
                                   pb.ListMyInvitationsResponse)

    async def WatchMyInvitations(self, request: Any,
                                 context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        async for listed in self.mm.watch_invitations(claims(), request.limit):
            yield invitations_message(listed, pb.WatchMyInvitationsResponse)


def register(server: grpc.aio.Server, matchmaker: Matchmaker) -> None:
    pb_grpc.add_MatchmakingServiceServicer_to_server(MatchmakingServicer(matchmaker), server)
