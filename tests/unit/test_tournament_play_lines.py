"""What ``neon tournament play`` says in its own lines (the command against a running backend:
tests/integration/test_tournament_play.py)."""

from __future__ import annotations

import io
import time

import pytest
from rich.console import Console

from services.cli.tournament_play import final_text
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb


def test_the_final_line_counts_in_words() -> None:
    """One of a thing is singular: "1 point (1 win in 2 games)", not "1 points (1 wins ...)"."""
    def row(points: float, wins: int, games: int) -> pb.StandingRow:
        return pb.StandingRow(player_id="ann", rank=2, points=points, wins=wins, games=games)

    assert final_text("ann", row(1, 1, 2), 4) == \
        "ann: final rank 2 of 4, 1 point (1 win in 2 games)"
    assert final_text("ann", row(0, 0, 1), 4) == \
        "ann: final rank 2 of 4, 0 points (0 wins in 1 game)"
    assert final_text("ann", row(2.5, 2, 3), 4) == \
        "ann: final rank 2 of 4, 2.5 points (2 wins in 3 games)"


async def test_a_call_the_tournament_service_never_answers_names_it(
        monkeypatch: pytest.MonkeyPatch, dead_port: int) -> None:
    """GetRound after a match (the rules service named last) is tried again while the
    tournament service does not answer; when it never does, the "does not answer" line
    names the tournament service, not the rules service."""
    import grpc

    from services.cli import errors, tournament_play
    from services.cli.errors import explain, target
    from services.cli.tournament_commands import TournamentClient

    monkeypatch.setattr(tournament_play, "RECONNECT_FOR", 1.5)
    monkeypatch.setattr(errors, "state", errors.State())
    address = f"127.0.0.1:{dead_port}"
    screen = Console(record=True, file=io.StringIO(), width=120)
    client = TournamentClient(address)
    seat = tournament_play.TournamentSeat(
        client, "token", pb.Tournament(tournament_id="cup", game="neon-reign"), "ann",
        bot="random", screen=screen)
    target("rules service for neon-reign", "127.0.0.1:1")
    started = time.monotonic()
    try:
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            await seat.table(pb.MatchAssignment(round=1, table=1))
    finally:
        await client.close()
    assert time.monotonic() - started >= 1.5  # tried again meanwhile
    assert screen.export_text().count("the tournament service does not answer; trying "
                                      "again") == 1
    said = explain(raised.value)
    assert said is not None and said.code == errors.UNREACHABLE
    assert said.message == f"no tournament service answers on {address}; start one with " \
                           "./dev up"


async def test_calls_to_the_tournament_service_name_it_once(
        monkeypatch: pytest.MonkeyPatch, dead_port: int) -> None:
    """Each call names the tournament service for the "does not answer" line; a command that
    calls it thousands of times (tournament simulate's bots ask MyNextMatch ten times a
    second) keeps one entry, not one per call."""
    import grpc

    from services.cli import errors
    from services.cli.tournament_commands import TournamentClient

    monkeypatch.setattr(errors, "state", errors.State())
    client = TournamentClient(f"127.0.0.1:{dead_port}", timeout=1)
    try:
        for _ in range(3):
            with pytest.raises(grpc.aio.AioRpcError):
                await client.call("GetTournament", tournament_id="cup")
    finally:
        await client.close()
    assert errors.state.targets == [("tournament service", client.address)]
