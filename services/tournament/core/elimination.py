"""Single and double elimination brackets, seeded from ratings.

Seeding: the field is seeded in seed order (rating, then registration) into a bracket of
P = the next power of two; the standard order puts 1 against P, 8 against 9 and so on
(for 16, top to bottom: 1-16, 8-9, 4-13, 5-12, 2-15, 7-10, 3-14, 6-11), so seeds 1 and 2
can only meet in the final, 1 meets 4 at the earliest in the semi-final, and so on. Missing seeds are byes, so byes go to the top seeds.

Double elimination: a loser of the winners' bracket (W) drops into the losers' bracket
(L). L round 1 pairs the losers of W round 1 two by two; each even L round pairs the
survivors with the losers of the next W round (in reverse order, to keep apart players
who just met); each odd L round after the first pairs the survivors among themselves.
The grand final is the W champion against the L champion; when ``grand_final_reset`` is
set and the L champion wins it, a second final decides.

Rounds: every tournament round plays every match whose two players are known and which
is not yet decided; a match against a bye is decided at once (the player advances; in
round 1 the player gets a bye table so the pairing shows it). A tied result advances the
higher seed (an elimination match must produce a winner; the game's own mode, such as a
best of three, should prevent ties).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from services.tournament.core.ledger import results_by_table
from services.tournament.core.model import (
    FormatConfig,
    History,
    Table,
    TableResult,
    TournamentError,
    seed_order,
)
from services.tournament.core.progress import next_round_number

EMPTY = ""
"""A slot that nobody fills (a bye)."""


def bracket_order(size: int) -> list[int]:
    """Seeds in bracket order for a power-of-two ``size``: [1, 16, 8, 9, 5, 12, ...]."""
    order = [1]
    while len(order) < size:
        n = 2 * len(order)
        order = [x for s in order for x in (s, n + 1 - s)]
    return order


@dataclass(frozen=True)
class Source:
    kind: str  # "seed" | "winner" | "loser"
    ref: str  # seed number (as text) or a match id

    def to_json(self) -> str:
        return f"{self.kind}:{self.ref}"


@dataclass(frozen=True)
class Match:
    id: str  # "W1-1", "L2-3", "GF1", "GF2"
    bracket: str  # "winners" | "losers" | "final"
    level: int  # order of elimination depth (higher = later)
    sources: tuple[Source, Source]


def build(config: FormatConfig, n: int) -> list[Match]:
    size = 1 << max(1, math.ceil(math.log2(max(n, 2))))
    k = size.bit_length() - 1
    order = bracket_order(size)
    matches: list[Match] = []
    w_ids: dict[int, list[str]] = {}
    for r in range(1, k + 1):
        count = size >> r
        ids = [f"W{r}-{i + 1}" for i in range(count)]
        w_ids[r] = ids
        for i, mid in enumerate(ids):
            if r == 1:
                srcs = (Source("seed", str(order[2 * i])), Source("seed", str(order[2 * i + 1])))
            else:
                prev = w_ids[r - 1]
                srcs = (Source("winner", prev[2 * i]), Source("winner", prev[2 * i + 1]))
            matches.append(Match(mid, "winners", 2 * r - 1 if r > 1 else 1, srcs))
    if config.format == "single-elimination":
        return [Match(m.id, m.bracket, int(m.id[1:].split("-")[0]), m.sources) for m in matches]
    l_prev: list[str] = []
    lr = 0
    for r in range(1, k):
        if r == 1:
            losers = w_ids[1]
            lr += 1
            ids = [f"L{lr}-{i + 1}" for i in range(len(losers) // 2)]
            for i, mid in enumerate(ids):
                srcs = (Source("loser", losers[2 * i]), Source("loser", losers[2 * i + 1]))
                matches.append(Match(mid, "losers", lr, srcs))
            l_prev = ids
        else:
            prev = l_prev
            lr += 1
            ids = [f"L{lr}-{i + 1}" for i in range(len(prev) // 2)]
            for i, mid in enumerate(ids):
                srcs = (Source("winner", prev[2 * i]), Source("winner", prev[2 * i + 1]))
                matches.append(Match(mid, "losers", lr, srcs))
            l_prev = ids
        drop = list(reversed(w_ids[r + 1]))
        lr += 1
        ids = [f"L{lr}-{i + 1}" for i in range(len(l_prev))]
        for i, mid in enumerate(ids):
            srcs = (Source("winner", l_prev[i]), Source("loser", drop[i]))
            matches.append(Match(mid, "losers", lr, srcs))
        l_prev = ids
    w_final = w_ids[k][0]
    l_final = l_prev[0] if l_prev else None
    second = Source("winner", l_final) if l_final else Source("loser", w_final)
    matches.append(Match("GF1", "final", lr + 1, (Source("winner", w_final), second)))
    if config.grand_final_reset:
        matches.append(
            Match("GF2", "final", lr + 2, (Source("winner", "GF1"), Source("loser", "GF1")))
        )
    return matches


@dataclass
class State:
    """The bracket after replaying the history."""

    matches: list[Match]
    seeds: dict[int, str]
    seed_rank: dict[str, int]
    winner: dict[str, str] = field(default_factory=dict)
    loser: dict[str, str] = field(default_factory=dict)
    played_in: dict[str, tuple[int, int]] = field(default_factory=dict)
    byes_in: dict[str, int] = field(default_factory=dict)
    """Match id -> the round whose pairing showed the bye."""
    dropped: dict[str, int] = field(default_factory=dict)
    """Player -> the round after which they withdrew: they lose later matches by walkover."""

    def player(self, src: Source) -> str | None:
        """The player a source names, EMPTY for nobody, None while not yet known."""
        if src.kind == "seed":
            return self.seeds.get(int(src.ref), EMPTY)
        if src.ref not in self.winner:
            return None
        return self.winner[src.ref] if src.kind == "winner" else self.loser[src.ref]

    def players(self, m: Match) -> tuple[str | None, str | None]:
        return self.player(m.sources[0]), self.player(m.sources[1])

    def needed(self, m: Match) -> bool:
        """GF2 is only played when the losers' champion won GF1."""
        if m.id != "GF2":
            return True
        if "GF1" not in self.winner:
            return False
        gf1 = next(x for x in self.matches if x.id == "GF1")
        return self.winner["GF1"] == self.player(gf1.sources[1])

    def settle_byes(self, round_number: int) -> list[str]:
        """Decide every match with a bye or a withdrawn player in it; the ids of the byes
        with one real player (a withdrawn player loses by walkover; two withdrawn: the
        higher seed goes on, to lose the next match the same way)."""
        shown: list[str] = []
        gone = {p for p, r in self.dropped.items() if r < round_number}
        changed = True
        while changed:
            changed = False
            for m in self.matches:
                if m.id in self.winner or not self.needed(m):
                    continue
                a, b = self.players(m)
                if a is None or b is None:
                    continue
                if a == EMPTY or b == EMPTY:
                    real = a if a != EMPTY else b
                    self.winner[m.id], self.loser[m.id] = real, EMPTY
                    if real != EMPTY:
                        shown.append(m.id)
                        self.byes_in[m.id] = round_number
                    changed = True
                elif a in gone or b in gone:
                    if a in gone and b in gone:
                        won = min((a, b), key=lambda p: self.seed_rank[p])
                    else:
                        won = b if a in gone else a
                    self.winner[m.id], self.loser[m.id] = won, b if won == a else a
                    changed = True
        return shown

    def ready(self) -> list[Match]:
        out = []
        for m in self.matches:
            if m.id in self.winner or not self.needed(m):
                continue
            a, b = self.players(m)
            if a and b:
                out.append(m)
        return out

    def decide(self, m: Match, result: TableResult, round_number: int, table: int) -> None:
        seats = result.seats
        if result.kind == "forfeit" and result.forfeited:
            alive = [p for p in seats if p not in result.forfeited]
            if not alive:  # double forfeit: the higher seed goes through
                alive = sorted(seats, key=lambda p: self.seed_rank[p])
            won = alive[0]
        else:
            best = min(result.placements)
            top = [p for p, place in zip(seats, result.placements) if place == best]
            won = min(top, key=lambda p: self.seed_rank[p])
        lost = next(p for p in seats if p != won)
        self.winner[m.id], self.loser[m.id] = won, lost
        self.played_in[m.id] = (round_number, table)


def replay(config: FormatConfig, history: History) -> State:
    ordered = seed_order(history.entrants)
    state = State(
        build(config, len(ordered)),
        {i + 1: e.player_id for i, e in enumerate(ordered)},
        {e.player_id: i for i, e in enumerate(ordered)},
        dropped=dict(history.dropped),
    )
    for record in history.rounds:
        state.settle_byes(record.number)
        ready = {frozenset(x for x in state.players(m)): m for m in state.ready()}
        found = results_by_table(record.results)
        for table in record.tables:
            if table.bye:
                continue
            m = ready.get(frozenset(table.seats))
            if m is None:
                raise TournamentError(
                    f"round {record.number}: table {table.number} ({', '.join(table.seats)}) "
                    "is no match of the bracket"
                )
            if table.number in found:
                state.decide(m, found[table.number], record.number, table.number)
    return state


def elimination_rounds(config: FormatConfig, n: int) -> int:
    """Winners' bracket rounds (single); for double the most rounds it can take."""
    k = max(1, math.ceil(math.log2(max(n, 2))))
    if config.format == "single-elimination":
        return k
    return 2 * k + (1 if config.grand_final_reset else 0)


def champion(config: FormatConfig, history: History) -> str | None:
    if len(history.entrants) < 2:
        return history.entrants[0].player_id if history.entrants else None
    state = replay(config, history)
    state.settle_byes(next_round_number(history))
    if config.format == "single-elimination":
        return state.winner.get(state.matches[-1].id) or None
    if "GF1" not in state.winner:
        return None
    gf2 = next((m for m in state.matches if m.id == "GF2"), None)
    if gf2 is not None and state.needed(gf2):
        return state.winner.get("GF2") or None
    return state.winner["GF1"] or None


def pair_elimination(config: FormatConfig, history: History) -> tuple[Table, ...]:
    if history.late:
        raise TournamentError("an elimination bracket takes no late entries")
    if history.reinstated:
        raise TournamentError("an elimination bracket reinstates no dropped player")
    if len(history.entrants) < 2:
        raise TournamentError("an elimination bracket needs at least two players")
    number = next_round_number(history)
    if history.rounds:
        last = history.rounds[-1]
        found = results_by_table(last.results)
        waiting = [t.number for t in last.tables if not t.bye and t.number not in found]
        if waiting:
            raise TournamentError(
                f"round {last.number} is not complete: table {waiting[0]} has no result yet"
            )
    state = replay(config, history)
    shown = state.settle_byes(number)
    tables: list[Table] = []
    for m in state.ready():
        a, b = state.players(m)
        assert a and b
        seats = (a, b) if state.seed_rank[a] < state.seed_rank[b] else (b, a)
        tables.append(Table(len(tables) + 1, seats))
    if number == 1:
        seated = {p for t in tables for p in t.seats}
        for mid in shown:
            if state.winner[mid] not in seated:
                seated.add(state.winner[mid])
                tables.append(Table(len(tables) + 1, (state.winner[mid],), bye=True))
    if not tables:
        raise TournamentError("the bracket is finished")
    return tuple(tables)


def describe(config: FormatConfig, history: History) -> dict[str, Any]:
    """Every match of the bracket: who plays (or "pending"), its result, where it was
    played; plus the champion when there is one."""
    state = replay(config, history)
    state.settle_byes(next_round_number(history))
    out = []
    for m in state.matches:
        if not state.needed(m) and m.id == "GF2":
            status = "not needed" if "GF1" in state.winner else "if needed"
        elif m.id in state.winner:
            status = "bye" if state.loser[m.id] == EMPTY else "decided"
        elif all(state.players(m)):
            status = "ready"
        else:
            status = "pending"
        players = [p if p is not None else None for p in state.players(m)]
        out.append(
            {
                "id": m.id,
                "bracket": m.bracket,
                "level": m.level,
                "from": [s.to_json() for s in m.sources],
                "players": [None if p is None else (p or "bye") for p in players],
                "status": status,
                "winner": state.winner.get(m.id) or None,
                "loser": state.loser.get(m.id) or None,
                "round": state.played_in.get(m.id, (None, None))[0],
                "table": state.played_in.get(m.id, (None, None))[1],
            }
        )
    return {"format": config.format, "matches": out, "champion": champion(config, history)}


def exit_levels(config: FormatConfig, history: History) -> dict[str, int]:
    """How far each player got: the level of the match that knocked them out (single: the
    first loss; double: the second, or a grand-final loss when there is no reset). Players
    still in the event get a level above every match, the champion one more."""
    state = replay(config, history)
    state.settle_byes(next_round_number(history))
    top = max(m.level for m in state.matches) + 1
    needed = 1 if config.format == "single-elimination" else 2
    out = {e.player_id: top for e in history.entrants}
    losses: dict[str, int] = {}
    for m in state.matches:
        lost = state.loser.get(m.id)
        if not lost:
            continue
        losses[lost] = losses.get(lost, 0) + 1
        if losses[lost] >= needed or (m.id == "GF1" and not config.grand_final_reset):
            out[lost] = min(out[lost], m.level)
    champ = champion(config, history)
    if champ:
        out[champ] = top + 1
    return out
