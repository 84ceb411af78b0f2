"""Twin matches over the real services: what a hidden answer tells the rest of the table.

Two matches of one game are created with the same dev seed on one deployment, so they draw
the same (a dev session's draws do not depend on the match id: README, ``--seed``). Both are
played with the same actions, except one seat's answers to its hidden decisions, which differ.
Until a public event tells the difference (a reveal the rules make), everything another seat
or a spectator receives must be the same in both matches: GetView, ListLegalActions with their
words, the refusals of probing actions, the answers to their own actions, and their WatchMatch
streams. Only what is keyed or random is left out of the comparison (chain and state hashes,
the match ids). A difference is a leak of the hidden answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from google.protobuf.json_format import MessageToDict

from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.platform.draws import SeededRandomness

KEYED = frozenset({"matchId", "match_id", "session", "stateHash", "state_hash", "chainHash",
                   "hash"})
"""Fields that differ between any two matches (the ids, the dice session named after the match)
or are keyed or blinded (hashes)."""

Action = dict[str, Any]


@contextlib.asynccontextmanager
async def served(game: str, tmp_path: Path, nats_url: str, postgres_url: str,
                 postgres_schema: str) -> AsyncIterator[tuple[Backend, RulesClient]]:
    """``game``'s rules service (and dice) on PostgreSQL and the real NATS, and a client."""
    from tests.integration.conftest import make_settings

    settings = dataclasses.replace(make_settings(tmp_path, nats_url, persistence="postgres"),
                                   database_url=postgres_url, postgres_schema=postgres_schema)
    backend = await start_backend(settings, games=[game], embedded_nats=False)
    client = RulesClient(backend.address(f"rules-{game}"))
    try:
        yield backend, client
    finally:
        await client.close()
        await backend.stop(1)
Divert = Callable[[Any, Action, list[Action]], Action | None]
"""(the decision in match A, A's answer, the legal answers in B) -> B's answer, or None: the
same as A's."""
Steer = Callable[[Any, list[Action]], Action | None]
"""(a decision of the secret seat in match A, its legal answers) -> the answer A gives, or None:
a random one. Each deployment draws its own dev-seeded game (the dev secret is its own), so a
test that needs the secret seat to reach a decision steers it there rather than hope."""


def comparable(value: Any) -> Any:
    """``value`` with embedded JSON parsed and the :data:`KEYED` fields left out."""
    if isinstance(value, dict):
        return {k: comparable(v) for k, v in value.items() if k not in KEYED}
    if isinstance(value, list):
        return [comparable(v) for v in value]
    if isinstance(value, str) and value[:1] in "[{":
        try:
            return comparable(json.loads(value))
        except ValueError:
            return value
    return value


@dataclass
class Match:
    client: RulesClient
    match_id: str
    tokens: dict[int, str]
    probes_sent: int = 0

    async def owed(self) -> list[tuple[int, Any]]:
        """(seat, decision) of every owed decision, seat by seat."""
        view = await self.client.view(self.match_id)
        out = []
        for seat in sorted({p.seat for p in view.pending}):
            legal = await self.client.legal(self.tokens[seat], self.match_id)
            out += [(seat, d) for d in legal.decisions if not d.standing]
        return out

    async def act(self, seat: int, action: Action, n: int) -> Any:
        return await self.client.submit(self.tokens[seat], self.match_id, f"a{n}", action,
                                        with_text=True)

    async def received(self, viewer: int | None, probes: Sequence[Action]) -> dict[str, Any]:
        """What ``viewer`` (a seat, or None: the public) is told now: the view, and for a
        seat its decisions with their words and the refusals of ``probes`` (each one not
        legal for it now; a legal one is left out, never sent)."""
        token = None if viewer is None else self.tokens[viewer]
        out: dict[str, Any] = {"view": MessageToDict(await self.client.view(self.match_id, token))}
        if token is None:
            return comparable(out)
        legal = await self.client.call("ListLegalActions", rules_pb2.ListLegalActionsRequest(
            match_id=self.match_id, with_text=True), token)
        out["legal"] = MessageToDict(legal)
        listed = [json.loads(a) for d in legal.decisions for a in d.legal_json]
        refusals = []
        for probe in probes:
            if probe in listed:
                refusals.append("listed")
                continue
            self.probes_sent += 1
            try:
                await self.client.submit(token, self.match_id, f"probe-{self.probes_sent}", probe)
            except grpc.aio.AioRpcError as err:
                refusals.append(f"{err.code().name}: {err.details()}")
            else:
                raise AssertionError(f"a probe was accepted: {probe}")
        out["refusals"] = refusals
        return comparable(out)

    async def watched(self, viewer: int | None, up_to: int, since: int = 0) -> list[Any]:
        """The WatchMatch stream as ``viewer`` follows it, after version ``since`` and up to
        version ``up_to``."""
        token = None if viewer is None else self.tokens[viewer]
        out: list[Any] = []

        async def read() -> None:
            async for message in self.client.watch(self.match_id, token, since):
                if message.event.version > up_to:
                    return
                out.append(comparable(MessageToDict(message.event)))
                if message.event.version == up_to:
                    return

        await asyncio.wait_for(read(), 30)
        return out


@dataclass
class TwinReport:
    diverted: list[tuple[int, int, Action, Action]] = field(default_factory=list)
    """(step, seat, A's answer, B's answer) of each hidden answer that differs."""
    compared: int = 0
    """Viewers' receipts compared equal after the first diverted answer."""
    differences: list[str] = field(default_factory=list)
    """What another seat or the public received differently, while the public events agreed."""
    parted: str = ""
    """Why the twins stopped being comparable (a public difference the rules make), if they did."""
    last_equal_version: int = 0


async def create_twins(client: RulesClient, organiser: str, *, mode: str, seats: int,
                       options: dict[str, Any], seed: str) -> tuple[Match, Match]:
    twins = []
    for name in ("a", "b"):
        created = await client.create(organiser, mode=mode, seats=seats, options=options,
                                      players=[f"p{s}" for s in range(seats)], dev_seed=seed,
                                      match_id=f"twin-{seed}-{name}")
        twins.append(Match(client, created.match_id,
                           {t.seat: t.token for t in created.seat_tokens}))
    assert len(twins) == 2
    return twins[0], twins[1]


async def play_twins(a: Match, b: Match, *, secret_seat: int, divert: Divert,
                     probes: Callable[[int | None], Sequence[Action]], seed: str,
                     reveals: frozenset[str] = frozenset(), max_steps: int = 3000,
                     after_divert: int = 60, steer: Steer | None = None) -> TwinReport:
    """Play both matches with the same random answers, except where ``divert`` gives B another
    answer for ``secret_seat`` (whose answers in A ``steer`` may choose). From the first diverted answer on, after each step, compare
    what every other viewer receives (and the answer an other acting seat gets), for
    ``after_divert`` steps, or until the public record of an action differs in events of the
    kinds ``reveals`` names (the rules' reveals: the comparison ends there). A public record
    that differs in another event is a difference too."""
    rng = SeededRandomness(f"twins:{seed}")
    report = TwinReport()
    viewers: list[int | None] = [None, *(s for s in sorted(a.tokens) if s != secret_seat)]
    since = None
    for n in range(max_steps):
        owed_a = await a.owed()
        if not owed_a:
            report.parted = "the game ended"
            break
        first = [(s, d) for s, d in owed_a if s == secret_seat and d.hidden]
        seat, decision = first[0] if first else owed_a[rng.randbelow(len(owed_a))]
        legal_a = [json.loads(x) for x in decision.legal_json]
        action = legal_a[rng.randbelow(len(legal_a))]
        if seat == secret_seat and steer is not None:
            action = steer(decision, legal_a) or action
        owed_b = await b.owed()
        in_b = next((d for s, d in owed_b if s == seat and d.kind == decision.kind), None)
        legal_b = [json.loads(x) for x in in_b.legal_json] if in_b is not None else []
        other = divert(decision, action, legal_b) if seat == secret_seat and decision.hidden \
            else None
        if other is None:
            if action not in legal_b:
                report.parted = f"step {n}: seat {seat}'s answer to {decision.kind} is not legal in B"
                break
            other = action
        if other != action:
            report.diverted.append((n, seat, action, other))
            since = n if since is None else since
        answer_a, answer_b = await a.act(seat, action, n), await b.act(seat, other, n)
        if since is None:
            continue
        version = answer_a.events[0].version
        public = [await m.watched(None, version, since=version - 1) for m in (a, b)]
        if public[0] != public[1]:
            kinds = _differing_kinds(public[0], public[1])
            if kinds and kinds <= reveals:
                report.parted = f"step {n}: the rules reveal {sorted(kinds)}"
                break
            report.differences.append(f"step {n}: the public record differs: "
                                      f"{json.dumps(public[0])[:600]} / {json.dumps(public[1])[:600]}")
            break
        if seat != secret_seat:
            answers = [comparable(MessageToDict(x)) for x in (answer_a, answer_b)]
            if answers[0] != answers[1]:
                report.differences.append(f"step {n}: seat {seat} is answered differently: "
                                          f"{json.dumps(answers[0])[:600]} / "
                                          f"{json.dumps(answers[1])[:600]}")
        for viewer in viewers:
            seen_a = await a.received(viewer, probes(viewer))
            seen_b = await b.received(viewer, probes(viewer))
            report.compared += 1
            for key in seen_a:
                if seen_a[key] != seen_b[key]:
                    report.differences.append(
                        f"step {n}: {'the public' if viewer is None else f'seat {viewer}'} "
                        f"receives another {key}: {json.dumps(seen_a[key])[:600]} / "
                        f"{json.dumps(seen_b[key])[:600]}")
        report.last_equal_version = answer_a.position_version
        if report.differences or n - since >= after_divert:
            break
    if since is not None and report.last_equal_version and not report.differences:
        for viewer in viewers:
            streams = [await m.watched(viewer, report.last_equal_version) for m in (a, b)]
            if streams[0] != streams[1]:
                diff = next((i for i, (x, y) in enumerate(zip(*streams, strict=False)) if x != y),
                            min(len(streams[0]), len(streams[1])))
                report.differences.append(
                    f"{'the public' if viewer is None else f'seat {viewer}'}'s WatchMatch "
                    f"differs at {diff}: {json.dumps(streams[0][diff:diff + 1])[:600]} / "
                    f"{json.dumps(streams[1][diff:diff + 1])[:600]}")
    return report


def _differing_kinds(a: list[Any], b: list[Any]) -> set[str]:
    """The kinds of the engine events that differ between two public records (as
    :meth:`Match.watched` gives them: the payload parsed)."""
    kinds: set[str] = set()
    for x, y in zip(a, b, strict=False):
        ex, ey = x["payloadJson"].get("events", []), y["payloadJson"].get("events", [])
        for i in range(max(len(ex), len(ey))):
            ea = ex[i] if i < len(ex) else {"kind": "(none)"}
            eb = ey[i] if i < len(ey) else {"kind": "(none)"}
            if ea != eb:
                kinds |= {ea["kind"], eb["kind"]}
        if {k: v for k, v in x.items() if k not in ("payloadJson", "text")} != \
                {k: v for k, v in y.items() if k not in ("payloadJson", "text")}:
            kinds.add("(record)")
    if len(a) != len(b):
        kinds.add("(record count)")
    return kinds
