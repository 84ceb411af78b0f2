"""The tournament director as a long-running process, over the real services (gRPC, NATS
JetStream, the rules service; PostgreSQL where two replicas share one store):

* it keeps nothing of a tournament that has ended (locks, wake-ups, seat tokens, tasks),
  while a watch still sees every change;
* a watch on one replica is woken by a save on another (a core NATS message naming the
  tournament and its version), not at the fallback re-read ``WATCH_RECHECK`` later;
* the background abandons of a force-ended tournament do not warn for the match ids it may
  never have created (a NOT_FOUND there is expected);
* a match created after ForceEnd stopped waiting for creations, whose own abandon failed, is
  abandoned by the background retries rather than left waiting for its seats.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import nats
import pytest
import structlog

from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.cli.tournament_commands import TournamentClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
from services.platform import bus
from services.platform.grpc_kit import call_metadata
from services.tournament import director as director_module
from services.tournament import main as tournament_main
from services.tournament import wakeups
from services.tournament.director import Director, Options
from tests.integration.conftest import make_settings, started_swiss
from tests.integration.test_nats_permissions import PASSWORDS, secured_nats  # noqa: F401

pytestmark = pytest.mark.timeout(180)
REASON = "the venue closed"
ENDED = (pb.TOURNAMENT_STATUS_FINISHED, pb.TOURNAMENT_STATUS_FORCE_ENDED)
QUICK = Options(poll=0.1, abandon_retries=(0.2, 0.2, 0.2, 0.2, 0.2))


async def until(check: Callable[[], Awaitable[Any]], what: str, timeout: float = 20) -> Any:
    for _ in range(int(timeout / 0.05)):
        if found := await check():
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"no {what} after {timeout:g} s")


def held_for(director: Director, tid: str) -> dict[str, list[Any]]:
    """Every entry the director holds for tournament ``tid`` (keyed by its id, or by the id of
    one of its matches), in any of its dicts, one level of nesting deep."""
    found: dict[str, list[Any]] = {}

    def mine(key: Any) -> bool:
        return isinstance(key, str) and (key == tid or key.startswith(f"{tid}-r"))

    for name, value in vars(director).items():
        if not isinstance(value, dict):
            continue
        keys = [k for k in value if mine(k)]
        keys += [k for inner in value.values() if isinstance(inner, dict)
                 for k in inner if mine(k)]
        if keys:
            found[name] = keys
    return found


class Watched:
    """A WatchTournament stream read in the background: each update's (version, status)."""

    def __init__(self, client: TournamentClient, tid: str) -> None:
        self.updates: list[tuple[int, int]] = []
        self.changed = asyncio.Event()
        self.call = client.stub.WatchTournament(pb.WatchTournamentRequest(tournament_id=tid),
                                                metadata=call_metadata(None))
        self.task = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        async for reply in self.call:
            self.updates.append((reply.tournament.version, reply.tournament.status))
            self.changed.set()

    async def seen(self, version: int, timeout: float = 10) -> float:
        """Seconds until the stream sent ``version`` or a later one."""
        began = asyncio.get_running_loop().time()
        while not self.updates or self.updates[-1][0] < version:
            self.changed.clear()
            left = timeout - (asyncio.get_running_loop().time() - began)
            if left <= 0:
                raise AssertionError(f"the watch did not send version {version} in "
                                     f"{timeout:g} s: {self.updates}")
            await asyncio.wait_for(self.changed.wait(), left)
        return asyncio.get_running_loop().time() - began

    def cancel(self) -> None:
        self.call.cancel()
        self.task.cancel()


async def test_ended_tournaments_leave_nothing_behind_and_a_watch_sees_every_change(
        tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three tournaments, each watched from its creation: two played to their end (the
    organiser decides the table, the round's checkpoint is signed, FinishTournament), one
    force-ended with its match waiting for its seats. The watch is sent each change as it is
    saved (the fallback re-read is 120 s away), ends with the tournament, and afterwards the
    director holds nothing for any of them."""
    monkeypatch.setattr(director_module, "WATCH_RECHECK", 120.0)
    b = await start_backend(make_settings(tmp_path, nats_url), games=["neon-reign"],
                            embedded_nats=False, tournament=True, tournament_options=QUICK)
    c = TournamentClient(b.address("tournament"))
    director: Director = b.services["tournament"].extra["director"]
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    tokens = {n: b.issuer.issue("player", "*", player=n, ttl=600) for n in ("ann", "ben")}
    watches: list[Watched] = []
    try:
        for tid, how in (("tidy_a", "finish"), ("tidy_b", "force"), ("tidy_c", "finish")):
            await c.call("CreateTournament", org, tournament_id=tid, game="neon-reign",
                         mode="single", format_json=json.dumps({"format": "swiss", "rounds": 1}))
            w = Watched(c, tid)
            watches.append(w)
            await w.seen(1)

            async def step(rpc: str, token: str = org, **kw: Any) -> Any:
                reply = await c.call(rpc, token, tournament_id=tid, **kw)  # noqa: B023
                version = (reply.tournament.version
                           if "tournament" in type(reply).DESCRIPTOR.fields_by_name
                           else (await c.call("GetTournament", tournament_id=tid)  # noqa: B023
                                 ).tournament.version)
                await w.seen(version)  # noqa: B023 - sent at once, not 120 s later
                return reply

            await step("OpenRegistration")
            for token in tokens.values():
                await step("Register", token)
            await step("StartTournament")
            await step("NextRound")

            async def recorded() -> bool:
                rnd = (await c.call("GetRound", tournament_id=tid, round=1)).round  # noqa: B023
                return bool(rnd.tables[0].match_id)

            await until(recorded, "MatchCreated")
            if how == "force":
                ending = await step("ForceEnd", reason=REASON)
            else:
                await step("CorrectResult", round=1, table=1, placements=[1, 2],
                           reason="decided at the desk")

                async def complete() -> bool:
                    rnd = (await c.call("GetRound", tournament_id=tid, round=1)  # noqa: B023
                           ).round
                    return rnd.complete

                await until(complete, "round checkpoint")
                ending = await step("FinishTournament")
            await asyncio.wait_for(w.task, 10)  # the stream ends with the tournament
            final = ending.tournament  # (AbandonsConfirmed may follow a ForceEnd)
            assert w.updates[-1] == (final.version, final.status) and final.status in ENDED
            versions = [v for v, _ in w.updates]
            assert versions == sorted(set(versions)), w.updates

        async def tidy() -> bool:
            return not any(held_for(director, tid) for tid in ("tidy_a", "tidy_b", "tidy_c"))

        try:
            await until(tidy, "tidy director", timeout=10)
        except AssertionError:
            raise AssertionError({tid: held_for(director, tid)
                                  for tid in ("tidy_a", "tidy_b", "tidy_c")}) from None
        assert await asyncio.to_thread(director.app.force_ended_ids) == []
    finally:
        for w in watches:
            w.cancel()
        await c.close()
        await b.stop(1)


@pytest.mark.postgres
async def test_a_watch_on_one_replica_is_woken_by_a_save_on_another(
        tmp_path: Path, nats_url: str, postgres_url: str, postgres_schema: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Replicas A and B of the tournament service on one PostgreSQL store, each with its own
    NATS connection. A watch on B is sent each change saved on A within a second, with the
    fallback re-read 120 s away; the wake-up messages name the tournament and its version,
    nothing else. With B's NATS connection closed, the watch falls back to the re-read."""
    monkeypatch.setattr(director_module, "WATCH_RECHECK", 120.0)
    settings = make_settings(tmp_path, nats_url, persistence="postgres",
                             database_url=postgres_url, postgres_schema=postgres_schema)
    b = await start_backend(settings, games=["neon-reign"], embedded_nats=False,
                            tournament=True)
    nc_b = await bus.connect(b.settings.nats_url, "tournament-replica-b")
    replica_b = await tournament_main.start(b.settings, b.keys, nc_b)
    a = TournamentClient(b.address("tournament"))
    on_b = TournamentClient(replica_b.address)
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    tid = "two_replicas"
    heard: list[tuple[str, bytes]] = []

    async def listen(msg: Any) -> None:
        heard.append((msg.subject, msg.data))

    spy = await b.nats_client.subscribe(wakeups.subject(b.settings.namespace, "*"), cb=listen)
    w: Watched | None = None
    try:
        await a.call("CreateTournament", org, tournament_id=tid, game="neon-reign",
                     mode="single", format_json=json.dumps({"format": "swiss", "rounds": 1}))
        w = Watched(on_b, tid)
        await w.seen(1)
        took = [await w.seen((await a.call("OpenRegistration", org, tournament_id=tid)
                              ).tournament.version, timeout=30)]
        for n in ("ann", "ben", "cat"):
            reply = await a.call("Register", org, tournament_id=tid, player_id=n)
            took.append(await w.seen(reply.tournament.version, timeout=30))
        assert max(took) < 1.0, took  # not the fallback's 120 s (nor the 5 s default)

        async def five() -> bool:
            return len(heard) >= 5

        await until(five, "wake-up messages", 5)
        for subject, data in heard:
            assert subject == wakeups.subject(b.settings.namespace, tid)
            body = json.loads(data)
            assert set(body) == {"tournament_id", "version"} and body["tournament_id"] == tid
        assert sorted(json.loads(d)["version"] for _, d in heard) == list(range(1, 6))

        # no wake-ups reach B (its NATS gone): the watch is sent the change at its re-read
        monkeypatch.setattr(director_module, "WATCH_RECHECK", 1.0)
        reply = await a.call("Register", org, tournament_id=tid, player_id="dan")
        await w.seen(reply.tournament.version)  # woken: its next wait is the 1 s one
        await replica_b.extra["wakeups"].stop()
        reply = await a.call("Withdraw", org, tournament_id=tid, player_id="cat")
        took_without = await w.seen(reply.tournament.version, timeout=10)
        assert 0.2 < took_without < 5, took_without
    finally:
        await spy.unsubscribe()
        if w is not None:
            w.cancel()
        await a.close()
        await on_b.close()
        await replica_b.stop(1)
        if not nc_b.is_closed:
            await nc_b.close()
        await b.stop(1)


@dataclasses.dataclass
class Faulty:
    """The director's rules port, around the real client: refuses CreateMatch of the match ids
    in ``refused``, and fails the next ``failing`` AbandonMatch and ``starts_failing``
    StartMatch calls (UNAVAILABLE)."""

    real: Any
    refused: set[str] = dataclasses.field(default_factory=set)
    failing: int = 0
    abandons: list[str] = dataclasses.field(default_factory=list)
    starts_failing: int = 0
    starts: list[str] = dataclasses.field(default_factory=list)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    @staticmethod
    def _down(what: str) -> grpc.aio.AioRpcError:
        return grpc.aio.AioRpcError(grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(),
                                    grpc.aio.Metadata(), f"{what}: connection refused")

    async def create_match(self, game: str, match_id: str, *args: Any, **kw: Any) -> Any:
        if match_id in self.refused:
            raise self._down("create")
        return await self.real.create_match(game, match_id, *args, **kw)

    async def start_match(self, game: str, match_id: str) -> Any:
        self.starts.append(match_id)
        if self.starts_failing > 0:
            self.starts_failing -= 1
            raise self._down("start")
        return await self.real.start_match(game, match_id)

    async def abandon_match(self, game: str, match_id: str, reason: str) -> Any:
        self.abandons.append(match_id)
        if self.failing > 0:
            self.failing -= 1
            raise self._down("abandon")
        return await self.real.abandon_match(game, match_id, reason)


def _clients(b: Backend, *players: str) -> tuple[TournamentClient, RulesClient, str,
                                                  dict[str, str]]:
    """The tournament and Neon Reign rules clients of ``b``, an organiser token and the
    ``players``' tokens."""
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    tokens = {n: b.issuer.issue("player", "*", player=n, ttl=600) for n in players}
    return (TournamentClient(b.address("tournament")), RulesClient(b.address("rules-neon-reign")),
            org, tokens)


async def _faulty_backend(tmp_path: Path, nats_url: str) -> tuple[Backend, Director, Faulty]:
    b = await start_backend(make_settings(tmp_path, nats_url), games=["neon-reign"],
                            embedded_nats=False, tournament=True, tournament_options=QUICK)
    director: Director = b.services["tournament"].extra["director"]
    faulty = Faulty(director.rules)
    director.rules = faulty
    return b, director, faulty


async def test_background_abandons_do_not_warn_for_a_match_never_created(
        tmp_path: Path, nats_url: str) -> None:
    """Table 1's match is created, table 2's creation is refused: ForceEnd's abandons find
    the rules service down (UNAVAILABLE: warned), and the background retries abandon table
    1's match and are told NOT_FOUND for table 2's id, which was never created: expected, no
    warning. Every abandon answered, the log confirms them."""
    b, director, faulty = await _faulty_backend(tmp_path, nats_url)
    tid = "unmade"
    never = f"{tid}-r1-t2"
    faulty.refused.add(never)
    c, rules, org, tokens = _clients(b, "ann", "ben", "cat", "dan")
    try:
        await started_swiss(c, org, tokens, tid)

        async def recorded() -> bool:
            rnd = (await c.call("GetRound", tournament_id=tid, round=1)).round
            return [k.match_id for k in rnd.tables] == [f"{tid}-r1-t1", ""]

        await until(recorded, "table 1's MatchCreated")
        faulty.failing = 2  # ForceEnd's two abandons
        with structlog.testing.capture_logs() as logged:
            await c.call("ForceEnd", org, tournament_id=tid, reason=REASON)

            async def confirmed() -> bool:
                return await asyncio.to_thread(director.app.force_ended_ids) == []

            await until(confirmed, "AbandonsConfirmed")
        assert faulty.abandons.count(never) >= 2  # tried, missed, tried again: NOT_FOUND
        view = await rules.view(f"{tid}-r1-t1")
        assert view.status == rules_pb2.MATCH_STATUS_ENDED
        abandons = ("could not abandon a match of the force-ended tournament",
                    "the rules service knows no such match", "no unrecorded match to abandon",
                    "match abandoned", "gave up abandoning the force-ended tournament's "
                    "matches for now; a repeat ForceEnd or the next start tries again")
        warned = [e["event"] for e in logged if e["event"] in abandons
                  and e["log_level"] in ("warning", "error")]
        assert warned == [abandons[0]] * 2, warned  # ForceEnd's two, the rules service down
    finally:
        await c.close()
        await rules.close()
        await b.stop(1)


async def test_a_creation_forceend_did_not_wait_for_whose_abandon_fails_is_retried(
        tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """NextRound (or a rematch) read the tournament just before ForceEnd's save, and creates
    the table's match after ForceEnd stopped waiting for creations (ForceEnd's abandon of
    that id found none: NOT_FOUND). The creation sees the tournament ended and abandons its match
    itself, but the rules service does not answer that abandon: the match joins the
    background retries and is abandoned, rather than left waiting for its seats."""
    b, director, faulty = await _faulty_backend(tmp_path, nats_url)
    tid = "late"
    late = f"{tid}-r1-t1"
    faulty.refused.add(late)  # until ForceEnd: NextRound's and the driver's tries
    c, rules, org, tokens = _clients(b, "ann", "ben")
    try:
        await started_swiss(c, org, tokens, tid)
        before = await director.get(tid)  # the read that came before ForceEnd's save
        await c.call("ForceEnd", org, tournament_id=tid, reason=REASON)
        assert await asyncio.to_thread(director.app.force_ended_ids) == []  # all answered
        with pytest.raises(grpc.aio.AioRpcError):
            await rules.view(late)  # never created so far

        real_find = director._find
        reads = [before]

        async def find(tournament_id: str) -> Any:
            return reads.pop() if reads else await real_find(tournament_id)

        monkeypatch.setattr(director, "_find", find)
        faulty.refused.clear()
        faulty.failing = 1  # the creation's own abandon
        await director._create_matches(tid, 1)  # the late creation: created, then ended
        assert faulty.abandons.count(late) >= 2  # ForceEnd's (NOT_FOUND), the creation's

        async def abandoned() -> bool:
            view = await rules.view(late)
            return view.status == rules_pb2.MATCH_STATUS_ENDED

        await until(abandoned, "the late match abandoned", timeout=10)
        outcome = json.loads((await rules.view(late)).outcome_json)
        assert outcome["abandoned"] is True and outcome["reason"] == REASON, outcome

        async def tidy() -> bool:
            return not held_for(director, tid)

        await until(tidy, "tidy director", timeout=10)
    finally:
        await c.close()
        await rules.close()
        await b.stop(1)


async def test_the_deployments_nats_permissions_let_tournament_replicas_wake_each_other(
        secured_nats: str) -> None:  # noqa: F811 (the fixture)
    """deploy/nats-auth.conf (k8s/nats.yaml holds the same) on a real nats-server: the
    tournament user publishes and hears the wake-ups with no permission error (each save
    would log one otherwise); another service's user may not publish one."""
    errors: dict[str, list[Exception]] = {"tournament": [], "scoring": []}

    async def connect(user: str) -> Any:
        async def on_error(err: Exception) -> None:
            errors[user].append(err)

        return await nats.connect(f"nats://{user}:{PASSWORDS[user]}@{secured_nats}",
                                  connect_timeout=2, allow_reconnect=False, error_cb=on_error)

    a, b, scoring = await connect("tournament"), await connect("tournament"), await connect(
        "scoring")
    heard: list[tuple[str, int]] = []

    async def hear(tournament_id: str, version: int) -> None:
        heard.append((tournament_id, version))

    listening = wakeups.Wakeups(b, "")
    try:
        await listening.start(hear)
        await b.flush()
        await wakeups.Wakeups(a, "").saved("perm", 7)
        await scoring.publish(wakeups.subject("", "perm"), wakeups.message("perm", 8))
        await a.flush()
        await scoring.flush()

        async def one() -> bool:
            return bool(heard)

        await until(one, "a wake-up", 5)
        await asyncio.sleep(0.3)  # the forged one would have arrived by now
        assert heard == [("perm", 7)]
        assert errors["tournament"] == []
        assert any("permissions violation" in str(e).lower() for e in errors["scoring"])
    finally:
        await listening.stop()
        for nc in (a, b, scoring):
            await nc.close()


async def test_a_ready_call_whose_start_fails_answers_ok_and_the_driver_starts_the_match(
        tmp_path: Path, nats_url: str) -> None:
    """The last seat's ReadyForMatch makes every seat ready, and the rules service misses the
    start (UNAVAILABLE): the call still answers OK (the seat's readiness is stored), saying the
    match is not started, not INTERNAL; the round driver's next pass starts it."""
    b, director, faulty = await _faulty_backend(tmp_path, nats_url)
    tid = "startlate"
    c, rules, org, tokens = _clients(b, "ann", "ben", "cat", "dan")
    try:
        await started_swiss(c, org, tokens, tid)

        async def paired() -> Any:
            rnd = (await c.call("GetRound", tournament_id=tid, round=1)).round
            return rnd if all(k.match_id for k in rnd.tables) else None

        rnd = await until(paired, "both tables' MatchCreated")
        table = rnd.tables[0]
        first, last = table.seats
        ready = await c.call("ReadyForMatch", tokens[first], tournament_id=tid,
                             match_id=table.match_id)
        assert (ready.seats_ready, ready.started) == (1, False)
        # every start fails until let go: the ready call's own, and any the round driver's
        # pass (every 0.1 s) makes once it sees both seats ready, before or after it
        faulty.starts_failing = 10**6
        with structlog.testing.capture_logs() as logged:
            ready = await c.call("ReadyForMatch", tokens[last], tournament_id=tid,
                                 match_id=table.match_id)
        assert (ready.seats_ready, ready.started) == (2, False)
        assert faulty.starts and set(faulty.starts) == {table.match_id}
        warned = [e for e in logged if e["event"] == "starting a match failed; the next pass "
                  "tries again"]
        assert warned and all(w["table"] == table.number for w in warned), logged
        assert all("UNAVAILABLE" in w["error"] for w in warned)
        tried = len(faulty.starts)
        faulty.starts_failing = 0

        async def started() -> bool:
            view = await rules.view(table.match_id)
            return view.status == rules_pb2.MATCH_STATUS_RUNNING

        await until(started, "the driver's start")
        assert len(faulty.starts) > tried  # the driver's pass, after the ready call
        again = await c.call("ReadyForMatch", tokens[last], tournament_id=tid,
                             match_id=table.match_id)
        assert (again.seats_ready, again.started) == (2, True)
    finally:
        await c.close()
        await rules.close()
        await b.stop(1)


async def test_a_replica_that_handed_out_seat_tokens_lets_them_go_when_another_ends_it(
        tmp_path: Path, nats_url: str, postgres_url: str, postgres_schema: str) -> None:
    """Replicas A and B on one store: A drives the tournament, a player asks MyNextMatch on B
    (B keeps the seat tokens it was handed), the organiser force-ends it on A. B lets the
    tokens go on A's wake-up, without a call of its own and without a restart."""
    settings = make_settings(tmp_path, nats_url, persistence="postgres",
                             database_url=postgres_url, postgres_schema=postgres_schema)
    b = await start_backend(settings, games=["neon-reign"], embedded_nats=False,
                            tournament=True, tournament_options=QUICK)
    nc_b = await bus.connect(b.settings.nats_url, "tournament-replica-b")
    replica_b = await tournament_main.start(b.settings, b.keys, nc_b)
    director_b: Director = replica_b.extra["director"]
    a, rules, org, tokens = _clients(b, "ann", "ben")
    on_b = TournamentClient(replica_b.address)
    tid = "handed_on_b"
    try:
        await started_swiss(a, org, tokens, tid)

        async def seat() -> Any:
            mine = (await on_b.call("MyNextMatch", tokens["ann"], tournament_id=tid)).assignment
            return mine if mine.seat_token else None

        await until(seat, "ann's seat token from replica B")
        assert tid in director_b._tokens and tid not in director_b._drivers
        await a.call("ForceEnd", org, tournament_id=tid, reason=REASON)

        async def let_go() -> bool:
            return tid not in director_b._tokens

        await until(let_go, "replica B letting the seat tokens go", 10)
        assert held_for(director_b, tid) == {}
    finally:
        await a.close()
        await rules.close()
        await on_b.close()
        await replica_b.stop(1)
        if not nc_b.is_closed:
            await nc_b.close()
        await b.stop(1)
