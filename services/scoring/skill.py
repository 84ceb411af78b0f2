"""openskill Plackett-Luce over the sides of a result. Pure code: no I/O.

The model runs with its library defaults (mu 25, sigma 25/3, tau 25/300, beta 25/6);
mu and sigma are stored exactly as openskill returns them, so replaying the stored
results in order through :func:`rate` gives the stored ratings bit for bit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from openskill.models import PlackettLuce

from services.scoring.results import Side


@dataclass(frozen=True)
class Skill:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative display rating, as openskill computes it."""
        return self.mu - 3 * self.sigma

    def to_json(self) -> list[float]:
        return [self.mu, self.sigma]

    @classmethod
    def from_json(cls, value: Sequence[float]) -> Skill:
        return cls(float(value[0]), float(value[1]))


@lru_cache(maxsize=1)
def model() -> PlackettLuce:
    return PlackettLuce()


def default_skill() -> Skill:
    m = model()
    return Skill(m.mu, m.sigma)


def rate(sides: Sequence[Side], before: Mapping[str, Skill]) -> dict[str, Skill]:
    """New skills of every player on ``sides``; players missing from ``before`` start fresh."""
    m = model()
    fresh = default_skill()
    teams = [
        [m.rating(mu=before.get(p, fresh).mu, sigma=before.get(p, fresh).sigma, name=p)
         for p in side.players]
        for side in sides
    ]
    rated = m.rate(teams, ranks=[float(side.rank) for side in sides])
    return {r.name: Skill(r.mu, r.sigma) for team in rated for r in team if r.name}
