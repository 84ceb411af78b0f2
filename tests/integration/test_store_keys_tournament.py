"""JSON the tournament store cannot keep, over the real tournament and rules services (gRPC,
NATS, SQLite and PostgreSQL): CreateTournament's options_json holding an object of exactly
the keys ``_type_`` and ``_data_`` is INVALID_ARGUMENT (every table's CreateMatch would be
refused: its rules service keeps no such options), format_json cannot hold one (its settings
are of fixed kinds), and text that looks like one (a name, the options' own text) is kept as
text. After a restart on the same store the tournament reads as it was."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend, start_backend
from services.cli.tournament_commands import TournamentClient, format_json
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
from tests.integration.conftest import make_settings
from tests.support import loose

TYPED = loose.TYPED
BOT = pb.NO_SHOW_POLICY_BOT  # the loose engine (contract 1) offers no resignation


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_settings(request: pytest.FixtureRequest, tmp_path: Path, nats_url: str) -> Any:
    if request.param == "sqlite":
        return make_settings(tmp_path, nats_url)
    return dataclasses.replace(
        make_settings(tmp_path, nats_url, persistence="postgres"),
        database_url=request.getfixturevalue("postgres_url"),
        postgres_schema=request.getfixturevalue("postgres_schema"))


async def _start(settings: Any) -> tuple[Backend, TournamentClient, str]:
    backend = await start_backend(settings, games=[], embedded_nats=False, tournament=True,
                                  engines={"loose": loose.ENGINE})
    client = TournamentClient(backend.address("tournament"))
    return backend, client, backend.organiser_token()


async def test_tournament_settings_the_store_cannot_keep_are_refused(store_settings: Any) -> None:
    backend, client, org = await _start(store_settings)
    try:
        for options in ({"deck": TYPED}, {"a": [TYPED]}, TYPED):
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await client.call("CreateTournament", org, tournament_id="bad_options",
                                  game="loose", mode="talk", no_show=BOT, format_json=format_json("swiss", 1),
                                  options_json=json.dumps(options))
            assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "options_json" in str(info.value.details())
            assert "'_type_' and '_data_'" in str(info.value.details()), info.value.details()
        for fmt in ({"format": "swiss", "rounds": 1, "tiebreaks": [TYPED]},
                    {"format": "swiss", "rounds": TYPED}, {"format": TYPED}, TYPED):
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await client.call("CreateTournament", org, tournament_id="bad_format",
                                  game="loose", mode="talk", no_show=BOT,
                                  format_json=json.dumps(fmt))
            assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, info.value.details()
        for tid in ("bad_options", "bad_format"):
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await client.call("GetTournament", org, tournament_id=tid)
            assert info.value.code() == grpc.StatusCode.NOT_FOUND
        text = json.dumps(TYPED)
        options = json.dumps({"note": text, "deck": {**TYPED, "more": 1}})
        await client.call("CreateTournament", org, tournament_id="kept", name=text,
                          game="loose", mode="talk", no_show=BOT, format_json=format_json("swiss", 1),
                          options_json=options)
    finally:
        await client.close()
        await backend.stop(1)

    backend, client, org = await _start(store_settings)
    try:
        got = await client.call("GetTournament", org, tournament_id="kept")
        assert got.tournament.name == text
        assert got.tournament.game == "loose" and got.tournament.version >= 1
    finally:
        await client.close()
        await backend.stop(1)
