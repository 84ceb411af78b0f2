"""The working context of one action: the table, the injected dice and the events so far,
with the small board helpers every rules module shares (occupancy, cards, resources,
experience)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from services.rules.games.contract import EngineEvent, Randomness

from . import hexes
from .content import BOARDS, GEARS, NESTS, RESOURCE_DIE, RIDERS, SPACES, Hex
from .rulesets import CURRENT, Ruleset
from .state import Player, Table

BROKEN = "broken"
"""The marker of a Broken Gear among its Character's tokens (engine 0.6.0, ruling 46): not a
Special Status Token, it records that the Gear has not regained a Shield since it broke."""


@dataclass
class Play:
    t: Table
    rng: Randomness
    rules: Ruleset = CURRENT
    """The rulings of the engine version that created the match."""
    events: list[EngineEvent] = field(default_factory=list)

    # -- events -----------------------------------------------------------------------------
    def say(self, kind: str, data: Mapping[str, Any], to: int | None = None) -> None:
        self.events.append(EngineEvent(kind, dict(data), None if to is None else frozenset({to})))

    # -- the agenda ---------------------------------------------------------------------------
    def now(self, *steps: dict[str, Any]) -> None:
        """Put steps at the front of the agenda (they happen before what was waiting)."""
        self.t.agenda[0:0] = [dict(s) for s in steps]

    # -- board --------------------------------------------------------------------------------
    def stats(self, who: str) -> dict[str, int]:
        """The Monster's or Minions' stats: base plus every bonus revealed on the Frenzy Level."""
        board = BOARDS[self.t.board]
        out = dict(board[who])
        revealed = board["frenzy_levels"][: len(board["frenzy_levels"]) - self.t.rage]
        for level in revealed:
            kind, stat = level["stat"].split("_")
            if kind == who:
                out[stat] += level["bonus"]
        return out

    def character_at(self, h: Hex) -> Player | None:
        return next((p for p in self.t.players if p.on_map and p.pos == h), None)

    def occupied(self, h: Hex) -> bool:
        return (self.character_at(h) is not None or self.t.monster.pos == h
                or h in self.t.minions)

    def can_enter(self, h: Hex) -> bool:
        """A Character may move or be placed here: on the map, unoccupied, not a nest."""
        return hexes.on_map(h) and not self.occupied(h) and h not in NESTS

    def broken(self, p: Player) -> bool:
        """Broken: allocated damage up to its maximum Shields; from engine 0.6.0 it stays
        Broken (the ``broken`` marker) "until it has regained at least 1 Shield", even if
        experience raises the maximum meanwhile (ruling 46)."""
        if p.shield_damage >= self.max_of(p, "gear"):
            return True
        return self.rules.broken_until_repaired and BROKEN in p.tokens

    def max_of(self, p: Player, side: str) -> int:
        """Maximum Health (rider) or Shields (gear): the number the dial shows."""
        dial = (RIDERS if side == "rider" else GEARS)[p.rider if side == "rider" else p.gear].dial
        return int(dial[p.dial[side]]["max"])

    # -- cards --------------------------------------------------------------------------------
    def draw(self, p: Player, n: int = 1) -> None:
        for _ in range(n):
            if not p.deck:
                if not p.discard:
                    return
                p.deck = list(self.rng.shuffle(p.discard))
                p.discard = []
                p.death += 1
                self.say("deck_reshuffled", {"seat": p.seat, "death": p.death})
            card = p.deck.pop(0)
            p.hand.append(card)
            self.say("card_drawn", {"seat": p.seat, "card": card}, to=p.seat)
            self.say("cards_drawn", {"seat": p.seat, "count": 1})

    # -- resources ----------------------------------------------------------------------------
    def gain(self, p: Player, kind: str) -> None:
        """Gain a Resource; ``"any"`` asks the player which one."""
        if kind == "any":
            self.now({"step": "choose_resource", "seat": p.seat})
        elif kind in p.resources:
            p.resources[kind] += 1
            self.say("resource_gained", {"seat": p.seat, "resource": kind})

    def roll_resource(self, p: Player) -> None:
        face = self.rng.roll(RESOURCE_DIE)[0]
        self.say("resource_die", {"seat": p.seat, "face": face})
        if face != "blank":
            self.gain(p, face)

    # -- healing ------------------------------------------------------------------------------
    def heal(self, p: Player, n: int) -> None:
        healed = min(n, p.health_damage)
        p.health_damage -= healed
        if healed:
            self.say("healed", {"seat": p.seat, "health": healed})

    def repair(self, p: Player, n: int) -> None:
        regained = min(n, p.shield_damage)
        p.shield_damage -= regained
        if regained:
            self.say("shields_regained", {"seat": p.seat, "shields": regained})
            if BROKEN in p.tokens:
                p.tokens.remove(BROKEN)

    # -- experience ---------------------------------------------------------------------------
    def experience(self, p: Player, side: str) -> None:
        """Rotate the dial one step; Sub tokens and Mastery markers the first time, Paragon."""
        dial = (RIDERS if side == "rider" else GEARS)[p.rider if side == "rider" else p.gear].dial
        at = p.dial[side] + 1
        if at >= len(dial):
            return
        step = dial[at]
        if step.get("paragon"):
            (self.heal if side == "rider" else self.repair)(p, 1)
            self.say("paragon", {"seat": p.seat, "side": side})
            return
        p.dial[side] = at
        self.say("experience", {"seat": p.seat, "side": side, "max": step["max"]})
        if at > p.dial_seen[side]:
            p.dial_seen[side] = at
            if step.get("icon") == "sub":
                p.subs[side] += 1
                p.subs_ready[side] += 1
                self.say("sub_gained", {"seat": p.seat, "side": side})
            elif step.get("icon") == "mastery":
                board = (RIDERS if side == "rider" else GEARS)[
                    p.rider if side == "rider" else p.gear]
                free = [m["id"] for m in board.mastery if m["id"] not in p.mastery]
                if len(free) > 1 and self.rules.mastery_choice:
                    self.now({"step": "mastery_marker", "seat": p.seat, "options": free})
                elif free:
                    self.mark_mastery(p, free[0])

    def mark_mastery(self, p: Player, mastery: str) -> None:
        """Place a Mastery Marker: usable from the next turn on."""
        p.mastery[mastery] = self.t.turn.number
        self.say("mastery_unlocked", {"seat": p.seat, "mastery": mastery})


def resource_space(h: Hex) -> str | None:
    return SPACES[h].resource
