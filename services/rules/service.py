"""RulesService (neon.rules.v1): decodes requests, calls the MatchHost, encodes replies."""

from __future__ import annotations

import json
from typing import Any

import grpc

from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.grpc_kit import claims
from services.rules.host import Answer, MatchHost

SERVICE_NAME = rules_pb2.DESCRIPTOR.services_by_name["RulesService"].full_name
STATUS = {
    "created": rules_pb2.MATCH_STATUS_AWAITING_SEEDS,
    "running": rules_pb2.MATCH_STATUS_RUNNING,
    "ended": rules_pb2.MATCH_STATUS_ENDED,
    "sealed": rules_pb2.MATCH_STATUS_ENDED,
}


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def event_message(match_id: str, event: dict[str, Any]) -> rules_pb2.MatchEvent:
    return rules_pb2.MatchEvent(
        match_id=match_id, version=event["n"], type=event["type"],
        seat=int(event.get("seat", -1)), payload_json=dumps(event),
        state_hash=event.get("state_hash", ""), chain_hash=event["hash"],
    )


class RulesServicer(rules_pb2_grpc.RulesServiceServicer):
    def __init__(self, host: MatchHost) -> None:
        self.host = host

    async def GetGameInfo(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        engine = self.host.engine
        return rules_pb2.GetGameInfoResponse(
            game_id=engine.game_id, title=engine.title, engine_version=engine.engine_version,
            content_version=engine.content_version,
            modes=[rules_pb2.ModeInfo(name=m.name, min_seats=m.min_seats, max_seats=m.max_seats,
                                      description=m.description)
                   for m in engine.modes().values()],
            config_schema_json=dumps(engine.config_schema()),
            action_schema_json=dumps(engine.action_schema()),
        )

    async def CreateMatch(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        self.host.require_organiser(claims())
        match, tokens = await self.host.create_match(
            request.match_id, request.mode, request.seats, request.options_json,
            list(request.players), request.await_client_seeds, request.dev_seed,
        )
        created = match.created
        players = created["players"] or [""] * created["seats"]
        return rules_pb2.CreateMatchResponse(
            match_id=match.match_id, dice_commitment=created["dice"]["commitment"],
            seat_tokens=[rules_pb2.SeatToken(seat=s, token=t, player=players[s])
                         for s, t in sorted(tokens.items())],
            status=STATUS[match.status], version=len(match.records),
        )

    async def AddClientSeed(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        count = await self.host.add_client_seed(claims(), request.match_id, request.seed)  # type: ignore[arg-type]
        return rules_pb2.AddClientSeedResponse(seats_with_seeds=count)

    async def StartMatch(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        match = await self.host.start_match(claims(), request.match_id)  # type: ignore[arg-type]
        return rules_pb2.StartMatchResponse(
            version=len(match.records), state_hash=match.records[-1].get("state_hash", "")
        )

    async def SubmitAction(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        expected = request.expected_version if request.HasField("expected_version") else None
        answer: Answer = await self.host.submit(
            claims(), request.match_id, request.command_id, request.action_json, expected
        )
        return rules_pb2.SubmitActionResponse(
            version=answer.version, state_hash=answer.state_hash,
            events=[event_message(request.match_id, e) for e in answer.events],
            status=STATUS[answer.status],
            outcome_json=dumps(answer.outcome) if answer.outcome is not None else "",
            replayed=answer.replayed,
        )

    async def ListLegalActions(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        version, decisions = await self.host.legal(claims(), request.match_id)
        return rules_pb2.ListLegalActionsResponse(
            version=version,
            decisions=[rules_pb2.Decision(
                seat=d.seat, kind=d.kind, prompt=d.prompt, optional=d.optional, hidden=d.hidden,
                legal_json=[dumps(dict(a)) for a in d.legal],
            ) for d in decisions],
        )

    async def GetView(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        v = await self.host.view(claims(), request.match_id)
        created = v["match"].created
        return rules_pb2.GetViewResponse(
            match_id=request.match_id, version=v["version"], status=STATUS[v["status"]],
            viewer=-1 if v["viewer"] is None else v["viewer"],
            view_json=dumps(v["view"]) if v["view"] is not None else "",
            pending=[rules_pb2.PendingSeat(seat=s, kind=k) for s, k in v["pending"]],
            outcome_json=dumps(v["outcome"]) if v["outcome"] is not None else "",
            state_hash=v["state_hash"], game_id=created["game"], mode=created["mode"],
            seats=created["seats"],
        )

    async def WatchMatch(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        async for event in self.host.watch(claims(), request.match_id, request.from_version):
            yield rules_pb2.WatchMatchResponse(event=event_message(request.match_id, event))

    async def ExportMatch(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        data, final, count = await self.host.export(claims(), request.match_id)
        return rules_pb2.ExportMatchResponse(export_jsonl=data, final_hash=final, event_count=count)


def register(server: grpc.aio.Server, host: MatchHost) -> None:
    rules_pb2_grpc.add_RulesServiceServicer_to_server(RulesServicer(host), server)
