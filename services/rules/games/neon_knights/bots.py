"""The rule-based bot: a driver who keeps the car whole, takes sponsors, buys better parts
and picks speeds that clear the danger lines ahead. It sees only its seat's view.

Hidden decisions (RULES.md, "Bots on hidden decisions"): the rules host hands a timed-out seat
to this bot and records every answer. A hidden answer given by a fixed rule could be named by
the table: a hidden starting speed of 6 every time, while the others still choose; a draft pick
by a fixed taste among a packet that the seat which passed it knows card for card. So the bot
draws these with its seeded randomness (the host keys the seed with the match's secret state
key): a hidden speed around 6 (``HIDDEN_SPEEDS``), a pick among the best few of the packet
(``DRAFT_WEIGHTS``). Every Fan Bet is kept: the answer shows anyway (a discard is public, only
its card hidden), and keeping tells nothing of the bets."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.platform.draws import SeededRandomness
from services.rules.bots import weighted
from services.rules.games.contract import Action, Decision

from .content import IMPLANTS, PARTS, SPONSORS, UPGRADES, danger_dice

JSON = Any
IMPLANT_TASTE = ("max_ap", "accel", "finish_vp", "free_repair", "decel", "crash_armor",
                 "stunt_fans", "payday_chips", "bet_chips", "slam_fans")
CELL_TASTE = {"R": 2, "W": 1, "S": 1, "P": 1, ".": 0}
HIDDEN_SPEEDS = {4: 1, 5: 2, 6: 3, 7: 2, 8: 1}
"""A hidden starting speed (option ``hidden_speeds``): drawn, each as likely as its weight (the
open choice, shown as it is made, stays 6)."""
DRAFT_WEIGHTS = (3, 2, 1)
"""A draft pick: the best implant by taste, the second or the third, as likely as these."""


class RuleBot:
    name = "rule"

    def __init__(self, seed: int | str = 0) -> None:
        self._rng = SeededRandomness(f"neon-knights-rule-bot:{seed}")

    def choose(self, view: JSON, decision: Decision) -> Action:
        if not decision.legal:
            raise ValueError("a pending decision must list at least one legal action")
        legal = [dict(a) for a in decision.legal]
        me = view["players"][decision.seat] if view else None
        if decision.kind == "start_speed" and decision.hidden:
            return self._hidden_speed(legal)
        handler = getattr(self, f"_{decision.kind}", None)
        if handler is None or me is None:
            return self._pick(legal)
        return handler(view, me, legal)  # type: ignore[no-any-return]

    def _pick(self, legal: Sequence[Action]) -> Action:
        return legal[self._rng.randbelow(len(legal))]

    def _best(self, legal: Sequence[Action], score: Any) -> Action:
        scores = [score(a) for a in legal]
        top = max(scores)
        tied = [a for a, s in zip(legal, scores, strict=True) if s == top]
        return self._pick(tied)

    # -- set-up and the days ------------------------------------------------------------------
    def _draft(self, view: JSON, me: JSON, legal: list[Action]) -> Action:
        """A hidden pick: drawn among the packet's best by taste (``DRAFT_WEIGHTS``), never
        the best every time: the seat that passed the packet on knows it card for card and
        would name the pick (the engine lists each implant of the packet once)."""
        def taste(a: Action) -> int:
            imp = IMPLANTS[a["implant"]]
            return imp["level"] * 20 - IMPLANT_TASTE.index(imp["effect"])
        ranked = sorted(legal, key=lambda a: (-taste(a), a["implant"]))
        top = ranked[:len(DRAFT_WEIGHTS)]
        return weighted(self._rng, top, DRAFT_WEIGHTS[:len(top)])

    def _acquire_implant(self, view: JSON, me: JSON, legal: list[Action]) -> Action:
        return self._best(legal, lambda a: IMPLANTS[a["implant"]]["level"] if "implant" in a else 0)

    def _wealthy(self, view: JSON, me: JSON, legal: list[Action]) -> Action:
        return legal[-1] if len(legal) > 1 else legal[0]

    def _day_action(self, view: JSON, me: JSON, legal: list[Action]) -> Action:
        kinds = {a["type"] for a in legal}
        if "done" in kinds or "keep_bets" in kinds:
            return self._in_action(view, me, legal)
        repairs = [a for a in legal if a["type"] == "repair"]
        if repairs and me["ap"] <= me["max_ap"] - 3:
            return repairs[-1]
        sponsors = [a for a in legal if a["type"] == "sponsor" and a["slot"] != "deck"]
        if sponsors:
            return self._best(sponsors, lambda a: SPONSORS[view["rows"]["sponsors"][a["slot"]]]["chips"])
        if "implants" in kinds and len(me["implants"]) < 3:
            return {"type": "implants"}
        if "shop" in kinds and self._shop_worth(view, me):
            return {"type": "shop"}
        buys = [a for a in legal if a["type"] == "upgrade" and "replace" not in a]
        if buys and me["chips"] >= 20:
            return self._best(buys, lambda a: UPGRADES[view["rows"]["upgrades"][a["slot"]]]["price"])
        if repairs:
            return repairs[-1]
        return {"type": "pass"}

    def _fan_bet(self, view: JSON, me: JSON, legal: list[Action]) -> Action:
        return {"type": "keep_bets"}

    def _shop_worth(self, view: JSON, me: JSON) -> bool:
        if isinstance(me["hand"], list) and any(me["car"][PARTS[p]["colour"]] is None for p in me["hand"]):
            return True
        return any(p is not None and self._better(me, p) for p in view["rows"]["parts"])

    @staticmethod
    def _better(me: JSON, part: str) -> bool:
        mine = me["car"][PARTS[part]["colour"]]
        return mine is None or (PARTS[part]["bonus"], PARTS[part]["power"]) > (PARTS[mine]["bonus"], PARTS[mine]["power"])

    def _in_action(self, view: JSON, me: JSON, legal: list[Action]) -> Action:
        for a in legal:
            if a["type"] in ("install", "install_implant"):
                return a
        buys = [a for a in legal if a["type"] == "buy_part" and self._better(me, view["rows"]["parts"][a["slot"]])]
        if buys:
            return buys[-1]
        hand = me["hand"] if isinstance(me["hand"], list) else []
        for a in legal:
            if a["type"] == "sell" and a["part"] in me["car"].values() and any(
                    PARTS[h]["colour"] == PARTS[a["part"]]["colour"] and self._better(me, h) for h in hand):
                return a
        return legal[0]

    def _build_track(self, view: JSON, me: JSON, legal: list[Action]) -> Action:
        return self._pick(legal)

    # -- racing -------------------------------------------------------------------------------
    def _start_speed(self, view: JSON, me: JSON, legal: list[Action]) -> Action:
        """In the open (shown as it is chosen): 6, the speed the bot likes."""
        return self._best(legal, lambda a: -abs(a["speed"] - 6))

    def _hidden_speed(self, legal: list[Action]) -> Action:
        """A hidden starting speed: drawn around 6 (``HIDDEN_SPEEDS``). Always 6 would tell
        every seat the bot's speed before the reveal, while they still choose theirs."""
        drawn = [a for a in legal if a["speed"] in HIDDEN_SPEEDS] or legal
        return weighted(self._rng, drawn, [HIDDEN_SPEEDS.get(a["speed"], 1) for a in drawn])

    def _lines_ahead(self, view: JSON, me: JSON, reach: int, speed: int) -> int:
        rows = view.get("track_rows") or []
        dice = 0
        for row in range(max(0, me["row"] + 1), min(len(rows), me["row"] + 1 + reach)):
            line = rows[row].get("line")
            if line and me["lane"] in line["lanes"]:
                dice += danger_dice(speed, line["colour"])
        return dice

    def _adjust_speed(self, view: JSON, me: JSON, legal: list[Action]) -> Action:
        def score(a: Action) -> int:
            s = a["to"]
            return s - 4 * self._lines_ahead(view, me, s, s) - (3 if "part" in a else 0)
        return self._best(legal, score)

    def _free_repair(self, view: JSON, me: JSON, legal: list[Action]) -> Action:
        return legal[-1]

    _pit_repair = _free_repair

    def _fire(self, view: JSON, me: JSON, legal: list[Action]) -> Action:
        def score(a: Action) -> int:
            if a["type"] == "go":
                return 0
            u = UPGRADES[a["upgrade"]]
            if a.get("shift") is not None:
                return len(a["targets"]) * 2 if a["shift"] < 0 else -5
            return 1 + len(a["targets"]) * (u.get("damage") or 1)
        return self._best(legal, score)

    _fire_before = _fire
    _fire_after = _fire

    def _move(self, view: JSON, me: JSON, legal: list[Action]) -> Action:
        fires = [a for a in legal if a["type"] == "fire"]  # the house rule "During"
        if fires:
            best = self._fire(view, me, [{"type": "go"}, *fires])
            if best["type"] == "fire":
                return best
        legal = [a for a in legal if a["type"] == "step"]
        rows = view.get("track_rows") or []

        def score(a: Action) -> int:
            row, lane = me["row"] + 1, me["lane"] + a["dir"]
            if not 0 <= row < len(rows):
                return 0
            line = rows[row].get("line")
            cost = danger_dice(me["speed"], line["colour"]) if line and lane in line["lanes"] else 0
            return -10 * cost + CELL_TASTE[rows[row]["cells"][lane]] - abs(a["dir"])
        return self._best(legal, score)

    def _damage_roll(self, view: JSON, me: JSON, legal: list[Action]) -> Action:
        removes = [a for a in legal if a["type"] == "remove_die" and a["part_to"] == "hand"]
        dice = view["racing"]["roll"]["dice"]
        if removes and max(dice) >= 2:
            return self._best(removes, lambda a: dice[a["die"]])
        return legal[0]

    def _shield(self, view: JSON, me: JSON, legal: list[Action]) -> Action:
        return {"type": "shield", "use": True}


