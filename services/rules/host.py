"""The rules host: commands and queries over matches of one game.

Thin by design: it loads the match log, asks the pure engine, records what the engine
decided (with the dice draws it used) and saves. Per match, commands run one at a
time; engines run in a worker thread because live draws are gRPC calls.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import jsonschema
from eventsourcing.persistence import IntegrityError

from services.platform.canonical import canonical_json, state_hash
from services.platform.draws import RecordingRandomness, SeededRandomness
from services.platform.errors import (
    Aborted,
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    PermissionDenied,
    Unauthenticated,
)
from services.platform.logs import get_logger
from services.platform.tokens import Claims, TokenIssuer
from services.rules import records as rec
from services.rules.app import Match, RulesApplication
from services.rules.dice_client import DiceClient, LiveDraws
from services.rules.export import build_export
from services.rules.games.contract import ConfigError, Decision, GameEngine, MatchConfig
from services.rules.replay import Replayed, config_of, outcome_json, step

MATCH_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_COMMAND_ID = 128
MAX_ACTION_BYTES = 64 * 1024
STATE_CACHE = 2000
ENGINE_THREADS = 16

log = get_logger("rules")


@dataclass
class Answer:
    version: int
    state_hash: str
    events: list[dict[str, Any]]
    status: str
    outcome: dict[str, Any] | None
    replayed: bool = False


def parse_json_object(text: str, what: str, limit: int = MAX_ACTION_BYTES) -> dict[str, Any]:
    if len(text) > limit:
        raise InvalidArgument(f"{what} is larger than {limit} bytes")
    try:
        value = json.loads(text) if text else {}
    except (ValueError, RecursionError) as err:
        raise InvalidArgument(f"{what} is not valid JSON: {err}") from None
    if not isinstance(value, dict):
        raise InvalidArgument(f"{what} must be a JSON object")
    return value


def _json_key(value: Any) -> str:
    """A stable key of a JSON value (sorted keys; true and 1 stay different)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class MatchHost:
    def __init__(
        self,
        engine: GameEngine,
        app: RulesApplication,
        dice: DiceClient,
        issuer: TokenIssuer,
        signing_key: Any,
        *,
        allow_dev_seeds: bool = True,
        seat_token_ttl: int = 7 * 24 * 3600,
        call_timeout: float = 5.0,
        on_saved: Callable[[], None] = lambda: None,
    ) -> None:
        self.engine, self.app, self.dice, self.issuer = engine, app, dice, issuer
        self.signing_key = signing_key
        self.allow_dev_seeds = allow_dev_seeds
        self.seat_token_ttl = seat_token_ttl
        self.call_timeout = call_timeout
        self.on_saved = on_saved
        self._locks: dict[str, asyncio.Lock] = {}
        self._changed: dict[str, asyncio.Condition] = {}
        self._states: OrderedDict[str, Replayed] = OrderedDict()
        # Engine calls block on live draws; their own pool keeps them from starving the
        # default executor that the dice service's and the stores' I/O run on (in one process).
        self._engine_pool = ThreadPoolExecutor(ENGINE_THREADS, thread_name_prefix="engine")
        self._action_validator = jsonschema.Draft202012Validator(engine.action_schema())
        self._config_validator = jsonschema.Draft202012Validator(engine.config_schema())

    # -- plumbing -----------------------------------------------------------------

    def close(self) -> None:
        self._engine_pool.shutdown(wait=False, cancel_futures=True)

    def _lock(self, match_id: str) -> asyncio.Lock:
        return self._locks.setdefault(match_id, asyncio.Lock())

    def _cond(self, match_id: str) -> asyncio.Condition:
        return self._changed.setdefault(match_id, asyncio.Condition())

    async def _load(self, match_id: str) -> Match:
        if not MATCH_ID.match(match_id or ""):
            raise InvalidArgument("match_id must be 1-64 letters, digits, '-' or '_'")
        return await asyncio.to_thread(self.app.get_match, match_id)

    async def _save(self, match: Match) -> None:
        try:
            await asyncio.to_thread(self.app.save, match)
        except IntegrityError:
            self._states.pop(match.match_id, None)
            raise Aborted("the match changed concurrently; fetch the view and retry") from None
        self.on_saved()
        cond = self._cond(match.match_id)
        async with cond:
            cond.notify_all()

    def _replayed(self, match: Match) -> Replayed:
        """The engine state at the match's version, from cache or by replaying its log."""
        cached = self._states.get(match.match_id)
        if cached is None or cached.version > len(match.records):
            cached = Replayed()
        for record in match.records[cached.version:]:
            step(self.engine, cached, record)
        self._states[match.match_id] = cached
        self._states.move_to_end(match.match_id)
        while len(self._states) > STATE_CACHE:
            self._states.popitem(last=False)
        return cached

    async def _run_engine(self, fn: Callable[[RecordingRandomness], Any], match_id: str,
                          prefix: str) -> tuple[Any, RecordingRandomness]:
        draws = LiveDraws(asyncio.get_running_loop(), self.dice, match_id, prefix, self.call_timeout)
        rng = RecordingRandomness(draws)
        result = await asyncio.get_running_loop().run_in_executor(self._engine_pool, fn, rng)
        return result, rng

    def _seal(self, match: Match, body: dict[str, Any]) -> dict[str, Any]:
        return rec.seal_record(match.match_id, len(match.records) + 1, rec.head(match.records), body)

    # -- commands -------------------------------------------------------------------

    def _check_create(self, mode: str, seats: int, options: dict[str, Any],
                      players: list[str], dev_seed: str) -> MatchConfig:
        modes = self.engine.modes()
        if mode not in modes:
            raise InvalidArgument(f"unknown mode {mode!r}; modes: {', '.join(modes)}")
        info = modes[mode]
        if not info.min_seats <= seats <= info.max_seats:
            raise InvalidArgument(
                f"mode {mode} takes {info.min_seats}-{info.max_seats} seats, not {seats}"
            )
        if players and len(players) != seats:
            raise InvalidArgument(f"players lists {len(players)} ids for {seats} seats")
        if dev_seed and not self.allow_dev_seeds:
            raise FailedPrecondition("dev seeds are refused in tournament mode")
        errors = sorted(self._config_validator.iter_errors(options), key=lambda e: e.path)
        if errors:
            raise InvalidArgument(f"options: {errors[0].message}")
        config = MatchConfig(mode=mode, seats=seats, options=options)
        try:
            self.engine.setup(config, SeededRandomness(0))
        except ConfigError as err:
            raise InvalidArgument(f"options: {err}") from None
        return config

    async def create_match(
        self, match_id: str, mode: str, seats: int, options_json: str, players: list[str],
        await_client_seeds: bool, dev_seed: str,
    ) -> tuple[Match, dict[int, str]]:
        match_id = match_id or uuid.uuid4().hex
        if not MATCH_ID.match(match_id):
            raise InvalidArgument("match_id must be 1-64 letters, digits, '-' or '_'")
        options = parse_json_object(options_json, "options_json")
        players = [str(p) for p in players]
        config = self._check_create(mode, seats, options, players, dev_seed)
        async with self._lock(match_id):
            if await asyncio.to_thread(self.app.has_match, match_id):
                match = await self._load(match_id)
                c = match.created
                if (c["mode"], c["seats"], c["options"], c["players"]) != (mode, seats, options, players):
                    raise AlreadyExists(f"match {match_id!r} exists with another configuration")
                return match, self._tokens(match)
            session = await self.dice.open(match_id, dev_seed)
            body = {
                "type": "MatchCreated", "match_id": match_id, "game": self.engine.game_id,
                "mode": mode, "seats": seats, "options": options, "players": players,
                "engine_version": self.engine.engine_version,
                "content_version": self.engine.content_version,
                "dice": {"stream_id": session.stream_id, "commitment": session.commitment,
                         "dev": session.dev},
                "await_client_seeds": bool(await_client_seeds),
            }
            record = rec.seal_record(match_id, 1, rec.head([]), body)
            match = Match(match_id, record)
            if not await_client_seeds:
                await self._start(match, config, [])
            await self._save(match)
            log.info("match created", match_id=match_id, mode=mode, seats=seats,
                     dev_seed=bool(dev_seed))
            return match, self._tokens(match)

    def _tokens(self, match: Match) -> dict[int, str]:
        c = match.created
        players = c["players"] or [""] * c["seats"]
        return {
            seat: self.issuer.issue("seat", match.match_id, seat, players[seat], self.seat_token_ttl)
            for seat in range(c["seats"])
        }

    async def _start(self, match: Match, config: MatchConfig, client_seeds: list[list[Any]]) -> None:
        prefix = f"{match.match_id}/setup"
        state, rng = await self._run_engine(lambda r: self.engine.setup(config, r),
                                            match.match_id, prefix)
        body = {
            "type": "MatchStarted", "client_seeds": client_seeds,
            "draws": [d.to_json() for d in rng.records], "events": [],
            "state_hash": state_hash(self.engine.encode(state)),
        }
        match.start(self._seal(match, body))

    async def add_client_seed(self, claims: Claims, match_id: str, seed: str) -> int:
        seat = self._seat_of(claims, match_id)
        async with self._lock(match_id):
            match = await self._load(match_id)
            if match.status != "created":
                raise FailedPrecondition("client seeds are only taken before the match starts")
            session = await self.dice.add_client_seed(match_id, seat, seed)
            return len(session.client_seeds)

    async def start_match(self, claims: Claims, match_id: str) -> Match:
        self.require_organiser(claims)
        async with self._lock(match_id):
            match = await self._load(match_id)
            if match.status != "created":
                raise FailedPrecondition("the match has already started")
            seeds = await self.dice.client_seeds(match_id)
            await self._start(match, config_of(match.created), seeds)
            await self._save(match)
            return match

    def _seat_of(self, claims: Claims | None, match_id: str) -> int:
        if claims is None:
            raise Unauthenticated("this call needs a seat token")
        if claims.role != "seat":
            raise PermissionDenied(f"this call needs a seat token, not a {claims.role} token")
        claims.require_match(match_id)
        return claims.seat

    def require_organiser(self, claims: Claims | None) -> None:
        """Organisers, and services acting for them (matchmaking), may create and audit."""
        if claims is None:
            raise Unauthenticated("this call needs an organiser token")
        if claims.role not in ("organiser", "service"):
            raise PermissionDenied(f"this call needs an organiser token, not a {claims.role} token")

    async def submit(
        self, claims: Claims | None, match_id: str, command_id: str, action_json: str,
        expected_version: int | None,
    ) -> Answer:
        seat = self._seat_of(claims, match_id)
        if not command_id or len(command_id) > MAX_COMMAND_ID:
            raise InvalidArgument(f"command_id must be 1-{MAX_COMMAND_ID} characters")
        action = parse_json_object(action_json, "action_json")
        async with self._lock(match_id):
            match = await self._load(match_id)
            if command_id in match.commands:
                return self._repeat(match, seat, command_id, action)
            if match.status == "created":
                raise FailedPrecondition("the match has not started yet")
            if match.status in ("ended", "sealed"):
                raise FailedPrecondition("the match has ended")
            if expected_version is not None and expected_version != len(match.records):
                raise Aborted(
                    f"expected version {expected_version}, but the match is at {len(match.records)}"
                )
            replayed = self._replayed(match)
            decision = self._decision(replayed.state, seat, action)
            prefix = f"{match_id}/v{len(match.records) + 1}/{command_id}"
            transition, rng = await self._run_engine(
                lambda r: self.engine.apply(replayed.state, seat, action, r), match_id, prefix
            )
            body = {
                "type": "ActionAccepted", "seat": seat, "command_id": command_id,
                "action": action, "decision": decision.kind, "hidden": decision.hidden,
                "draws": [d.to_json() for d in rng.records],
                "events": rec.engine_events_json(transition.events),
                "state_hash": state_hash(self.engine.encode(transition.state)),
            }
            record = self._seal(match, body)
            match.accept(record)
            outcome = self.engine.outcome(transition.state)
            if outcome is not None:
                await self._finish(match, outcome)
            await self._save(match)
            self._replayed(match)
            log.info("action accepted", match_id=match_id, seat=seat, version=record["n"],
                     decision=decision.kind)
            return self._answer(match, record, seat)

    async def _finish(self, match: Match, outcome: Any) -> None:
        match.end(self._seal(match, {
            "type": "MatchEnded", "outcome": outcome_json(outcome),
            "players": match.created["players"], "game": self.engine.game_id,
            "mode": match.created["mode"],
        }))
        session, seed = await self.dice.close_session(match.match_id)
        match.seal(self._seal(match, {
            "type": "MatchSealed", "seed": seed, "commitment": session.commitment,
        }))

    def _decision(self, state: Any, seat: int, action: dict[str, Any]) -> Decision:
        errors = sorted(self._action_validator.iter_errors(action), key=lambda e: e.path)
        if errors:
            raise InvalidArgument(f"action does not match the {self.engine.game_id} schema: "
                                  f"{errors[0].message}")
        pending = self.engine.pending(state)
        mine = [d for d in pending if d.seat == seat]
        if not mine:
            waiting = sorted({d.seat for d in pending})
            raise FailedPrecondition(f"not your turn: waiting for seat(s) {waiting}")
        reason = self.engine.validate(state, seat, action)
        if reason is not None:
            raise FailedPrecondition(f"illegal action: {reason}")
        key = _json_key(action)
        for decision in mine:
            if any(_json_key(a) == key for a in decision.legal):
                return decision
        return mine[0]

    def _repeat(self, match: Match, seat: int, command_id: str, action: dict[str, Any]) -> Answer:
        record = match.records[match.commands[command_id]["n"] - 1]
        if record["seat"] != seat or canonical_json(record["action"]) != canonical_json(action):
            raise AlreadyExists(f"command id {command_id!r} was already used for another action")
        answer = self._answer(match, record, seat)
        answer.replayed = True
        return answer

    def _answer(self, match: Match, record: dict[str, Any], seat: int) -> Answer:
        n = record["n"]
        version = n
        while version < len(match.records) and match.records[version]["type"] in (
            "MatchEnded", "MatchSealed"
        ):
            version += 1
        ended = match.records[version - 1]["type"] == "MatchSealed"
        outcome = match.records[n]["outcome"] if ended else None
        return Answer(
            version=version, state_hash=record["state_hash"],
            events=[rec.project(r, seat) for r in match.records[n - 1:version]],
            status="ended" if ended else "running", outcome=outcome,
        )

    # -- queries ---------------------------------------------------------------------

    def viewer_of(self, claims: Claims | None, match_id: str) -> int | None:
        if claims is None or claims.role != "seat":
            return None
        claims.require_match(match_id)
        return claims.seat

    async def legal(self, claims: Claims | None, match_id: str) -> tuple[int, list[Decision]]:
        seat = self._seat_of(claims, match_id)
        match = await self._load(match_id)
        if match.status == "created":
            return len(match.records), []
        state = self._replayed(match).state
        return len(match.records), [d for d in self.engine.pending(state) if d.seat == seat]

    async def view(self, claims: Claims | None, match_id: str) -> dict[str, Any]:
        viewer = self.viewer_of(claims, match_id)
        match = await self._load(match_id)
        out: dict[str, Any] = {
            "match": match, "viewer": viewer, "version": len(match.records),
            "status": match.status, "view": None, "pending": [], "outcome": None,
            "state_hash": "",
        }
        if match.status == "created":
            return out
        replayed = self._replayed(match)
        out["view"] = self.engine.view(replayed.state, viewer)
        out["pending"] = [(d.seat, d.kind) for d in self.engine.pending(replayed.state)]
        if viewer is not None:
            out["state_hash"] = replayed.state_hashes[-1][1] if replayed.state_hashes else ""
        ended = [r for r in match.records if r["type"] == "MatchEnded"]
        out["outcome"] = ended[0]["outcome"] if ended else None
        return out

    async def watch(self, claims: Claims | None, match_id: str,
                    from_version: int) -> AsyncIterator[dict[str, Any]]:
        viewer = self.viewer_of(claims, match_id)
        sent = max(0, from_version)
        cond = self._cond(match_id)
        while True:
            match = await self._load(match_id)
            for record in match.records[sent:]:
                yield rec.project(record, viewer)
                sent = record["n"]
            if match.status == "sealed":
                return
            async with cond:
                try:
                    await asyncio.wait_for(cond.wait(), timeout=1.0)
                except TimeoutError:
                    pass

    async def export(self, claims: Claims | None, match_id: str) -> tuple[bytes, str, int]:
        self.require_organiser(claims)
        match = await self._load(match_id)
        data = build_export(match.match_id, self.engine.game_id, match.records, self.signing_key)
        return data, rec.head(match.records), len(match.records)
