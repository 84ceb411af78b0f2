"""The round and the agenda.

The table keeps an *agenda*: the steps still to happen, first first. Automatic steps run
at once; a decision step waits for its seat's answer. When the agenda is empty the next
phase of the round queues its steps (``SEQUENCE``). Every decision step lists all its legal
answers (``options``) and the one a clock applies (``default_of``).
"""

from __future__ import annotations

from typing import Any

from . import chain, damage, monster, turns
from .content import EVENTS, GEARS, RIDERS, card_ids, skill_of
from .play import Play

SEQUENCE = {
    "competitive": ("event:day", "players:day", "event:night", "players:night", "monster"),
    "solo": ("event:day", "players:day", "monster_actions", "event:night", "players:night",
             "monster"),
}
HAND_SIZE = 4
ALWAYS_ASK = {"pick_rider", "pick_gear", "choose_card", "place", "prep", "prep_follow", "act",
              "aid_discard", "discover", "counter", "choose_resource", "control_move",
              "control_attack"}
"""Decision steps asked even with one legal answer (the others resolve a forced answer)."""


MONSTER_SIDE = {"route", "minion_target", "nest"}
"""Choices made for the Monster's side: if the player owing one leaves the game, the
first player still in the game (in seat order) makes it instead."""


def victory_tokens_needed(seats: int) -> int:
    return 3 if seats >= 5 else 2


# -- decisions ----------------------------------------------------------------------------
def owed_seat(g: Play, step: dict[str, Any]) -> int | None:
    if step["step"] == "prep_follow":
        return turns.window_seat(g, step)
    if chain.is_window(step):
        return chain.owed(g, step)
    return step.get("seat")


def options(g: Play, step: dict[str, Any]) -> list[dict[str, Any]]:
    """Every legal answer to a decision step ([] when it is an automatic step)."""
    kind = step["step"]
    seat = owed_seat(g, step)
    if seat is None:
        return []
    p = g.t.player(seat)
    if kind == "pick_rider":
        return [{"type": "pick_rider", "rider": r} for r in _free(g, RIDERS, "rider")]
    if kind == "pick_gear":
        return [{"type": "pick_gear", "gear": r} for r in _free(g, GEARS, "gear")]
    if kind == "choose_card":
        return [{"type": "choose_card", "card": c} for c in _choosable(p)]
    if kind in ("place", "spawn"):
        return [{"type": kind, "at": list(h)} for h in turns.spawn_options(g)]
    if kind == "prep":
        return turns.prep_options(g, seat) if p.on_map else []
    if kind == "prep_follow":
        return turns.prep_options(g, seat, step["kind"])
    if kind == "act":
        return turns.act_options(g, seat) if p.on_map else []
    if kind == "aid_discard":
        return turns.aid_options(p) if p.on_map else []
    if kind == "allocate":
        if not p.on_map:
            return []
        return damage.allocation_actions(g, step)
    if kind == "counter":
        if chain.is_window(step):
            return chain.options(g, step)
        if not p.on_map:
            return []
        cards = damage.counters(g, p, step["attacker"])
        return [{"type": "pass"}] + [{"type": "counter", "card": c} for c in cards] if cards else []
    if kind == "chain_order":
        return chain.order_options(step)
    if kind == "choose_resource":
        return [{"type": "choose_resource", "resource": r} for r in ("fuel", "food", "scrap")]
    if kind == "discover":
        return turns.discover_options(p, step.get("card")) if p.on_map else []
    if kind == "route":
        return [{"type": "route", "to": list(h)} for h in monster.route_options(g, step)]
    if kind == "minion_target":
        return [{"type": "minion_target", "seat": s} for s in step["options"]
                if g.t.player(s).on_map]
    if kind == "nest":
        if step["left"] <= 0 or not p.in_game:
            return []
        return [{"type": "nest", "at": list(h)} for h in monster.nest_options(g)]
    if kind == "control_move":
        return [{"type": "control_move", "to": list(h)} for h in monster.control_move_options(g)]
    if kind == "control_attack":
        return [{"type": "control_attack", "seat": s}
                for s in monster.control_attack_options(g, seat)]
    if kind == "mastery_marker":
        return [{"type": "mastery_marker", "mastery": m} for m in step["options"]
                if m not in p.mastery]
    return []


def _free(g: Play, boards: dict[str, Any], attr: str) -> list[str]:
    taken = {getattr(p, attr) for p in g.t.players}
    free = [b for b in sorted(boards) if b not in taken]
    return free or sorted(boards)


def _choosable(p: Any) -> list[str]:
    chosen_names = {skill_of(c).name for c in p.hand}
    sides = [skill_of(c).side for c in p.hand]
    out = []
    for c in p.deck:
        s = skill_of(c)
        if s.name not in chosen_names and sides.count(s.side) < 2 and s.id not in {
                skill_of(x).id for x in out}:
            out.append(c)
    return out


def default_of(step: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A pass where passing is legal, else the cheapest sound answer; for a starting-hand
    choice (engine 0.5.0), the card drawn for it when it was asked (:func:`secret_default`)."""
    drawn = step.get("default")
    if drawn is not None and step["step"] == "choose_card":
        chosen = {"type": "choose_card", "card": drawn}
        if chosen in legal:
            return chosen
    for cheap in ({"type": "pass"}, {"type": "end_actions"}, {"type": "done"},
                  {"type": "ignore"}, {"type": "decline"}):
        if cheap in legal:
            return cheap
    if step["step"] == "allocate":
        return min(legal, key=lambda a: (a["health"], a.get("spend", 0), a["shields"]))
    return legal[0]


def answer(g: Play, seat: int, action: dict[str, Any]) -> None:
    """Apply the answer to the owed decision at the head of the agenda."""
    step = g.t.agenda.pop(0)
    kind, t = step["step"], action["type"]
    p = g.t.player(seat)
    if kind == "pick_rider":
        p.rider = action["rider"]
        g.say("rider_picked", {"seat": seat, "rider": p.rider})
    elif kind == "pick_gear":
        p.gear = action["gear"]
        g.say("gear_picked", {"seat": seat, "gear": p.gear})
        assert p.rider is not None and p.gear is not None
        p.deck = list(card_ids(RIDERS[p.rider]) + card_ids(GEARS[p.gear]))
    elif kind == "choose_card":
        card = _copy_taken(g, p, action["card"])
        p.deck.remove(card)
        p.hand.append(card)
        g.say("card_chosen", {"seat": seat, "card": card}, to=seat)
        if len(p.hand) < HAND_SIZE:  # the next card, with a default of its own
            g.now({k: v for k, v in step.items() if k != "default"})
        else:
            p.deck = list(g.rng.shuffle(p.deck))
            g.say("hand_chosen", {"seat": seat, "cards": HAND_SIZE})
    elif kind in ("place", "spawn"):
        turns.spawn(g, p, (action["at"][0], action["at"][1]))
    elif kind == "prep":
        turns.prep(g, step, action)
    elif kind == "prep_follow":
        turns.prep_follow(g, step, seat, action)
    elif kind == "act":
        turns.act(g, step, action)
    elif kind == "aid_discard":
        turns.aid_discard(g, step, action)
    elif kind == "allocate":
        damage.allocate(g, step, action["health"], action["shields"], action.get("spend", 0))
    elif kind == "counter" and chain.is_window(step):
        chain.answer(g, step, seat, action)
    elif kind == "counter":
        if t == "counter":
            _counter(g, p, action["card"], step["attacker"])
    elif kind == "chain_order":
        chain.order(g, step, action)
    elif kind == "choose_resource":
        g.gain(p, action["resource"])
    elif kind == "discover":
        turns.discover(g, step, action)
    elif kind == "route":
        monster.route(g, step, (action["to"][0], action["to"][1]))
    elif kind == "minion_target":
        monster.minion_target(g, step, action["seat"])
    elif kind == "nest":
        monster.place_minion(g, (action["at"][0], action["at"][1]))
        if step["left"] > 1:
            g.now({**step, "left": step["left"] - 1})
    elif kind == "control_move":
        to = (action["to"][0], action["to"][1])
        if step["attack"]:
            g.now({"step": "control_attack", "seat": seat})
        if to != g.t.monster.pos:
            g.t.monster.pos = to
            g.say("monster_moved", {"to": list(to), "controlled_by": seat})
            monster.monster_entered(g)
    elif kind == "control_attack":
        g.now({"step": "monster_attack", "target": action["seat"], "attack": "target",
               "credit": seat})
    elif kind == "mastery_marker":
        g.mark_mastery(p, action["mastery"])


def _copy_taken(g: Play, p: Any, named: str) -> str:
    """The card a starting-hand choice takes: the one named (the skill's first copy in the
    deck) or, from engine 0.5.0, one of the skill's copies in the deck drawn at random, so a
    copy number tells nobody whether a card was chosen or drawn (ruling 45)."""
    if not g.rules.random_copies:
        return named
    skill = skill_of(named).id
    copies = [c for c in p.deck if skill_of(c).id == skill]
    return copies[g.rng.randbelow(len(copies))] if len(copies) > 1 else named


def secret_default(g: Play, step: dict[str, Any], legal: list[dict[str, Any]]) -> None:
    """Engine 0.5.0: a starting-hand choice about to be asked gets its default (what a clock
    applies on a timeout) drawn at random among its legal answers, kept in the step until it
    is answered. The first choosable card in printed order, the default before, is known to
    every seat, so a timeout named the hidden card (ruling 44)."""
    if step["step"] == "choose_card" and g.rules.secret_defaults and "default" not in step:
        step["default"] = legal[g.rng.randbelow(len(legal))]["card"] if len(legal) > 1 \
            else legal[0]["card"]


def _counter(g: Play, p: Any, card: str, attacker: dict[str, Any]) -> None:
    """Engine 0.1.0: a Counter Skill is played and resolves at once."""
    at = damage.attacker_hex(g, attacker)
    assert at is not None
    s = skill_of(card)
    p.subs_ready[s.side] -= 1
    p.hand.remove(card)
    p.discard.append(card)
    g.say("counter_used", {"seat": p.seat, "card": card, "skill": s.id, "at": list(at)})
    chain.counterattack(g, p, s, attacker, at)


# -- automatic steps ------------------------------------------------------------------------
def run_auto(g: Play, step: dict[str, Any]) -> None:
    kind = step["step"]
    if kind == "start_turn":
        turns.start_turn(g, step["seat"])
    elif kind == "upkeep":
        turns.upkeep(g, step["seat"])
    elif kind == "end_turn":
        turns.end_turn(g, step["seat"])
    elif kind == "monster_card":
        monster.monster_card(g)
    elif kind == "monster_attack":
        monster.monster_attack(g, step)
    elif kind == "minions":
        monster.minion_actions(g)
    elif kind == "minion":
        monster.minion_act(g, (step["at"][0], step["at"][1]))
    elif kind == "minion_attack":
        monster.minion_attack(g, step)
    elif kind == "respawn":
        monster.respawn(g, g.t.monster_target)
    elif kind == "frenzy":
        monster.remove_rage(g)
    elif kind == "rising_threat":
        if g.t.tracker >= 5:
            monster.rising_threat(g)
    elif kind == "monster_end":
        monster.monster_phase_end(g)
        if g.t.tracker >= 5:
            monster.rising_threat(g)
    elif kind == "reaction":
        monster.reaction(g, step["seat"])
    elif kind == "disruption":
        monster.disruption(g, step["seat"])
    elif kind == "counter_resolve":
        chain.resolve_counter(g, g.t.player(step["seat"]), step["card"], step["attacker"],
                              step.get("boost", 0))


def next_stage(g: Play) -> None:
    t = g.t
    seq = SEQUENCE[t.mode]
    t.stage += 1
    if t.stage >= len(seq) or t.round == 0:
        if _round_cap_reached(g):
            return
        t.stage = 0
        t.round += 1
        g.say("round_started", {"round": t.round})
    what = seq[t.stage]
    if what.startswith("event:"):
        t.time = what.split(":")[1]
        event_phase(g)
    elif what.startswith("players:"):
        t.time = what.split(":")[1]
        order = [0] if t.mode == "solo" else list(t.tracks[t.time])
        g.say("initiative", {"time": t.time, "order": order})
        t.agenda += [{"step": "start_turn", "seat": s} for s in order]
    elif what == "monster_actions":
        g.say("monster_phase", {"time": "day"})
        t.agenda += [{"step": "monster_card"}, {"step": "monster_end"}]
    else:
        t.time = "twilight"
        g.say("monster_phase", {"time": "twilight"})
        t.agenda += [{"step": s} for s in ("monster_card", "minions", "respawn", "frenzy",
                                           "monster_end")]


def event_phase(g: Play) -> None:
    """Draw the top Event (reshuffling the discards first if the deck is empty), apply it."""
    t = g.t
    if t.event_face is not None:
        t.event_discard.append(t.event_face)
        t.event_face = None
    if not t.event_deck:
        if t.mode == "solo":
            t.over, t.winner, t.reason = True, None, "the Event deck was shuffled"
            return
        t.event_deck = list(g.rng.shuffle(t.event_discard))
        t.event_discard = []
        g.say("events_reshuffled", {})
    card = t.event_deck.pop(0)
    t.event_face = card
    g.say("event", {"card": card, "time": t.time})
    eff = EVENTS[card]["effect"]
    steps = []
    for p in t.players:
        if not p.in_game:
            continue
        if "gain" in eff:
            g.gain(p, eff["gain"])
        g.draw(p, eff.get("draw", 0))
        if not p.on_map:
            continue
        g.heal(p, eff.get("heal", 0))
        g.repair(p, eff.get("shields", 0))
        for key, designated in (("damage", None), ("health_damage", "health"),
                                ("shield_damage", "shields")):
            amount = damage.shielded(g, p, eff.get(key, 0), {"kind": "event"})
            if amount:
                steps.append(damage.to_character(p, amount, {"kind": "event"}, None, designated))
    for _ in range(eff.get("spawn_minions", 0)):
        free = monster.nest_options(g)
        if free:
            monster.place_minion(g, free[0])
    g.now(*steps)


# -- victory ---------------------------------------------------------------------------------
ROUND_CAP_REASON = "the round cap was reached"


def _round_cap_reached(g: Play) -> bool:
    """Ruling 27: a competitive game ends when its last allowed round is over; the player
    still in the game with the most Victory Tokens wins (tied leaders share a draw)."""
    t, cap = g.t, g.rules.round_cap
    if cap is None or t.mode == "solo" or t.round < cap:
        return False
    left = t.in_game()
    top = max((t.player(s).victory for s in left), default=0)
    leaders = [s for s in left if t.player(s).victory == top]
    t.over, t.reason = True, ROUND_CAP_REASON
    t.winner = leaders[0] if len(leaders) == 1 else None
    g.say("round_cap", {"rounds": cap, "leaders": leaders})
    return True


def check_victory(g: Play) -> None:
    t = g.t
    if t.over or t.mode == "solo":
        return
    need = victory_tokens_needed(t.seats)
    for p in t.players:
        if p.in_game and p.victory >= need:
            t.over, t.winner = True, p.seat
            t.reason = f"gained {need} Victory Tokens"
            return
    left = t.in_game()
    if len(left) == 1:
        t.over, t.winner, t.reason = True, left[0], "every other player was eliminated"
    elif not left:
        t.over, t.winner, t.reason = True, None, "every player was eliminated"


# -- the runner ------------------------------------------------------------------------------
def advance(g: Play) -> None:
    """Run automatic steps until a decision is owed or the game is over."""
    for _ in range(100_000):
        check_victory(g)
        if g.t.over:
            g.t.agenda = []
            return
        if not g.t.agenda:
            next_stage(g)
            continue
        step = g.t.agenda[0]
        if chain.is_window(step) and owed_seat(g, step) is None:
            g.t.agenda.pop(0)
            chain.close(g, step)
            continue
        if step["step"] in _DECISIONS:
            seat = owed_seat(g, step)
            if seat is not None and not g.t.player(seat).in_game:
                left = g.t.in_game()
                if step["step"] in MONSTER_SIDE and left:
                    step["seat"] = left[0]
                else:
                    g.t.agenda.pop(0)
                continue
            legal = options(g, step)
            if not legal:
                g.t.agenda.pop(0)
                continue
            if len(legal) == 1 and step["step"] not in ALWAYS_ASK:
                seat = owed_seat(g, step)
                assert seat is not None
                answer(g, seat, legal[0])
                continue
            secret_default(g, step, legal)
            return
        g.t.agenda.pop(0)
        run_auto(g, step)
    raise RuntimeError("the agenda did not settle")


_DECISIONS = ALWAYS_ASK | {"allocate", "route", "minion_target", "nest", "spawn", "chain_order",
                          "mastery_marker"}


def is_decision(step: dict[str, Any]) -> bool:
    return step["step"] in _DECISIONS
