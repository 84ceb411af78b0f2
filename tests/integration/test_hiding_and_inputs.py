"""Issue 17, defects 1, 2 and 5, on the served path (real gRPC, real NATS).

1. A seat's state hash must not let it test guesses of hidden state: it is keyed with a
   per-match secret (derived from the committed dice seed) and checkable after the seal.
2. A dev seed must not be published: the public MatchCreated names no seed.
5. A reused command id with JSON that cannot be canonicalised is INVALID_ARGUMENT.
"""

from __future__ import annotations

import collections
import json
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.platform.canonical import KEYED_SCHEME, canonical_json, sha256_hex
from services.platform.draws import SeededRandomness, keyed_state_hash, state_key
from services.platform.grpc_kit import call_metadata
from services.platform.playing import SeatTurn, play_table
from services.rules import records as rec
from services.rules.replay import replay
from services.rules.verify import verify_export
from tests.support import toy

NON_CANONICAL = ['{"type":"pick","step":1,"x":9007199254740992}', '{"type":"pick","step":NaN}',
                 '{"type":"pick","step":Infinity}', '{"type":"pick","step":1e999}',
                 '{"type":"pick","step":-99999999999999999999999}', '{"type":"pick","s":"\\ud800"}']


@pytest.fixture
def backend(toy_backend: Backend) -> Backend:
    return toy_backend


async def play(backend: Backend, client: RulesClient, dev_seed: str = "") -> tuple[str, list[str]]:
    created = await client.create(backend.organiser_token(), mode="race", seats=2, dev_seed=dev_seed)
    tokens = {t.seat: t.token for t in created.seat_tokens}
    rng = SeededRandomness(f"chooser:{dev_seed or created.match_id}")
    hashes: list[str] = []

    def choose(turn: SeatTurn) -> dict[str, Any]:
        legal = turn.decisions[0].legal
        return dict(legal[rng.randbelow(len(legal))])

    await play_table(client.stub, created.match_id, tokens, choose,
                     on_answer=lambda answer: hashes.append(answer.state_hash))
    return created.match_id, hashes


async def test_a_seats_state_hash_is_keyed_and_verify_checks_it_after_the_seal(backend: Backend) -> None:
    client = RulesClient(backend.address("rules-toy"))
    match_id, seen = await play(backend, client)
    export = (await client.export(backend.organiser_token(), match_id)).export_jsonl
    records = [json.loads(line) for line in export.splitlines()[:-1]]
    assert records[0]["state_hash_scheme"] == KEYED_SCHEME
    # What a seat saw is not the plain hash of the state, which it could test guesses against.
    plain = [sha256_hex(canonical_json(toy.ENGINE.encode(s)))
             for s in _states(records)]
    assert seen and not set(seen) & set(plain)
    # After the seal anyone recomputes the key from the revealed seed and checks every hash.
    seal = records[-1]
    key = state_key(bytes.fromhex(seal["seed"]), records[0]["dice"]["stream_id"])
    replayed = replay(toy.ENGINE, records, key)
    assert [h for _, h in replayed.state_hashes] == [r["state_hash"] for r in records
                                                      if "state_hash" in r]
    assert set(seen) <= {h for _, h in replayed.state_hashes}
    report = verify_export(export, engine=toy.ENGINE)
    assert report.ok and any("keyed" in c for c in report.checks), report
    # A hash computed with another key does not verify.
    forged = records[2] | {"state_hash": keyed_state_hash(b"k" * 32, b"{}")}
    assert forged["state_hash"] != records[2]["state_hash"]
    await client.close()


def _states(records: list[dict[str, Any]]) -> list[Any]:
    from services.platform.draws import DrawRecord, ReplayRandomness
    from services.rules.replay import config_of

    state, out = None, []
    for r in records:
        draws = ReplayRandomness([DrawRecord.from_json(d) for d in r.get("draws", [])])
        if r["type"] == "MatchStarted":
            state = toy.ENGINE.setup(config_of(records[0]), draws)
            out.append(state)
        elif r["type"] == "ActionAccepted":
            state = toy.ENGINE.apply(state, r["seat"], r["action"], draws).state
            out.append(state)
    return out


class _Counted:
    """A RulesService stub that counts the calls made through it."""

    def __init__(self, stub: Any) -> None:
        self.stub, self.calls = stub, collections.Counter[str]()

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.stub, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            return method(*args, **kwargs)

        return counted


async def test_a_table_of_bots_takes_three_calls_an_action_and_sees_what_its_seats_see(
        backend: Backend) -> None:
    """``play_table`` (``neon play`` with bots only, the CLI's bots at a tournament) asks who
    owes as the seat likeliest to act, and takes a seat's next position from its
    SubmitAction's answer: at most three calls an action (it made four, and a bots-only
    table ran under its token's call rate). Each position it hands to the chooser is the
    one the seat's own GetView and ListLegalActions give at that moment."""
    client = RulesClient(backend.address("rules-toy"))
    counted = _Counted(client.stub)
    created = await client.create(backend.organiser_token(), mode="race", seats=2)
    tokens = {t.seat: t.token for t in created.seat_tokens}
    rng = SeededRandomness("chooser:calls")
    checked = 0

    async def choose(turn: SeatTurn) -> dict[str, Any]:
        nonlocal checked
        own = await client.view(created.match_id, tokens[turn.seat])
        legal = await client.stub.ListLegalActions(
            rules_pb2.ListLegalActionsRequest(match_id=created.match_id),
            metadata=call_metadata(tokens[turn.seat]), timeout=10)
        assert (own.version, legal.version) == (turn.version, turn.version)
        assert json.loads(own.view_json) == turn.view
        assert [list(d.legal) for d in turn.decisions] == [
            [json.loads(a) for a in d.legal_json] for d in legal.decisions
            if d.seat == turn.seat], turn
        checked += 1
        options = turn.decisions[0].legal
        return dict(options[rng.randbelow(len(options))])

    outcome = await play_table(counted, created.match_id, tokens, choose)
    actions = counted.calls["SubmitAction"]
    assert outcome is not None and checked == actions >= 4
    assert sum(counted.calls.values()) <= 3 * actions + 1, counted.calls
    await client.close()


async def test_a_dev_seed_is_not_published(backend: Backend) -> None:
    client = RulesClient(backend.address("rules-toy"))
    match_id, first = await play(backend, client, dev_seed="4242")
    again, second = await play(backend, client, dev_seed="4242")
    assert first == second, "the same dev seed still replays the same match on one deployment"
    for m in (match_id, again):
        export = (await client.export(backend.organiser_token(), m)).export_jsonl
        created = json.loads(export.splitlines()[0])
        public = rec.project(created, None)
        assert "4242" not in json.dumps(public) and public["dice"]["stream_id"] == "dev"
        watched = [json.loads(e.event.payload_json) async for e in client.stub.WatchMatch(
            _watch(m), timeout=10)]
        assert "4242" not in json.dumps(watched[0])
        assert verify_export(export, engine=toy.ENGINE).ok
    await client.close()


def _watch(match_id: str) -> Any:
    from services.genproto.neon.rules.v1 import rules_pb2

    return rules_pb2.WatchMatchRequest(match_id=match_id)


async def test_a_reused_command_id_with_json_that_cannot_be_canonical_is_invalid(backend: Backend) -> None:
    from services.genproto.neon.rules.v1 import rules_pb2

    client = RulesClient(backend.address("rules-toy"))
    created = await client.create(backend.organiser_token(), mode="race", seats=2)
    token = {t.seat: t.token for t in created.seat_tokens}
    match_id = created.match_id
    await client.submit(token[0], match_id, "c1", {"type": "pick", "step": 1})
    for text in NON_CANONICAL:
        for command_id in ("c1", "fresh"):
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await client.stub.SubmitAction(rules_pb2.SubmitActionRequest(
                    match_id=match_id, command_id=command_id, action_json=text),
                    metadata=(("authorization", f"Bearer {token[0]}"),), timeout=5)
            assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (text, info.value.details())
    export = (await client.export(backend.organiser_token(), match_id)).export_jsonl
    actions = [json.loads(line) for line in export.splitlines()[:-1]]
    assert [r["command_id"] for r in actions if r["type"] == "ActionAccepted"] == ["c1"]
    await client.close()


async def test_a_hidden_choice_cannot_be_found_from_its_chain_hash(backend: Backend) -> None:
    """The chain hash every seat and the public receive covers the whole record: the hidden
    action, its private events and draws. Command ids are guessable (the shared client
    library's are ``<prefix><seat>-v<version>``), so without a secret in the record an
    opponent recomputes the hash for each legal answer and learns the face-down pick."""
    from services.platform.canonical import chain_hash
    from services.platform.playing import command_id

    client = RulesClient(backend.address("rules-toy"))
    created = await client.create(backend.organiser_token(), mode="race", seats=2)
    match_id = created.match_id
    tokens = {t.seat: t.token for t in created.seat_tokens}
    before = (await client.view(match_id, tokens[1])).version
    mine = command_id("seat", 0, before)
    await client.submit(tokens[0], match_id, mine, {"type": "pick", "step": 2})
    # What seat 1 receives: every record, projected for it.
    seen: list[dict[str, Any]] = []
    async for response in client.watch(match_id, tokens[1]):
        seen.append(json.loads(response.event.payload_json))
        if response.event.version == before + 1:
            break
    pick, prev = seen[-1], seen[-2]["hash"]
    assert "action" not in pick

    def guess(step: int, **secret: str) -> str:
        body = {**secret, "type": "ActionAccepted", "seat": 0, "command_id": mine,
                "action": {"type": "pick", "step": step}, "decision": pick["decision"],
                "hidden": True, "draws": [],
                "events": [{"kind": "picked", "data": {"seat": 0, "step": step}, "visible_to": [0]},
                           *({**e, "visible_to": None} for e in pick["events"])],
                "state_hash": pick["state_hash"], "match_id": match_id, "n": pick["n"], "prev": prev}
        return chain_hash(match_id, pick["n"], prev, body)

    assert [s for s in (1, 2, 3) if guess(s) == pick["hash"]] == []
    # The guess is the stored record but for its blind: with it (from the organiser's
    # export), the picked step gives the hash, so only the blind stops the search.
    export = (await client.export(backend.organiser_token(), match_id)).export_jsonl
    stored = next(r for r in map(json.loads, export.splitlines()) if r.get("n") == pick["n"])
    assert [s for s in (1, 2, 3) if guess(s, blind=stored["blind"]) == pick["hash"]] == [2]
    await client.close()
