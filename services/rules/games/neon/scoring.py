"""Victory points, tie-breaks, the end of the game and the final placements."""

from __future__ import annotations

from collections import Counter
from typing import Any

from services.rules.games.contract import Outcome
from services.rules.games.neon.content import bot_type
from services.rules.games.neon.state import State


def bot_points(tokens: list[str]) -> int:
    """1 VP per bot token, +1 VP per pair of tokens of the same colour and picture."""
    kinds = Counter((bot_type(t).colour, bot_type(t).picture) for t in tokens)
    return len(tokens) + sum(n // 2 for n in kinds.values())


def groups(s: State) -> list[tuple[int, ...]]:
    """Who scores together: Coalition teams, otherwise each participant alone."""
    if s.mode == "coalition":
        automa = [(f.idx,) for f in s.fighters if f.automa]
        return [tuple(t) for t in s.teams] + automa
    return [(f.idx,) for f in s.fighters]


def group_breakdown(s: State, members: tuple[int, ...]) -> dict[str, Any]:
    trophies = [v for i in members for v in s.fighters[i].trophies]
    bots = [t for i in members for t, _ in s.fighters[i].bots]
    leader = 1 if s.leader in members else 0
    vp = sum(trophies) + bot_points(bots) + leader
    return {"vp": vp, "trophies": sum(trophies), "bots": bot_points(bots), "leader": leader,
            "tokens_3": trophies.count(3), "tokens_2": trophies.count(2),
            "tokens_1": trophies.count(1),
            "alive": any(not s.fighters[i].eliminated for i in members)}


def alive_groups(s: State) -> list[tuple[int, ...]]:
    return [g for g in groups(s) if any(not s.fighters[i].eliminated for i in g)]


def end_reason(s: State) -> str:
    """Checked in phase 3 of each round, before sectors close."""
    alive = alive_groups(s)
    if not alive:
        return "no fighters remain on the arena"
    if len(alive) == 1:
        return "one fighter remains on the arena" if s.mode != "coalition" \
            else "one team remains on the arena"
    if s.mode == "battle-royale":
        limit = s.rules.battle_royale_round_limit
        if limit is not None and s.round >= limit:
            return "round limit reached"
        return ""
    if s.round >= len(s.cells):
        return "the last round has been played"
    return ""


def last_eliminated(s: State, members: tuple[int, ...]) -> int:
    marks = dict(s.eliminations)
    return max((marks.get(i, 1 << 30) for i in members), default=0)


def outcome(s: State) -> Outcome:
    gs = groups(s)
    info = [group_breakdown(s, g) for g in gs]
    stayed = [not all(s.fighters[i].resigned for i in g) for g in gs]
    # A seat that resigned is placed last (a team only when all of it resigned).
    if s.mode == "battle-royale":
        keys: list[Any] = [(st, b["alive"], last_eliminated(s, g))
                for st, g, b in zip(stayed, gs, info, strict=True)]
        scores_by_group = [sum(s.fighters[i].tokens for i in g) for g in gs]
    elif s.mode == "coalition" and s.rules.coalition_ranks_by_vp and not (
            s.rules.last_team_wins_automatically
            and s.ended == "one team remains on the arena"):
        # "The team with the most VP wins": an eliminated team keeps its VP (engine 7: not
        # when one team is left on the arena, which "then wins automatically", below).
        keys = [(st, b["vp"], b["tokens_3"], b["tokens_2"], b["tokens_1"])
                for st, b in zip(stayed, info, strict=True)]
        scores_by_group = [b["vp"] for b in info]
    else:
        keys = [(st, b["alive"], b["vp"], b["tokens_3"], b["tokens_2"], b["tokens_1"])
                for st, b in zip(stayed, info, strict=True)]
        scores_by_group = [b["vp"] for b in info]
    if s.ended == "no fighters remain on the arena" and s.mode != "coalition":
        # Battle Royale: "If no fighters remain, nobody wins." Rebirth: the winner is "the
        # fighter who has not been eliminated ... and has the most VP" - there is none.
        keys = [(0,) for _ in gs]
    ranks = [1 + sum(1 for other in keys if other > k) for k in keys]
    rank_of, score_of = {}, {}
    for g, r, sc in zip(gs, ranks, scores_by_group, strict=True):
        for i in g:
            rank_of[i], score_of[i] = r, sc
    placements = tuple(rank_of[i] for i in range(s.seats))
    scores = tuple(score_of[i] for i in range(s.seats))
    draw = sum(1 for r in ranks if r == 1) > 1
    breakdown: dict[str, Any] = {
        "participants": [{"fighter": i, "name": s.fighters[i].fighter, "rank": rank_of[i],
                          "score": score_of[i], "eliminated": s.fighters[i].eliminated}
                         for i in s.participants],
        "groups": [{"members": list(g), **b} for g, b in zip(gs, info, strict=True)],
    }
    if s.mode == "rebirth":
        best = max(b["vp"] for b in info)
        breakdown["best_player"] = [g[0] for g, b in zip(gs, info, strict=True)
                                    if b["vp"] == best and not b["alive"]]
    if s.automa:
        automa = len(s.fighters) - 1
        breakdown["automa"] = {"rank": rank_of[automa], "score": score_of[automa]}
    if any(f.resigned for f in s.fighters):
        breakdown["resigned"] = [f.idx for f in s.fighters if f.resigned]
    teams = tuple(tuple(t) for t in s.teams) if s.mode == "coalition" else ()
    return Outcome(placements, scores, s.ended, draw, breakdown, teams)
