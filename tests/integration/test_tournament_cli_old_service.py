"""``neon tournament create --unrated`` against a tournament service from before unrated
tournaments (it skips the unknown field, and creates a rated one): the command says so and
exits 1 without opening registration, never a rated event the organiser thinks is unrated.
The service is a real gRPC server on a socket, answering as such a release does."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc

from services.genproto.neon.tournament.v1 import tournament_pb2 as pb

ROOT = Path(__file__).resolve().parents[2]
SERVICE = "neon.tournament.v1.TournamentService"


async def test_unrated_against_a_service_that_does_not_know_it_stops_before_registration() -> None:
    calls: list[str] = []

    async def create(request: pb.CreateTournamentRequest, context: Any) -> Any:
        calls.append("CreateTournament")
        # an older release: the field is unknown to it, so what it creates is rated
        return pb.CreateTournamentResponse(tournament=pb.Tournament(
            tournament_id=request.tournament_id, game=request.game, mode="single"))

    async def open_registration(request: pb.OpenRegistrationRequest, context: Any) -> Any:
        calls.append("OpenRegistration")
        return pb.OpenRegistrationResponse(tournament=pb.Tournament(
            tournament_id=request.tournament_id))

    server = grpc.aio.server()
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(SERVICE, {
        "CreateTournament": grpc.unary_unary_rpc_method_handler(
            create, pb.CreateTournamentRequest.FromString,
            pb.CreateTournamentResponse.SerializeToString),
        "OpenRegistration": grpc.unary_unary_rpc_method_handler(
            open_registration, pb.OpenRegistrationRequest.FromString,
            pb.OpenRegistrationResponse.SerializeToString),
    })])
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEON_")}
    env.update(PYTHONPATH=str(ROOT), NEON_TOURNAMENT_ADDR=f"127.0.0.1:{port}", COLUMNS="200")
    try:
        def run(*extra: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [sys.executable, "-m", "services.cli.main", "tournament", "create", "fun",
                 "--game", "neon-reign", "--token", "organiser-token", *extra],
                env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)

        refused = await asyncio.to_thread(run, "--unrated")
        assert refused.returncode == 1, refused.stdout + refused.stderr
        assert "does not know unrated tournaments" in refused.stderr
        assert "created rated and its registration was not opened" in refused.stderr
        assert "Traceback" not in refused.stderr
        assert calls == ["CreateTournament"]
        rated = await asyncio.to_thread(run)  # without --unrated: as before
        assert rated.returncode == 0, rated.stdout + rated.stderr
        assert calls == ["CreateTournament", "CreateTournament", "OpenRegistration"]
    finally:
        await server.stop(0)
