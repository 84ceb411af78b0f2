"""A person at the terminal in a clocked match (every tournament match: 60 s a decision by
default; `neon tournament play`, `neon play`, `neon queue`) is told how long their clock has
left when asked for a move, and nothing of another seat's. Without it the clock that plays
the default move for them ran unseen. Over a real rules service (a match with a clock)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from services.cli.client import RulesClient
from services.cli.play import contract_decision
from services.cli.terminal import TerminalSeat
from services.genproto.neon.rules.v1 import rules_pb2
from services.platform.playing import decode_decision
from tests.integration.test_tournament_cli import tournament_backend

pytestmark = pytest.mark.timeout(60)


async def legal_decisions(client: RulesClient, match_id: str, token: str) -> list[object]:
    """What ``neon play`` hands its terminal seat: the seat's decisions, as the engine's."""
    legal = await client.legal(token, match_id)
    return [contract_decision(decode_decision(d)) for d in legal.decisions]


async def test_the_terminal_seat_shows_its_own_clock(tmp_path: Path, nats_url: str) -> None:
    b, _ = await tournament_backend(tmp_path, nats_url)
    client = RulesClient(b.address("rules-neon-reign"))
    try:
        org = b.issuer.issue("organiser", "*", player="olga", ttl=600)
        clock = rules_pb2.ClockConfig(kind=rules_pb2.CLOCK_KIND_PER_DECISION,
                                      per_decision_ms=90_000)
        created = await client.create(org, mode="single", seats=2, clock=clock)
        tokens = {t.seat: t.token for t in created.seat_tokens}
        view = await client.view(created.match_id)
        seat = view.pending[0].seat
        screen = Console(record=True, width=200)
        asked: list[str] = []

        async def ask(prompt: str) -> str:
            asked.append(prompt)
            return "1"

        terminal = TerminalSeat(screen, client, "neon-reign", created.match_id, seat,
                                tokens[seat], ask=ask)
        mine = json.loads((await client.view(created.match_id, tokens[seat])).view_json)
        decisions = await legal_decisions(client, created.match_id, tokens[seat])
        await terminal.choose(seat, mine, decisions)
        shown = screen.export_text()
        assert asked, shown
        assert "your clock: 1:2" in shown or "your clock: 1:3" in shown, shown  # of 1:30
        assert "left to answer" in shown, shown
        assert shown.count("your clock") == 1, shown

        # a casual match (no clock) says nothing of clocks
        casual = await client.create(org, mode="single", seats=2)
        ctokens = {t.seat: t.token for t in casual.seat_tokens}
        cseat = (await client.view(casual.match_id)).pending[0].seat
        screen = Console(record=True, width=200)
        terminal = TerminalSeat(screen, client, "neon-reign", casual.match_id, cseat,
                                ctokens[cseat], ask=ask)
        cview = json.loads((await client.view(casual.match_id, ctokens[cseat])).view_json)
        await terminal.choose(cseat, cview,
                              await legal_decisions(client, casual.match_id, ctokens[cseat]))
        assert "clock" not in screen.export_text().lower()
    finally:
        await client.close()
        await b.stop(1)
