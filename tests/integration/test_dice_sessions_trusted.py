"""Review of verifiable randomness (branch revdice): a match's draws come from the dice
session its MatchCreated commits to, and from no session anyone could know the seed of.

Over the real services: the rules and dice services over gRPC on PostgreSQL, NATS."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import psycopg
import pytest
import pytest_asyncio

from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.genproto.neon.dice.v1 import dice_pb2
from services.genproto.neon.rules.v1 import rules_pb2
from services.platform.draws import SeededRandomness
from services.platform.grpc_kit import call_metadata
from services.rules.games.contract import MatchConfig
from services.rules.verify import verify_export
from tests.integration.conftest import make_settings
from tests.support import namespaces, toy
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


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared_pg_backend(tmp_path_factory: pytest.TempPathFactory, nats_url: str,
                            postgres_url: str) -> AsyncIterator[Backend]:
    """One backend (and schema) for the tests that each make matches of their own ids."""
    schema = f"{namespaces.schema_of(os.environ['NEON_NAMESPACE'])}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        b = await start_backend(_settings(tmp_path_factory.mktemp("dice-seeds"), nats_url,
                                          postgres_url, schema),
                                games=[], embedded_nats=False, engines={"toy": toy.ENGINE})
        yield b
        await b.stop(1)
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


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


@pytest.mark.parametrize("seed", ["\x00", "a\x00b", "\x1b[2J\x1b[31mwin", "two\nlines", "tab\there",
                                  "\u202eevil", "zero\u200bwidth", "para\u2029graph", "\x7f",
                                  "\x85", "x" * 257, ""])
@pytest.mark.asyncio(loop_scope="module")
async def test_a_client_seed_is_printable_text_or_refused_with_a_reason(
        shared_pg_backend: Backend, seed: str) -> None:
    """Client seeds are public and permanent (MatchStarted, exports, audit bundles, the
    views and terminals that show them). Any 1-256 characters were taken: a NUL, a
    terminal escape, a line break, a bidirectional override or a zero-width character
    went into the signed log. Now INVALID_ARGUMENT, naming what is wrong; nothing stored."""
    pg_backend = shared_pg_backend
    match_id = f"seeds-{uuid.uuid4().hex[:8]}"
    rules = RulesClient(pg_backend.address("rules-toy"))
    organiser = pg_backend.organiser_token()
    created = await rules.create(organiser, match_id=match_id, mode="race", seats=2,
                                 await_client_seeds=True)
    tokens = {t.seat: t.token for t in created.seat_tokens}
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await rules.call("AddClientSeed", rules_pb2.AddClientSeedRequest(
            match_id=match_id, seed=seed), tokens[0])
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, info.value
    details = info.value.details() or ""
    assert "client seed must be" in details, details
    if seed and len(seed) <= 256:
        assert "printable" in details and "U+" in details, details
    # a printable seed (spaces, accents, emoji) is taken, then the match starts and verifies
    answer = await rules.call("AddClientSeed", rules_pb2.AddClientSeedRequest(
        match_id=match_id, seed="Zoë's seed 🎲 " + "x" * 200), tokens[0])
    assert answer.seats_with_seeds == 1
    await rules.call("StartMatch", rules_pb2.StartMatchRequest(match_id=match_id), organiser)
    await rules.abandon(organiser, match_id, "done")
    export = (await rules.export(organiser, match_id)).export_jsonl
    started = json.loads(export.splitlines()[1])
    assert started["client_seeds"] == [[0, "Zoë's seed 🎲 " + "x" * 200]]
    assert verify_export(export, engine=toy.ENGINE).ok
    await rules.close()


async def test_client_seeds_only_by_the_seat_itself_and_only_before_the_first_draw(
        pg_backend: Backend) -> None:
    """A seat adds its own seat's seed only (the seat is the token's, not the request's), may
    replace it until the match starts (nothing is drawn before), and nothing after: not
    with its own token, another match's, nor through the dice service directly."""
    rules = RulesClient(pg_backend.address("rules-toy"))
    channel, dice = dice_stub(pg_backend.address("dice"))
    organiser = pg_backend.organiser_token()
    created = await rules.create(organiser, match_id="seeds-2", mode="race", seats=2,
                                 await_client_seeds=True)
    tokens = {t.seat: t.token for t in created.seat_tokens}
    other = await rules.create(organiser, match_id="seeds-3", mode="race", seats=2,
                               await_client_seeds=True)
    with pytest.raises(grpc.aio.AioRpcError) as info:  # another match's seat token
        await rules.call("AddClientSeed", rules_pb2.AddClientSeedRequest(
            match_id="seeds-2", seed="intruder"), other.seat_tokens[0].token)
    assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED
    for md in ((), call_metadata(organiser), call_metadata(tokens[0])):  # dice: service only
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await dice.AddClientSeed(dice_pb2.AddClientSeedRequest(
                match_id="toy/seeds-2", seat=1, seed="forged"), metadata=md, timeout=5)
        assert info.value.code() in (grpc.StatusCode.UNAUTHENTICATED,
                                     grpc.StatusCode.PERMISSION_DENIED)
    for seed in ("first", "second"):
        answer = await rules.call("AddClientSeed", rules_pb2.AddClientSeedRequest(
            match_id="seeds-2", seed=seed), tokens[1])
        assert answer.seats_with_seeds == 1  # seat 1's, replaced
    await rules.call("StartMatch", rules_pb2.StartMatchRequest(match_id="seeds-2"), organiser)
    for seat in (0, 1):
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await rules.call("AddClientSeed", rules_pb2.AddClientSeedRequest(
                match_id="seeds-2", seed="late"), tokens[seat])
        assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(grpc.aio.AioRpcError) as info:  # nor the rules service's own token
        await dice.AddClientSeed(dice_pb2.AddClientSeedRequest(match_id="toy/seeds-2", seat=0,
                                                               seed="late"),
                                 metadata=call_metadata(pg_backend.issuer.issue(
                                     "service", "*", ttl=60)), timeout=5)
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    await rules.abandon(organiser, "seeds-2", "done")
    export = (await rules.export(organiser, "seeds-2")).export_jsonl
    assert json.loads(export.splitlines()[1])["client_seeds"] == [[1, "second"]]
    assert verify_export(export, engine=toy.ENGINE).ok
    await channel.close()
    await rules.close()


async def test_tournament_mode_refuses_dev_seeds_at_the_rules_and_the_dice_service(
        tmp_path: Path, nats_url: str, postgres_url: str, postgres_schema: str) -> None:
    """NEON_ENV=tournament: a dev seed is FAILED_PRECONDITION at CreateMatch and at the dice
    service's OpenSession (an organiser may call it), with the reason; a session a dev run
    of the same store had opened with one is not taken for a match of the tournament run."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from services.platform.keys import private_key_hex

    dev = _settings(tmp_path, nats_url, postgres_url, postgres_schema)
    backend = await start_backend(dev, games=[], embedded_nats=False, engines={"toy": toy.ENGINE})
    channel, dice = dice_stub(backend.address("dice"))
    await dice.OpenSession(dice_pb2.OpenSessionRequest(match_id="toy/t-2", dev_seed="7"),
                           metadata=call_metadata(backend.organiser_token()), timeout=5)
    await channel.close()
    await backend.stop(1)

    settings = dataclasses.replace(dev, env="tournament", token_secret="ab" * 32,
                                   signing_key=private_key_hex(Ed25519PrivateKey.generate()))
    backend = await start_backend(settings, games=[], embedded_nats=False,
                                  engines={"toy": toy.ENGINE})
    rules = RulesClient(backend.address("rules-toy"))
    channel, dice = dice_stub(backend.address("dice"))
    organiser = backend.organiser_token()
    try:
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await rules.create(organiser, match_id="t-1", mode="race", seats=2, dev_seed="7")
        assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "tournament mode" in (info.value.details() or "")
        for md in (call_metadata(organiser),
                   call_metadata(backend.issuer.issue("service", "*", ttl=60))):
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await dice.OpenSession(dice_pb2.OpenSessionRequest(match_id="toy/t-1",
                                                                   dev_seed="7"),
                                       metadata=md, timeout=5)
            assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert "tournament mode" in (info.value.details() or "")
        with pytest.raises(grpc.aio.AioRpcError) as info:  # the dev run's session
            await rules.create(organiser, match_id="t-2", mode="race", seats=2)
        assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "dev seed" in (info.value.details() or "")
        created = await rules.create(organiser, match_id="t-1", mode="race", seats=2)
        assert created.match_id == "t-1"
    finally:
        await channel.close()
        await rules.close()
        await backend.stop(1)


async def test_no_seat_player_or_spectator_learns_the_seed_or_a_draw_before_the_seal(
        pg_backend: Backend) -> None:
    """While the match runs: the dice service's calls that hand out seeds, blocks or draws
    refuse seat and player tokens (and no token); its public reads show the commitment and
    the client seeds, the block counter as 0; RevealSeed waits for the seal. WatchMatch holds
    no draw, no seed and no state key for anyone, and the state hash only for seats (keyed).
    After the seal the seed is public and matches the commitment."""
    rules = RulesClient(pg_backend.address("rules-toy"))
    channel, dice = dice_stub(pg_backend.address("dice"))
    organiser = pg_backend.organiser_token()
    created = await rules.create(organiser, match_id="hide-1", mode="race", seats=2)
    tokens = {t.seat: t.token for t in created.seat_tokens}
    await rules.submit(tokens[0], "hide-1", "a", {"type": "pick", "step": 3})
    await rules.submit(tokens[1], "hide-1", "b", {"type": "pick", "step": 1})  # rolls
    key = "toy/hide-1"
    player = pg_backend.issuer.issue("player", "*", player="ann", ttl=60)
    callers = {"seat": call_metadata(tokens[0]), "player": call_metadata(player), "none": ()}
    for who, md in callers.items():
        for name, call in (
            ("OpenSession", dice.OpenSession(dice_pb2.OpenSessionRequest(match_id=key),
                                             metadata=md, timeout=5)),
            ("Draw", dice.Draw(dice_pb2.DrawRequest(match_id=key, request_id="peek",
                                                    op=dice_pb2.DRAW_OP_ROLL, n=6, count=1),
                               metadata=md, timeout=5)),
            ("ReserveBlocks", dice.ReserveBlocks(dice_pb2.ReserveBlocksRequest(
                match_id=key, first=0, count=8), metadata=md, timeout=5)),
            ("CloseSession", dice.CloseSession(dice_pb2.CloseSessionRequest(match_id=key),
                                               metadata=md, timeout=5)),
            ("AddClientSeed", dice.AddClientSeed(dice_pb2.AddClientSeedRequest(
                match_id=key, seat=0, seed="s"), metadata=md, timeout=5)),
        ):
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await call
            assert info.value.code() in (grpc.StatusCode.PERMISSION_DENIED,
                                         grpc.StatusCode.UNAUTHENTICATED), (who, name)
        read = await dice.GetCommitment(dice_pb2.GetCommitmentRequest(match_id=key),
                                        metadata=md, timeout=5)
        assert read.session.counter == 0 and not read.session.closed, who
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await dice.RevealSeed(dice_pb2.RevealSeedRequest(match_id=key), metadata=md,
                                  timeout=5)
        assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION, who
    service_view = await dice.GetCommitment(
        dice_pb2.GetCommitmentRequest(match_id=key),
        metadata=call_metadata(pg_backend.issuer.issue("service", "*", ttl=60)), timeout=5)
    assert service_view.session.counter > 0  # draws were made: the zeros above hide them
    for viewer in (tokens[0], tokens[1], None):
        seen = []
        async for response in rules.watch("hide-1", viewer):
            seen.append(json.loads(response.event.payload_json))
            if len(seen) == 3:
                break
        text = json.dumps(seen)
        assert all("draws" not in e and "seed" not in e and "blind" not in e for e in seen)
        assert ("state_hash" in text) == (viewer is not None)
    await rules.abandon(organiser, "hide-1", "done")
    revealed = await dice.RevealSeed(dice_pb2.RevealSeedRequest(match_id=key), timeout=5)
    assert hashlib.sha256(bytes.fromhex(revealed.seed)).hexdigest() == revealed.session.commitment
    await channel.close()
    await rules.close()


async def test_match_started_records_exactly_the_client_seeds_its_blocks_were_made_with(
        pg_backend: Backend) -> None:
    """StartMatch read the client seeds from the dice service, then reserved the first
    blocks, which fix them. A seed added to the session between the two (another rules
    replica taking AddClientSeed for the match during a change of owners: it calls dice
    with its service token) was mixed into every draw but missing from MatchStarted, and the
    honest match failed `neon verify`. The seeds are now read after the reservation that
    fixes them; the late one is refused."""
    rules = RulesClient(pg_backend.address("rules-toy"))
    channel, dice = dice_stub(pg_backend.address("dice"))
    service = call_metadata(pg_backend.issuer.issue("service", "*", ttl=60))
    organiser = pg_backend.organiser_token()
    created = await rules.create(organiser, match_id="race-1", mode="race", seats=2,
                                 await_client_seeds=True)
    tokens = {t.seat: t.token for t in created.seat_tokens}
    await rules.call("AddClientSeed", rules_pb2.AddClientSeedRequest(
        match_id="race-1", seed="seat-0"), tokens[0])
    host = pg_backend.services["rules-toy"].extra["host"]
    read, late = host.dice.client_seeds, []

    async def read_then_another_replica_adds(match_key: str) -> list[list[object]]:
        seeds = await read(match_key)
        try:  # the other replica's AddClientSeed reaches dice right after the read
            await dice.AddClientSeed(dice_pb2.AddClientSeedRequest(
                match_id=match_key, seat=1, seed="seat-1"), metadata=service, timeout=5)
            late.append("taken")
        except grpc.aio.AioRpcError as err:
            late.append(err.code())
        return seeds

    host.dice.client_seeds = read_then_another_replica_adds
    try:
        await rules.call("StartMatch", rules_pb2.StartMatchRequest(match_id="race-1"), organiser)
    finally:
        host.dice.client_seeds = read
    await rules.abandon(organiser, "race-1", "done")
    export = (await rules.export(organiser, "race-1")).export_jsonl
    report = verify_export(export, engine=toy.ENGINE)
    assert report.ok, (late, report.failure)
    assert late == [grpc.StatusCode.FAILED_PRECONDITION]
    assert json.loads(export.splitlines()[1])["client_seeds"] == [[0, "seat-0"]]
    await channel.close()
    await rules.close()
