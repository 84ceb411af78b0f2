"""What ``neon tournament play`` says in its own lines (the command against a running backend:
tests/integration/test_tournament_play.py)."""

from __future__ import annotations

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
