"""Fuzzing the gRPC surface of running rules and dice services with hypothesis.

Requests come from strategies built on the protos and the games' actions: garbage bytes to
every method, malformed and non-canonical JSON actions (NaN, 1e999, integers beyond 2**53),
wrong seats and wrong matches, reused command ids with bad JSON, huge and negative numbers;
and, between them, legal actions from ListLegalActions, so that play reaches deep states.

Invariants: no INTERNAL or UNKNOWN ever; nothing stored from a refused request (the match's
stored actions are exactly the accepted command ids); the services keep answering.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from services.genproto.neon.dice.v1 import dice_pb2, dice_pb2_grpc
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.tokens import TokenIssuer

BAD = (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN)
HUGE = [2**53, 2**53 + 1, -(2**63), 2**63 - 1, 2**64, 10**30, -(10**30)]
NON_CANONICAL = ['{"type":"pass","x":9007199254740992}', '{"type":"pass","x":NaN}',
                 '{"type":"pass","x":Infinity}', '{"type":"pass","x":1e999}',
                 '{"type":"pass","x":-99999999999999999999999}', '{"type":"pass","x":-Infinity}']
RULES_METHODS = ["GetGameInfo", "CreateMatch", "AddClientSeed", "StartMatch", "SubmitAction",
                 "ListLegalActions", "GetView", "ExportMatch", "AbandonMatch", "ListMatches"]
DICE_METHODS = ["OpenSession", "AddClientSeed", "Draw", "GetCommitment", "CloseSession",
                "RevealSeed", "ReserveBlocks"]


def json_values() -> st.SearchStrategy[Any]:
    scalars = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
               | st.sampled_from(HUGE) | st.text(max_size=12)
               | st.sampled_from(["pass", "play", "attack", "keep", "", "\u0000", "🎲"]))
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                        | st.dictionaries(st.sampled_from(["type", "card", "cards", "target", "x",
                                                          "seat", "n", "top", "bottom"]),
                                          inner, max_size=4), max_leaves=12)


def action_texts() -> st.SearchStrategy[str]:
    return (json_values().map(json.dumps) | st.sampled_from(NON_CANONICAL)
            | st.text(max_size=40) | st.sampled_from(["", "{", "[]", "null", '"x"', "{}" * 3000]))


@dataclass
class FuzzReport:
    requests: int = 0
    codes: Counter[str] = field(default_factory=Counter)
    internal: list[str] = field(default_factory=list)
    accepted: int = 0
    stored_mismatch: list[str] = field(default_factory=list)


class Target:
    """A match on a running rules service, with its tokens, for the fuzzer's requests."""

    def __init__(self, rules_address: str, dice_address: str, tokens: dict[str, str | None],
                 match_id: str, other_match: str) -> None:
        self.rules_ch = grpc.insecure_channel(rules_address)
        self.dice_ch = grpc.insecure_channel(dice_address)
        self.rules = rules_pb2_grpc.RulesServiceStub(self.rules_ch)
        self.dice = dice_pb2_grpc.DiceServiceStub(self.dice_ch)
        self.tokens, self.match_id, self.other_match = tokens, match_id, other_match
        self.report = FuzzReport()
        self.accepted: set[str] = set()
        self.lock = threading.Lock()

    def close(self) -> None:
        self.rules_ch.close()
        self.dice_ch.close()

    def call(self, stub: Any, method: str, request: Any, token: str | None) -> Any:
        md = [("authorization", f"Bearer {token}")] if token else []
        self.report.requests += 1
        try:
            reply = getattr(stub, method)(request, metadata=md, timeout=10)
        except grpc.RpcError as err:
            code = err.code()
            self.report.codes[code.name] += 1
            if code in BAD:
                self.report.internal.append(f"{method}: {code.name} {err.details()} <- {request!r:.200}")
            return None
        self.report.codes["OK"] += 1
        return reply

    def raw(self, service: str, method: str, payload: bytes, token: str | None) -> None:
        ch = self.rules_ch if service == "rules" else self.dice_ch
        full = f"/neon.{service}.v1.{service.capitalize()}Service/{method}"
        call = ch.unary_unary(full, request_serializer=None, response_deserializer=None)
        self.call(_Raw(call), "call", payload, token)

    def play_legal(self, pick: int) -> None:
        """One legal action of a seat that is pending (to reach deep states)."""
        view = self.call(self.rules, "GetView", rules_pb2.GetViewRequest(match_id=self.match_id),
                         self.tokens["organiser"])
        if view is None or not view.pending:
            return
        seat = view.pending[pick % len(view.pending)].seat
        token = self.tokens.get(f"seat{seat}")
        legal = self.call(self.rules, "ListLegalActions",
                          rules_pb2.ListLegalActionsRequest(match_id=self.match_id), token)
        if legal is None or not legal.decisions or not legal.decisions[0].legal_json:
            return
        options = legal.decisions[0].legal_json
        command_id = f"legal-{self.report.requests}"
        reply = self.call(self.rules, "SubmitAction", rules_pb2.SubmitActionRequest(
            match_id=self.match_id, command_id=command_id, action_json=options[pick % len(options)]),
            token)
        if reply is not None:
            self.accepted.add(command_id)

    def submit(self, token_name: str, command_id: str, action: str, match: str,
               expected: int | None) -> None:
        request = rules_pb2.SubmitActionRequest(match_id=match, command_id=command_id,
                                                action_json=action)
        if expected is not None:
            request.expected_version = expected
        reply = self.call(self.rules, "SubmitAction", request, self.tokens.get(token_name))
        if reply is not None and match == self.match_id:
            self.accepted.add(command_id)

    def stored_actions(self) -> list[str]:
        """Command ids of the ActionAccepted records in the match's export."""
        reply = self.rules.ExportMatch(rules_pb2.ExportMatchRequest(match_id=self.match_id),
                                       metadata=[("authorization", f"Bearer {self.tokens['organiser']}")],
                                       timeout=10)
        out = []
        for line in reply.export_jsonl.decode().splitlines():
            item = json.loads(line)
            record = item.get("record", item)
            if record.get("type") == "ActionAccepted":
                out.append(record["command_id"])
        return out


class _Raw:
    def __init__(self, call: Any) -> None:
        self._call = call

    def call(self, payload: bytes, metadata: Any, timeout: float) -> Any:
        return self._call(payload, metadata=metadata, timeout=timeout)


TOKEN_NAMES = ["seat0", "seat1", "organiser", "other_seat", "service", "garbage", "expired", "none"]


def requests(target: Target) -> st.SearchStrategy[Callable[[], None]]:
    """One fuzz step: a callable that sends one or a few requests."""
    tokens = st.sampled_from(TOKEN_NAMES)
    command_ids = st.sampled_from(["c1", "c2", "c3", "legal-1"]) | st.text(max_size=80)
    matches = st.sampled_from([target.match_id, target.other_match, "", "nope", "x" * 200, "../etc"])
    versions = st.none() | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    big = st.integers(min_value=-(2**31), max_value=2**31 - 1)
    huge = st.integers(min_value=-(2**63), max_value=2**63 - 1)

    submit = st.builds(lambda t, c, a, m, v: lambda: target.submit(t, c, a, m, v),
                       tokens, command_ids, action_texts(), matches, versions)
    reuse = st.builds(lambda a: lambda: (target.submit("seat0", "reused", '{"type":"pass"}',
                                                       target.match_id, None),
                                         target.submit("seat0", "reused", a, target.match_id, None)),
                      st.sampled_from(NON_CANONICAL) | action_texts())
    legal = st.integers(min_value=0, max_value=50).map(lambda p: lambda: target.play_legal(p))
    garbage = st.builds(lambda s, m, b, t: lambda: target.raw(s, m, b, target.tokens.get(t)),
                        st.sampled_from(["rules", "dice"]),
                        st.sampled_from(RULES_METHODS + DICE_METHODS), st.binary(max_size=64), tokens)
    reads = st.builds(lambda m, t, k: lambda: target.call(
        target.rules, k, getattr(rules_pb2, f"{k}Request")(match_id=m), target.tokens.get(t)),
        matches, tokens, st.sampled_from(["GetView", "ListLegalActions", "ExportMatch", "StartMatch"]))
    create = st.builds(lambda m, mode, seats, opts, t: lambda: target.call(
        target.rules, "CreateMatch", rules_pb2.CreateMatchRequest(
            match_id=m, mode=mode, seats=seats, options_json=opts), target.tokens.get(t)),
        st.text(max_size=70), st.text(max_size=20) | st.sampled_from(["single", "solo", "rebirth"]),
        big, action_texts(), tokens)
    dice = st.builds(lambda m, op, n, count, t: lambda: target.call(
        target.dice, "Draw", dice_pb2.DrawRequest(match_id=m, request_id="r", op=op % 8, n=n,
                                                  count=count), target.tokens.get(t)),
        matches, big, big, big, tokens)
    reserve = st.builds(lambda m, first, count, t: lambda: target.call(
        target.dice, "ReserveBlocks", dice_pb2.ReserveBlocksRequest(match_id=m, first=first, count=count),
        target.tokens.get(t)), matches, huge, big, tokens)
    session = st.builds(lambda k, m, t: lambda: target.call(
        target.dice, k, getattr(dice_pb2, f"{k}Request")(match_id=m), target.tokens.get(t)),
        st.sampled_from(["GetCommitment", "RevealSeed", "OpenSession"]), matches, tokens)
    # never the match the other steps play deep into: an abandon would end it
    abandon = st.builds(lambda m, r, t: lambda: target.call(
        target.rules, "AbandonMatch", rules_pb2.AbandonMatchRequest(match_id=m, reason=r),
        target.tokens.get(t)),
        st.sampled_from([target.other_match, "", "nope", "x" * 200, "../etc"]),
        st.text(max_size=20) | st.sampled_from(["", " ", "\u0000", "x" * 5000]), tokens)
    return st.one_of(submit, reuse, legal, legal, garbage, reads, create, dice, reserve, session,
                     abandon)


def run(target: Target, examples: int, seed: int | None = None) -> FuzzReport:
    """``examples`` fuzz steps (each one to three requests), then the stored-actions check.

    Without ``seed`` the run is the same every time (CI); the long run passes one per batch.
    """

    @settings(max_examples=examples, deadline=None, database=None, derandomize=seed is None,
              suppress_health_check=list(HealthCheck))
    @given(step=requests(target))
    def fuzz(step: Callable[[], None]) -> None:
        step()

    (hypothesis_seed(seed)(fuzz) if seed is not None else fuzz)()
    stored = target.stored_actions()
    if sorted(stored) != sorted(target.accepted) or len(stored) != len(set(stored)):
        extra = sorted(set(stored) - target.accepted)[:5]
        missing = sorted(target.accepted - set(stored))[:5]
        target.report.stored_mismatch.append(
            f"stored {len(stored)} vs accepted {len(target.accepted)}; extra {extra}, missing {missing}")
    target.report.accepted = len(target.accepted)
    return target.report


SECRET = "fuzz-token-secret-0123456789abcdef"


@contextlib.contextmanager
def served(folder: Path, nats_url: str) -> Iterator[tuple[str, str, TokenIssuer]]:
    """Dice and the Neon Reign rules service as their own processes (as deployed), on
    SQLite under ``folder``: a crash of a server is a finding, not the fuzzer's own death.
    Yields the rules and dice addresses and the issuer of the deployment's tokens."""
    from services.platform.settings import DEFAULT_PORTS
    from tests.e2e.procs import Cluster, port_env, service_env

    env = service_env({
        "NATS_URL": nats_url, "NEON_VAR_DIR": str(folder / "var"), "NEON_TOKEN_SECRET": SECRET,
        "NEON_SIGNING_KEY": "22" * 32, "NEON_PERSISTENCE": "sqlite", "NEON_LOG_LEVEL": "warning",
        "PYTHONFAULTHANDLER": "1",
        **port_env(list(DEFAULT_PORTS)),
    })
    env["NEON_DICE_ADDR"] = f"127.0.0.1:{env['NEON_DICE_PORT']}"
    cluster = Cluster(["dice", "rules-neon-reign"], env, folder).start()
    try:
        yield cluster["rules-neon-reign"].address, cluster["dice"].address, TokenIssuer(SECRET.encode())
        for name in ("dice", "rules-neon-reign"):
            proc = cluster[name].proc
            assert proc is not None and proc.poll() is None, \
                f"{name} died under the fuzzer (exit {proc.poll() if proc else None}):\n" \
                + cluster[name].log_path.read_text()[-3000:]
    finally:
        cluster.stop()


def new_target(rules: str, dice: str, issuer: TokenIssuer) -> Target:
    """Two fresh Neon Reign matches on ``rules`` and every kind of token, for one fuzz run."""
    from services.cli.client import RulesClient

    organiser = issuer.issue("organiser", "*")
    match_id, other = f"fz-{uuid.uuid4().hex[:8]}", f"fz-{uuid.uuid4().hex[:8]}"

    async def create() -> dict[str, str | None]:
        client = RulesClient(rules)
        try:
            made = await client.create(organiser, match_id=match_id, mode="single", seats=2)
            other_made = await client.create(organiser, match_id=other, mode="single", seats=2)
        finally:
            await client.close()
        tokens: dict[str, str | None] = {f"seat{t.seat}": t.token for t in made.seat_tokens}
        tokens.update(organiser=organiser, other_seat=other_made.seat_tokens[0].token,
                      service=issuer.issue("service", "*", player="fuzz"), garbage="not.a.token",
                      expired=issuer.issue("seat", match_id, 0, ttl=-60), none=None)
        return tokens

    return Target(rules, dice, asyncio.run(create()), match_id, other)
