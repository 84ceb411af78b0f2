"""Barbaric through the real services: a whole game over gRPC (dice and rules services, NATS,
the store), illegal actions refused with the rulebook's reason and changing nothing, and an
export that `neon verify` accepts (the chain, the draws and a full rules replay)."""

from __future__ import annotations

import json
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.platform.draws import SeededRandomness
from services.rules.verify import verify_export
from tests.integration.conftest import make_settings


@pytest.fixture
async def barbaric(tmp_path: Any, nats_url: str) -> Any:
    b = await start_backend(make_settings(tmp_path, nats_url), games=["barbaric"],
                            embedded_nats=False)
    yield b
    await b.stop(1)


async def _owed(client: RulesClient, tokens: dict[int, str], match_id: str) -> Any:
    view = await client.view(match_id)
    if not view.pending:
        return view, None, None
    seat = view.pending[0].seat
    legal = await client.legal(tokens[seat], match_id)
    decision = next(d for d in legal.decisions if not d.standing)
    return view, seat, decision


async def _refused(client: RulesClient, token: str, match_id: str, action: dict[str, Any],
                   words: tuple[str, ...]) -> None:
    before = await client.view(match_id)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await client.submit(token, match_id, f"bad-{before.version}-{json.dumps(action)}",
                            action)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert any(w in (refused.value.details() or "") for w in words), refused.value.details()
    after = await client.view(match_id)
    assert (after.version, after.state_hash) == (before.version, before.state_hash)


@pytest.mark.parametrize(("mode", "seats"), [("competitive", 3), ("solo", 1)])
async def test_a_served_game_refuses_illegal_moves_and_its_export_verifies(
        barbaric: Backend, mode: str, seats: int) -> None:
    client = RulesClient(barbaric.address("rules-barbaric"))
    created = await client.create(barbaric.bot_driver_token(), mode=mode, seats=seats,
                                  players=[f"bot-{s}" for s in range(seats)],
                                  dev_seed=f"barbaric-{mode}")
    match_id, tokens = created.match_id, {t.seat: t.token for t in created.seat_tokens}
    rng = SeededRandomness(f"barbaric-served-{mode}")
    checked = False
    for n in range(3000):
        view, seat, decision = await _owed(client, tokens, match_id)
        if seat is None:
            break
        legal = [json.loads(a) for a in decision.legal_json]
        moves = [a for a in legal if a["type"] == "move" and "to" in a]
        if decision.kind == "act" and moves and not checked:
            checked = True
            table = json.loads(view.view_json)
            monster = table["monster"]["pos"]
            await _refused(client, tokens[seat], match_id, {"type": "move", "exit": True},
                           ("only a Character with the Atomic Core Token may Exit",))
            await _refused(client, tokens[seat], match_id, {"type": "move", "to": monster},
                           ("occupied",))
            await client.submit(tokens[seat], match_id, f"a{n}", moves[0])
            _, again, decision = await _owed(client, tokens, match_id)
            assert (again, decision.kind) == (seat, "act")  # the Rider action is still open
            await _refused(client, tokens[seat], match_id, moves[0],
                           ("only one Gear action may be used each turn",))
            continue
        action = legal[rng.randbelow(len(legal))]
        await client.submit(tokens[seat], match_id, f"a{n}", action)
    assert checked, "no Action Phase with a Move came up"
    final = await client.view(match_id)
    assert final.outcome_json, "the game played to its end"
    export = (await client.export(barbaric.organiser_token(), match_id)).export_jsonl
    report = verify_export(export)
    assert report.ok, report.failure
    assert any(c.startswith("rules replay") for c in report.checks)
    assert report.outcome is not None
    await client.close()
