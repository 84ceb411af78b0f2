"""The Barbaric engine: the contract's entry points over the rules modules."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.rules.games.contract import (
    RESIGN,
    Action,
    Decision,
    EngineEvent,
    GameEngine,
    MatchConfig,
    ModeInfo,
    Outcome,
    Randomness,
    Transition,
    json_key,
)

from . import chain, flow, schemas, skills, turns, views
from .content import CONTENT_VERSION, skill_of
from .modes import MODES, setup
from .play import Play
from .rulesets import CURRENT, RULESETS, Ruleset
from .skills import TARGET_KEYS
from .state import State

PROMPTS = {
    "pick_rider": "choose a Rider Board", "pick_gear": "choose a Gear Board",
    "choose_card": "choose a card for your starting hand (2 Rider and 2 Gear skills, "
                   "no two of a name)",
    "place": "place your Character in a Spawning Space",
    "spawn": "leave Recovery Status: choose an unoccupied Spawning Space",
    "prep": "Preparation: Learn a Skill, Consume a Resource, or pass",
    "prep_follow": "another player used a Preparation action: you may do the same, or pass",
    "act": "Action Phase: one Rider action (1 Stamina) and one Gear action (1 Energy)",
    "aid_discard": "discard a card to heal (First Aid) or regain a Shield (Repair), or done",
    "allocate": "allocate the damage between Health and Shields",
    "counter": "you took damage: play a Counter Skill against the Attacker, or pass",
    "chain_order": "several Counter Skills answer the same damage: choose the next one added "
                   "to the Resolution Chain (the last added resolves first)",
    "choose_resource": "gain any 1 Resource: choose which",
    "discover": "Discover Survivors: draw a Survivors card, then Rescue, Plunder or Ignore",
    "route": "choose where the Monster or Minion ends its movement",
    "minion_target": "choose which of the nearest Characters the Minion attacks",
    "nest": "choose a Minion Nest Space for a new Minion",
    "control_move": "you control the Monster: choose where it moves",
    "control_attack": "you control the Monster: choose whom it attacks",
    "mastery_marker": "your Experience Dial shows the Mastery icon: choose the Mastery Skill "
                      "that takes the Mastery Marker",
}


class BarbaricEngine:
    game_id = "barbaric"
    title = "Barbaric: After the Apocalypse"
    contract_version = 2

    def __init__(self, rules: Ruleset = CURRENT) -> None:
        self.rules = rules
        self.engine_version = rules.version
        self.content_version = CONTENT_VERSION

    def for_version(self, engine_version: str) -> GameEngine:
        if engine_version == self.engine_version:
            return self
        if engine_version not in RULESETS:
            raise KeyError(f"barbaric engine {engine_version!r} is not kept; "
                           f"replayable versions: {', '.join(RULESETS)}")
        return BarbaricEngine(RULESETS[engine_version])

    def modes(self) -> Mapping[str, ModeInfo]:
        return dict(MODES)

    def match_options(self, mode: str, seats: int,
                      teams: Sequence[Sequence[int]] | None = None) -> Mapping[str, Any]:
        return {}

    def config_schema(self) -> Any:
        return schemas.config_schema()

    def action_schema(self) -> Any:
        return schemas.action_schema()

    def setup(self, config: MatchConfig, rng: Randomness) -> State:
        return self.start(config, rng).state

    def start(self, config: MatchConfig, rng: Randomness) -> Transition:
        """The set-up with its events: the first-player roll-off, round by round."""
        rolled: list[EngineEvent] = []
        g = Play(setup(config, rng, rolled), rng, self.rules)
        flow.advance(g)
        return Transition(g.t.freeze(), (*rolled, *g.events))

    # -- who acts now -------------------------------------------------------------------------
    def pending(self, state: State) -> tuple[Decision, ...]:
        g = Play(state.table(), _NO_DICE, self.rules)
        if g.t.over or not g.t.agenda:
            return ()
        step = g.t.agenda[0]
        seat = flow.owed_seat(g, step)
        legal = flow.options(g, step)
        if seat is None or not legal:
            return ()
        return (Decision(seat, step["step"], tuple(legal), PROMPTS.get(step["step"], ""),
                         optional=any(a["type"] in _PASSES for a in legal),
                         hidden=step["step"] == "choose_card",
                         default=flow.default_of(step, legal)),)

    def standing(self, state: State) -> tuple[Decision, ...]:
        g = Play(state.table(), _NO_DICE, self.rules)
        if g.t.over:
            return ()
        return tuple(Decision(s, "any_time", tuple(self._any_time(g, s)) + (RESIGN,),
                              "exchange 2 Resources for 1, use an Ultimate, Mastery or "
                              "Survivors skill, or resign", standing=True, priority=1)
                     for s in g.t.in_game())

    def _any_time(self, g: Play, seat: int) -> list[dict[str, Any]]:
        p = g.t.player(seat)
        if g.t.round == 0:  # set-up is not finished
            return []
        out = turns.exchange_options(g, p)
        if p.on_map:
            for card in sorted(set(p.hand)):
                s = skill_of(card)
                if s.kind == "ultimate" and p.subs_ready[s.side] > 0:
                    out += [{"type": "ultimate", "card": card, **t, **b}
                            for t in skills.targets(g, p, s, 1)
                            for b in skills.boosts(p, s, int(s.side == "rider"))]
            out += [{"type": "mastery", "mastery": m} for m in skills.mastery_usable(g, p)]
            out += turns.survivor_options(g, p)
        return out

    # -- validating and applying ----------------------------------------------------------------
    def validate(self, state: State, seat: int, action: Any) -> str | None:
        t = state.table()
        if t.over:
            return "the game is over"
        if not isinstance(seat, int) or not 0 <= seat < t.seats:
            return "no such seat"
        if not t.player(seat).in_game:
            return "you are no longer in the game"
        if action.get("type") == "resign":
            return None
        key = json_key(action)
        for d in self.pending(state):
            if d.seat == seat and any(json_key(a) == key for a in d.legal):
                return None
        if action.get("type") in _ANY_TIME:  # only this seat's standing options
            g = Play(state.table(), _NO_DICE, self.rules)
            if any(json_key(a) == key for a in self._any_time(g, seat)):
                return None
        return self._why_not(state, seat, action)

    def _why_not(self, state: State, seat: int, action: Any) -> str:
        g = Play(state.table(), _NO_DICE, self.rules)
        kind = action.get("type")
        p = g.t.player(seat)
        owed = self.pending(state)
        if kind == "counter":
            head = g.t.agenda[0] if g.t.agenda else None
            if owed and head and chain.is_window(head) and seat in head["seats"]:
                return (f"the response window goes in turn order: seat {owed[0].seat} "
                        "answers first")
            return "the Counter Skill's condition is not met"
        if kind in ("exchange", "ultimate", "mastery", "survivor"):
            if kind == "mastery" and p.mastery.get(str(action.get("mastery"))) == g.t.turn.number:
                return "a Mastery Skill cannot be used the turn it is gained"
            return f"{kind} is not possible now"
        if not owed or owed[0].seat != seat:
            return "it is not your decision to make"
        step = g.t.agenda[0]["step"]
        if kind == "move" and step == "act":
            if g.t.turn.gear_used:
                return "only one Gear action may be used each turn"
            return turns.move_problem(g, p, action)
        if kind in ("search", "first_aid", "skill", "repair") and step == "act":
            return "only one Rider action and one Gear action may be used each turn"
        return f"{kind} is not a legal answer to {step} now"

    def apply(self, state: State, seat: int, action: Action, rng: Randomness) -> Transition:
        g = Play(state.table(), rng, self.rules)
        a = dict(action)
        kind = a["type"]
        p = g.t.player(seat)
        if kind == "resign":
            _resign(g, seat)
        elif kind == "exchange":
            turns.exchange(g, p, a)
        elif kind == "ultimate":
            s = skill_of(a["card"])
            p.subs_ready[s.side] -= 1
            p.hand.remove(a["card"])
            p.discard.append(a["card"])
            skills.resolve(g, p, s, 1, {k: v for k, v in a.items() if k in TARGET_KEYS},
                           a.get("boost", 0))
            g.experience(p, s.side)
        elif kind == "mastery":
            skills.use_mastery(g, p, a["mastery"])
        elif kind == "survivor":
            turns.use_survivor(g, p, a["card"])
        else:
            flow.answer(g, seat, a)
        flow.advance(g)
        return Transition(g.t.freeze(), tuple(g.events))

    # -- what seats see -----------------------------------------------------------------------
    def view(self, state: State, viewer: int | None) -> Any:
        out = views.view(state, viewer)
        waiting = out["waiting_for"]
        if waiting is not None and waiting["seat"] is None:  # a response window: whose turn
            g = Play(state.table(), _NO_DICE, self.rules)
            waiting["seat"] = flow.owed_seat(g, g.t.agenda[0])
        return out

    def outcome(self, state: State) -> Outcome | None:
        data = state.data
        if not data["over"]:
            return None
        seats, winner = data["seats"], data["winner"]
        victory = tuple(p["victory"] for p in data["players"])
        if data["mode"] == "solo":
            return Outcome((1 if winner == 0 else 2,), (1 if winner == 0 else 0,),
                           data["reason"])
        if data["reason"] == flow.ROUND_CAP_REASON:
            return _ranked_at_the_cap(data)
        if winner is None:
            return Outcome(tuple(1 for _ in range(seats)), victory, data["reason"], draw=True)
        return Outcome(tuple(1 if s == winner else 2 for s in range(seats)), victory,
                       data["reason"])

    def encode(self, state: State) -> Any:
        return state.data


def _ranked_at_the_cap(data: dict[str, Any]) -> Outcome:
    """At the round cap: players still in the game before those out of it, then by
    Victory Tokens; equal keys share a rank."""
    players = data["players"]
    keys = [(not (p["eliminated"] or p["resigned"]), p["victory"]) for p in players]
    places = tuple(1 + sum(other > mine for other in keys) for mine in keys)
    return Outcome(places, tuple(p["victory"] for p in players), data["reason"],
                   draw=places.count(1) > 1)


def _resign(g: Play, seat: int) -> None:
    p = g.t.player(seat)
    g.say("resigned", {"seat": seat})
    if p.core:
        p.core = False
        g.t.core_at = p.pos
    p.resigned = True
    p.pos = None
    for track in g.t.tracks.values():
        if seat in track:
            track.remove(seat)
    if g.t.mode == "solo":
        g.t.over, g.t.winner, g.t.reason = True, None, "the player resigned"


_PASSES = {"pass", "end_actions", "done", "ignore", "decline"}
_ANY_TIME = {"exchange", "ultimate", "mastery", "survivor"}
"""The action types of the standing option (besides resign)."""


class _NoDice:
    """Reading a state never rolls: asking this for a draw is a bug."""

    def randbelow(self, n: int) -> int:
        raise RuntimeError("no dice while reading a state")

    def shuffle(self, items: Any) -> Any:
        raise RuntimeError("no dice while reading a state")

    def roll(self, faces: Any, count: int = 1) -> Any:
        raise RuntimeError("no dice while reading a state")


_NO_DICE = _NoDice()
__all__ = ["BarbaricEngine"]
