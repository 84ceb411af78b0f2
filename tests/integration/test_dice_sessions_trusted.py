"""Review of verifiable randomness (branch revdice): a match's draws come from the dice
session its MatchCreated commits to, and from no session anyone could know the seed of.

Over the real services: the rules and dice services over gRPC on PostgreSQL, NATS."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import psycopg
import pytest

from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.genproto.neon.dice.v1 import dice_pb2
from services.platform.draws import SeededRandomness
from services.platform.grpc_kit import call_metadata
from services.rules.games.contract import MatchConfig
from services.rules.verify import verify_export
from tests.integration.conftest import make_settings
from tests.support import toy
from tests.support.client import dice_stub

pytestmark = pytest.mark.postgres


def _settings(tmp_path: Path, nats_url: str, postgres_url: str, schema: str) -> object:
    return dataclasses.replace(make_settings(tmp_path, nats_url, persistence="postgres"),
                               database_url=postgres_url, postgres_schema=schema)


@pytest.fixture
async def pg_backend(tmp_path: Path, nats_url: str, postgres_url: str,
                     postgres_schema: str) -> AsyncIterator[Backend]:
    b = await start_backend(_settings(tmp_path, nats_url, postgres_url, postgres_schema),
                            games=[], embedded_nats=False, engines={"toy": toy.ENGINE})
    yield b
    await b.stop(1)


def _hand_from(seed: bytes, stream_id: str, seat: int) -> tuple[str, ...]:
    """The toy's set-up from a known seed (no client seeds): what a seat's hand will be."""
    rng = SeededRandomness(0, stream_id)
    rng.stream = type(rng.stream)(seed, stream_id)
    state = toy.ENGINE.setup(MatchConfig("race", 2, {}), rng)
    return state.hands[seat]


async def test_a_dev_session_opened_ahead_does_not_seed_a_match_created_without_one(
        pg_backend: Backend) -> None:
    """A dev seed's server seed is HMAC(deployment secret, dev seed): every dev match on it
    draws from one seed, revealed at the first one's seal. An organiser that opened the dice
    session of a match id to come (a tournament's are "<tid>-r<round>-t<table>") with such a
    dev seed got that match, created without a dev seed (by matchmaking, a tournament), drawn
    from the public seed: every hidden hand and future roll known. The rules service now
    refuses to create a match on a session other than the one it asked for."""
    rules = RulesClient(pg_backend.address("rules-toy"))
    channel, dice = dice_stub(pg_backend.address("dice"))
    organiser = pg_backend.organiser_token()
    # a dev match on the dev seed "x", ended: its seal reveals the dev seed's server seed
    await rules.create(organiser, match_id="dev-a", mode="race", seats=2, dev_seed="x")
    await rules.abandon(organiser, "dev-a", "done")
    revealed = await dice.RevealSeed(dice_pb2.RevealSeedRequest(match_id="toy/dev-a"), timeout=5)
    known = bytes.fromhex(revealed.seed)
    # the dice session of a match to come, opened ahead with the same dev seed
    await dice.OpenSession(dice_pb2.OpenSessionRequest(match_id="toy/ladder-b", dev_seed="x"),
                           metadata=call_metadata(organiser), timeout=5)
    try:
        created = await rules.create(organiser, match_id="ladder-b", mode="race", seats=2)
    except grpc.aio.AioRpcError as err:
        assert err.code() == grpc.StatusCode.FAILED_PRECONDITION, err
        assert "dev seed" in (err.details() or ""), err.details()
    else:
        tokens = {t.seat: t.token for t in created.seat_tokens}
        view = json.loads((await rules.view("ladder-b", tokens[1])).view_json)
        pytest.fail(f"ladder-b was created on a dev session whose seed was public: seat 1's "
                    f"hand {view} was known ahead as {_hand_from(known, 'dev', 1)}")
    # the match's own dev seed still works, and a repeated create is answered as before
    again = await rules.create(organiser, match_id="dev-c", mode="race", seats=2, dev_seed="x")
    assert (await rules.create(organiser, match_id="dev-c", mode="race", seats=2,
                               dev_seed="x")).match_id == again.match_id
    await channel.close()
    await rules.close()


async def test_a_match_whose_dice_session_was_lost_is_not_drawn_from_a_new_seed(
        tmp_path: Path, nats_url: str, postgres_url: str, postgres_schema: str) -> None:
    """A rules service rebuilding a running match opens its dice session again for the state
    key. When the dice store no longer held the session (a restore from an older backup, a
    dice database replaced), that open made a new one with a new seed, and the match went on
    drawing from it: draws nobody had committed to, and a seal whose seed does not match the
    recorded commitment, so the honest match failed `neon verify`. The match is now refused
    with a reason instead (FAILED_PRECONDITION), and its draws stay those committed to."""
    settings = _settings(tmp_path, nats_url, postgres_url, postgres_schema)
    backend = await start_backend(settings, games=[], embedded_nats=False,
                                  engines={"toy": toy.ENGINE})
    rules = RulesClient(backend.address("rules-toy"))
    organiser = backend.organiser_token()
    created = await rules.create(organiser, match_id="lost-1", mode="race", seats=2)
    tokens = {t.seat: t.token for t in created.seat_tokens}
    await rules.submit(tokens[0], "lost-1", "a", {"type": "pick", "step": 3})
    export = (await rules.export(organiser, "lost-1")).export_jsonl
    committed = json.loads(export.splitlines()[0])["dice"]["commitment"]
    await rules.close()
    await backend.stop(1)
    table = f'"{postgres_schema}".dice_events'
    with psycopg.connect(postgres_url, autocommit=True) as conn:  # the dice store loses it
        conn.execute(f'CREATE TABLE "{postgres_schema}".dice_saved AS SELECT * FROM {table}')
        conn.execute(f"DELETE FROM {table}")

    backend = await start_backend(settings, games=[], embedded_nats=False,
                                  engines={"toy": toy.ENGINE})
    rules = RulesClient(backend.address("rules-toy"))
    try:
        for attempt in ("b", "b"):  # refused, and again: nothing drawn from another seed
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await rules.submit(tokens[1], "lost-1", attempt, {"type": "pick", "step": 1})
            assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION, info.value
            assert "dice session" in (info.value.details() or ""), info.value.details()
    finally:
        await rules.close()
        await backend.stop(1)

    with psycopg.connect(postgres_url, autocommit=True) as conn:  # the session restored
        conn.execute(f"DELETE FROM {table}")
        conn.execute(f'INSERT INTO {table} SELECT * FROM "{postgres_schema}".dice_saved')
    backend = await start_backend(settings, games=[], embedded_nats=False,
                                  engines={"toy": toy.ENGINE})
    rules = RulesClient(backend.address("rules-toy"))
    try:
        await rules.submit(tokens[1], "lost-1", "b", {"type": "pick", "step": 1})
        step = 0
        while (view := await rules.view("lost-1")).pending:
            seat = view.pending[0].seat
            await rules.submit(tokens[seat], "lost-1", f"c{step}", {"type": "pick", "step": 2})
            step += 1
        export = (await rules.export(organiser, "lost-1")).export_jsonl
        assert json.loads(export.splitlines()[0])["dice"]["commitment"] == committed
        report = verify_export(export, engine=toy.ENGINE)
        assert report.ok, report.failure
    finally:
        await rules.close()
        await backend.stop(1)
