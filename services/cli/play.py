"""Play one match against a rules service: bots and terminal humans, over gRPC."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from services.cli.client import RulesClient
from services.platform.playing import SeatDecision, SeatTurn, decode_decision, play_table
from services.platform.tokens import BOT_PREFIX
from services.rules.bots import make_bot
from services.rules.games.contract import Decision

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
    return [contract_decision(decode_decision(d)) for d in response.decisions]


def contract_decision(d: SeatDecision) -> Decision:
    return Decision(seat=d.seat, kind=d.kind, legal=d.legal, prompt=d.prompt, optional=d.optional,
                    hidden=d.hidden, default=d.default, standing=d.standing, priority=d.priority)


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
    game: str = "",
    previous: tuple[str, str] | None = None,
) -> MatchResult:
    """``seats`` names each seat's player: a bot kind ("random", "rule") or "human".

    ``organiser`` creates the match: a service token when bots are seated (only the bot
    driver may seat ``bot-`` players). A human seat is answered by ``human_seat(...)``'s
    chooser when given, else by ``human``. Seats act one at a time, the lowest owing seat
    first (services.platform.playing.play_table), so a dev seed replays the same match.
    ``previous`` (match id, final hash) makes a campaign match continue that finished one.
    """
    players = [f"{kind}-{i}" if kind == "human" else f"{BOT_PREFIX}{kind}-{i}"
               for i, kind in enumerate(seats)]
    created = await client.create(
        organiser, match_id=match_id, mode=mode, seats=len(seats), options=options or {},
        players=players, dev_seed="" if seed is None else str(seed),
        **({"previous_match_id": previous[0], "previous_final_hash": previous[1]} if previous else {}),
    )
    match_id = created.match_id
    tokens = {t.seat: t.token for t in created.seat_tokens}
    bots = {
        seat: make_bot(kind, f"{seed}:{seat}" if seed is not None else f"{match_id}:{seat}",
                       game or created.game_id)
        for seat, kind in enumerate(seats) if kind != "human"
    }
    choosers: dict[int, HumanChooser] = {}
    for seat, kind in enumerate(seats):
        if kind == "human" and human_seat is not None:
            choosers[seat] = human_seat(match_id, seat, tokens[seat], players)
        elif kind == "human" and human is not None:
            choosers[seat] = human
    result = MatchResult(match_id, None, 0)

    async def choose(turn: SeatTurn) -> dict[str, Any]:
        decisions = [contract_decision(d) for d in turn.decisions + turn.standing]
        if turn.seat in bots:
            return dict(bots[turn.seat].choose(decisions[0], turn.view))
        assert turn.seat in choosers, "a human seat needs a chooser"
        _, action = await choosers[turn.seat](turn.seat, turn.view, decisions)
        return action

    def answered(answer: Any) -> None:
        result.steps += 1
        result.state_hashes.append(answer.state_hash)
        if on_event:
            for event in answer.events:
                on_event(json.loads(event.payload_json))

    result.outcome = await play_table(client.stub, match_id, tokens, choose, on_answer=answered,
                                      command_prefix="step-")
    return result
