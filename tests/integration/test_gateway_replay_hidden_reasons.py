"""A replay the gateway fetched from a rules service (anyone may ask for it, as often as they
like) says where its verification or step-through failed, but never with the hidden values
some of those reasons name: a draw mismatch's draw results (deck orders, hands), an engine's
reason for refusing an action, an exception's text. Those go only to whoever holds the
export: an upload is answered with the whole reason, as ``neon verify`` gives it.

Over a real socket, against a real gRPC rules upstream that serves the export (a rules
service whose stored export no longer replays here: release skew between the gateway and the
rules service, a damaged store), since a healthy rules service's own exports verify."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import aiohttp
import grpc
from aiohttp import web
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.cli.backend import Backend
from services.gateway.app import Gateway, Upstreams, build_app, runner
from services.gateway.config import GatewayConfig
from services.gateway.replays import public_reason
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.playing import play_table, random_choice
from services.platform.signing import public_key_hex
from services.rules import records as rec
from services.rules.export import build_export, parse_export
from services.rules.games import load_engine
from services.rules.selfplay import export_game, setups
from services.rules.verify import verify_export
from tests.browser.leakscan import scan
from tests.integration.test_gateway_replay_chunks import rules_upstream
from tests.support.gateway import gateway_for

KEY = Ed25519PrivateKey.generate()


def draw_tampered() -> tuple[bytes, int, list[int]]:
    """A Neon Reign export whose first drawing record has one draw result changed, chained and
    signed again (so only the draw check fails): the export, that record's n, and the true
    result the record held (hidden: the set-up's shuffle)."""
    export = export_game("neon-reign", "single", setups(load_engine("neon-reign"), "single")[0],
                         7, KEY)
    records, checkpoint = parse_export(export)
    target = next(r for r in records if r.get("draws"))
    draw = next(d for d in target["draws"] if len(d["result"]) >= 2)
    true_result = list(draw["result"])
    draw["result"][0], draw["result"][1] = draw["result"][1], draw["result"][0]
    match_id = checkpoint["match_id"]
    chained: list[dict[str, Any]] = []
    for record in records:
        body = {k: v for k, v in record.items() if k not in ("match_id", "n", "prev", "hash")}
        chained.append(rec.seal_record(match_id, len(chained) + 1, rec.head(chained), body))
    return build_export(match_id, checkpoint["game"], chained, KEY), int(target["n"]), true_result


async def replay_answer(export: bytes, upload: bool = False) -> tuple[int, Any]:
    match_id = export.split(b'"match_id":"', 1)[1].split(b'"', 1)[0].decode()
    async with rules_upstream(export, "ok") as (address, _):
        gateway = Gateway(GatewayConfig(port=0), Upstreams({"rules-neon-reign": address}),
                          service_token=lambda: "svc", public_key=public_key_hex(KEY))
        app_runner = runner(build_app(gateway), GatewayConfig(port=0))
        await app_runner.setup()
        site = web.TCPSite(app_runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        try:
            base = f"http://127.0.0.1:{port}"
            url = (f"{base}/api/replay" if upload
                   else f"{base}/api/games/neon-reign/matches/{match_id}/replay")
            async with aiohttp.ClientSession() as http, \
                    http.post(url, data=export if upload else b"") as r:
                return r.status, await r.json()
        finally:
            await app_runner.cleanup()


def holds_list(text: str, values: list[int]) -> bool:
    """Whether ``text`` names the first values of ``values`` as a list, as verify writes them."""
    return str(values[:8])[:-1] in text


async def test_a_fetched_replays_draw_mismatch_names_its_event_not_the_draws() -> None:
    export, n, true_result = draw_tampered()
    # the scenario is real: verify's own reason names the hidden draw results
    full = verify_export(export, public_key=public_key_hex(KEY)).failure
    assert f"event {n}" in full and holds_list(full, true_result), full
    status, report = await replay_answer(export)
    assert status == 200, report
    verification = report["verification"]
    assert not verification["ok"]
    assert verification["failure"].startswith(f"event {n}: "), verification["failure"]
    assert "neon verify" in verification["failure"]
    body = json.dumps(report)
    assert "recomputed" not in body and not holds_list(body, true_result), verification
    assert not re.search(r"\[\d+(, \d+)+\]", verification["failure"] + report["stopped"])


async def test_an_uploaded_exports_draw_mismatch_keeps_the_whole_reason() -> None:
    """Whoever uploads an export holds it whole: its reason is verify's, unchanged."""
    export, n, true_result = draw_tampered()
    status, report = await replay_answer(export, upload=True)
    assert status == 200, report
    failure = report["verification"]["failure"]
    assert failure == verify_export(export, public_key=public_key_hex(KEY)).failure
    assert f"event {n}" in failure and holds_list(failure, true_result)


async def test_a_fetched_replay_that_verifies_is_unchanged() -> None:
    export = export_game("neon-reign", "single", setups(load_engine("neon-reign"), "single")[0],
                         7, KEY)
    status, report = await replay_answer(export)
    assert status == 200 and report["verification"]["ok"] and report["stopped"] == ""
    uploaded = (await replay_answer(export, upload=True))[1]
    assert report["verification"] == uploaded["verification"]
    assert report["frames"] == uploaded["frames"]


def test_reasons_without_hidden_values_are_shown_and_the_others_reduced_to_their_event() -> None:
    kept = [
        "the match is not sealed: its seed is not revealed, so draws cannot be checked",
        "checkpoint: signed with another key than the one given",
        "checkpoint: counts 9 events, the file holds 8",
        "event 12: replayed state hash differs from the stored one",
        "event 40: stored outcome differs from the replayed outcome",
        "event 3: hash does not match its content",
        "exported with engine 1.2.0, replayed with 1.3.0",
        "cannot replay this game here: 'chess'",
    ]
    for text in kept:
        assert public_reason(text) == text
    for text in (
        "event 7: a draw does not match the seed (stored [3, 1, 2], recomputed [1, 2, 3])",
        "event 9: action of seat 1 is illegal: card 'ember-drake' is not in your hand",
        "event 9: does not replay (KeyError: 'ember-drake')",
        "event 5: malformed draw (result must be a list of integers; it holds 'x')",
        "event 4: draw #2: engine asked for shuffle 30x1, log holds shuffle 29x1",
        "something new that names ember-drake",
    ):
        shown = public_reason(text)
        assert "ember-drake" not in shown and "[" not in shown and "30" not in shown, shown
        assert "neon verify" in shown
        if text.startswith("event "):
            assert shown.startswith(text.split(":", 1)[0] + ": "), shown
    # an earlier engine's descriptions: the warning stays, the difference it names does not
    warning = ("event 14: engine event 3 differs from the replay's (stored 'card_drawn', "
               "replayed 'card_played'): engine events and decisions of engine 1.0.0 as an "
               "earlier release wrote them, not checked (only those of the current engine, "
               "1.1.0, are)")
    shown = public_reason(warning)
    assert shown == ("event 14: engine events and decisions of engine 1.0.0 as an earlier "
                     "release wrote them, not checked (only those of the current engine, "
                     "1.1.0, are)"), shown


async def test_a_replay_from_the_services_is_the_spectators_whoever_asks_as_whichever_seat(
    backend: Backend,
) -> None:
    """No seat view of a match through the replay: a seat token, a ``seat`` in the query or
    the body change nothing (nothing is kept between the requests: each is computed); while
    the match runs, a seat's token gets no replay either."""
    organiser = [("authorization", f"Bearer {backend.organiser_token()}")]
    async with gateway_for(backend, GatewayConfig(port=0, replay_cache_bytes=0)) as running, \
            grpc.aio.insecure_channel(backend.address("rules-neon-reign")) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        created = await stub.CreateMatch(
            rules_pb2.CreateMatchRequest(mode="single", seats=2, dev_seed="viewrev"),
            metadata=organiser)
        tokens = {t.seat: t.token for t in created.seat_tokens}
        url = f"{running.url}/api/games/neon-reign/matches/{created.match_id}/replay"

        async def ask(seat: int | None) -> tuple[int, Any]:
            headers = {"Authorization": f"Bearer {tokens[seat]}"} if seat is not None else {}
            async with aiohttp.ClientSession() as http, http.post(
                    url + ("" if seat is None else f"?seat={seat}"), headers=headers,
                    data=b"" if seat is None else json.dumps({"seat": seat}).encode()) as r:
                return r.status, await r.json()

        status, err = await ask(0)
        assert (status, err["code"]) == (400, "failed_precondition"), err
        assert "frames" not in err
        await play_table(stub, created.match_id, tokens, random_choice("viewrev"))
        for _ in range(100):
            exported = await stub.ExportMatch(
                rules_pb2.ExportMatchRequest(match_id=created.match_id), metadata=organiser)
            if b'"MatchSealed"' in exported.export_jsonl:
                break
            await asyncio.sleep(0.05)
        export = bytes(exported.export_jsonl)
        status, public = await ask(None)
        assert status == 200 and public["verification"]["ok"], public
        for seat in (0, 1):
            status, as_seat = await ask(seat)
            assert status == 200 and as_seat == public
        # and what every one of them got holds nothing hidden from a spectator
        leaks, checked = scan([(url, json.dumps(public).encode())], export)
        assert checked == len(export.splitlines()) - 1 and leaks == []
