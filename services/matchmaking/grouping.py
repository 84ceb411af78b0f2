"""Forming matches from waiting tickets: a pure function, no I/O, no clock.

The algorithm, per game, region and mode (modes in the game's order; a ticket allowing
several modes joins the first mode that seats it; a ticket without a region plays in any
region, regional pools first, then the region-less among themselves):

1. The pool (tickets allowing the mode whose seat limits fit it) is sorted by rating and
   threaded on a doubly linked list, so that tickets already matched are skipped in O(1).
2. Tickets are taken as anchors oldest first. From the anchor the group grows outwards
   along the rating order, always taking the neighbour that widens the group's rating
   range least. A candidate joins when its seat limits allow the target seat count, its
   party fits the seats left, and the group's range stays inside every member's
   accepted window. A side stops when the range leaves the group's window (ratings only
   grow further away) or after ``scan_limit`` unfit candidates.
3. The target seat count is the largest the anchor allows; smaller tables are tried once
   the anchor has waited ``partial_after`` seconds.
4. When no full table forms and the anchor has waited ``backfill_after`` seconds, and
   every ticket of the partial group allows bots, the smallest table that seats the group
   is formed and its empty seats go to random bots.
5. Team modes split the group into balanced teams (parties kept together): parties,
   largest first and then strongest first, each join the team with the lowest rating
   total that still has room. Where a seat count has several team layouts, the one with
   the closest team averages is taken.

The accepted window of a ticket is ``base_window + widen_per_second * waited``, capped by
the ticket's own ``rating_window`` (when set) and by ``max_window``. Parties are never
split: a party is one entry and joins or stays as a whole.

Cost: sorting is O(n log n); each anchor does O(seats + scan_limit) work per seat count
tried, so a cycle is O(n log n) overall.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from services.matchmaking.catalogue import ModeSpec
from services.platform.tokens import BOT_PREFIX as RESERVED_FOR_BOTS

BOT_PREFIX = RESERVED_FOR_BOTS + "random-"
"""Matchmaking's own backfill bots: ``bot-random-<n>``."""


@dataclass(frozen=True)
class Entry:
    """One waiting ticket as the grouping sees it."""

    ticket_id: str
    players: tuple[str, ...]
    ratings: tuple[float, ...]
    modes: tuple[str, ...]
    min_seats: int
    max_seats: int
    waited: float
    rating_window: float = 0.0
    allow_bots: bool = False
    region: str = ""

    @property
    def size(self) -> int:
        return len(self.players)

    @property
    def rating(self) -> float:
        return sum(self.ratings) / len(self.ratings) if self.ratings else 0.0


@dataclass(frozen=True)
class Policy:
    base_window: float = 5.0
    widen_per_second: float = 1.0
    max_window: float = math.inf
    partial_after: float = 10.0
    """Seconds an anchor waits before a table smaller than the largest it allows."""
    backfill_after: float = 30.0
    """Seconds an anchor waits before empty seats are filled with bots."""
    bots: bool = True
    scan_limit: int = 32


@dataclass(frozen=True)
class Seat:
    player: str
    ticket_id: str
    """Empty for a bot."""
    rating: float
    bot: bool = False
    team: int = 0
    """1-based team number in team modes, 0 otherwise."""


@dataclass(frozen=True)
class Group:
    mode: str
    seats: tuple[Seat, ...]
    ticket_ids: tuple[str, ...]

    @property
    def spread(self) -> float:
        """Rating range of the human players."""
        ratings = [s.rating for s in self.seats if not s.bot]
        return max(ratings) - min(ratings) if ratings else 0.0

    @property
    def bots(self) -> int:
        return sum(1 for s in self.seats if s.bot)


def window(entry: Entry, policy: Policy) -> float:
    """The rating gap this ticket accepts now: widening with its wait, up to its cap."""
    cap = entry.rating_window if entry.rating_window > 0 else policy.max_window
    return min(cap, policy.base_window + policy.widen_per_second * max(entry.waited, 0.0))


def form_groups(modes: Sequence[ModeSpec], entries: Iterable[Entry], policy: Policy) -> list[Group]:
    """Matches for one game's waiting tickets. Each ticket appears in at most one group."""
    by_region: dict[str, list[Entry]] = {}
    anywhere: list[Entry] = []
    for e in entries:
        (by_region.setdefault(e.region, []) if e.region else anywhere).append(e)
    groups: list[Group] = []
    used: set[str] = set()
    for region in [*sorted(by_region), ""]:
        members = by_region[region] + anywhere if region else anywhere
        for mode in modes:
            pool = [e for e in members if e.ticket_id not in used and mode.name in e.modes]
            for group in _form_in_mode(mode, pool, policy):
                used.update(group.ticket_ids)
                groups.append(group)
    return groups


class _Pool:
    """Entries of one mode sorted by rating, on a linked list of the unmatched."""

    def __init__(self, mode: ModeSpec, entries: list[Entry], policy: Policy) -> None:
        counts = mode.seat_counts()
        max_team = max((t for _, t in mode.team_layouts), default=0)
        fit: list[tuple[Entry, tuple[int, ...]]] = []
        for e in entries:
            allowed = tuple(s for s in counts if e.min_seats <= s <= e.max_seats and e.size <= s)
            if allowed and (not mode.teams or e.size <= max_team):
                fit.append((e, allowed))
        fit.sort(key=lambda pair: pair[0].rating)
        self.entries = [e for e, _ in fit]
        self.allowed = [a for _, a in fit]
        self.rating = [e.rating for e in self.entries]
        self.window = [window(e, policy) for e in self.entries]
        n = len(self.entries)
        self.prev = list(range(-1, n - 1))
        self.next = list(range(1, n + 1))
        self.next[-1:] = [-1] if n else []
        self.alive = [True] * n

    def remove(self, i: int) -> None:
        p, n = self.prev[i], self.next[i]
        if p >= 0:
            self.next[p] = n
        if n >= 0:
            self.prev[n] = p
        self.alive[i] = False


def _form_in_mode(mode: ModeSpec, entries: list[Entry], policy: Policy) -> list[Group]:
    pool = _Pool(mode, entries, policy)
    order = sorted(range(len(pool.entries)), key=lambda i: (-pool.entries[i].waited, i))
    groups = []
    for a in order:
        if not pool.alive[a]:
            continue
        group = _group_for(mode, pool, a, policy)
        if group is None:
            continue
        members, seats = group
        built = _seat(mode, [pool.entries[i] for i in members], seats)
        if built is None:
            continue
        for i in members:
            pool.remove(i)
        groups.append(built)
    return groups


def _group_for(mode: ModeSpec, pool: _Pool, a: int, policy: Policy) -> tuple[list[int], int] | None:
    anchor = pool.entries[a]
    counts = sorted(pool.allowed[a], reverse=True)
    patient = anchor.waited >= policy.partial_after
    for seats in counts if patient else counts[:1]:
        members, total = _fill(mode, pool, a, seats, policy, bots_only=False)
        if total == seats:
            return members, seats
    if policy.bots and anchor.allow_bots and anchor.waited >= policy.backfill_after:
        members, total = _fill(mode, pool, a, counts[0], policy, bots_only=True)
        common = set(pool.allowed[a]).intersection(*(pool.allowed[i] for i in members))
        fitting = sorted(s for s in common if s >= total)
        if fitting:
            return members, fitting[0]
    return None


def _fill(
    mode: ModeSpec, pool: _Pool, a: int, seats: int, policy: Policy, bots_only: bool
) -> tuple[list[int], int]:
    """Grow a group around anchor ``a`` towards ``seats`` players, closest ratings first."""
    members = [a]
    total = pool.entries[a].size
    low = high = pool.rating[a]
    limit = pool.window[a]
    team_size = mode.team_size_for(seats)
    side = [pool.prev[a], pool.next[a]]
    skips = [0, 0]
    while total < seats and (side[0] >= 0 or side[1] >= 0):
        widen = [
            (max(high, pool.rating[c]) - min(low, pool.rating[c])) if c >= 0 else math.inf
            for c in side
        ]
        s = 0 if widen[0] <= widen[1] else 1
        c = side[s]
        side[s] = pool.prev[c] if s == 0 else pool.next[c]
        if widen[s] > limit:
            side[s] = -1
            continue
        e = pool.entries[c]
        fits = (
            seats in pool.allowed[c]
            and e.size <= seats - total
            and widen[s] <= pool.window[c]
            and (not bots_only or e.allow_bots)
            and (not team_size or e.size <= team_size)
        )
        if not fits:
            skips[s] += 1
            if skips[s] > policy.scan_limit:
                side[s] = -1
            continue
        members.append(c)
        total += e.size
        low, high = min(low, pool.rating[c]), max(high, pool.rating[c])
        limit = min(limit, pool.window[c])
    return members, total


def _seat(mode: ModeSpec, parties: list[Entry], seats: int) -> Group | None:
    """Seat the parties (and bots for the empty seats); None when teams cannot be formed."""
    humans = sum(p.size for p in parties)
    mean = sum(r for p in parties for r in p.ratings) / humans
    units: list[list[Seat]] = [
        [Seat(pl, p.ticket_id, r) for pl, r in zip(p.players, p.ratings)] for p in parties
    ]
    units += [[Seat(f"{BOT_PREFIX}{n}", "", mean, bot=True)] for n in range(1, seats - humans + 1)]
    ids = tuple(p.ticket_id for p in parties)
    sizes = mode.team_sizes_for(seats)
    if not sizes:
        return Group(mode.name, tuple(s for u in units for s in u), ids)
    ratings = [[s.rating for s in u] for u in units]
    best: tuple[float, int, list[int]] | None = None
    for team_size in sizes:
        teams = balance_teams(ratings, seats // team_size, team_size)
        if teams is not None:
            gap = team_gap(ratings, teams, seats // team_size)
            if best is None or gap < best[0]:
                best = (gap, team_size, teams)
    if best is None:
        return None
    _, team_size, teams = best
    rosters: list[list[Seat]] = [[] for _ in range(seats // team_size)]
    for unit, team in zip(units, teams):
        rosters[team] += [_with_team(s, team + 1) for s in unit]
    interleaved = [r[i] for i in range(team_size) for r in rosters]
    return Group(mode.name, tuple(interleaved), ids)


def team_gap(units: Sequence[Sequence[float]], teams: Sequence[int], count: int) -> float:
    """Spread of the teams' average ratings: 0 for perfectly even teams."""
    total, size = [0.0] * count, [0] * count
    for unit, team in zip(units, teams):
        total[team] += sum(unit)
        size[team] += len(unit)
    means = [t / n for t, n in zip(total, size) if n]
    return max(means) - min(means) if means else 0.0


def _with_team(seat: Seat, team: int) -> Seat:
    return Seat(seat.player, seat.ticket_id, seat.rating, seat.bot, team)


def balance_teams(units: Sequence[Sequence[float]], teams: int, size: int) -> list[int] | None:
    """Team index per unit (a party's ratings), or None when the parties do not fit.

    Largest parties first (so that they still find room), then strongest first, each joins
    the team with the lowest rating total that has room for it: a greedy balance that, for
    single players, is the snake draft.
    """
    order = sorted(range(len(units)), key=lambda i: (-len(units[i]), -sum(units[i]), i))
    room = [size] * teams
    total = [0.0] * teams
    out = [-1] * len(units)
    for i in order:
        options = [t for t in range(teams) if room[t] >= len(units[i])]
        if not options:
            return None
        t = min(options, key=lambda t: (total[t], -room[t], t))
        out[i] = t
        room[t] -= len(units[i])
        total[t] += sum(units[i])
    return out
