"""RulesService (neon.rules.v1): decodes requests, calls the MatchHost, encodes replies."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc

from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.errors import (
    InvalidArgument,
    PermissionDenied,
    ServiceError,
    Unauthenticated,
)
from services.platform.export_chunks import CHUNK_BYTES
from services.platform.grpc_kit import claims, clip
from services.platform.logs import error_words, get_logger
from services.platform.tokens import require_may_seat
from services.platform.waiting import within
from services.rules import access
from services.rules import records as rec
from services.rules.clocks import ClockConfig
from services.rules.games import load_presentation
from services.rules.games.contract import Decision, is_v2
from services.rules.games.words import legal_texts
from services.rules.host import Answer, MatchHost, check_from, dumps
from services.rules.live import FinalView, LiveMatch

SERVICE_NAME = rules_pb2.DESCRIPTOR.services_by_name["RulesService"].full_name
STATUS = {
    "created": rules_pb2.MATCH_STATUS_AWAITING_SEEDS,
    "running": rules_pb2.MATCH_STATUS_RUNNING,
    "ended": rules_pb2.MATCH_STATUS_ENDED,
    "sealed": rules_pb2.MATCH_STATUS_ENDED,
}
log = get_logger("rules")
TOKEN_EXPIRED = ("seat token expired; open a new Play stream with a new seat token, from the "
                 "last version received")
"""How a Play stream ends, and an action read after its seat token's expiry is answered."""
WATCH_TOKEN_EXPIRED = ("seat token expired; follow the match again with a new seat token, from "
                       "the last version received")
"""How a WatchMatch stream followed with a seat token ends at that token's expiry."""


def token_expiry(loop: asyncio.AbstractEventLoop, who: Any) -> float:
    """When, on ``loop``'s clock, a stream taken with ``who``'s seat token ends: the moment a
    unary call with that token is first refused (``Claims.refused_from``)."""
    return loop.time() + max(0.0, who.refused_from - time.time())


EXPORT_CHUNK_BYTES = CHUNK_BYTES
"""The most bytes of an export one ExportMatchChunks message carries (export_chunks.py)."""

PLAY_OPEN_WAIT_S = 1.0
"""How long a Play stream without a seat token is given to send its first message before it
is refused all the same."""

PLAY_OPEN_TIMEOUT_S = 10.0
"""How long a seat's Play stream is given to send its first message, ``open``: a stream that
sends nothing ends INVALID_ARGUMENT (:data:`NOT_OPENED`) rather than hold its slot for ever.
A client's mistake, not a passing failure: INVALID_ARGUMENT, which clients do not resend
(DEADLINE_EXCEEDED they would, services/platform/playing.py)."""
NOT_OPENED = "the first message of a Play stream must be 'open'"


async def play_opening(request_iterator: AsyncIterator[Any]) -> Any:
    """The first message of a seat's Play stream (None: it ended without one), read within
    ``PLAY_OPEN_TIMEOUT_S``; after that, INVALID_ARGUMENT naming ``open``. Read so by the
    servicer and by a replica that reads it to find the match's owner (routing.py)."""
    try:
        async with asyncio.timeout(PLAY_OPEN_TIMEOUT_S):
            return await anext(aiter(request_iterator), None)
    except TimeoutError:
        raise InvalidArgument(f"{NOT_OPENED}, sent within {PLAY_OPEN_TIMEOUT_S:g} s of "
                              "the stream's start; none came") from None


class Narrator:
    """Short texts for engine events, from the game's presentation module when it has one."""

    def __init__(self, game_id: str) -> None:
        self.present = load_presentation(game_id)

    def texts(self, event: dict[str, Any], viewer: int | None) -> list[str]:
        """``event`` as ``viewer`` sees it (records.project) in words: a line per engine
        event; an action none of whose events the viewer sees (none made, or each another
        seat's) in one line of its own, so that no client shows a bare "ActionAccepted"."""
        if self.present is None:
            out = [e["kind"] for e in event.get("events", [])]
        else:
            out = []
            for engine_event in event.get("events", []):
                try:
                    out.append(str(self.present.describe_event(engine_event, viewer)))
                except Exception:  # a description is a courtesy: never fail a call for it
                    out.append(engine_event["kind"])
        if event.get("type") == "ActionAccepted":
            if not out:
                out.append(self.action_text(event))
            if why := _for_the_seat(event):
                out.insert(0, why)
        return out

    def action_text(self, event: dict[str, Any]) -> str:
        """"seat N: <the action>" in the game's words (its ``describe_action``, without a
        view) when the viewer sees the action, else, or when the words need a view, the
        decision it answered ("seat N: fan bet"): only what the projection shows."""
        seat, action = event.get("seat", -1), event.get("action")
        words = ""
        if isinstance(action, dict) and self.present is not None:
            try:
                words = str(self.present.describe_action(action, None))
            except Exception:  # its words need the view of the moment: the decision's
                words = ""
        return f"seat {seat}: {words or str(event.get('decision') or 'an action').replace('_', ' ')}"


def _for_the_seat(event: dict[str, Any]) -> str:
    """Why the service acted for the seat of an ActionAccepted (records.SERVICE_COMMANDS, in
    its projection), in words; "" for a seat's own action. A forfeit is the engine's
    resignation, whose own words say "resigned": this line says the clock made it."""
    seat, timeout = event.get("seat", -1), event.get("timeout")
    if timeout == "forfeit":
        return f"seat {seat} ran out of time too often: the clock forfeits the match for it"
    if timeout is True:
        return f"seat {seat}'s time ran out: the clock played its decision's default"
    if event.get("by") == "bot":
        return f"a bot plays for seat {seat} (its time ran out)"
    return ""


def decision_message(d: Decision) -> rules_pb2.Decision:
    return rules_pb2.Decision(
        seat=d.seat, kind=d.kind, prompt=d.prompt, optional=d.optional, hidden=d.hidden,
        legal_json=[dumps(dict(a)) for a in d.legal],
        default_json=dumps(dict(d.default)) if d.default is not None else "",
        standing=d.standing, priority=d.priority,
    )


def clock_config(message: Any) -> dict[str, Any] | None:
    """The stored form of a CreateMatchRequest.clock (None: no clock)."""
    try:
        config = ClockConfig.from_proto(message)
    except ValueError as err:
        raise InvalidArgument(str(err)) from None
    return config.to_json() if config.enabled else None


def clock_messages(views: list[dict[str, Any]]) -> list[rules_pb2.SeatClock]:
    return [rules_pb2.SeatClock(**v) for v in views]


class RulesServicer(rules_pb2_grpc.RulesServiceServicer):
    def __init__(self, host: MatchHost) -> None:
        self.host = host
        self.game_id = host.engine.game_id
        self.narrator = Narrator(self.game_id)
        self._info: rules_pb2.GetGameInfoResponse | None = None

    def event_message(self, match_id: str, event: dict[str, Any], viewer: int | None) -> rules_pb2.MatchEvent:
        return rules_pb2.MatchEvent(
            match_id=match_id, version=event["n"], type=event["type"],
            seat=int(event.get("seat", -1)), payload_json=dumps(event),
            state_hash=event.get("state_hash", ""), chain_hash=event["hash"],
            text=self.narrator.texts(event, viewer), game_id=self.game_id,
        )

    async def GetGameInfo(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        if self._info is None:  # the same for the service's whole life: built once
            self._info = self.game_info()
        return self._info

    def game_info(self) -> rules_pb2.GetGameInfoResponse:
        engine = self.host.engine
        present = self.narrator.present
        return rules_pb2.GetGameInfoResponse(
            game_id=engine.game_id, title=engine.title, engine_version=engine.engine_version,
            content_version=engine.content_version,
            modes=[rules_pb2.ModeInfo(
                name=m.name, min_seats=m.min_seats, max_seats=m.max_seats,
                description=m.description,
                team_layouts=[rules_pb2.TeamLayout(seats=t.seats, team_size=t.team_size)
                              for t in getattr(m, "team_layouts", ())],
                ai_participants=list(getattr(m, "ai_participants", ())),
                campaign=bool(getattr(m, "campaign", False)),
            ) for m in engine.modes().values()],
            config_schema_json=dumps(engine.config_schema()),
            action_schema_json=dumps(engine.action_schema()),
            contract_version=2 if is_v2(engine) else 1,
            content_json=dumps(present.content()) if present else "",
            view_schema_json=dumps(present.view_schema()) if present else "",
            event_schema_json=dumps(present.event_schema()) if present else "",
        )

    async def CreateMatch(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        who = claims()
        self.host.require_organiser(who)
        creator = access.creator_of(who, request.on_behalf_of_organiser  # type: ignore[arg-type]
                                    if request.HasField("on_behalf_of_organiser") else None)
        require_may_seat(who, request.players)
        previous = (request.previous_match_id, request.previous_final_hash) \
            if request.previous_match_id else None
        live, tokens = await self.host.create_match(
            request.match_id, request.mode, request.seats, request.options_json,
            list(request.players), request.await_client_seeds, request.dev_seed,
            teams=[list(t.seats) for t in request.teams],
            clock=clock_config(request.clock) if request.HasField("clock") else None,
            previous=previous, created_by=creator,
        )
        created = live.created
        players = created["players"] or [""] * created["seats"]
        return rules_pb2.CreateMatchResponse(
            match_id=live.match_id, dice_commitment=created["dice"]["commitment"],
            seat_tokens=[rules_pb2.SeatToken(seat=s, token=t, player=players[s])
                         for s, t in sorted(tokens.items())],
            status=STATUS[live.status], version=live.version, game_id=self.game_id,
        )

    async def CheckMatchConfig(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        """Public: what CreateMatch would refuse of a config, with its reason; nothing made."""
        self.host.check_config(request.mode, request.seats, request.options_json,
                               [list(t.seats) for t in request.teams])
        return rules_pb2.CheckMatchConfigResponse(
            game_id=self.game_id, engine_version=self.host.engine.engine_version)

    async def AddClientSeed(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        count = await self.host.add_client_seed(claims(), request.match_id, request.seed)  # type: ignore[arg-type]
        return rules_pb2.AddClientSeedResponse(seats_with_seeds=count)

    async def StartMatch(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        version, state_hash, already = await self.host.start_match(
            claims(), request.match_id)  # type: ignore[arg-type]
        return rules_pb2.StartMatchResponse(version=version, state_hash=state_hash,
                                            already_started=already)

    def _submit_response(self, match_id: str, seat: int, answer: Answer,
                         with_text: bool) -> rules_pb2.SubmitActionResponse:
        live = answer.live
        # encoded once per version and seat, shared with ListLegalActions, GetView and Play:
        # the answer's decisions and view are the seat's at the match's current version
        decisions = self._seat_decisions(live, seat, with_text)
        view_json = live.derived(("view-json", seat), lambda: dumps(answer.view)) \
            if answer.view is not None else ""
        return rules_pb2.SubmitActionResponse(
            version=answer.version, state_hash=answer.state_hash,
            events=[self.event_message(match_id, e, seat) for e in answer.events],
            status=STATUS[answer.status],
            outcome_json=dumps(answer.outcome) if answer.outcome is not None else "",
            replayed=answer.replayed, decisions=decisions, view_json=view_json,
            game_id=self.game_id, clocks=clock_messages(answer.clocks),
            position_version=live.version,
        )

    def _seat_decisions(self, live: LiveMatch, seat: int,
                        with_text: bool) -> list[rules_pb2.Decision]:
        """The seat's decisions at the match's current version as messages, with their
        ``legal_text`` when ``with_text``: each list made once per version and seat."""
        plain = live.derived(("decisions-pb", seat), lambda: [
            decision_message(d) for d in self.host.decisions_of(live, seat)])
        if not with_text:
            return plain  # type: ignore[no-any-return]
        return live.derived(  # type: ignore[no-any-return]
            ("decisions-text-pb", seat), lambda: self._with_text(live, seat, plain))

    async def SubmitAction(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        expected = request.expected_version if request.HasField("expected_version") else None
        who = claims()
        # with_text is no part of the command: the host never sees it, so a repeat that
        # differs only in it is the same command, and no word reaches the match's log
        answer = await self.host.submit(who, request.match_id, request.command_id,
                                        request.action_json, expected)
        return self._submit_response(request.match_id, who.seat, answer,  # type: ignore[union-attr]
                                     bool(request.with_text))

    async def ListLegalActions(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        live, seat = await self.host.seat_match(claims(), request.match_id)
        with_text = bool(request.with_text)

        def response() -> rules_pb2.ListLegalActionsResponse:
            return rules_pb2.ListLegalActionsResponse(
                version=live.version, decisions=self._seat_decisions(live, seat, with_text),
                game_id=self.game_id)

        # the same message for every ListLegalActions of this seat at this version
        return live.derived(("legal-text-pb" if with_text else "legal-pb", seat), response)

    def _with_text(self, live: LiveMatch, seat: int,
                   decisions: list[rules_pb2.Decision]) -> list[rules_pb2.Decision]:
        """Copies of ``decisions`` with ``legal_text``: the words of each legal action as the
        game's presentation gives them, from the JSON the seat receives (its actions and its
        own view, never the state)."""
        if not decisions:
            return decisions
        view = json.loads(live.derived(("view-json", seat),
                                       lambda: dumps(self.host._view(live, seat))))
        out = []
        for decision in decisions:
            copy = rules_pb2.Decision()
            copy.CopyFrom(decision)
            copy.legal_text.extend(legal_texts(
                self.narrator.present, [json.loads(a) for a in decision.legal_json], view))
            out.append(copy)
        return out

    async def GetView(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        v = await self.host.view(claims(), request.match_id)
        if isinstance(v, FinalView):
            return rules_pb2.GetViewResponse(
                match_id=request.match_id, version=v.version, status=rules_pb2.MATCH_STATUS_ENDED,
                viewer=-1, view_json=v.view_json, outcome_json=v.outcome_json,
                game_id=v.game, mode=v.mode, seats=v.seats, clocks=clock_messages(list(v.clocks)))
        live = v["match"]
        created = live.created
        view_json = ""
        if v["view"] is not None:
            view_json = live.derived(("view-json", v["viewer"]), lambda: dumps(v["view"])) \
                if live.version == v["version"] else dumps(v["view"])
        return rules_pb2.GetViewResponse(
            match_id=request.match_id, version=v["version"], status=STATUS[v["status"]],
            viewer=-1 if v["viewer"] is None else v["viewer"],
            view_json=view_json,
            pending=[rules_pb2.PendingSeat(seat=s, kind=k) for s, k in v["pending"]],
            outcome_json=dumps(v["outcome"]) if v["outcome"] is not None else "",
            state_hash=v["state_hash"], game_id=created["game"], mode=created["mode"],
            seats=created["seats"], clocks=clock_messages(self.host.clocks_view(v["match"])),
        )

    async def WatchMatch(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        """The match's events from ``from_version``, as the caller may see them. Followed with
        a seat token (the seat's own view of hidden events), the stream ends UNAUTHENTICATED
        when that token expires, as Play does: a unary call with it is refused from then on,
        and so must the seat's private events be."""
        who = claims()
        viewer = access.viewer_of(who, request.match_id, self.game_id)
        events = self.host.watch(who, request.match_id, request.from_version).__aiter__()
        if who is None or who.role != "seat":
            async for event in events:
                yield rules_pb2.WatchMatchResponse(
                    event=self.event_message(request.match_id, event, viewer))
            return
        loop = asyncio.get_running_loop()
        expires = token_expiry(loop, who)
        while True:
            try:
                event = await within(anext(events), max(0.0, expires - loop.time()))
            except StopAsyncIteration:
                return
            except TimeoutError:
                log.info("watch stream ended: seat token expired", match_id=request.match_id,
                         seat=who.seat)
                raise Unauthenticated(WATCH_TOKEN_EXPIRED) from None
            if loop.time() >= expires:  # stored before, read after the expiry: not sent
                raise Unauthenticated(WATCH_TOKEN_EXPIRED)
            yield rules_pb2.WatchMatchResponse(
                event=self.event_message(request.match_id, event, viewer))

    async def ExportMatch(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        data, final, count = await self.host.export(claims(), request.match_id)
        return rules_pb2.ExportMatchResponse(export_jsonl=data, final_hash=final, event_count=count)

    async def ExportMatchChunks(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        """ExportMatch's bytes in chunks of at most ``EXPORT_CHUNK_BYTES``; the first message
        carries the final hash, the event count and the total size."""
        data, final, count = await self.host.export(claims(), request.match_id)
        view = memoryview(data)
        log.info("export streamed", match_id=request.match_id, bytes=len(data), events=count)
        for start in range(0, max(len(data), 1), EXPORT_CHUNK_BYTES):
            chunk = bytes(view[start:start + EXPORT_CHUNK_BYTES])
            if start:
                yield rules_pb2.ExportMatchChunksResponse(chunk=chunk)
            else:
                yield rules_pb2.ExportMatchChunksResponse(
                    chunk=chunk, final_hash=final, event_count=count, total_bytes=len(data))

    async def AbandonMatch(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        live, already = await self.host.abandon(claims(), request.match_id, request.reason)
        outcome = rec.public_outcome(await self.host.outcome_of(live))
        return rules_pb2.AbandonMatchResponse(
            match_id=live.match_id, version=live.version, status=STATUS[live.status],
            outcome_json=dumps(outcome) if outcome is not None else "", final_hash=live.head,
            already_abandoned=already, game_id=self.game_id,
        )

    async def ListMatches(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        if request.limit < 0:
            raise InvalidArgument("limit must not be negative")
        limit = min(request.limit or 50, 200)
        return rules_pb2.ListMatchesResponse(game_id=self.game_id, matches=[
            rules_pb2.MatchSummary(
                match_id=live.match_id, game_id=self.game_id, mode=str(live.created["mode"]),
                seats=int(live.created["seats"]), status=STATUS[live.status],
                version=live.version,
                abandoned=live.over and rec.is_abandoned(live.outcome))
            for live in self.host.live.held()[:limit]
        ])

    async def Play(self, request_iterator: AsyncIterator[Any],
                   context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        """The seat stream: events, decisions and views pushed; actions answered in order.

        Two tasks feed one queue: the follower (the match's events from ``from_version``, and
        the seat's position whenever it has caught up; at once when there is nothing stored to
        send, so a seat resuming where it left off learns what it owes) and the reader (the
        answers to the seat's actions). Either one's failure ends the stream with its status
        (a malformed message, the store gone): the stream never lingers, unanswered, holding
        its slot. At the seal the stream ends once the action being answered has its answer."""
        who = claims()
        if who is None or who.role != "seat":
            # refused whatever it sends, and after at most a second even if it sends nothing:
            # a caller without a seat token must not hold a stream (and its slot) while it
            # sends nothing. The second lets a client's first message in before the refusal
            # (an asyncio client whose write meets the stream's end reports INTERNAL in place
            # of the status: grpc/grpc#36066)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(PLAY_OPEN_WAIT_S):
                    await anext(aiter(request_iterator), None)
            if who is None:
                raise Unauthenticated("this call needs a seat token")
            raise PermissionDenied(f"this call needs a seat token, not a {who.role} token")
        first = await play_opening(request_iterator)
        if first is None or first.WhichOneof("kind") != "open":
            raise InvalidArgument(NOT_OPENED)
        match_id = first.open.match_id
        seat = access.seat_of(who, match_id, self.game_id)
        live = await self.host.live_match(match_id)  # NOT_FOUND before anything is streamed
        check_from(live, first.open.from_version)
        out: asyncio.Queue[Any] = asyncio.Queue(maxsize=256)
        acting = asyncio.Lock()
        """Held by the reader while it answers an action, so the end waits for the answer."""
        follower = asyncio.create_task(self._push(match_id, seat, first.open.from_version,
                                                  bool(first.open.with_text), out))
        reader = asyncio.create_task(
            self._read_actions(request_iterator, who, match_id, seat, out, acting))
        loop = asyncio.get_running_loop()
        expires = token_expiry(loop, who)
        expired = False
        try:
            while True:
                try:
                    async with asyncio.timeout_at(expires):
                        item = await out.get()
                except TimeoutError:
                    expired = True
                    break
                if isinstance(item, BaseException):
                    raise item
                if item is None:
                    break
                yield item
            # the match is sealed, or the token expired: the answer of an action in flight
            # still goes out (held, so no action is taken after), then the stream ends
            try:
                async with asyncio.timeout(self.host.call_timeout * 2):
                    await acting.acquire()
            except TimeoutError:
                pass
            while not out.empty():
                item = out.get_nowait()
                if isinstance(item, rules_pb2.PlayResponse) and item.WhichOneof("kind") == "result":
                    yield item
            if expired:
                log.info("play stream ended: seat token expired", match_id=match_id, seat=seat)
                raise Unauthenticated(TOKEN_EXPIRED)
        finally:
            follower.cancel()
            reader.cancel()
            await asyncio.gather(follower, reader, return_exceptions=True)

    async def _push(self, match_id: str, seat: int, from_version: int, with_text: bool,
                    out: asyncio.Queue[Any]) -> None:
        try:
            live = await self.host.live_match(match_id)
            if max(0, from_version) >= live.version:  # nothing stored to send: the position now
                await out.put(rules_pb2.PlayResponse(
                    update=await self._update(match_id, seat, with_text)))
            async for record in self.host.follow(match_id, from_version):
                event = rec.project(record, seat)
                await out.put(rules_pb2.PlayResponse(event=self.event_message(match_id, event, seat)))
                live = await self.host.live_match(match_id)
                if live.version == record["n"]:
                    await out.put(rules_pb2.PlayResponse(
                        update=await self._update(match_id, seat, with_text)))
            await out.put(None)
        except asyncio.CancelledError:
            raise
        except Exception as err:  # the stream ends with its status (UNAVAILABLE, ...)
            await out.put(err)

    async def _update(self, match_id: str, seat: int, with_text: bool) -> rules_pb2.SeatUpdate:
        live = await self.host.live_match(match_id)
        outcome = rec.public_outcome(live.outcome) if live.over else None
        return rules_pb2.SeatUpdate(
            version=live.version, status=STATUS[live.status],
            decisions=self._seat_decisions(live, seat, with_text),
            view_json=live.derived(("view-json", seat), lambda: dumps(self.host._view(live, seat)))
            if live.state is not None else "",
            outcome_json=dumps(outcome) if outcome is not None else "",
            clocks=clock_messages(self.host.clocks_view(live)),
        )

    async def _read_actions(self, requests: AsyncIterator[Any], who: Any, match_id: str, seat: int,
                            out: asyncio.Queue[Any], acting: asyncio.Lock) -> None:
        try:
            async for request in requests:
                async with acting:
                    await self._answer_action(request, who, match_id, out)
        except asyncio.CancelledError:
            raise
        except Exception as err:  # a malformed message (already aborted with its status), ...
            await out.put(err)

    async def _answer_action(self, request: Any, who: Any, match_id: str,
                             out: asyncio.Queue[Any]) -> None:
        if request.WhichOneof("kind") != "action":
            await out.put(rules_pb2.PlayResponse(result=rules_pb2.ActionResult(
                code="INVALID_ARGUMENT", message="after 'open', send only 'action' messages")))
            return
        act = request.action
        if who.refused_from <= time.time():  # its stream ends at once too (Play)
            await out.put(rules_pb2.PlayResponse(result=rules_pb2.ActionResult(
                command_id=act.command_id, code="UNAUTHENTICATED", message=TOKEN_EXPIRED)))
            await out.put(Unauthenticated(TOKEN_EXPIRED))
            return
        expected = act.expected_version if act.HasField("expected_version") else None
        try:
            answer = await self.host.submit(who, match_id, act.command_id, act.action_json, expected)
        except ServiceError as err:
            await out.put(rules_pb2.PlayResponse(result=rules_pb2.ActionResult(
                command_id=act.command_id, code=err.code.name, message=clip(err.reason))))
            return
        except Exception as err:  # never let one action end the seat's stream silently
            log.exception("play action failed", match_id=match_id, error=error_words(err))
            await out.put(rules_pb2.PlayResponse(result=rules_pb2.ActionResult(
                command_id=act.command_id, code="INTERNAL", message="internal error")))
            return
        await out.put(rules_pb2.PlayResponse(result=rules_pb2.ActionResult(
            command_id=act.command_id, code="OK", version=answer.version,
            replayed=answer.replayed)))


def register(server: grpc.aio.Server, host: MatchHost) -> None:
    rules_pb2_grpc.add_RulesServiceServicer_to_server(RulesServicer(host), server)
