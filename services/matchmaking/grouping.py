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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import NamedTuple, TypeVar

from services.matchmaking.catalogue import ModeSpec
from services.platform.tokens import BOT_PREFIX as RESERVED_FOR_BOTS

T = TypeVar("T")
BOT_PREFIX = RESERVED_FOR_BOTS + "random-"
"""Matchmaking's own backfill bots: ``bot-random-<n>``."""


class Entry(NamedTuple):
    """One waiting ticket as the grouping sees it (a named tuple: a cycle makes one per ticket)."""

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


class Seat(NamedTuple):
    player: str
    ticket_id: str
    """Empty for a bot."""
    rating: float
    bot: bool = False
    team: int = 0
    """1-based team number in team modes, 0 otherwise."""


class Group(NamedTuple):
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


_new_seat = tuple.__new__
"""Builds a Seat from a full tuple of its fields without the keyword-handling constructor."""


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
            name = mode.name
            pool = [e for e in members if name in e.modes and e.ticket_id not in used]
            for group in _form_in_mode(mode, pool, policy):
                used.update(group.ticket_ids)
                groups.append(group)
    return groups


class _Pool:
    """Entries of one mode sorted by rating, on a linked list of the unmatched.

    Everything the inner loop reads is a plain list indexed by position in rating order;
    the seat counts an entry allows are also a bit mask (bit ``s`` set: ``s`` seats).
    """

    def __init__(self, mode: ModeSpec, entries: list[Entry], policy: Policy) -> None:
        counts = mode.seat_counts()
        max_team = max((t for _, t in mode.team_layouts), default=0) if mode.teams else 1 << 30
        allowed_of: dict[tuple[int, int, int], tuple[int, ...]] = {}
        keep: list[int] = []
        allowed: list[tuple[int, ...]] = []
        rating: list[float] = []
        for n, e in enumerate(entries):
            players, ratings, lo, hi = e[1], e[2], e[4], e[5]
            size = len(players)
            key = (lo, hi, size)
            seats = allowed_of.get(key)
            if seats is None:
                seats = allowed_of[key] = tuple(s for s in counts if lo <= s <= hi and size <= s)
            if seats and size <= max_team:
                keep.append(n)
                allowed.append(seats)
                rating.append((ratings[0] if size == 1 else sum(ratings) / size) if ratings else 0.0)
        order = sorted(range(len(keep)), key=rating.__getitem__)  # stable: ties in queue order
        pick = _gather(order)
        self.entries: list[Entry] = _gather([keep[i] for i in order])(entries)
        self.allowed = pick(allowed)
        self.rating: list[float] = pick(rating)
        self.size = [len(e[1]) for e in self.entries]
        self.waited = [e[6] for e in self.entries]
        self.bots = [e[8] for e in self.entries]
        masks = {a: sum(1 << s for s in a) for a in allowed_of.values()}
        self.mask = [masks[a] for a in self.allowed]
        self.descending = {a: tuple(sorted(a, reverse=True)) for a in allowed_of.values()}
        base, widen, cap = policy.base_window, policy.widen_per_second, policy.max_window
        self.window = [
            min(e[7] if e[7] > 0 else cap, base + widen * (e[6] if e[6] > 0 else 0.0))
            for e in self.entries]
        self.team_size = {s: mode.team_size_for(s) for s in counts}
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


def _gather(order: list[int]) -> Callable[[Sequence[T]], list[T]]:
    """A function that takes the items at ``order`` from a sequence, in that order."""
    if not order:
        return lambda _: []
    get = itemgetter(*order)
    return (lambda seq: [get(seq)]) if len(order) == 1 else (lambda seq: list(get(seq)))


def _form_in_mode(mode: ModeSpec, entries: list[Entry], policy: Policy) -> list[Group]:
    pool = _Pool(mode, entries, policy)
    waited = pool.waited
    order = sorted(range(len(pool.entries)), key=lambda i: -waited[i])  # stable: ties by rating
    alive, remove, pool_entries = pool.alive, pool.remove, pool.entries
    groups = []
    for a in order:
        if not alive[a]:
            continue
        group = _group_for(mode, pool, a, policy)
        if group is None:
            continue
        members, seats = group
        built = _seat(mode, [pool_entries[i] for i in members], seats)
        if built is None:
            continue
        for i in members:
            remove(i)
        groups.append(built)
    return groups


def _group_for(mode: ModeSpec, pool: _Pool, a: int, policy: Policy) -> tuple[list[int], int] | None:
    counts = pool.descending[pool.allowed[a]]
    waited = pool.waited[a]
    for seats in counts if waited >= policy.partial_after else counts[:1]:
        members, total = _fill(pool, a, seats, policy.scan_limit, bots_only=False)
        if total == seats:
            return members, seats
    if policy.bots and pool.bots[a] and waited >= policy.backfill_after:
        members, total = _fill(pool, a, counts[0], policy.scan_limit, bots_only=True)
        common = set(pool.allowed[a]).intersection(*(pool.allowed[i] for i in members))
        fitting = sorted(s for s in common if s >= total)
        if fitting:
            return members, fitting[0]
    return None


def _fill(pool: _Pool, a: int, seats: int, scan_limit: int, bots_only: bool) -> tuple[list[int], int]:
    """Grow a group around anchor ``a`` towards ``seats`` players, closest ratings first.

    The pool is in rating order, so a candidate on the left widens the range to ``high -
    its rating`` and one on the right to ``its rating - low``.
    """
    rating, window_, size, mask, bots = pool.rating, pool.window, pool.size, pool.mask, pool.bots
    prev, nxt = pool.prev, pool.next
    members = [a]
    total = size[a]
    low = high = rating[a]
    limit = window_[a]
    team_size = pool.team_size[seats]
    bit = 1 << seats
    left, right = prev[a], nxt[a]
    skip_left = skip_right = 0
    inf = math.inf
    while total < seats and (left >= 0 or right >= 0):
        w_left = high - rating[left] if left >= 0 else inf
        w_right = rating[right] - low if right >= 0 else inf
        on_left = w_left <= w_right
        if on_left:
            c, w = left, w_left
            left = prev[c]
        else:
            c, w = right, w_right
            right = nxt[c]
        if w > limit:  # ratings only grow further away on this side
            if on_left:
                left = -1
            else:
                right = -1
            continue
        n = size[c]
        if (not mask[c] & bit or n > seats - total or w > window_[c]
                or (bots_only and not bots[c]) or (team_size and n > team_size)):
            if on_left:
                skip_left += 1
                if skip_left > scan_limit:
                    left = -1
            else:
                skip_right += 1
                if skip_right > scan_limit:
                    right = -1
            continue
        members.append(c)
        total += n
        if on_left:
            low = rating[c]
        else:
            high = rating[c]
        if window_[c] < limit:
            limit = window_[c]
    return members, total


def _seat(mode: ModeSpec, parties: list[Entry], seats: int) -> Group | None:
    """Seat the parties (and bots for the empty seats); None when teams cannot be formed."""
    ids = tuple(p.ticket_id for p in parties)
    sizes = mode.team_sizes_for(seats) if mode.team_layouts else ()
    if not sizes:
        out = [_new_seat(Seat, (pl, p.ticket_id, r, False, 0))
               for p in parties for pl, r in zip(p.players, p.ratings)]
        if len(out) < seats:
            mean = sum(s.rating for s in out) / len(out)
            out += [Seat(f"{BOT_PREFIX}{n}", "", mean, True)
                    for n in range(1, seats - len(out) + 1)]
        return Group(mode.name, tuple(out), ids)
    humans = sum(p.size for p in parties)
    mean = sum(r for p in parties for r in p.ratings) / humans
    units: list[list[Seat]] = [
        [Seat(pl, p.ticket_id, r) for pl, r in zip(p.players, p.ratings)] for p in parties
    ]
    units += [[Seat(f"{BOT_PREFIX}{n}", "", mean, bot=True)] for n in range(1, seats - humans + 1)]
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
        rosters[team] += [s._replace(team=team + 1) for s in unit]
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
