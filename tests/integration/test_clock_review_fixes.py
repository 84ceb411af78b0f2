"""Turn clocks under failures and races, found by the review of clocks and timeouts (branch
revclocks). Real gRPC, real NATS, the SQLite store and PostgreSQL; a store's failure is the
host's committer raising, a dice service that is down the rules host's dice client raising
UNAVAILABLE, as the real ones do.

- A forfeit whose commit failed (the timeout before it was stored) was never applied: the
  retry rebuilt the match and armed the next deadline, the seat that had timed out kept
  its seat, and the *other* seat's clock ran out next and forfeited it: the wrong seat lost.
- An action that reached the service while its own seat's timeout was being committed
  (after the deadline) waited for the match's lock and was then taken as the answer to the
  seat's *next* decision, one it had never seen: the timeout and the late answer both
  counted. It is refused "too late", as an action the timer had not yet answered is.
- A match the restarted service could not load when it rearmed the clocks (the dice
  service not up yet, a store blip) was never armed: nothing retried, and loading it later
  (a view) does not arm it either, so its absent seat's clock never ran out.
- A step of the system clock moved every deadline: forward, a seat was timed out at the next
  action of anyone; back, it had the step as free time.

And what held (kept as tests): NEON's forfeits of all seats but one end the match for the
seat that played, alone (the last-but-one's forfeit) or with its team (Coalition).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.platform.errors import Unavailable
from services.rules import host as host_module
from services.rules import main as rules_main
from services.rules.dice_client import DiceClient
from services.rules.host import MatchHost
from services.rules.records import check_chain
from services.rules.verify import verify_export
from tests.integration.conftest import make_settings
from tests.support import duel, toy

pytestmark = pytest.mark.timeout(120)

PER_DECISION = rules_pb2.CLOCK_KIND_PER_DECISION


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def backend(request: pytest.FixtureRequest, tmp_path: Path,
                  nats_url: str) -> AsyncIterator[Backend]:
    """Dice and the rules services of the Counter Duel and the Hidden Race toys, beating
    every 200 ms with a 300 ms grace, on SQLite and on PostgreSQL."""
    settings = make_settings(tmp_path, nats_url, persistence=request.param,
                             clock_heartbeat_ms=200, clock_grace_ms=300)
    if request.param == "postgres":
        settings = dataclasses.replace(settings, database_url=request.getfixturevalue("postgres_url"),
                                       postgres_schema=request.getfixturevalue("postgres_schema"))
    b = await start_backend(settings, games=[], embedded_nats=False,
                            engines={"duel": duel.ENGINE, "toy": toy.ENGINE})
    yield b
    await b.stop(1)


def host_of(b: Backend, game: str) -> MatchHost:
    host = b.services[f"rules-{game}"].extra["host"]
    assert isinstance(host, MatchHost)
    return host


async def create(b: Backend, client: RulesClient, game: str, match_id: str,
                 clock: rules_pb2.ClockConfig) -> dict[int, str]:
    created = await client.create(b.organiser_token(), match_id=match_id,
                                  mode="duel" if game == "duel" else "race", seats=2,
                                  dev_seed="5", clock=clock)
    return {t.seat: t.token for t in created.seat_tokens}


async def records_of(b: Backend, client: RulesClient, match_id: str) -> list[dict[str, Any]]:
    export = (await client.export(b.organiser_token(), match_id)).export_jsonl
    records = [json.loads(line) for line in export.splitlines()[:-1]]
    assert check_chain(match_id, records) is None
    return records


async def until_ended(client: RulesClient, match_id: str, timeout_s: float = 20) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout_s
    while (await client.view(match_id)).status != rules_pb2.MATCH_STATUS_ENDED:
        assert loop.time() < end, f"{match_id} never ended"
        await asyncio.sleep(0.05)


def timed_out(records: list[dict[str, Any]]) -> list[tuple[int, Any]]:
    return [(r["seat"], r["timeout"]) for r in records if r.get("timeout")]


@pytest.mark.parametrize("landed", [False, True], ids=["lost", "landed-answer-lost"])
async def test_a_forfeit_whose_commit_failed_forfeits_the_seat_that_timed_out(
        backend: Backend, monkeypatch: pytest.MonkeyPatch, landed: bool) -> None:
    host = host_of(backend, "duel")
    host.expiry_retry_ms = 200
    real_commit = host.committer.commit
    failed: list[int] = []

    async def commit(events: list[Any]) -> None:
        forfeit = [e for e in events if getattr(e, "record", {}).get("timeout") == "forfeit"]
        if forfeit and not failed:
            failed.append(forfeit[0].record["n"])
            if landed:  # stored, but the answer was lost: the host cannot tell
                await real_commit(events)
            raise TimeoutError("the store went away")
        await real_commit(events)

    monkeypatch.setattr(host.committer, "commit", commit)
    client = RulesClient(backend.address("rules-duel"))
    clock = rules_pb2.ClockConfig(kind=PER_DECISION, per_decision_ms=500, max_timeouts=1,
                                  policy=rules_pb2.TIMEOUT_POLICY_FORFEIT)
    match_id = f"forfeit-{'landed' if landed else 'lost'}"
    await create(backend, client, "duel", match_id, clock)
    absent = (await client.view(match_id)).pending[0].seat
    await until_ended(client, match_id)  # nobody plays: the first seat to owe forfeits
    records = await records_of(backend, client, match_id)
    assert failed, "the forfeit's first commit was failed"
    # the seat that timed out resigns, once, right after its timeout; the other seat's
    # clock never ran out (before, it did, and that seat was forfeited instead)
    assert timed_out(records) == [(absent, True), (absent, "forfeit")], timed_out(records)
    ended = next(r for r in records if r["type"] == "MatchEnded")
    assert ended["outcome"]["placements"][absent] == 2
    assert records[-1]["type"] == "MatchSealed"
    export = (await client.export(backend.organiser_token(), match_id)).export_jsonl
    report = verify_export(export, engine=duel.ENGINE)
    assert report.ok, report.failure
    await client.close()


async def test_an_action_arriving_while_its_seats_timeout_commits_is_too_late(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    host = host_of(backend, "toy")
    real_commit = host.committer.commit
    committing = asyncio.Event()

    async def commit(events: list[Any]) -> None:
        if any(getattr(e, "record", {}).get("timeout") is True for e in events) \
                and not committing.is_set():
            committing.set()
            await asyncio.sleep(0.5)  # a slow store: the timeout's commit takes a while
        await real_commit(events)

    monkeypatch.setattr(host.committer, "commit", commit)
    client = RulesClient(backend.address("rules-toy"))
    clock = rules_pb2.ClockConfig(kind=PER_DECISION, per_decision_ms=800)
    tokens = await create(backend, client, "toy", "late-pick", clock)
    await client.submit(tokens[0], "late-pick", "in-time", {"type": "pick", "step": 2})
    # seat 1 never picks in time: its timeout is being committed when its pick arrives
    await asyncio.wait_for(committing.wait(), 10)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await client.submit(tokens[1], "late-pick", "late", {"type": "pick", "step": 3})
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION, refused.value.details()
    assert "too late" in (refused.value.details() or "")
    await client.abandon(backend.organiser_token(), "late-pick", "review: enough")
    records = await records_of(backend, client, "late-pick")
    assert not [r for r in records if r.get("command_id") == "late"], \
        "the late pick was taken as the answer to the next round's decision"
    assert timed_out(records)[0] == (1, True)
    await client.close()


@pytest.mark.parametrize("down", ["dice", "store"])
async def test_a_match_not_loaded_when_the_clocks_were_rearmed_is_armed_when_it_can_be(
        backend: Backend, monkeypatch: pytest.MonkeyPatch, down: str) -> None:
    """The restarted service rearms while the dice service does not answer yet (it reopens a
    match's session to rebuild it), or while the store does not answer its read of the
    clocked matches: the match is armed once they answer."""
    client = RulesClient(backend.address("rules-duel"))
    clock = rules_pb2.ClockConfig(kind=PER_DECISION, per_decision_ms=1_500)
    await create(backend, client, "duel", "rearmed-late", clock)
    absent = (await client.view("rearmed-late")).pending[0].seat
    await client.close()
    old = backend.services.pop("rules-duel")
    await old.stop(1)

    refused: list[str] = []
    real_open = DiceClient.open
    loop = asyncio.get_running_loop()
    up_at = loop.time() + 1.0  # the dice service answers again a second after the restart

    async def dice_down_at_first(self: DiceClient, match_id: str, dev_seed: str = "") -> Any:
        if loop.time() < up_at:
            refused.append(match_id)
            raise Unavailable("the dice service is unavailable (UNAVAILABLE); try again shortly")
        return await real_open(self, match_id, dev_seed)

    def store_down_at_first(app: Any) -> list[str]:
        if loop.time() < up_at:
            refused.append("duel/rearmed-late")
            raise OSError("the store is not up yet")
        return real_scan(app)

    real_scan = host_module._clocked_matches
    if down == "dice":
        monkeypatch.setattr(DiceClient, "open", dice_down_at_first)
    else:
        monkeypatch.setattr(host_module, "_clocked_matches", store_down_at_first)
    service = await rules_main.start("duel", backend.settings, backend.keys,
                                     backend.nats_client, duel.ENGINE)
    backend.services[service.name] = service
    service.extra["host"].expiry_retry_ms = 300
    await asyncio.sleep(max(0.0, up_at - loop.time()) + 0.2)
    assert refused and set(refused) == {"duel/rearmed-late"}, "the rearm met the dice service down"
    client = RulesClient(service.address)
    end = loop.time() + 15
    records: list[dict[str, Any]] = []
    while loop.time() < end:  # the views load the match (they do not arm it)
        records = await records_of(backend, client, "rearmed-late")
        if timed_out(records):
            break
        await asyncio.sleep(0.1)
    assert timed_out(records)[:1] == [(absent, True)], "the absent seat's clock never ran out"
    await asyncio.sleep(0.5)
    records = await records_of(backend, client, "rearmed-late")
    assert [r["n"] for r in records if r.get("timeout")][0] == 3, "applied once, as record 3"
    await client.close()


@pytest.mark.parametrize("step_s", [3600, -3600], ids=["forward", "back"])
async def test_a_step_of_the_system_clock_neither_fires_a_deadline_early_nor_late(
        backend: Backend, monkeypatch: pytest.MonkeyPatch, step_s: int) -> None:
    """The system clock is stepped an hour forward (NTP correcting a slow clock, a VM
    resumed) or back while a seat's 4 s decision runs. Before, the turn clocks read it: a step
    forward timed the seat out at the next action of anyone (and a view showed it 0 ms left),
    a step back gave it an hour more. Each seat has the time it was given, as the seconds
    pass. (The step is the one of ``time.time_ns``, the wall clock the clocks read.)"""
    client = RulesClient(backend.address("rules-duel"))
    clock = rules_pb2.ClockConfig(kind=PER_DECISION, per_decision_ms=4_000)
    tokens = await create(backend, client, "duel", "stepped", clock)
    loop = asyncio.get_running_loop()
    started = loop.time()
    view = await client.view("stepped")
    a = view.pending[0].seat
    real_time_ns = time.time_ns
    monkeypatch.setattr(time, "time_ns", lambda: real_time_ns() + step_s * 1_000_000_000)

    # the other seat's any-time action: an action and a commit (the clock armed again)
    await client.submit(tokens[1 - a], "stepped", "exchange", duel.EXCHANGE)
    view = await client.view("stepped")
    left = {c.seat: c for c in view.clocks}[a]
    elapsed_ms = (loop.time() - started) * 1000
    assert left.running and 4_000 - elapsed_ms - 250 <= left.remaining_ms <= 4_000, left
    records = await records_of(backend, client, "stepped")
    assert not timed_out(records), "timed out early"

    while not timed_out(records):
        assert loop.time() - started < 8, "the deadline did not pass on time"
        await asyncio.sleep(0.1)
        records = await records_of(backend, client, "stepped")
    assert loop.time() - started >= 3.9, "timed out early"
    assert timed_out(records) == [(a, True)]
    assert all(seat["deadline_ms"] is None or seat["deadline_ms"] > 0
               for r in records if "clocks" in r for seat in r["clocks"]["seats"])
    await client.close()


@pytest.fixture
async def neon_backend(tmp_path: Path, nats_url: str) -> AsyncIterator[Backend]:
    from services.rules.games import available

    if "neon" not in available():
        pytest.skip("NEON's engine is not in this build")
    b = await start_backend(make_settings(tmp_path, nats_url), games=["neon"], embedded_nats=False)
    yield b
    await b.stop(1)


@pytest.mark.parametrize(("mode", "seats", "teams"), [
    ("battle-royale", 3, []), ("coalition", 4, [[0, 2], [1, 3]])], ids=["last-but-one", "team"])
async def test_forfeits_of_all_seats_but_one_end_the_match_for_the_seat_that_plays(
        neon_backend: Backend, mode: str, seats: int, teams: list[list[int]]) -> None:
    """NEON under policy forfeit at the first timeout: every seat but the last is absent. Each
    times out once and forfeits (in Coalition a seat's forfeit leaves its team-mate playing);
    the forfeit of the last-but-one ends the match, won by the seat that played (its team),
    with the outcome recorded and the match sealed. No seat that answered in time is
    forfeited."""
    client = RulesClient(neon_backend.address("rules-neon"))
    clock = rules_pb2.ClockConfig(kind=PER_DECISION, per_decision_ms=400, max_timeouts=1,
                                  policy=rules_pb2.TIMEOUT_POLICY_FORFEIT)
    created = await client.create(
        neon_backend.organiser_token(), mode=mode, seats=seats, dev_seed="9", clock=clock,
        teams=[rules_pb2.TeamSeats(seats=t) for t in teams])
    match_id = created.match_id
    player = seats - 1
    token = {t.seat: t.token for t in created.seat_tokens}[player]
    loop = asyncio.get_running_loop()
    end = loop.time() + 60
    answered = 0
    while (await client.view(match_id)).status != rules_pb2.MATCH_STATUS_ENDED:
        assert loop.time() < end, "the match never ended"
        owed = [d for d in (await client.legal(token, match_id)).decisions if not d.standing]
        if owed:  # the seat that plays answers at once, with its decision's default
            answered += 1
            with contextlib.suppress(grpc.aio.AioRpcError):  # the match moved meanwhile
                await client.submit(token, match_id, f"p{answered}",
                                    json.loads(owed[0].default_json))
        await asyncio.sleep(0.02)
    records = await records_of(neon_backend, client, match_id)
    absent = list(range(seats - 1))
    # each absent seat: its timeout, then at once its forfeit; nothing of the seat that played
    pairs = timed_out(records)
    assert len(pairs) == 2 * len(absent) and [s for s, _ in pairs[::2]] == [s for s, _ in pairs[1::2]]
    assert {s for s, _ in pairs} == set(absent), pairs
    assert [t for _, t in pairs] == [True, "forfeit"] * len(absent), pairs
    outcome = next(r for r in records if r["type"] == "MatchEnded")["outcome"]
    assert not outcome.get("draw") and outcome["placements"][player] == 1, outcome
    assert all(outcome["placements"][s] > 1 for s in absent if not any(s in t and player in t
                                                                    for t in teams))
    assert records[-1]["type"] == "MatchSealed"
    export = (await client.export(neon_backend.organiser_token(), match_id)).export_jsonl
    report = verify_export(export)
    assert report.ok, report.failure
    await client.close()
