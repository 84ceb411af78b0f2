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
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate, chain, compress, repeat
from operator import getitem, itemgetter, lt
from typing import Any, NamedTuple, TypeVar

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
        return _spread(self.seats)

    @property
    def bots(self) -> int:
        return sum(1 for s in self.seats if s.bot)


def _spread(seats: Iterable[Seat]) -> float:
    """Rating range of the human players."""
    ratings = [s.rating for s in seats if not s.bot]
    return max(ratings) - min(ratings) if ratings else 0.0


_new_seat = tuple.__new__
"""Builds a Seat from a full tuple of its fields without the keyword-handling constructor."""


def window(entry: Entry, policy: Policy) -> float:
    """The rating gap this ticket accepts now: widening with its wait, up to its cap."""
    cap = entry.rating_window if entry.rating_window > 0 else policy.max_window
    return min(cap, policy.base_window + policy.widen_per_second * max(entry.waited, 0.0))


class Tickets:
    """One game's tickets as columns, a row ("slot") per ticket in queue order.

    The grouping reads the pool through these lists by slot, with C-level gathers, instead of
    one object per ticket: the matchmaker keeps one per game between cycles (a row is added
    when a ticket is queued, its ratings once they are known), so a cycle neither makes nor
    re-reads an object per waiting ticket. Rows are only ever appended (ratings filled in
    once): a formed group keeps reading the rows it was formed from, whatever the owner does
    with the columns afterwards (it builds new ones to drop the rows of closed tickets)."""

    __slots__ = ("ids", "players", "lead", "ratings", "rating", "kind", "kinds", "limits",
                 "own_window", "bots", "region", "_kind_of", "_limits_of")

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.players: list[tuple[str, ...]] = []
        self.lead: list[str] = []
        """The party's first player: a one-player party's seat, read without visiting its tuple."""
        self.ratings: list[tuple[float, ...]] = []
        self.rating: list[float] = []
        """The party's mean rating: the order of the pool."""
        self.kind: list[int] = []
        """Index of the ticket's modes in ``kinds``."""
        self.kinds: list[tuple[str, ...]] = []
        self.limits: list[tuple[int, int, int]] = []
        """(min seats, max seats, party size), one shared tuple per distinct value."""
        self.own_window: list[float] = []
        self.bots: list[bool] = []
        self.region: list[str] = []
        self._kind_of: dict[tuple[str, ...], int] = {}
        self._limits_of: dict[tuple[int, int, int], tuple[int, int, int]] = {}

    def add(self, ticket_id: str, players: tuple[str, ...], modes: tuple[str, ...], min_seats: int,
            max_seats: int, rating_window: float, allow_bots: bool, region: str,
            ratings: tuple[float, ...] = ()) -> int:
        """A new row (its ratings now or later with :meth:`rate`); returns its slot."""
        kind = self._kind_of.get(modes)
        if kind is None:
            kind = self._kind_of[modes] = len(self.kinds)
            self.kinds.append(modes)
        limits = (min_seats, max_seats, len(players))
        self.ids.append(ticket_id)
        self.players.append(players)
        self.lead.append(players[0] if players else "")
        self.ratings.append(ratings)
        self.rating.append(_mean(ratings, len(players)))
        self.kind.append(kind)
        self.limits.append(self._limits_of.setdefault(limits, limits))
        self.own_window.append(rating_window)
        self.bots.append(allow_bots)
        self.region.append(region)
        return len(self.ids) - 1

    def distinct_limits(self) -> Iterable[tuple[int, int, int]]:
        """Every (min seats, max seats, party size) of a row, once each."""
        return self._limits_of.values()

    def rate(self, slot: int, ratings: tuple[float, ...]) -> None:
        """The ratings of a row added without them (before it is ever grouped)."""
        self.ratings[slot] = ratings
        self.rating[slot] = _mean(ratings, len(self.players[slot]))

    @classmethod
    def of(cls, entries: list[Entry]) -> Tickets:
        """Columns of ``entries``, slot = position (built with C-level passes)."""
        t = cls()
        t.ids, t.players, t.ratings = (list(map(f, entries)) for f in (_ID, _PLAYERS, _RATINGS))
        t.lead = [p[0] if p else "" for p in t.players]
        t.rating = list(map(_mean, t.ratings, map(len, t.players)))
        modes = list(map(_MODES, entries))
        t._kind_of = {k: i for i, k in enumerate(dict.fromkeys(modes))}
        t.kinds = list(t._kind_of)
        t.kind = list(map(t._kind_of.__getitem__, modes))
        limits = list(zip(map(_MIN, entries), map(_MAX, entries), map(len, t.players)))
        t._limits_of = {k: k for k in limits}
        t.limits = list(map(t._limits_of.__getitem__, limits))
        t.own_window, t.bots, t.region = (list(map(f, entries)) for f in (_OWN_WINDOW, _BOTS, _REGION))
        return t


def _mean(ratings: tuple[float, ...], size: int) -> float:
    """A party's rating; a malformed entry (not one rating per player) is grouped as ever."""
    if not ratings:
        return 0.0
    return ratings[0] if size == 1 else sum(ratings) / size


class Formed(NamedTuple):
    """One group of :class:`Groups`: its tickets' rows, the seats spelled out when asked."""

    mode: str
    table: int
    """Seats at the table, bots included."""
    slots: list[int]
    """Rows of ``tickets``: the parties, in the group's order."""
    tickets: Tickets
    teams: Seating | None
    """In team modes, how the group is seated in teams."""

    @property
    def ticket_ids(self) -> tuple[str, ...]:
        ids = self.tickets.ids
        return tuple([ids[s] for s in self.slots])

    @property
    def seats(self) -> tuple[Seat, ...]:
        if self.teams is not None:
            return self.teams.seats(self.tickets, self.slots)
        t = self.tickets
        ids, players, ratings = t.ids, t.players, t.ratings
        out = [_new_seat(Seat, (pl, ids[s], r, False, 0))
               for s in self.slots for pl, r in zip(players[s], ratings[s])]
        if len(out) < self.table:
            mean = sum(s[2] for s in out) / len(out)
            out += [_new_seat(Seat, (f"{BOT_PREFIX}{k}", "", mean, True, 0))
                    for k in range(1, self.table - len(out) + 1)]
        return tuple(out)

    @property
    def spread(self) -> float:
        return _spread(self.seats)

    @property
    def bots(self) -> int:
        return self.table - sum(len(self.tickets.players[s]) for s in self.slots)

    def group(self) -> Group:
        return Group(self.mode, self.seats, self.ticket_ids)


class Groups(Sequence[Formed]):
    """The groups formed over one :class:`Tickets`, as columns: a cycle forms tens of thousands,
    and one object per group would be made, kept and walked by the garbage collector only for
    the matchmaker to read the rows back. ``groups[k]`` spells group ``k`` out."""

    __slots__ = ("tickets", "mode", "table", "start", "slots", "teams")

    def __init__(self, tickets: Tickets) -> None:
        self.tickets = tickets
        self.mode: list[str] = []
        self.table: list[int] = []
        """Seats at each table, bots included."""
        self.start = [0]
        """Group ``k``'s parties are the rows ``slots[start[k]:start[k + 1]]``."""
        self.slots: list[int] = []
        self.teams: dict[int, Seating] = {}
        """How the groups of team modes are seated in teams."""

    def __len__(self) -> int:
        return len(self.mode)

    def __getitem__(self, k: int) -> Formed:  # type: ignore[override]
        if not -len(self.mode) <= k < len(self.mode):
            raise IndexError(k)
        k %= len(self.mode)
        return Formed(self.mode[k], self.table[k], self.slots[self.start[k]:self.start[k + 1]],
                      self.tickets, self.teams.get(k))

    def __iter__(self) -> Iterator[Formed]:
        return map(self.__getitem__, range(len(self.mode)))

    def ticket_ids(self, k: int) -> list[str]:
        return list(map(self.tickets.ids.__getitem__, self.slots[self.start[k]:self.start[k + 1]]))

    def select(self, keep: Iterable[int]) -> Groups:
        """Only the groups ``keep``, in that order."""
        out = Groups(self.tickets)
        for k in keep:
            out.mode.append(self.mode[k])
            out.table.append(self.table[k])
            out.slots += self.slots[self.start[k]:self.start[k + 1]]
            out.start.append(len(out.slots))
            if k in self.teams:
                out.teams[len(out.mode) - 1] = self.teams[k]
        return out

    def extend(self, other: Groups) -> None:
        """The groups of ``other`` (formed over the same rows) after these."""
        assert other.tickets is self.tickets
        first, at = len(self.mode), len(self.slots)
        self.mode += other.mode
        self.table += other.table
        self.start += [at + s for s in other.start[1:]]
        self.slots += other.slots
        for k, seating in other.teams.items():
            self.teams[first + k] = seating


def form_groups(modes: Sequence[ModeSpec], entries: Iterable[Entry], policy: Policy) -> list[Group]:
    """Matches for one game's waiting tickets. Each ticket appears in at most one group."""
    entries = entries if isinstance(entries, list) else list(entries)
    formed = group_tickets(modes, Tickets.of(entries), range(len(entries)),
                           list(map(_WAITED, entries)), policy)
    return [f.group() for f in formed]


def group_tickets(modes: Sequence[ModeSpec], tickets: Tickets, live: Sequence[int],
                  waited: Sequence[float], policy: Policy) -> Groups:
    """:func:`form_groups` over the rows ``live`` (in queue order) of ``tickets``, each having
    waited ``waited[slot]`` seconds."""
    region = tickets.region
    by_region: dict[str, list[int]] = {}
    anywhere: Sequence[int] = live
    if any(map(region.__getitem__, live)):
        anywhere = []
        for s in live:
            (by_region.setdefault(region[s], []) if region[s] else anywhere).append(s)
    groups = Groups(tickets)
    used: set[int] = set()
    kind_column, kinds_known = tickets.kind, tickets.kinds
    for place in [*sorted(by_region), ""]:
        members = by_region[place] + list(anywhere) if place else anywhere
        kinds = list(map(kind_column.__getitem__, members))
        distinct = set(kinds)
        for mode in modes:
            name = mode.name
            fit = {k for k in distinct if name in kinds_known[k]}
            if not fit:
                continue
            if len(fit) == len(distinct):  # every ticket allows the mode
                pool = [s for s in members if s not in used] if used else members
            else:
                pool = [s for s, k in zip(members, kinds) if k in fit and s not in used]
            before = len(groups.slots)
            _form_in_mode(mode, tickets, pool, waited, policy, groups)
            used.update(groups.slots[before:])
    return groups


APART_ROUNDS = 4
"""At most this many groupings a cycle when rows share players (:func:`group_apart`)."""


def group_apart(modes: Sequence[ModeSpec], tickets: Tickets, live: Sequence[int],
                waited: Sequence[float], policy: Policy, shared: Mapping[int, Collection[str]],
                first: Collection[int] = ()) -> Groups:
    """:func:`group_tickets` where some rows of ``live`` name the same player: ``shared`` maps
    each such row to the players it shares with another row (a player named in a party
    without their consent, who also waits in a ticket of their own or in another party). No
    group seats a player twice.

    The grouping runs in rounds, each over a pool with at most one row per shared player:
    the rows ``first`` (the tickets that hold their shared players: their own, or a party they
    accepted) come before the others, and rows of the same rank oldest first; every round also
    takes every row without a shared player that is not grouped yet, and the shared rows of
    earlier rounds that were not grouped and do not clash. So a player's own ticket is grouped
    as if the parties naming them were not there, and those parties are grouped as well from
    what it leaves (their named player may then accept one match, and only one). Rows still
    not in a pool after :data:`APART_ROUNDS` rounds wait for the next cycle."""
    pending = sorted((s for s in live if s in shared), key=lambda s: s not in first)
    if not pending:
        return group_tickets(modes, tickets, live, waited, policy)
    free = [s for s in live if s not in shared]
    left: list[int] = []
    out = Groups(tickets)
    for _ in range(APART_ROUNDS):
        if not pending:
            break
        used: set[str] = set()
        pool: list[int] = []
        later: list[int] = []
        for s in pending:
            if used.isdisjoint(shared[s]):
                pool.append(s)
                used.update(shared[s])
            else:
                later.append(s)
        chosen = list(pool)
        for s in left:
            if used.isdisjoint(shared[s]):
                pool.append(s)
                used.update(shared[s])
        groups = group_tickets(modes, tickets, sorted(chain(free, pool)), waited, policy)
        out.extend(groups)
        grouped = set(groups.slots)
        free = [s for s in free if s not in grouped]
        left = [s for s in chain(left, chosen) if s not in grouped]
        pending = later
    return out


_ID, _PLAYERS, _RATINGS, _MODES, _MIN, _MAX, _WAITED, _OWN_WINDOW, _BOTS, _REGION = (
    itemgetter(0), itemgetter(1), itemgetter(2), itemgetter(3), itemgetter(4), itemgetter(5),
    itemgetter(6), itemgetter(7), itemgetter(8), itemgetter(9))
_SIZE = itemgetter(2)


def _gather(order: list[int]) -> Callable[[Sequence[T]], list[T]]:
    """A function that takes the items at ``order`` from a sequence, in that order."""
    if not order:
        return lambda _: []
    get = itemgetter(*order)
    return (lambda seq: [get(seq)]) if len(order) == 1 else (lambda seq: list(get(seq)))


def _form_in_mode(mode: ModeSpec, tickets: Tickets, pool: Sequence[int], waited_of: Sequence[float],
                  policy: Policy, out: Groups) -> None:
    """The groups of one mode's pool (rows of ``tickets``), added to ``out``: columns in rating order (plain
    lists indexed by position, gathered with C-level ``itemgetter`` passes), the unmatched on
    a doubly linked list, anchors oldest first; one function, so that the loop reads locals only."""
    counts = mode.seat_counts()
    max_team = max((t for _, t in mode.team_layouts), default=0) if mode.teams else 1 << 30
    limits = tickets.limits
    keys = list(map(limits.__getitem__, pool))
    allowed_of = {k: tuple(s for s in counts if k[0] <= s <= k[1] and k[2] <= s)
                  for k in set(keys)}
    fits = {k: bool(a) and k[2] <= max_team for k, a in allowed_of.items()}
    if not all(fits.values()):
        pool = list(compress(pool, map(fits.__getitem__, keys)))
    if not pool:
        return
    rating_of = tickets.rating
    order = sorted(pool, key=rating_of.__getitem__)  # stable: ties in queue order
    pick = _gather(order)
    # kinds (seat limits and party size) are small ints
    kind_of = {k: i for i, k in enumerate(allowed_of)}
    allowed_k = list(allowed_of.values())
    mask_k = [sum(1 << s for s in a) for a in allowed_k]
    descending_k = [tuple(sorted(a, reverse=True)) for a in allowed_k]
    base, widen, cap = policy.base_window, policy.widen_per_second, policy.max_window
    rating, waited, key = pick(rating_of), pick(waited_of), pick(limits)
    size = list(map(_SIZE, key))
    # window(): min(own window or cap, base + widen * max(wait, 0)), spelled out as min and
    # max decide (the same floats, NaN included), without a call per ticket
    own = pick(tickets.own_window)
    if any(map(lt, repeat(0), own)):
        window_ = [min(o if o > 0 else cap, base + widen * (w if w > 0.0 else 0.0))
                   for o, w in zip(own, waited)]
    else:
        window_ = [x if (x := base + widen * (w if w > 0.0 else 0.0)) < cap else cap
                   for w in waited]
    kind = list(map(kind_of.__getitem__, key))
    bots = pick(tickets.bots)
    mask = list(map(mask_k.__getitem__, kind))
    n = len(order)
    team_size_of = {s: mode.team_size_for(s) for s in counts}
    prev = list(range(-1, n - 1))
    nxt = list(range(1, n + 1))
    nxt[-1] = -1
    alive = [True] * n
    scan_limit, partial_after, backfill_after = policy.scan_limit, policy.partial_after, policy.backfill_after
    backfill = policy.bots
    inf = math.inf

    def fill(a: int, seats: int, bots_only: bool) -> tuple[list[int], int]:
        """Grow a group around anchor ``a`` towards ``seats`` players, closest ratings first.

        The pool is in rating order, so a candidate on the left widens the range to ``high -
        its rating`` and one on the right to ``its rating - low``."""
        members = [a]
        total = size[a]
        low = high = rating[a]
        limit = window_[a]
        team_size = team_size_of[seats]
        bit = 1 << seats
        left, right = prev[a], nxt[a]
        skip_left = skip_right = 0
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
            k = size[c]
            if (not mask[c] & bit or k > seats - total or w > window_[c]
                    or (bots_only and not bots[c]) or (team_size and k > team_size)):
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
            total += k
            if on_left:
                low = rating[c]
            else:
                high = rating[c]
            if window_[c] < limit:
                limit = window_[c]
        return members, total

    name = mode.name
    team_sizes = {s: mode.team_sizes_for(s) for s in counts}
    out_mode, out_table, out_start, out_slots, out_teams = (
        out.mode, out.table, out.start, out.slots, out.teams)
    first = len(out_slots)  # this mode's groups list positions in ``order`` until the end
    for a in sorted(range(n), key=waited.__getitem__, reverse=True):  # stable: ties by rating
        if not alive[a]:
            continue
        counts_a = descending_k[kind[a]]
        target = counts_a[0]
        members, total = fill(a, target, False)
        if total != target:
            found = False
            wait = waited[a]
            if wait >= partial_after:
                for target in counts_a[1:]:
                    members, total = fill(a, target, False)
                    if total == target:
                        found = True
                        break
            if not found:
                if not (backfill and bots[a] and wait >= backfill_after):
                    continue
                members, total = fill(a, counts_a[0], True)
                common = set(allowed_k[kind[a]]).intersection(*(allowed_k[kind[i]] for i in members))
                fitting = sorted(s for s in common if s >= total)
                if not fitting:
                    continue
                target = fitting[0]
        if team_sizes[target]:
            seated = _seat_teams(team_sizes[target], tickets,
                                 list(map(order.__getitem__, members)), target)
            if seated is None:
                continue
            out_teams[len(out_mode)] = seated
        out_mode.append(name)
        out_table.append(target)
        out_slots += members
        out_start.append(len(out_slots))
        for i in members:
            p, q = prev[i], nxt[i]
            if p >= 0:
                nxt[p] = q
            if q >= 0:
                prev[q] = p
            alive[i] = False
    out_slots[first:] = map(order.__getitem__, out_slots[first:])


class Seating(NamedTuple):
    """How a group of a team mode is seated: the team of each unit (its parties in the group's
    order, then one unit per bot), spelled out into seats only when asked."""

    team_size: int
    teams: int
    team_of: list[int]
    mean: float
    """The humans' mean rating: every bot's."""
    lengths: tuple[int, ...]
    """Seats of each unit: a party's players with a rating (as zip() pairs them), 1 per bot."""

    def order(self) -> tuple[Callable[[Sequence[T]], list[T]], list[int], list[int]]:
        """Which of the group's seats in unit order sits at each seat (as a function that picks
        them from a list, and as their places), and the team numbers:
        the teams' first seats, then their second seats, and so on; a team's seats are its
        units' in the group's order. Shared by the groups seated alike (a few hundred)."""
        key = (self.lengths, *self.team_of)
        known = _SEAT_ORDERS.get(key)
        if known is None:
            starts = [0, *accumulate(self.lengths)]
            rosters: list[list[int]] = [[] for _ in range(self.teams)]
            for u, t in enumerate(self.team_of):
                rosters[t] += range(starts[u], starts[u + 1])
            if len(_SEAT_ORDERS) >= 4096:
                _SEAT_ORDERS.clear()
            order = list(chain.from_iterable(zip(*rosters)))
            known = _SEAT_ORDERS[key] = (_gather(order), order,
                                         list(range(1, self.teams + 1)) * self.team_size)
        return known

    def columns(self, tickets: Tickets, slots: Sequence[int]) -> tuple[list[str], list[str], list[int]]:
        """Player, ticket (empty for a bot) and team number (1-based) of each seat."""
        pick, _, teams = self.order()
        parties = len(slots)
        bots = len(self.lengths) - parties
        players = list(chain.from_iterable(map(getitem, map(tickets.players.__getitem__, slots),
                                               map(slice, self.lengths))))
        ids = list(chain.from_iterable(map(repeat, map(tickets.ids.__getitem__, slots), self.lengths)))
        if bots:
            players += [f"{BOT_PREFIX}{k}" for k in range(1, bots + 1)]
            ids += [""] * bots
        return pick(players), pick(ids), teams

    def seats(self, tickets: Tickets, slots: Sequence[int]) -> tuple[Seat, ...]:
        pick, _, teams = self.order()
        player, ticket, _ = self.columns(tickets, slots)
        ratings = list(chain.from_iterable(map(getitem, map(tickets.ratings.__getitem__, slots),
                                               map(slice, self.lengths))))
        ratings += [self.mean] * (len(self.lengths) - len(slots))
        return tuple([_new_seat(Seat, (p, i, r, not i, t))
                      for p, i, r, t in zip(player, ticket, pick(ratings), teams)])


_SEAT_ORDERS: dict[tuple[Any, ...], tuple[Callable[[Sequence[Any]], list[Any]], list[int], list[int]]] = {}


def _seat_teams(sizes: tuple[int, ...], tickets: Tickets, slots: list[int],
                seats: int) -> Seating | None:
    """Seat the parties (rows ``slots`` of ``tickets``) and bots for the empty seats in teams
    of one of ``sizes``; None when they cannot be formed."""
    players, ratings = tickets.players, tickets.ratings
    rated = list(map(ratings.__getitem__, slots))
    lengths = list(map(len, map(players.__getitem__, slots)))
    humans = sum(lengths)
    mean = sum(chain.from_iterable(rated)) / humans
    # a unit per party (a seat per player with a rating), then one per bot
    units = list(map(getitem, rated, map(slice, lengths)))
    bots = seats - humans
    unit_lengths = list(map(len, units)) + [1] * bots
    sums = list(map(sum, units)) + [sum([mean])] * bots  # as sum() gives a unit's
    best: tuple[float, int, list[int]] | None = None
    for team_size in sizes:
        count = seats // team_size
        teams = _balance(unit_lengths, sums, count, team_size)
        if teams is not None:
            if len(sizes) == 1:
                return Seating(team_size, count, teams, mean, tuple(unit_lengths))
            gap = _gap(unit_lengths, sums, teams, count)
            if best is None or gap < best[0]:
                best = (gap, team_size, teams)
    if best is None:
        return None
    _, team_size, teams = best
    return Seating(team_size, seats // team_size, teams, mean, tuple(unit_lengths))


def _gap(lengths: Sequence[int], sums: Sequence[float], teams: Sequence[int], count: int) -> float:
    """:func:`team_gap` of units with these lengths and rating sums."""
    total, size = [0.0] * count, [0] * count
    for n, s, team in zip(lengths, sums, teams):
        total[team] += s
        size[team] += n
    means = [t / n for t, n in zip(total, size) if n]
    return max(means) - min(means) if means else 0.0


def team_gap(units: Sequence[Sequence[float]], teams: Sequence[int], count: int) -> float:
    """Spread of the teams' average ratings: 0 for perfectly even teams."""
    return _gap(list(map(len, units)), list(map(sum, units)), teams, count)


def balance_teams(units: Sequence[Sequence[float]], teams: int, size: int) -> list[int] | None:
    """Team index per unit (a party's ratings), or None when the parties do not fit.

    Largest parties first (so that they still find room), then strongest first, each joins
    the team with the lowest rating total that has room for it: a greedy balance that, for
    single players, is the snake draft.
    """
    return _balance(list(map(len, units)), list(map(sum, units)), teams, size)


def _balance(lengths: list[int], sums: list[float], teams: int, size: int) -> list[int] | None:
    """:func:`balance_teams` of units with these lengths and rating sums."""
    # by (-length, -sum, index): two stable sorts (reverse=True keeps ties in index order)
    order = sorted(range(len(sums)), key=sums.__getitem__, reverse=True)
    order.sort(key=lengths.__getitem__, reverse=True)
    room = [size] * teams
    total = [0.0] * teams
    out = [-1] * len(sums)
    for i in order:
        need = lengths[i]
        best = -1  # the team with room of the least (total, -room, index)
        for t in range(teams):
            if room[t] >= need and (best < 0 or total[t] < total[best]
                                    or (total[t] == total[best] and room[t] > room[best])):
                best = t
        if best < 0:
            return None
        out[i] = best
        room[best] -= need
        total[best] += sums[i]
    return out
