"""Issue 11 on the served path: a choice the rulebook gives a player reaches that player's
seat as legal actions over gRPC, and the player's (non-default) answer is what happens.

Neon Reign: "Shields ... may be discarded at any time to prevent 1 damage" (spending is a
choice). NEON: "Each full block cancels 1 critical hit or 1 normal hit, at the
defender's choice".
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.platform.draws import SeededRandomness
from services.platform.playing import SeatTurn, play_table
from services.rules.games import available
from services.rules.verify import verify_export
from tests.integration.conftest import make_settings


@pytest.fixture
async def both(tmp_path: Any, nats_url: str) -> Any:
    games = [g for g in ("neon-reign", "neon") if g in available()]
    b = await start_backend(make_settings(tmp_path, nats_url), games=games, embedded_nats=False)
    yield b
    await b.stop(1)


async def play_until_choice(backend: Backend, game: str, mode: str, seats: int, kind: Any,
                            pick: Any, tries: int = 12) -> tuple[dict[str, Any], bytes]:
    """Bots play until a decision ``kind`` (a name, or a test of the decision) is offered
    with more than one answer; ``pick`` chooses the answer there. Returns that answer and
    the match's export."""
    offered = kind if callable(kind) else (lambda d: d.kind == kind)
    client = RulesClient(backend.address(f"rules-{game}"))
    try:
        for attempt in range(tries):
            rng = SeededRandomness(f"{game}:{attempt}")
            chosen: dict[str, Any] = {}
            created = await client.create(backend.bot_driver_token(), mode=mode, seats=seats,
                                          players=[f"bot-{s}" for s in range(seats)],
                                          dev_seed=f"fidelity-{attempt}")
            tokens = {t.seat: t.token for t in created.seat_tokens}

            def choose(turn: SeatTurn, chosen: dict[str, Any] = chosen,
                       rng: SeededRandomness = rng) -> dict[str, Any]:
                decision = turn.decisions[0]
                if offered(decision) and len(decision.legal) > 1 and not chosen:
                    action = pick(decision)
                    assert action != decision.default, "the test must take a non-default answer"
                    chosen.update(action=action, seat=turn.seat, version=turn.version)
                    return action
                return dict(decision.legal[rng.randbelow(len(decision.legal))])

            await play_table(client.stub, created.match_id, tokens, choose)
            if chosen:
                export = (await client.export(backend.organiser_token(), created.match_id)).export_jsonl
                return chosen, export
    finally:
        await client.close()
    raise AssertionError(f"no {kind} choice with several answers in {tries} {game} matches")


def record_after(export: bytes, version: int) -> dict[str, Any]:
    records = [json.loads(line) for line in export.splitlines()[:-1]]
    return records[version]  # record n = version + 1 is at index version


async def test_neon_reign_a_defender_may_keep_shields(both: Backend) -> None:
    if "neon-reign" not in available():
        pytest.skip("no Neon Reign engine")
    chosen, export = await play_until_choice(
        both, "neon-reign", "single", 2, "shields",
        pick=lambda d: min(d.legal, key=lambda a: a["spend"]))
    record = record_after(export, chosen["version"])
    assert record["decision"] == "shields" and record["action"] == chosen["action"]
    assert record["action"]["spend"] == 0 and record["seat"] == chosen["seat"]
    report = verify_export(export)
    assert report.ok, report.failure


def payers(decision: Any) -> set[str]:
    return {str(a.get("as")) for a in decision.legal if a.get("as")}


async def test_neon_the_player_names_the_supply_that_pays(both: Backend) -> None:
    """Supplies: "you can still apply its effect by discarding the card itself": when more
    than one supply could pay, the player names it (``as``), not the engine."""
    if "neon" not in available():
        pytest.skip("no NEON engine")

    def other_payer(decision: Any) -> dict[str, Any]:
        default = decision.default or {}
        return next(dict(a) for a in decision.legal
                    if a.get("as") and a.get("as") != default.get("as") and a != default)

    chosen, export = await play_until_choice(both, "neon", "rebirth", 2,
                                             lambda d: len(payers(d)) > 1,
                                             pick=other_payer, tries=30)
    record = record_after(export, chosen["version"])
    assert record["action"] == chosen["action"] and record["action"]["as"]
    report = verify_export(export)
    assert report.ok, report.failure
