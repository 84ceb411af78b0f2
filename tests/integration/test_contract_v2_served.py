"""Contract v2 and turn clocks on the served path (issue 10), with the Counter Duel toy.

Real gRPC, real NATS, the store of the test's settings; the duel engine is
tests/support/duel.py (any-time exchanges, a last-in-first-out counter chain).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.rules import main as rules_main
from services.rules.verify import verify_export
from tests.support import duel

STRIKE, REST, COUNTER, PASS, EXCHANGE = (duel.STRIKE, duel.REST, duel.COUNTER, duel.PASS,
                                         duel.EXCHANGE)



async def create(duel_backend: Backend, client: RulesClient, match_id: str,
                 clock: rules_pb2.ClockConfig | None = None) -> dict[int, str]:
    request = rules_pb2.CreateMatchRequest(match_id=match_id, mode="duel", seats=2, dev_seed="7")
    if clock is not None:
        request.clock.CopyFrom(clock)
    created = await client.stub.CreateMatch(
        request, metadata=(("authorization", f"Bearer {duel_backend.organiser_token()}"),), timeout=10)
    return {t.seat: t.token for t in created.seat_tokens}


async def first_seat(client: RulesClient, match_id: str) -> int:
    return (await client.view(match_id)).pending[0].seat


async def export_of(duel_backend: Backend, client: RulesClient, match_id: str) -> bytes:
    return (await client.export(duel_backend.organiser_token(), match_id)).export_jsonl


async def test_any_time_actions_of_two_seats_interleave_with_a_counter_chain(duel_backend: Backend) -> None:
    client = RulesClient(duel_backend.address("rules-duel"))
    tokens = await create(duel_backend, client, "interleave")
    a = await first_seat(client, "interleave")
    b = 1 - a
    script = [(b, EXCHANGE), (a, STRIKE), (a, EXCHANGE), (b, COUNTER), (a, COUNTER),
              (b, EXCHANGE), (b, COUNTER), (a, PASS)]
    answer = None
    for i, (seat, action) in enumerate(script):
        answer = await client.submit(tokens[seat], "interleave", f"c{i}", action)
        assert answer.game_id == "duel"
        assert answer.view_json, "SubmitAction answers with the seat's view"
    assert answer is not None
    view = json.loads(answer.view_json)
    # chain strike(a) counter(b) counter(a) counter(b): b's last counter cancels a's counter,
    # b's first counter then cancels the strike; exchanges cost 2 health for 1 spark each.
    health, sparks = view["health"], view["sparks"]
    assert (health[a], health[b]) == (8, 6) and (sparks[a], sparks[b]) == (2, 2)
    decisions = {d.kind: d for d in answer.decisions}
    assert decisions["any_time"].standing and decisions["any_time"].priority == 1
    assert not decisions["any_time"].default_json
    # Answering out of turn is refused; an any-time action is not.
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await client.submit(tokens[a], "interleave", "late", STRIKE)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    await client.submit(tokens[a], "interleave", "any", EXCHANGE)
    await client.submit(tokens[a], "interleave", "bye", {"type": "resign"})
    report = verify_export(await export_of(duel_backend, client, "interleave"), engine=duel.ENGINE)
    assert report.ok, report.failure
    assert report.outcome is not None and report.outcome["placements"][a] == 2
    await client.close()


async def test_a_seat_that_never_answers_gets_its_default_and_the_match_finishes(duel_backend: Backend) -> None:
    client = RulesClient(duel_backend.address("rules-duel"))
    # long enough that the active seat (three calls per action) never runs out on a loaded
    # machine (at 150 ms it did now and then under parallel test runs), short enough to end fast
    clock = rules_pb2.ClockConfig(kind=rules_pb2.CLOCK_KIND_PER_DECISION, per_decision_ms=600)
    tokens = await create(duel_backend, client, "silent", clock)
    active = await first_seat(client, "silent")
    silent = 1 - active
    n = 0
    for _ in range(600):  # the active seat strikes whenever it owes; the silent one never answers
        view = await client.view("silent")
        if view.status == rules_pb2.MATCH_STATUS_ENDED:
            break
        if any(p.seat == active for p in view.pending):
            decisions = await client.legal(tokens[active], "silent")
            owed = [d for d in decisions.decisions if not d.standing]
            if owed:
                legal = [json.loads(x) for x in owed[0].legal_json]
                action = STRIKE if STRIKE in legal else PASS
                try:
                    await client.submit(tokens[active], "silent", f"a{n}", action)
                except grpc.aio.AioRpcError as err:
                    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION  # a timeout came first
                n += 1
                continue
        await asyncio.sleep(0.05)
    view = await client.view("silent")
    assert view.status == rules_pb2.MATCH_STATUS_ENDED, "the match did not finish on timeouts"
    data = await export_of(duel_backend, client, "silent")
    records = [json.loads(line) for line in data.splitlines()[:-1]]
    timeouts = [r for r in records if r.get("timeout")]
    assert timeouts and all(r["seat"] == silent for r in timeouts)
    assert all(r["action"] == PASS for r in timeouts if r["decision"] == "respond")
    assert json.loads(view.outcome_json)["placements"][active] == 1
    report = verify_export(data, engine=duel.ENGINE)
    assert report.ok, report.failure
    await client.close()


async def test_fischer_banks_add_their_increment_and_show_in_views(duel_backend: Backend) -> None:
    client = RulesClient(duel_backend.address("rules-duel"))
    clock = rules_pb2.ClockConfig(kind=rules_pb2.CLOCK_KIND_FISCHER, bank_ms=60_000,
                                  increment_ms=5_000)
    tokens = await create(duel_backend, client, "fischer", clock)
    a = await first_seat(client, "fischer")
    for i in range(3):  # a rests three times (it owes a turn every other action)
        answer = await client.submit(tokens[a], "fischer", f"r{i}", REST)
        b = 1 - a
        await client.submit(tokens[b], "fischer", f"b{i}", REST)
    view = await client.stub.GetView(rules_pb2.GetViewRequest(match_id="fischer"),
                                     metadata=(("authorization", f"Bearer {tokens[a]}"),), timeout=5)
    clocks = {c.seat: c for c in view.clocks}
    # 60 s + 3 x 5 s, less the little time each answer took.
    assert 60_000 + 3 * 5_000 - 3_000 <= clocks[a].remaining_ms <= 60_000 + 3 * 5_000
    assert clocks[a].running and clocks[a].deadline_unix_ms > 0
    assert not clocks[b].running
    assert answer.clocks, "SubmitAction's answer carries the clocks"
    await client.close()


async def test_a_restarted_rules_service_applies_a_running_expiry_once(duel_backend: Backend) -> None:
    client = RulesClient(duel_backend.address("rules-duel"))
    clock = rules_pb2.ClockConfig(kind=rules_pb2.CLOCK_KIND_PER_DECISION, per_decision_ms=1_500)
    await create(duel_backend, client, "restart", clock)
    await client.close()
    old = duel_backend.services.pop("rules-duel")
    await old.stop(1)
    await asyncio.sleep(2.0)  # the deadline passes while no rules service runs
    service = await rules_main.start("duel", duel_backend.settings, duel_backend.keys, duel_backend.nats_client,
                                     duel.ENGINE)
    duel_backend.services[service.name] = service
    client = RulesClient(service.address)
    for _ in range(50):
        data = await export_of(duel_backend, client, "restart")
        if b'"timeout":true' in data:
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.5)  # a second expiry, if any, would land now
    records = [json.loads(line) for line in (await export_of(duel_backend, client, "restart")).splitlines()[:-1]]
    first = [r for r in records if r.get("timeout")]
    assert len([r for r in first if r["n"] == 3]) == 1, "the expiry applied once"
    await client.close()


async def _restart_rules(duel_backend: Backend, down_s: float, **settings: Any) -> Any:
    """Stop the duel rules service, wait ``down_s`` with none running, start it again (with
    ``settings`` changed); the new service."""
    import dataclasses

    old = duel_backend.services.pop("rules-duel")
    await old.stop(1)
    await asyncio.sleep(down_s)
    service = await rules_main.start("duel", dataclasses.replace(duel_backend.settings, **settings),
                                     duel_backend.keys, duel_backend.nats_client, duel.ENGINE)
    duel_backend.services[service.name] = service
    return service


async def test_a_clock_that_ran_out_while_the_service_was_down_gets_the_restart_grace(
        duel_backend: Backend) -> None:
    """A seat is not timed out for the rules service's downtime the moment it comes back:
    its running clock gets the grace (here capped at the 2.5 s of a whole decision), once,
    also when the match is rebuilt again in the same process; with grace 0 and no heartbeat
    (so no pause either) the expiry applies at once, as before."""
    client = RulesClient(duel_backend.address("rules-duel"))
    clock = rules_pb2.ClockConfig(kind=rules_pb2.CLOCK_KIND_PER_DECISION, per_decision_ms=2_500)
    tokens = await create(duel_backend, client, "grace", clock)
    await client.close()
    service = await _restart_rules(duel_backend, 3.0)  # both deadlines pass while it is down
    client = RulesClient(service.address)
    view = await client.view("grace")
    seat = view.pending[0].seat
    running = {c.seat: c for c in view.clocks}[seat]
    assert 1_500 < running.remaining_ms <= 2_500, running
    await asyncio.sleep(1.0)  # an expiry applied at the restart would be stored by now
    assert b'"timeout"' not in await export_of(duel_backend, client, "grace")
    host = service.extra["host"]
    host.live.drop("grace")  # rebuilt in the same process: no second grace
    again = {c.seat: c for c in (await client.view("grace")).clocks}[seat]
    assert again.deadline_unix_ms == running.deadline_unix_ms
    await client.submit(tokens[seat], "grace", "in-time", STRIKE)
    records = [json.loads(line) for line in (await export_of(duel_backend, client, "grace")).splitlines()[:-1]]
    acted = [r for r in records if r["type"] == "ActionAccepted"]
    assert acted[0]["command_id"] == "in-time" and not acted[0].get("timeout")

    await create(duel_backend, client, "no-grace", clock)
    await client.close()
    service = await _restart_rules(duel_backend, 3.0, clock_grace_ms=0, clock_heartbeat_ms=0)
    client = RulesClient(service.address)
    for _ in range(10):  # no grace, no pause: the expiry of the downtime applies at once
        data = await export_of(duel_backend, client, "no-grace")
        if b'"timeout":true' in data:
            break
        await asyncio.sleep(0.1)
    assert b'"timeout":true' in data
    await client.close()


async def test_bad_clocks_are_refused_with_a_reason(duel_backend: Backend) -> None:
    client = RulesClient(duel_backend.address("rules-duel"))
    clock = rules_pb2.ClockConfig(kind=rules_pb2.CLOCK_KIND_FISCHER)  # no bank
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await create(duel_backend, client, "bad-clock", clock)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "clock" in (info.value.details() or "")
    await client.close()


async def test_a_campaign_match_starts_from_what_the_previous_one_carried(
        duel_backend: Backend, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from services.cli.main import app
    from services.rules.verify import campaign_links

    client = RulesClient(duel_backend.address("rules-duel"))
    organiser = (("authorization", f"Bearer {duel_backend.organiser_token()}"),)

    async def series(match_id: str, previous: str = "", final: str = "") -> Any:
        return await client.stub.CreateMatch(rules_pb2.CreateMatchRequest(
            match_id=match_id, mode="series", seats=2, previous_match_id=previous,
            previous_final_hash=final), metadata=organiser, timeout=10)

    first = await series("series-1")
    with pytest.raises(grpc.aio.AioRpcError) as running:
        await series("series-x", "series-1", "0" * 64)
    assert running.value.code() == grpc.StatusCode.FAILED_PRECONDITION  # not ended yet
    tokens = {t.seat: t.token for t in first.seat_tokens}
    await client.submit(tokens[0], "series-1", "bye", {"type": "resign"})  # seat 1 wins
    export1 = await export_of(duel_backend, client, "series-1")
    final = json.loads(export1.splitlines()[-1])["final_hash"]
    with pytest.raises(grpc.aio.AioRpcError) as wrong:
        await series("series-y", "series-1", "f" * 64)
    assert wrong.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(grpc.aio.AioRpcError) as not_campaign:
        await client.stub.CreateMatch(rules_pb2.CreateMatchRequest(
            match_id="duel-z", mode="duel", seats=2, previous_match_id="series-1",
            previous_final_hash=final), metadata=organiser, timeout=10)
    assert not_campaign.value.code() == grpc.StatusCode.INVALID_ARGUMENT

    second = await series("series-2", "series-1", final)
    view = json.loads((await client.view("series-2")).view_json)
    assert view["won"] == [0, 1] and view["health"] == [10, 9], "the carried state shapes the start"
    tokens2 = {t.seat: t.token for t in second.seat_tokens}
    await client.submit(tokens2[1], "series-2", "bye", {"type": "resign"})
    export2 = await export_of(duel_backend, client, "series-2")
    assert json.loads(export2.splitlines()[0])["campaign"]["carried"] == {"won": [0, 1]}
    assert verify_export(export2, engine=duel.ENGINE).ok
    assert campaign_links([export1, export2]) == []
    assert campaign_links([export2]) == ["series-2: continues series-1, whose export was not given"]
    tampered = export1.replace(b'"won":[0,1]', b'"won":[1,0]')
    assert campaign_links([tampered, export2])  # the carried state no longer matches
    # The command line checks the links too (the duel engine is a plug-in here).
    files = []
    for name, data in (("one.jsonl", export1), ("two.jsonl", export2)):
        (tmp_path / name).write_bytes(data)
        files.append(str(tmp_path / name))
    runner = CliRunner()
    only_second = runner.invoke(app, ["verify", files[1]],
                                env={"NEON_ENGINES": "duel=tests.support.duel"})
    assert only_second.exit_code == 1 and "campaign link" in only_second.output
    both = runner.invoke(app, ["verify", *files], env={"NEON_ENGINES": "duel=tests.support.duel"})
    assert both.exit_code == 0, both.output
    # and says it did, not only when a link fails
    assert ("ok campaign links: every match that continues another names its final hash and "
            "starts from what it carried on") in " ".join(both.output.split()), both.output
    await client.close()


@pytest.mark.parametrize("policy", [rules_pb2.TIMEOUT_POLICY_FORFEIT, rules_pb2.TIMEOUT_POLICY_BOT])
async def test_after_repeated_timeouts_the_seat_forfeits_or_a_bot_takes_over(
        duel_backend: Backend, policy: int) -> None:
    client = RulesClient(duel_backend.address("rules-duel"))
    clock = rules_pb2.ClockConfig(kind=rules_pb2.CLOCK_KIND_PER_DECISION, per_decision_ms=150,
                                  max_timeouts=2, policy=policy)
    match_id = f"policy-{policy}"
    await create(duel_backend, client, match_id, clock)
    for _ in range(150):  # nobody answers at all
        view = await client.view(match_id)
        if view.status == rules_pb2.MATCH_STATUS_ENDED:
            break
        await asyncio.sleep(0.1)
    assert view.status == rules_pb2.MATCH_STATUS_ENDED, "the match did not end without players"
    export = await export_of(duel_backend, client, match_id)
    records = [json.loads(line) for line in export.splitlines()[:-1]]
    timeouts = [r for r in records if r.get("timeout") is True]
    if policy == rules_pb2.TIMEOUT_POLICY_FORFEIT:
        forfeits = [r for r in records if r.get("timeout") == "forfeit"]
        assert len(forfeits) == 1 and forfeits[0]["action"] == {"type": "resign"}
        loser = forfeits[0]["seat"]
        assert len([r for r in timeouts if r["seat"] == loser]) == 2
        assert json.loads(view.outcome_json)["placements"][loser] == 2
    else:
        by_bot = [r for r in records if r.get("by") == "bot"]
        assert by_bot, "no bot took over a seat"
        assert all(len([r for r in timeouts if r["seat"] == s]) == 2 for s in {r["seat"] for r in by_bot})
    assert verify_export(export, engine=duel.ENGINE).ok
    # a spectator's stream says the clock made those actions, first, in words
    said = {}
    async for message in client.watch(match_id):
        said[message.event.version] = list(message.event.text)
        if message.event.type == "MatchSealed":
            break
    for r in records:
        if r.get("timeout") is True:
            assert said[r["n"]][0] == (f"seat {r['seat']}'s time ran out: the clock played its "
                                       "decision's default"), said[r["n"]]
        elif r.get("timeout") == "forfeit":
            assert said[r["n"]][0] == (f"seat {r['seat']} ran out of time too often: the clock "
                                       "forfeits the match for it"), said[r["n"]]
        elif r.get("by") == "bot":
            assert said[r["n"]][0] == f"a bot plays for seat {r['seat']} (its time ran out)"
    await client.close()
