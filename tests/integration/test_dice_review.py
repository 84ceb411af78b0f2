"""A hostile review of the dice service over the real services (rules and dice over gRPC,
PostgreSQL, NATS): a session an organiser drew from by hand before its match was created."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest

from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.genproto.neon.dice.v1 import dice_pb2
from services.genproto.neon.rules.v1 import rules_pb2
from services.platform.grpc_kit import call_metadata
from tests.integration.conftest import make_settings
from tests.support import toy
from tests.support.client import dice_stub

pytestmark = pytest.mark.postgres


@pytest.fixture
async def pg_backend(tmp_path: Path, nats_url: str, postgres_url: str,
                     postgres_schema: str) -> AsyncIterator[Backend]:
    settings = dataclasses.replace(make_settings(tmp_path, nats_url, persistence="postgres"),
                                   database_url=postgres_url, postgres_schema=postgres_schema)
    b = await start_backend(settings, games=[], embedded_nats=False, engines={"toy": toy.ENGINE})
    yield b
    await b.stop(1)


async def test_a_session_drawn_from_by_hand_is_no_match_session(pg_backend: Backend) -> None:
    """An organiser may open a dice session for itself and Draw from it. Opened under the key
    of a match to come (a tournament's ids are "<tid>-r<round>-t<table>") and drawn from, the
    match's CreateMatch failed with the words of a reservation ("blocks below N were handed out
    by Draw"), and its open had marked the session the match's, so the organiser's own session
    drew no more. CreateMatch is now refused by the open, saying why, no match is made, and
    the session stays the organiser's; a session opened ahead but never drawn from still
    serves its match."""
    rules = RulesClient(pg_backend.address("rules-toy"))
    channel, dice = dice_stub(pg_backend.address("dice"))
    organiser = pg_backend.organiser_token()
    md = call_metadata(organiser)
    await dice.OpenSession(dice_pb2.OpenSessionRequest(match_id="toy/ahead-1"), metadata=md,
                           timeout=5)
    drawn = await dice.Draw(dice_pb2.DrawRequest(match_id="toy/ahead-1", request_id="peek",
                                                 op=dice_pb2.DRAW_OP_SHUFFLE, n=20),
                            metadata=md, timeout=5)
    assert drawn.draw.first == 0 and drawn.draw.next > 0
    try:
        await rules.create(organiser, match_id="ahead-1", mode="race", seats=2)
    except grpc.aio.AioRpcError as err:
        assert err.code() == grpc.StatusCode.FAILED_PRECONDITION, err
        assert "by hand" in (err.details() or "") and "another id" in (err.details() or ""), \
            err.details()
    else:
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await rules.call("StartMatch", rules_pb2.StartMatchRequest(match_id="ahead-1"),
                             organiser)
        pytest.fail(f"a match was created on a session drawn from by hand, and cannot start: "
                    f"{info.value.code()} {info.value.details()}")
    with pytest.raises(grpc.aio.AioRpcError) as info:  # no match was made
        await rules.view("ahead-1")
    assert info.value.code() == grpc.StatusCode.NOT_FOUND, info.value.details()
    # the session is still the organiser's own: it draws on
    again = await dice.Draw(dice_pb2.DrawRequest(match_id="toy/ahead-1", request_id="more",
                                                 op=dice_pb2.DRAW_OP_RANDBELOW, n=6),
                            metadata=md, timeout=5)
    assert again.draw.first == drawn.draw.next
    # opened ahead and never drawn from: the match takes it, starts and plays
    await dice.OpenSession(dice_pb2.OpenSessionRequest(match_id="toy/ahead-2"), metadata=md,
                           timeout=5)
    await rules.create(organiser, match_id="ahead-2", mode="race", seats=2)
    await rules.call("StartMatch", rules_pb2.StartMatchRequest(match_id="ahead-2"), organiser)
    await channel.close()
    await rules.close()
