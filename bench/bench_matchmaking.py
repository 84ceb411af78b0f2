"""Matchmaking cycle: time and rating spread, against first-come-first-served, same run.

Usage: python bench/bench_matchmaking.py [--sizes 10000 100000] [--seed 1] [--no-service]

For each queue size and each scenario (Neon Reign 1v1; NEON with parties, seat limits,
several modes and Coalition teams) it builds that many waiting tickets and measures, in
the same run:

- rating-aware: one pass of the pure grouping (services/matchmaking/grouping.py);
- first-come: a naive first-come-first-served grouping (queue order, parties kept whole,
  no ratings) over the same tickets;
- service cycle: one whole ``Matchmaker.cycle()`` of the matchmaking service over the same
  tickets held as event-sourced Ticket aggregates in an in-memory event store: expiry,
  snapshot, grouping, and saving every ``Proposed`` event (one transaction).

It prints the time per cycle, matches, players seated, and the mean / p95 rating spread
(max - min rating of the humans of a match), with the ratios against first-come.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from services.matchmaking.app import MatchmakingApplication  # noqa: E402
from services.matchmaking.catalogue import Catalogue, ModeSpec  # noqa: E402
from services.matchmaking.config import Config  # noqa: E402
from services.matchmaking.domain import Ticket  # noqa: E402
from services.matchmaking.grouping import Entry, Group, Policy, Seat, form_groups  # noqa: E402
from services.matchmaking.matchmaker import Matchmaker  # noqa: E402
from services.matchmaking.ratings import StaticRatings  # noqa: E402
from services.matchmaking.rules_port import RulesGateway  # noqa: E402
from services.platform import logs  # noqa: E402
from tests.support.mm_games import GAMES  # noqa: E402


def tickets(scenario: str, n: int, seed: int) -> list[Entry]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        skill = rng.gauss(10.0, 8.0)
        if scenario == "neon-reign":
            size, modes, lo, hi = 1, ("single",), 2, 2
        else:
            size = rng.choices((1, 2, 3), (70, 20, 10))[0]
            modes = rng.choice((("rebirth",), ("battle-royale",), ("rebirth", "coalition"),
                                ("coalition",) if size <= 3 else ("rebirth",)))
            lo, hi = rng.choice(((2, 6), (3, 4), (4, 6), (2, 6)))
            lo = max(lo, size)
        ratings = tuple(skill + rng.uniform(-3, 3) for _ in range(size))
        out.append(Entry(f"t{i}", tuple(f"p{i}-{k}" for k in range(size)), ratings, modes, lo, hi,
                         waited=rng.uniform(0, 60), allow_bots=rng.random() < 0.3))
    return out


def first_come(modes: tuple[ModeSpec, ...], entries: list[Entry]) -> list[Group]:
    """Queue order; each ticket opens a table of its largest seat count or joins the open one."""
    groups: list[Group] = []
    used: set[str] = set()
    for mode in modes:
        open_tables: dict[int, list[Entry]] = {}
        for e in sorted(entries, key=lambda e: -e.waited):
            if mode.name not in e.modes or e.ticket_id in used:
                continue
            counts = [s for s in mode.seat_counts() if e.min_seats <= s <= e.max_seats and e.size <= s]
            if not counts or (mode.teams and e.size > max(t for _, t in mode.team_layouts)):
                continue
            seats = max(counts)
            table = open_tables.setdefault(seats, [])
            if sum(x.size for x in table) + e.size > seats:
                continue
            table.append(e)
            if sum(x.size for x in table) == seats:
                used.update(x.ticket_id for x in table)
                groups.append(Group(mode.name, tuple(Seat(p, x.ticket_id, r) for x in table
                                                     for p, r in zip(x.players, x.ratings)),
                                    tuple(x.ticket_id for x in table)))
                open_tables[seats] = []
    return groups


def spread_stats(groups: list[Group]) -> tuple[float, float, int]:
    spreads = sorted(g.spread for g in groups)
    if not spreads:
        return 0.0, 0.0, 0
    p95 = spreads[min(len(spreads) - 1, int(0.95 * len(spreads)))]
    seated = sum(len(g.seats) - g.bots for g in groups)
    return statistics.fmean(spreads), p95, seated


async def service_cycle(scenario: str, entries: list[Entry]) -> tuple[dict[str, float], list[Group]]:
    """One ``Matchmaker.cycle()`` over ``entries`` queued as Ticket aggregates (in memory)."""
    now = time.time()
    app = MatchmakingApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    table: dict[str, float] = {}
    tickets = []
    for e in entries:
        table.update(zip(e.players, e.ratings))
        resolved = {"game": scenario, "modes": list(e.modes), "players": list(e.players),
                    "min_seats": e.min_seats, "max_seats": e.max_seats, "region": e.region,
                    "rating_window": e.rating_window, "allow_bots": e.allow_bots}
        tickets.append(Ticket(e.ticket_id, resolved, resolved, now - e.waited, "bench"))
    for start in range(0, len(tickets), 1000):
        app.save(*tickets[start:start + 1000])
    rules = RulesGateway(lambda game: None, "", 1.0)
    mm = Matchmaker(app, rules, StaticRatings(table), Config(ticket_ttl=3600),
                    Catalogue({scenario: GAMES[scenario]}))
    await mm.recover()
    await mm._rate_new_tickets()  # the ratings lookup is measured apart: it is a network call
    groups = await mm.cycle()
    return mm.last_cycle, groups


def run(scenario: str, n: int, seed: int, service: bool) -> None:
    modes = GAMES[scenario].modes
    entries = tickets(scenario, n, seed)
    policy = Policy()
    t0 = time.perf_counter()
    ours = form_groups(modes, entries, policy)
    t_ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    naive = first_come(modes, entries)
    t_naive = time.perf_counter() - t0
    mo, po, so = spread_stats(ours)
    mn, pn, sn = spread_stats(naive)
    humans = sum(e.size for e in entries)
    print(f"{scenario:>10} {n:>7} tickets ({humans} players)")
    print(f"   rating-aware : {t_ours * 1000:8.1f} ms/cycle  {len(ours):6} matches  "
          f"{so:6} seated  spread mean {mo:6.2f}  p95 {po:6.2f}  bots {sum(g.bots for g in ours)}")
    print(f"   first-come   : {t_naive * 1000:8.1f} ms/cycle  {len(naive):6} matches  "
          f"{sn:6} seated  spread mean {mn:6.2f}  p95 {pn:6.2f}")
    print(f"   ratios       : time x{t_ours / t_naive:5.2f}   spread mean /{mn / mo if mo else float('inf'):5.1f}"
          f"   p95 /{pn / po if po else float('inf'):5.1f}   seated {so / sn if sn else 0:5.2f}")
    if service:
        timing, groups = asyncio.run(service_cycle(scenario, entries))
        ms, ps, ss = spread_stats(groups)
        print(f"   service cycle: {timing['total'] * 1000:8.1f} ms/cycle  {len(groups):6} matches  "
              f"{ss:6} seated  spread mean {ms:6.2f}  p95 {ps:6.2f}  (snapshot "
              f"{timing['snapshot'] * 1000:.0f} ms, grouping {timing['grouping'] * 1000:.0f} ms, "
              f"propose+save {timing['propose_and_save'] * 1000:.0f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-service", action="store_true",
                        help="skip the whole-service cycle (event store included)")
    args = parser.parse_args()
    logs.configure("warning", "console")
    print("one matchmaking cycle over N waiting tickets (waits uniform 0-60 s, ratings N(10, 8))")
    for n in args.sizes:
        for scenario in ("neon-reign", "neon"):
            run(scenario, n, args.seed, not args.no_service)


if __name__ == "__main__":
    main()
