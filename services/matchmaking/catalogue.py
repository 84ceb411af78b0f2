"""What matchmaking knows of each game: its modes, their seat counts, team layouts and the
sides the engine plays itself.

Matchmaking names no game: each game's rules service describes its modes in ``GetGameInfo``
and :meth:`Catalogue.learn` takes them as they are. Tests and plug-in games without a rules
service may add entries with :meth:`Catalogue.register`.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ModeSpec:
    name: str
    min_seats: int
    max_seats: int
    team_layouts: tuple[tuple[int, int], ...] = ()
    """Team layouts as (seat count, team size); empty for a free-for-all mode. A seat count
    may have several layouts (six seats: two teams of 3 or three teams of 2); the grouping
    takes the one that seats the parties with the most even teams."""
    ai_participants: tuple[str, ...] = ()
    """Sides the engine plays itself in this mode. They take no seat: matchmaking neither
    fills them nor asks for them; the rules service adds them to the match it creates."""

    @property
    def teams(self) -> bool:
        return bool(self.team_layouts)

    def seat_counts(self) -> tuple[int, ...]:
        """The seat counts a match of this mode may have."""
        if self.teams:
            return tuple(sorted({s for s, _ in self.team_layouts
                                 if self.min_seats <= s <= self.max_seats}))
        return tuple(range(self.min_seats, self.max_seats + 1))

    def team_sizes_for(self, seats: int) -> tuple[int, ...]:
        """Every team size a match of ``seats`` may be split into (empty: no teams)."""
        return tuple(size for count, size in self.team_layouts if count == seats)

    def team_size_for(self, seats: int) -> int:
        """The largest team a match of ``seats`` may have (0: no teams)."""
        return max(self.team_sizes_for(seats), default=0)


@dataclass(frozen=True)
class GameSpec:
    game: str
    modes: tuple[ModeSpec, ...]
    source: str = "registered"
    """"rules" when learnt from the game's rules service."""

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


@dataclass
class Catalogue:
    games: dict[str, GameSpec] = field(default_factory=dict)

    def register(self, spec: GameSpec) -> None:
        self.games[spec.game] = spec

    def get(self, game: str) -> GameSpec | None:
        return self.games.get(game)

    def learn(self, game: str, modes: list[ModeSpec]) -> GameSpec | None:
        """Take a rules service's own description of its modes (none: keep what is known)."""
        if modes:
            self.games[game] = GameSpec(game, tuple(modes), source="rules")
        return self.games.get(game)
