"""What matchmaking knows of each game: its modes, their seat limits and team layouts.

The static table is the validation baseline (the issue's seat limits). When a game's rules
service answers ``GetGameInfo``, its modes and seat limits replace the static ones (team
layouts are kept from the table, the rules service does not describe teams). Tests and
plug-in games add entries with :meth:`Catalogue.register`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class ModeSpec:
    name: str
    min_seats: int
    max_seats: int
    team_size: tuple[tuple[int, int], ...] = ()
    """Team layouts as (seat count, team size); empty for a free-for-all mode. A seat count
    may have several layouts (NEON Coalition of 6: two teams of 3 or three teams of 2); the
    grouping takes the one that seats the parties with the most even teams."""

    @property
    def teams(self) -> bool:
        return bool(self.team_size)

    def seat_counts(self) -> tuple[int, ...]:
        """The seat counts a match of this mode may have."""
        if self.teams:
            return tuple(sorted({s for s, _ in self.team_size if self.min_seats <= s <= self.max_seats}))
        return tuple(range(self.min_seats, self.max_seats + 1))

    def team_sizes_for(self, seats: int) -> tuple[int, ...]:
        """Every team size a match of ``seats`` may be split into (empty: no teams)."""
        return tuple(size for count, size in self.team_size if count == seats)

    def team_size_for(self, seats: int) -> int:
        """The largest team a match of ``seats`` may have (0: no teams)."""
        return max(self.team_sizes_for(seats), default=0)


@dataclass(frozen=True)
class GameSpec:
    game: str
    modes: tuple[ModeSpec, ...]
    source: str = "static"

    @property
    def default_mode(self) -> str:
        return self.modes[0].name

    def mode(self, name: str) -> ModeSpec | None:
        for m in self.modes:
            if m.name == name:
                return m
        return None

    @property
    def min_seats(self) -> int:
        return min(m.min_seats for m in self.modes)

    @property
    def max_seats(self) -> int:
        return max(m.max_seats for m in self.modes)


def _ffa(names: Iterable[str], lo: int, hi: int) -> tuple[ModeSpec, ...]:
    return tuple(ModeSpec(n, lo, hi) for n in names)


STATIC: tuple[GameSpec, ...] = (
    GameSpec("neon-reign", (*_ffa(("single", "best-of-three", "hero-match"), 2, 2),
                            ModeSpec("solo", 1, 1))),
    # NEON, Coalition: "If 4 or 6 players are playing, you can split into 2 or 3 teams of 2
    # players, or into 2 teams of 3 players."
    GameSpec("neon", (*_ffa(("rebirth", "battle-royale"), 2, 6),
                      ModeSpec("coalition", 4, 6, team_size=((4, 2), (6, 3), (6, 2))))),
    GameSpec("neon-knights-2086", _ffa(("normal", "campaign", "epic-campaign"), 2, 6)),
    GameSpec("barbaric", (ModeSpec("competitive", 2, 6), ModeSpec("solo", 1, 1))),
)


@dataclass
class Catalogue:
    games: dict[str, GameSpec] = field(default_factory=lambda: {g.game: g for g in STATIC})

    def register(self, spec: GameSpec) -> None:
        self.games[spec.game] = spec

    def get(self, game: str) -> GameSpec | None:
        return self.games.get(game)

    def refine(self, game: str, live: list[ModeSpec]) -> GameSpec:
        """Take a rules service's own modes and limits, keeping known team layouts."""
        known = self.games.get(game)
        modes = []
        for m in live:
            old = known.mode(m.name) if known else None
            modes.append(replace(m, team_size=old.team_size) if old else m)
        spec = GameSpec(game, tuple(modes), source="rules")
        if modes:
            self.games[game] = spec
        return spec
