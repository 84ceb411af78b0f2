"""The tournament service's messages hold whatever a stored log says: a tournament stored
before ``rounds`` was capped (core/model.py ``MAX_ROUNDS``) with more rounds than an int32
holds is answered, not INTERNAL on every call that carries it."""

from __future__ import annotations

from services.tournament.core.model import FormatConfig
from services.tournament.domain import Tournament
from services.tournament.service import INT32_MAX, tournament_message


def test_a_stored_round_count_past_int32_is_answered_clamped() -> None:
    fmt = FormatConfig.from_stored({"format": "multiplayer", "rounds": 2**32}).to_dict()
    t = Tournament("old", {"name": "", "game": "neon-reign", "mode": "single",
                           "format": fmt, "clock": {"kind": "none"}, "no_show": "bot",
                           "check_in_seconds": 300, "options_json": "",
                           "seed_from_ratings": False}, "org")
    shown = tournament_message(t, planned=2**32)
    assert shown.planned_rounds == INT32_MAX
    assert tournament_message(t, planned=7).planned_rounds == 7
