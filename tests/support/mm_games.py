"""The games' modes as their rules services describe them in GetGameInfo (contract v2), for
matchmaking tests that need more than the toy without starting every rules service.

Matchmaking itself names no game; these are test data, registered through the catalogue.
"""

from __future__ import annotations

from services.matchmaking.catalogue import GameSpec, ModeSpec


def _ffa(names: tuple[str, ...], lo: int, hi: int) -> tuple[ModeSpec, ...]:
    return tuple(ModeSpec(n, lo, hi) for n in names)


NEON_REIGN = GameSpec("neon-reign", (*_ffa(("single", "best-of-three", "hero-match"), 2, 2),
                                     ModeSpec("solo", 1, 1, ai_participants=("computer",))))
# NEON, Coalition: "If 4 or 6 players are playing, you can split into 2 or 3 teams of 2
# players, or into 2 teams of 3 players."
NEON = GameSpec("neon", (ModeSpec("rebirth", 2, 6), ModeSpec("battle-royale", 2, 6),
                         ModeSpec("coalition", 4, 6, team_layouts=((4, 2), (6, 3), (6, 2)))))
NEON_KNIGHTS = GameSpec("neon-knights-2086", _ffa(("normal", "campaign", "epic-campaign"), 2, 6))
BARBARIC = GameSpec("barbaric", (ModeSpec("competitive", 2, 6),
                                 ModeSpec("solo", 1, 1, ai_participants=("monster",))))
GAMES = {g.game: g for g in (NEON_REIGN, NEON, NEON_KNIGHTS, BARBARIC)}
