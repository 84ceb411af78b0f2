"""The rule-based bot: it sees what a client sees (its view and the decision) and goes for
the Atomic Core, fights what is in reach and keeps its Rider alive."""

from __future__ import annotations

from typing import Any

from services.platform.draws import SeededRandomness

from . import hexes
from .content import EXITS, Hex

Action = dict[str, Any]


def _hex(value: Any) -> Hex | None:
    return None if value is None else (int(value[0]), int(value[1]))


class RuleBot:
    def __init__(self, seed: int | bytes | str = 0) -> None:
        self.rng = SeededRandomness(seed)

    def choose(self, view: dict[str, Any], decision: Any) -> Action:
        legal: list[Action] = [dict(a) for a in decision.legal]
        kind = decision.kind
        me = view["players"][decision.seat]
        by_type: dict[str, list[Action]] = {}
        for a in legal:
            by_type.setdefault(a["type"], []).append(a)
        if kind == "allocate":
            return self._allocate(me, legal)
        if kind in ("prep", "prep_follow"):
            return self._prepare(me, by_type, decision.default)
        if kind == "act":
            return self._act(view, me, by_type)
        if kind == "counter" and "counter" in by_type:
            return by_type["counter"][0]
        if kind == "discover":
            for t in ("discover", "rescue", "plunder"):
                if t in by_type:
                    return by_type[t][0]
        if kind == "aid_discard":
            return by_type["discard"][0] if "discard" in by_type and len(legal) > 2 \
                else {"type": "done"}
        if kind == "minion_target":
            others = [a for a in legal if a["seat"] != decision.seat]
            return (others or legal)[0]
        return legal[self.rng.randbelow(len(legal))]

    @staticmethod
    def _allocate(me: dict[str, Any], legal: list[Action]) -> Action:
        """Keep the Rider alive first, then the Gear moving."""
        return min(legal, key=lambda a: (a["health"], a["shields"]))

    @staticmethod
    def _prepare(me: dict[str, Any], by_type: dict[str, list[Action]], default: Any) -> Action:
        if "learn" in by_type:
            return by_type["learn"][0]
        for a in by_type.get("consume", []):
            if a["benefit"] == "heal" and me["health_damage"]:
                return a
            if a["benefit"] == "shields" and me["shield_damage"]:
                return a
        return dict(default)

    def _act(self, view: dict[str, Any], me: dict[str, Any],
             by_type: dict[str, list[Action]]) -> Action:
        """Exit > hit a Character > move toward the goal > a Rider skill > Search > end."""
        moves = by_type.get("move", [])
        exit_ = [a for a in moves if a.get("exit")]
        if exit_:
            return exit_[0]
        skills = by_type.get("skill", [])
        rivals = {tuple(p["pos"]) for p in view["players"]
                  if p["pos"] is not None and p["seat"] != me["seat"] and not p["recovering"]}
        hits = [a for a in skills if "at" in a and tuple(a["at"]) in rivals]
        if hits:
            return hits[self.rng.randbelow(len(hits))]
        pos = _hex(me["pos"])
        goal = self._goal(view, me)
        steps = [a for a in moves if "to" in a]
        if steps and pos is not None and goal is not None:
            best = min(steps, key=lambda a: (hexes.distance(_hex(a["to"]) or pos, goal),
                                             a["to"]))
            if hexes.distance(_hex(best["to"]) or pos, goal) < hexes.distance(pos, goal):
                return best
        rider = [a for a in skills if a["skill"].split("-")[0] == me["rider"]]
        if rider:
            return rider[self.rng.randbelow(len(rider))]
        if "search" in by_type:
            return by_type["search"][0]
        if "first_aid" in by_type and me["health_damage"] and me["hand_size"] > 1:
            return by_type["first_aid"][0]
        if skills:
            return skills[self.rng.randbelow(len(skills))]
        if "repair" in by_type and me["shield_damage"] and me["hand_size"] > 1:
            return by_type["repair"][0]
        return {"type": "end_actions"}

    @staticmethod
    def _goal(view: dict[str, Any], me: dict[str, Any]) -> Hex | None:
        pos = _hex(me["pos"])
        if pos is None:
            return None
        if me["core"]:
            return min(EXITS, key=lambda h: (hexes.distance(pos, h), h))
        return _hex(view["core_at"]) or next(
            (_hex(p["pos"]) for p in view["players"] if p["core"] and p["pos"]), None)
