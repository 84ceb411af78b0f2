"""TournamentService (neon.tournament.v1): decodes requests, calls the Director, encodes replies."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

import grpc

from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
from services.genproto.neon.tournament.v1 import tournament_pb2_grpc as pb_grpc
from services.platform.canonical import canonical_json
from services.platform.errors import InvalidArgument
from services.platform.export_chunks import CHUNK_BYTES  # the bundle's chunk size too
from services.platform.grpc_kit import claims
from services.tournament import director as director_module
from services.tournament.director import MISSING, BundleSummary, BundleTooLarge, Director, Recent
from services.tournament.domain import Tournament

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["TournamentService"].full_name
STATUS = {
    "created": pb.TOURNAMENT_STATUS_CREATED,
    "registration": pb.TOURNAMENT_STATUS_REGISTRATION,
    "running": pb.TOURNAMENT_STATUS_RUNNING,
    "finished": pb.TOURNAMENT_STATUS_FINISHED,
    "force-ended": pb.TOURNAMENT_STATUS_FORCE_ENDED,
}
WATCH_MESSAGES_KEPT = 16
"""WatchTournament updates kept built, by tournament and version (the newest ones)."""
INT32_MAX = 2**31 - 1
"""The most an int32 field holds: ``planned_rounds`` of a log stored before the format's
``rounds`` was capped (core/model.py ``MAX_ROUNDS``) is answered as this, not INTERNAL."""
STATUS_NAMES = {v: k for k, v in STATUS.items()}  # ForceEndRequest.expected_status
NO_SHOW = {"forfeit": pb.NO_SHOW_POLICY_FORFEIT, "bot": pb.NO_SHOW_POLICY_BOT}
NO_SHOW_NAMES = {
    pb.NO_SHOW_POLICY_FORFEIT: "forfeit",
    pb.NO_SHOW_POLICY_BOT: "bot",
    pb.NO_SHOW_POLICY_UNSPECIFIED: "",
}
TABLE = {
    "paired": pb.TABLE_STATUS_PAIRED,
    "awaiting": pb.TABLE_STATUS_AWAITING_SEATS,
    "running": pb.TABLE_STATUS_RUNNING,
    "done": pb.TABLE_STATUS_DONE,
    "bye": pb.TABLE_STATUS_BYE,
    "abandoned": pb.TABLE_STATUS_ABANDONED,
}


def clock_message(clock: dict[str, Any]) -> pb.Clock:
    if clock.get("kind") == "none":
        return pb.Clock(none=True)
    return pb.Clock(
        per_decision_ms=int(clock.get("per_decision_ms", 0)),
        bank_ms=int(clock.get("bank_ms", 0)),
        increment_ms=int(clock.get("increment_ms", 0)),
        max_timeouts=int(clock.get("max_timeouts", 0)),
    )


def tournament_message(t: Tournament, planned: int = 0,
                       bracket: dict[str, Any] | None = None) -> pb.Tournament:
    s = t.settings
    current = t.current
    return pb.Tournament(
        tournament_id=t.tournament_id,
        name=s["name"],
        game=s["game"],
        mode=s["mode"],
        format_json=json.dumps(s["format"], sort_keys=True),
        status=STATUS[t.status],
        players=[
            pb.Player(
                player_id=p, status=v["status"], rating=float(v["rating"]), late=bool(v["late"])
            )
            for p, v in sorted(t.players.items(), key=lambda kv: kv[1]["order"])
        ],
        rounds_paired=len(t.rounds),
        planned_rounds=min(planned, INT32_MAX),
        round_complete=bool(current is not None and current["checkpoint"] is not None),
        no_show=NO_SHOW[s["no_show"]],
        check_in_seconds=int(s["check_in_seconds"]),
        clock=clock_message(s["clock"]),
        version=int(t.version),
        reason=t.reason,
        bracket_json=json.dumps(bracket, sort_keys=True) if bracket is not None else "",
        unrated=t.unrated,
        seed_from_ratings=bool(s.get("seed_from_ratings")),
    )


def result_message(result: dict[str, Any] | None, corrected: str | None = None) -> pb.Result | None:
    """A table's result; ``corrected``: the reason of the organiser's CorrectResult that set
    it (then kind "correction", whatever the result counts as: ``forfeited`` still says a
    forfeit)."""
    if result is None:
        return None
    return pb.Result(
        placements=result["placements"],
        scores=[int(x) for x in result.get("game_tiebreak", [])],
        forfeited=bool(result.get("forfeited")),
        kind="correction" if corrected is not None else result["kind"],
        reason=corrected or "",
    )


def checkpoint_message(c: dict[str, Any] | None) -> pb.Checkpoint | None:
    if c is None:
        return None
    body = c.get("checkpoint") or {}
    return pb.Checkpoint(
        round=int(body.get("round", 0)), merkle_root=str(body.get("root", "")),
        leaves=int(body.get("tree_size", 0)), log_length=int(body.get("log_version", 0)),
        log_head=str(body.get("log_head", "")), public_key=str(c.get("key", "")),
        signature=str(c.get("signature", "")), checkpoint_json=canonical_json(c).decode())


def round_message(view: dict[str, Any]) -> pb.Round:
    return pb.Round(
        tournament_id=view["tournament_id"],
        number=view["number"],
        complete=view["complete"],
        checkpoint=checkpoint_message(view["checkpoint"]),
        tables=[
            pb.TableInfo(
                number=k["number"],
                seats=k["seats"],
                bye=k["bye"],
                match_id=(k["match"] or {}).get("match_id", ""),
                rules_address=(k["match"] or {}).get("rules_address", ""),
                status=TABLE[k["status"]],
                result=result_message(k["result"], k.get("corrected")),
                final_hash=k["final_hash"],
                abandoned_reason=k.get("abandoned") or "",
                earlier=[
                    pb.EarlierMatch(match_id=e["match_id"], final_hash=e["final_hash"],
                                    abandoned_reason=e["abandoned"], rematch_reason=e["reason"])
                    for e in k.get("earlier", [])
                ],
            )
            for k in view["tables"]
        ],
    )


def summary_message(t: Tournament) -> pb.TournamentSummary:
    """What anyone may know of a tournament at a glance (no player ids)."""
    s = t.settings
    return pb.TournamentSummary(
        tournament_id=t.tournament_id,
        name=s["name"],
        game=s["game"],
        mode=s["mode"],
        format=str(s["format"]["format"]),
        status=STATUS[t.status],
        players=sum(1 for p in t.players.values() if p["status"] != "withdrawn"),
        rounds_paired=len(t.rounds),
    )


def rows_message(rows: list[dict[str, Any]]) -> list[pb.StandingRow]:
    return [
        pb.StandingRow(
            rank=r["rank"],
            player_id=r["player_id"],
            points=float(r["points"]),
            games=r["games"],
            wins=r["wins"],
            dropped=r["dropped"],
            tiebreaks=[pb.TieBreak(name=n, value=float(v)) for n, v in r["tiebreaks"]],
        )
        for r in rows
    ]


def assignment_message(a: dict[str, Any] | None) -> pb.MatchAssignment | None:
    if a is None:
        return None
    return pb.MatchAssignment(
        tournament_id=a["tournament_id"],
        round=a["round"],
        table=a["table"],
        match_id=a["match_id"],
        game=a["game"],
        mode=a["mode"],
        rules_address=a["rules_address"],
        seat=a["seat"],
        seat_token=a["seat_token"],
        bye=a["bye"],
        seats=a["seats"],
        status=TABLE[a["status"]],
        check_in_seconds_left=a["check_in_seconds_left"],
    )


class TournamentServicer(pb_grpc.TournamentServiceServicer):
    def __init__(self, director: Director) -> None:
        self.d = director
        self._watch_messages = Recent(WATCH_MESSAGES_KEPT)

    async def _t(self, t: Tournament) -> pb.Tournament:
        return tournament_message(t, await self.d.planned_rounds(t), await self.d.bracket(t))

    async def CreateTournament(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        clock = None
        if request.HasField("clock"):
            c = request.clock
            clock = {
                "per_decision_ms": c.per_decision_ms,
                "bank_ms": c.bank_ms,
                "increment_ms": c.increment_ms,
                "max_timeouts": c.max_timeouts,
                "none": c.none,
            }
        settings = {
            "name": request.name,
            "game": request.game,
            "mode": request.mode,
            "format_json": request.format_json,
            "clock": clock,
            "no_show": NO_SHOW_NAMES.get(request.no_show, "?"),
            "check_in_seconds": request.check_in_seconds,
            "options_json": request.options_json,
            "seed_from_ratings": request.seed_from_ratings,
            "unrated": request.unrated,
        }
        t = await self.d.create(claims(), request.tournament_id, settings)
        return pb.CreateTournamentResponse(tournament=await self._t(t))

    async def OpenRegistration(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        t = await self.d.open_registration(claims(), request.tournament_id)
        return pb.OpenRegistrationResponse(tournament=await self._t(t))

    async def Register(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        t = await self.d.register(claims(), request.tournament_id, request.player_id)
        return pb.RegisterResponse(tournament=await self._t(t))

    async def Withdraw(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        t = await self.d.withdraw(claims(), request.tournament_id, request.player_id)
        return pb.WithdrawResponse(tournament=await self._t(t))

    async def CheckIn(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        t = await self.d.check_in(claims(), request.tournament_id, request.player_id)
        return pb.CheckInResponse(tournament=await self._t(t))

    async def StartTournament(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        t, already = await self.d.start_told(claims(), request.tournament_id,
                                             request.checked_in_only)
        return pb.StartTournamentResponse(tournament=await self._t(t), left_out=t.left_out,
                                          already_started=already)

    async def NextRound(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        view = await self.d.next_round(claims(), request.tournament_id, request.round)
        return pb.NextRoundResponse(round=round_message(view))

    async def GetRound(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        t = await self.d.get(request.tournament_id)
        return pb.GetRoundResponse(round=round_message(await self.d.round_view(t, request.round)))

    async def GetTournament(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        t = await self.d.get(request.tournament_id)
        return pb.GetTournamentResponse(tournament=await self._t(t))

    async def GetStandings(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        rows, final = await self.d.standings(request.tournament_id)
        return pb.GetStandingsResponse(rows=rows_message(rows), final=final)

    async def ListTournaments(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        found = await self.d.newest(request.limit)
        return pb.ListTournamentsResponse(tournaments=[summary_message(t) for t in found])

    async def CorrectResult(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        view = await self.d.correct_result(
            claims(),
            request.tournament_id,
            request.round,
            request.table,
            list(request.placements),
            request.forfeited,
            request.reason,
        )
        return pb.CorrectResultResponse(round=round_message(view))

    async def RematchTable(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        view = await self.d.rematch(claims(), request.tournament_id, request.round,
                                    request.table, request.reason)
        return pb.RematchTableResponse(round=round_message(view))

    async def DropPlayer(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        t, already = await self.d.drop(claims(), request.tournament_id, request.player_id,
                                       request.reason)
        return pb.DropPlayerResponse(tournament=await self._t(t), already_dropped=already)

    async def AddLateEntry(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        t, already = await self.d.add_late(claims(), request.tournament_id, request.player_id)
        return pb.AddLateEntryResponse(tournament=await self._t(t), already_playing=already)

    async def ReinstatePlayer(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        t, already = await self.d.reinstate(claims(), request.tournament_id, request.player_id,
                                            request.reason)
        return pb.ReinstatePlayerResponse(tournament=await self._t(t), already_reinstated=already)

    async def ForceEnd(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        expected = request.expected_status
        if expected and expected not in STATUS_NAMES:
            raise InvalidArgument(f"expected_status {expected} is not a tournament status")
        t = await self.d.force_end(claims(), request.tournament_id, request.reason,
                                   STATUS_NAMES.get(expected, ""))
        return pb.ForceEndResponse(tournament=await self._t(t))

    async def FinishTournament(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        t, rows, already = await self.d.finish(claims(), request.tournament_id)
        return pb.FinishTournamentResponse(tournament=await self._t(t), rows=rows_message(rows),
                                           already_ended=already)

    async def ExportTournament(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        data, matches, checkpoints = await self.d.export(claims(), request.tournament_id)
        reply = pb.ExportTournamentResponse(
            bundle_jsonl=data, matches=matches, checkpoints=checkpoints
        )
        # the cap is what a client takes in one message: the answer's size, not the
        # bundle's alone (a bundle of the limit itself would be refused by the client,
        # gRPC's bare "larger than max", not this service's reason)
        limit = director_module.MAX_UNARY_BUNDLE_BYTES
        if reply.ByteSize() > limit:
            raise BundleTooLarge(request.tournament_id, reply.ByteSize(), limit, answer=True)
        return reply

    async def ExportTournamentChunks(
        self, request: Any, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[Any]:
        """The bundle in chunks of ``CHUNK_BYTES`` (the director's pieces, cut and joined),
        then the done message with its counts and size."""
        pending = bytearray()
        async for part in self.d.export_parts(claims(), request.tournament_id):
            if isinstance(part, BundleSummary):
                if pending:
                    yield pb.ExportTournamentChunksResponse(chunk=bytes(pending))
                yield pb.ExportTournamentChunksResponse(
                    done=True, total_bytes=part.size, matches=part.matches,
                    checkpoints=part.checkpoints)
                return
            view = memoryview(part)
            if pending:  # fill the chunk begun by the pieces before
                taken = view[:CHUNK_BYTES - len(pending)]
                pending += taken
                view = view[len(taken):]
                if len(pending) < CHUNK_BYTES:
                    continue
                yield pb.ExportTournamentChunksResponse(chunk=bytes(pending))
                pending.clear()
            while len(view) >= CHUNK_BYTES:
                yield pb.ExportTournamentChunksResponse(chunk=bytes(view[:CHUNK_BYTES]))
                view = view[CHUNK_BYTES:]
            pending += view
            del view, part

    async def MyNextMatch(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        mine, t = await self.d.my_match(claims(), request.tournament_id)
        return pb.MyNextMatchResponse(assignment=assignment_message(mine), status=STATUS[t.status])

    async def ReadyForMatch(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        count, started = await self.d.ready(claims(), request.tournament_id, request.match_id)
        return pb.ReadyForMatchResponse(seats_ready=count, started=started)

    async def WatchTournament(
        self, request: Any, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[Any]:
        # closed as the stream ends (a client gone too), not when collected: the watch then
        # lets go of what the director keeps for it
        async with aclosing(self.d.watch(request.tournament_id)) as updates:
            async for t in updates:
                yield await self._watch_message(t)

    async def _watch_message(self, t: Tournament) -> Any:
        """A WatchTournament update: the same for every watcher of a version (nothing in it
        is the caller's), so built once for all of them (:data:`WATCH_MESSAGES_KEPT` kept):
        256 watchers built 256 copies of a 128-table round after every save."""
        key = (t.tournament_id, t.version)
        found = self._watch_messages.get(key)
        if found is MISSING:
            current = await self.d.round_view(t, 0) if t.rounds else None
            found = self._watch_messages.keep(key, pb.WatchTournamentResponse(
                tournament=await self._t(t),
                round=round_message(current) if current else None,
            ))
        return found

    async def WatchMyMatches(
        self, request: Any, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[Any]:
        async with aclosing(self.d.watch_mine(claims(), request.tournament_id)) as updates:
            async for mine, t in updates:
                yield pb.WatchMyMatchesResponse(
                    assignment=assignment_message(mine), status=STATUS[t.status]
                )


def register(server: grpc.aio.Server, director: Director) -> None:
    pb_grpc.add_TournamentServiceServicer_to_server(TournamentServicer(director), server)
