"""Play one match against a rules service: bots and terminal humans, over gRPC."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from services.cli.client import RulesClient
from services.platform.tokens import BOT_PREFIX
from services.rules.bots import make_bot
from services.rules.games.contract import Decision

MAX_STEPS = 20_000

HumanChooser = Callable[[int, dict[str, Any], list[Decision]], Awaitable[tuple[int, dict[str, Any]]]]
"""Given seat, its view and its decisions, returns (decision index, action)."""
HumanSeat = Callable[[str, int, str, list[str]], HumanChooser]
"""Given match id, seat, seat token and every seat's player id, the chooser for that seat."""


@dataclass
class MatchResult:
    match_id: str
    outcome: dict[str, Any] | None
    steps: int
    state_hashes: list[str] = field(default_factory=list)


def decisions_of(response: Any) -> list[Decision]:
    return [
        Decision(seat=d.seat, kind=d.kind, legal=tuple(json.loads(a) for a in d.legal_json),
                 prompt=d.prompt, optional=d.optional, hidden=d.hidden)
        for d in response.decisions
    ]


async def play_match(
    client: RulesClient,
    organiser: str,
    *,
    mode: str,
    seats: list[str],
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    match_id: str = "",
    human: HumanChooser | None = None,
    human_seat: HumanSeat | None = None,
    on_event: Callable[[dict[str, Any]], None] | None = None,
) -> MatchResult:
    """``seats`` names each seat's player: a bot kind ("random") or "human".

    ``organiser`` creates the match: a service token when bots are seated (only the bot
    driver may seat ``bot-`` players). A human seat is answered by ``human_seat(...)``'s
    chooser when given, else by ``human``.
    """
    players = [f"{kind}-{i}" if kind == "human" else f"{BOT_PREFIX}{kind}-{i}"
               for i, kind in enumerate(seats)]
    created = await client.create(
        organiser, match_id=match_id, mode=mode, seats=len(seats), options=options or {},
        players=players, dev_seed="" if seed is None else str(seed),
    )
    match_id = created.match_id
    tokens = {t.seat: t.token for t in created.seat_tokens}
    bots = {
        seat: make_bot(kind, f"{seed}:{seat}" if seed is not None else f"{match_id}:{seat}")
        for seat, kind in enumerate(seats) if kind != "human"
    }
    choosers: dict[int, HumanChooser] = {}
    for seat, kind in enumerate(seats):
        if kind == "human" and human_seat is not None:
            choosers[seat] = human_seat(match_id, seat, tokens[seat], players)
        elif kind == "human" and human is not None:
            choosers[seat] = human
    result = MatchResult(match_id, None, 0)
    for _ in range(MAX_STEPS):
        view = await client.view(match_id)
        if not view.pending:
            result.outcome = json.loads(view.outcome_json) if view.outcome_json else None
            return result
        for seat in sorted({p.seat for p in view.pending}):
            decisions = decisions_of(await client.legal(tokens[seat], match_id))
            if not decisions:
                continue
            if seat in bots:
                action = dict(bots[seat].choose(decisions[0]))
            else:
                assert seat in choosers, "a human seat needs a chooser"
                seat_view = json.loads((await client.view(match_id, tokens[seat])).view_json)
                _, action = await choosers[seat](seat, seat_view, decisions)
            answer = await client.submit(tokens[seat], match_id, f"step-{result.steps}", action)
            result.steps += 1
            result.state_hashes.append(answer.state_hash)
            if on_event:
                for event in answer.events:
                    on_event(json.loads(event.payload_json))
    raise RuntimeError(f"match {match_id} did not end within {MAX_STEPS} actions")
