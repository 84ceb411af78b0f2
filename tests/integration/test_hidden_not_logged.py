"""No log line, at DEBUG, holds what a seat may not show the table: a hand, a hidden action's
content (accepted, or refused as illegal or off the schema), the dev seed, a seat token.
Each game is played over the real services (gRPC, NATS, PostgreSQL) with every seat's
random legal answers, a probe of each hidden decision (an action it does not list, refused),
a malformed action, an export and an abandon, and the structured logs of the whole run are
scanned for every value those carried. A match id, seat number, action type and the
refusal's code may be logged; the words of a refusal that quote the action may not."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.genproto.neon.rules.v1 import rules_pb2
from services.platform import logs
from services.platform.draws import SeededRandomness
from tests.support.served_twins import served

pytestmark = pytest.mark.postgres

GAMES = {"barbaric": ("competitive", 3), "neon-knights-2086": ("normal", 3),
         "neon-reign": ("single", 2), "neon": ("rebirth", 2)}
SEED = "logleak-seed-7f3a"
PROBE = "zz-probe-card-91"


def _strings(value: Any, skip: frozenset[str] = frozenset({"type"})) -> set[str]:
    """The strings ``value`` carries (a dict's values but those under ``skip``)."""
    if isinstance(value, dict):
        return {s for k, v in value.items() if k not in skip for s in _strings(v, skip)}
    if isinstance(value, list):
        return {s for v in value for s in _strings(v, skip)}
    return {value} if isinstance(value, str) else set()


def _hands(view: Any) -> set[str]:
    """Every card id under a key naming a hand or a deck in ``view``."""
    out: set[str] = set()
    if isinstance(view, dict):
        for key, value in view.items():
            if any(w in key.lower() for w in ("hand", "deck")) and isinstance(value, list):
                out |= _strings(value, frozenset())
            else:
                out |= _hands(value)
    elif isinstance(view, list):
        for value in view:
            out |= _hands(value)
    return out


def _probe_of(action: dict[str, Any], card: str) -> dict[str, Any]:
    """``action`` with its first card field (a string or a list of them, not its type)
    holding ``card`` instead."""
    for key, value in action.items():
        if key != "type" and isinstance(value, str):
            return {**action, key: card}
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return {**action, key: [card]}
    return {**action, "card": card}


async def _play(client: Any, organiser: str, game: str, steps: int) -> set[str]:
    """Play a match of ``game`` for ``steps`` actions; the hidden values that went by."""
    mode, seats = GAMES[game]
    created = await client.create(organiser, mode=mode, seats=seats, dev_seed=SEED,
                                  players=[f"p{s}" for s in range(seats)],
                                  match_id=f"logleak-{game}")
    match_id = created.match_id
    tokens = {t.seat: t.token for t in created.seat_tokens}
    secrets: set[str] = {SEED, *tokens.values()}
    rng = SeededRandomness(f"logleak:{game}")
    n = 0
    for _ in range(steps):
        owed = []
        hands: dict[int, set[str]] = {}
        for seat, token in tokens.items():
            hands[seat] = _hands(json.loads((await client.view(match_id, token)).view_json))
            legal = await client.legal(token, match_id)
            owed += [(seat, d) for d in legal.decisions if not d.standing]
        secrets |= {c for cards in hands.values() for c in cards}
        if not owed:
            break
        seat, decision = owed[rng.randbelow(len(owed))]
        answers = [json.loads(a) for a in decision.legal_json]
        action = answers[rng.randbelow(len(answers))]
        if decision.hidden:
            secrets |= {s for a in answers for s in _strings(a)}
        # probes, refused: a made-up card, a card of the seat's hand it may not play there,
        # a field too many, a malformed action
        listed = {s for a in answers for s in _strings(a)}
        unlisted = sorted(hands[seat] - listed)
        probes = [_probe_of(action, PROBE), {**action, "extra": PROBE}]
        probes += [_probe_of(action, unlisted[0])] if unlisted else []
        for probe in probes:
            n += 1
            if probe in answers:
                continue
            with pytest.raises(grpc.aio.AioRpcError):
                await client.submit(tokens[seat], match_id, f"p{n}", probe)
        n += 1
        with pytest.raises(grpc.aio.AioRpcError):
            await client.call("SubmitAction", rules_pb2.SubmitActionRequest(
                match_id=match_id, command_id=f"m{n}",
                action_json=json.dumps(action)[:-1] + f', "x": "{PROBE}"'), tokens[seat])
        n += 1
        await client.submit(tokens[seat], match_id, f"a{n}", action)
    await client.export(organiser, match_id)
    try:  # the abandon path too (a match that ended already is refused)
        await client.abandon(organiser, match_id, "log scan")
    except grpc.aio.AioRpcError as err:
        assert err.code() == grpc.StatusCode.FAILED_PRECONDITION, err
    # card ids and the like (a word such as "left" would be found in any line)
    return {s for s in secrets if len(s) >= 4 and re.search(r"[-_\d]", s)} | {PROBE}


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_no_log_line_holds_hidden_information(
        game: str, tmp_path: Path, nats_url: str, postgres_url: str,
        postgres_schema: str) -> None:
    lines = io.StringIO()
    logs.configure("debug", "json", stream=lines)
    try:
        async with served(game, tmp_path, nats_url, postgres_url, postgres_schema) as (
                backend, client):
            secrets = await _play(client, backend.organiser_token(), game, steps=40)
    finally:
        logs.configure("info", "json")
    text = lines.getvalue()
    assert '"level": "debug"' in text or '"level": "info"' in text  # the lines were captured
    assert "call refused" in text and "action accepted" in text
    leaked = sorted(s for s in secrets if re.search(rf"(?<![\w-]){re.escape(s)}(?![\w-])", text))
    assert leaked == [], "\n".join(line for line in text.splitlines()
                                   if any(s in line for s in leaked))[:3000]


async def _play_stream(client: Any, token: str, match_id: str, action: Any) -> Any:
    """``action`` sent on a Play stream: its result."""
    from services.platform.grpc_kit import call_metadata

    async def requests() -> AsyncIterator[Any]:
        yield rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id=match_id))
        yield rules_pb2.PlayRequest(action=rules_pb2.PlayAction(
            command_id="c1", action_json=json.dumps(action)))
        await asyncio.sleep(30)

    async for message in client.stub.Play(requests(), metadata=call_metadata(token),
                                          timeout=20):
        if message.WhichOneof("kind") == "result":
            return message.result
    raise AssertionError("no result")


@pytest.mark.parametrize("path", ["SubmitAction", "Play"])
async def test_an_engine_error_on_a_hidden_answer_logs_not_the_answer(
        path: str, tmp_path: Path, nats_url: str, postgres_url: str, postgres_schema: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine that fails on a hidden answer with the answer in its words (a bug): the
    call is INTERNAL (or the stream's result), and the traceback logged keeps the frames
    but not the answer's cards."""
    from services.rules.games.neon.engine import NeonEngine

    def broken(self: Any, state: Any, seat: int, action: Any, rng: Any) -> Any:
        raise ValueError(f"cannot apply {action!r} to {seat}")

    lines = io.StringIO()
    logs.configure("debug", "json", stream=lines)
    try:
        async with served("neon", tmp_path, nats_url, postgres_url, postgres_schema) as (
                backend, client):
            created = await client.create(backend.organiser_token(), mode="rebirth", seats=2,
                                          dev_seed=SEED, players=["p0", "p1"],
                                          match_id="logleak-engine")
            token = created.seat_tokens[0].token
            decision = next(d for d in (await client.legal(token, created.match_id)).decisions
                            if d.hidden)
            action = json.loads(decision.legal_json[-1])
            secrets = {s for s in _strings(action) if len(s) >= 4 and re.search(r"[-\d]", s)}
            assert secrets
            monkeypatch.setattr(NeonEngine, "apply", broken)
            if path == "Play":
                result = await _play_stream(client, token, created.match_id, action)
                assert result.code == "INTERNAL", result
            else:
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await client.submit(token, created.match_id, "c1", action)
                assert refused.value.code() == grpc.StatusCode.INTERNAL
    finally:
        logs.configure("info", "json")
    text = lines.getvalue()
    assert "cannot apply" in text and "Traceback" in text
    leaked = sorted(s for s in secrets if s in text)
    assert leaked == [], "\n".join(line for line in text.splitlines()
                                   if any(s in line for s in leaked))[:3000]


async def test_the_gateway_logs_not_the_words_of_a_refused_hidden_answer(
        tmp_path: Path, nats_url: str) -> None:
    """Through the gateway (real HTTP, then real gRPC): a hidden answer off the schema and
    one naming a card of the seat's hand it may not choose are refused to the seat in words
    that quote them, and neither the gateway's log lines nor the rules service's hold them."""
    import aiohttp

    from tests.integration.conftest import make_settings
    from tests.support.gateway import backend_and_gateway

    lines = io.StringIO()
    logs.configure("debug", "json", stream=lines)
    try:
        settings = dataclasses.replace(make_settings(tmp_path, nats_url), log_level="debug")
        async with backend_and_gateway(settings, games=["neon"]) as (backend, gateway):
            from services.cli.client import RulesClient

            client = RulesClient(backend.address("rules-neon"))
            try:
                created = await client.create(backend.organiser_token(), mode="rebirth",
                                              seats=2, dev_seed=SEED, players=["p0", "p1"],
                                              match_id="logleak-gw")
                token = created.seat_tokens[0].token
                decision = next(d for d in (await client.legal(token, "logleak-gw")).decisions
                                if d.hidden)
                hand = _hands(json.loads((await client.view("logleak-gw", token)).view_json))
            finally:
                await client.close()
            action = json.loads(decision.legal_json[-1])
            secrets = {s for s in hand | set(_strings(action))
                       if len(s) >= 4 and re.search(r"[-\d]", s)}
            assert secrets
            url = gateway.url + "/games/neon/neon.rules.v1.RulesService/SubmitAction"
            words = []
            bodies: list[Any] = [json.dumps({**action, "extra": PROBE}),
                                 json.dumps(_probe_of(action, PROBE)),
                                 {**action, "extra": PROBE}]  # an object, not its JSON text
            for n, probe in enumerate(bodies):
                body = {"matchId": "logleak-gw", "commandId": f"g{n}", "actionJson": probe}
                async with aiohttp.ClientSession() as http, http.post(
                        url, data=json.dumps(body).encode(),
                        headers={"Content-Type": "application/json",
                                 "Authorization": f"Bearer {token}"}) as answer:
                    assert answer.status in (400, 412), answer.status
                    words.append(await answer.text())
            assert any(s in w for w in words for s in secrets | {PROBE}), words  # quoted to it
    finally:
        logs.configure("info", "json")
    text = lines.getvalue()
    assert '"service": "gateway"' in text and "call refused" in text
    leaked = sorted(s for s in secrets | {PROBE} if s in text)
    assert leaked == [], "\n".join(line for line in text.splitlines()
                                   if any(s in line for s in leaked))[:3000]


async def test_no_log_line_holds_a_client_seed_or_the_server_seed(
        tmp_path: Path, nats_url: str, postgres_url: str, postgres_schema: str) -> None:
    """A match on client seeds (one refused first), started, played a little, abandoned and
    exported: no log line holds a seat's client seed, nor the server seed (revealed in the
    seal, never logged before nor after)."""
    seeds = {0: "client-seed-of-seat-0-5b1e", 1: "client-seed-of-seat-1-c4d2"}
    lines = io.StringIO()
    logs.configure("debug", "json", stream=lines)
    try:
        async with served("neon", tmp_path, nats_url, postgres_url, postgres_schema) as (
                backend, client):
            organiser = backend.organiser_token()
            created = await client.create(organiser, mode="rebirth", seats=2,
                                          await_client_seeds=True, players=["p0", "p1"],
                                          match_id="logleak-seeds")
            tokens = {t.seat: t.token for t in created.seat_tokens}
            with pytest.raises(grpc.aio.AioRpcError):
                await client.call("AddClientSeed", rules_pb2.AddClientSeedRequest(
                    match_id="logleak-seeds", seed=seeds[0] + "\x07"), tokens[0])
            for seat, seed in seeds.items():
                await client.call("AddClientSeed", rules_pb2.AddClientSeedRequest(
                    match_id="logleak-seeds", seed=seed), tokens[seat])
            await client.call("StartMatch", rules_pb2.StartMatchRequest(
                match_id="logleak-seeds"), organiser)
            for seat, token in tokens.items():
                for d in (await client.legal(token, "logleak-seeds")).decisions:
                    await client.submit(token, "logleak-seeds", f"s{seat}",
                                        json.loads(d.legal_json[0]))
                    break
            await client.abandon(organiser, "logleak-seeds", "log scan")
            exported = (await client.export(organiser, "logleak-seeds")).export_jsonl
    finally:
        logs.configure("info", "json")
    records = [json.loads(line) for line in exported.splitlines() if line.strip()]
    sealed = [r for r in records if "MatchSealed" in json.dumps(r)]
    server_seed = next(v for r in sealed for k, v in _items(r) if k == "seed")
    assert isinstance(server_seed, str) and len(server_seed) >= 16
    text = lines.getvalue()
    assert "call refused" in text and "match abandoned" in text
    leaked = sorted(s for s in (*seeds.values(), server_seed) if s in text)
    assert leaked == [], "\n".join(line for line in text.splitlines()
                                   if any(s in line for s in leaked))[:3000]


def _items(value: Any) -> list[tuple[str, Any]]:
    """Every (key, value) of ``value``, deep."""
    if isinstance(value, dict):
        return [*value.items(), *(i for v in value.values() for i in _items(v))]
    if isinstance(value, list):
        return [i for v in value for i in _items(v)]
    return []


async def test_an_engine_error_on_a_clock_default_logs_not_the_answer(
        tmp_path: Path, nats_url: str, postgres_url: str, postgres_schema: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The clock answers a hidden decision with its default (then the bot plays the seat):
    an engine failing on it with the answer in its words has the expiry's traceback logged
    without the answer's cards."""
    from services.rules.games.neon.engine import NeonEngine

    def broken(self: Any, state: Any, seat: int, action: Any, rng: Any) -> Any:
        raise ValueError(f"cannot apply {action!r} to {seat}")

    lines = io.StringIO()
    logs.configure("debug", "json", stream=lines)
    try:
        async with served("neon", tmp_path, nats_url, postgres_url, postgres_schema) as (
                backend, client):
            clock = rules_pb2.ClockConfig(kind=rules_pb2.CLOCK_KIND_PER_DECISION,
                                          per_decision_ms=100, max_timeouts=1,
                                          policy=rules_pb2.TIMEOUT_POLICY_BOT)
            created = await client.create(backend.organiser_token(), mode="rebirth", seats=2,
                                          dev_seed=SEED, players=["p0", "p1"], clock=clock,
                                          match_id="logleak-clock")
            secrets: set[str] = set()
            for t in created.seat_tokens:
                for d in (await client.legal(t.token, created.match_id)).decisions:
                    secrets |= {s for a in d.legal_json for s in _strings(json.loads(a))
                                if len(s) >= 4 and re.search(r"[-\d]", s)}
            assert secrets
            monkeypatch.setattr(NeonEngine, "apply", broken)
            for _ in range(100):
                await asyncio.sleep(0.05)
                if "cannot apply" in lines.getvalue():
                    break
    finally:
        logs.configure("info", "json")
    text = lines.getvalue()
    assert "cannot apply" in text and "clock expiry failed" in text
    leaked = sorted(s for s in secrets if s in text)
    assert leaked == [], "\n".join(line for line in text.splitlines()
                                   if any(s in line for s in leaked))[:3000]


TWINS = {"barbaric": ("competitive", 3, {}), "neon-knights-2086": ("normal", 3,
                                                                   {"hidden_speeds": True}),
         "neon-reign": ("hero-match", 2, {}), "neon": ("rebirth", 2, {})}


def _lines_of(text: str, match_id: str) -> list[dict[str, Any]]:
    """The log lines about ``match_id``, less what differs between any two matches (times,
    request ids, the id itself)."""
    out = []
    for line in text.splitlines():
        try:
            fields = json.loads(line)
        except ValueError:
            continue
        if fields.get("match_id") == match_id:
            out.append({k: v for k, v in fields.items()
                        if k not in ("timestamp", "request_id", "match_id")})
    return out


async def _twin_lines(game: str, tmp_path: Path, nats_url: str, postgres_url: str,
                      postgres_schema: str) -> list[tuple[Any, Any]]:
    """The log lines of twin matches of ``game`` that differ, pair by pair."""
    from tests.support.served_twins import create_twins, play_twins

    mode, seats, options = TWINS[game]
    lines = io.StringIO()
    logs.configure("debug", "json", stream=lines)
    try:
        async with served(game, tmp_path, nats_url, postgres_url, postgres_schema) as (
                backend, client):
            a, b = await create_twins(client, backend.organiser_token(), mode=mode,
                                      seats=seats, options=options, seed=f"logtwins-{game}")

            def divert(decision: Any, action: Any, legal_b: list[Any]) -> Any:
                return next((x for x in reversed(legal_b) if x != action), None)

            def probes(viewer: int | None) -> list[Any]:
                return [{"type": "choose_card", "card": PROBE}, {"type": "zz", "x": PROBE}]

            report = await play_twins(a, b, secret_seat=0, divert=divert, probes=probes,
                                      seed=f"logtwins-{game}", after_divert=15)
    finally:
        logs.configure("info", "json")
    assert report.diverted, report.parted
    text = lines.getvalue()
    seen_a, seen_b = _lines_of(text, a.match_id), _lines_of(text, b.match_id)
    assert any(x.get("event") == "action accepted" for x in seen_a)
    assert any(x.get("event") == "call refused" for x in seen_a)
    assert len(seen_a) == len(seen_b), (len(seen_a), len(seen_b))
    return [(x, y) for x, y in zip(seen_a, seen_b, strict=True) if x != y]


@pytest.mark.parametrize("game", sorted(TWINS))
async def test_twin_matches_log_the_same_lines(
        game: str, tmp_path: Path, nats_url: str, postgres_url: str,
        postgres_schema: str) -> None:
    """Twin matches (tests/support/served_twins.py: one seat answers its hidden decisions
    otherwise, every other answer the same, probes refused in both) write the same log
    lines, line for line, at DEBUG, until the rules reveal the difference: a line that
    differed would tell its reader the hidden answer."""
    differ = await _twin_lines(game, tmp_path, nats_url, postgres_url, postgres_schema)
    assert differ == [], differ[:3]


async def test_a_planted_log_of_a_hidden_answer_is_found(
        tmp_path: Path, nats_url: str, postgres_url: str, postgres_schema: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison can fail: a line logging a digest of each action (no card in it to
    hide) differs between the twins."""
    import hashlib

    from services.rules import host

    original = host.MatchHost._decision

    def planted(self: Any, live: Any, seat: int, action: dict[str, Any]) -> Any:
        host.log.info("planted", match_id=live.match_id, digest=hashlib.sha256(
            json.dumps(action, sort_keys=True).encode()).hexdigest())
        return original(self, live, seat, action)

    monkeypatch.setattr(host.MatchHost, "_decision", planted)
    differ = await _twin_lines("barbaric", tmp_path, nats_url, postgres_url, postgres_schema)
    assert differ and all(x["event"] == "planted" for x, _ in differ), differ[:3]
