"""The Neon Reign engine: the contract's entry points over the rules modules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.rules.games.contract import (
    Action,
    Decision,
    MatchConfig,
    ModeInfo,
    Outcome,
    Randomness,
    Transition,
)

from . import schemas, turns, views
from .content import CONTENT_VERSION, hero
from .legality import attack_options, attack_problem, defense_options, defense_problem
from .modes import BEST_OF_THREE, HERO_MATCH, MODES, SOLO, setup
from .state import DEFEND, OVER, PICK, TURN, State, encode_state, to_json

ENGINE_VERSION = "1.1.0"
_RECOVER = {"type": "recover"}
_PASS = {"type": "pass"}


class NeonReignEngine:
    game_id = "neon-reign"
    title = "Neon Reign"
    engine_version = ENGINE_VERSION
    content_version = CONTENT_VERSION

    def modes(self) -> Mapping[str, ModeInfo]:
        return dict(MODES)

    def config_schema(self) -> Any:
        return schemas.config_schema()

    def action_schema(self) -> Any:
        return schemas.action_schema()

    def setup(self, config: MatchConfig, rng: Randomness) -> State:
        return setup(config, rng)

    # -- who acts now -----------------------------------------------------------------------
    def pending(self, state: State) -> tuple[Decision, ...]:
        if state.phase == OVER:
            return ()
        if state.phase == PICK:
            return tuple(
                Decision(seat, "pick_hero",
                         tuple({"type": "pick_hero", "hero": h} for h in sorted(side.bench)),
                         "pick your starting hero in secret", hidden=True)
                for seat, side in enumerate(state.sides) if not state.picks[seat])
        if state.phase == TURN:
            side = state.sides[state.active]
            legal = tuple({"type": "attack", "cards": list(c)} for c in attack_options(side.hand))
            if turns.may_recover(side):
                legal += (_RECOVER,)
            return (Decision(state.active, "turn", legal,
                             "Attack with 1-3 cards, or Recover"),)
        defender = 1 - state.active
        side = state.sides[defender]
        options = defense_options(side.hand, hero(side.hero), state.in_play)
        return (Decision(defender, "defend", (_PASS, *options),
                         "Defend with up to 2 cards, or pass", optional=True),)

    def validate(self, state: State, seat: int, action: Action) -> str | None:
        if state.phase == OVER:
            return "the match is over"
        if not isinstance(action, Mapping) or not isinstance(action.get("type"), str):
            return "an action is an object with a type"
        kind = action["type"]
        if state.phase == PICK:
            return self._validate_pick(state, seat, action)
        if state.phase == TURN:
            if seat != state.active:
                return "it is not your turn"
            if kind == "recover":
                if not turns.may_recover(state.sides[seat]):
                    return "Recover would draw no card while you can Attack: Attack instead"
                return _extra_keys(action, {"type"})
            if kind != "attack":
                return "on your turn you Attack or Recover"
            return _extra_keys(action, {"type", "cards"}) or attack_problem(
                state.sides[seat].hand, action.get("cards"))
        if seat != 1 - state.active:
            return "only the defender may answer an Attack"
        if kind == "pass":
            return _extra_keys(action, {"type"})
        if kind != "defend":
            return "answer the Attack with defend or pass"
        side = state.sides[seat]
        return _extra_keys(action, {"type", "cards", "targets"}) or defense_problem(
            side.hand, hero(side.hero), state.in_play, action.get("cards"),
            action.get("targets"))

    @staticmethod
    def _validate_pick(state: State, seat: int, action: Action) -> str | None:
        if action["type"] != "pick_hero":
            return "both players first pick their starting hero"
        if not 0 <= seat < len(state.picks):
            return "no such seat"
        if state.picks[seat]:
            return "you already picked your starting hero"
        if action.get("hero") not in state.sides[seat].bench:
            return "pick one of your two heroes"
        return _extra_keys(action, {"type", "hero"})

    def apply(self, state: State, seat: int, action: Action, rng: Randomness) -> Transition:
        kind = action["type"]
        if kind == "pick_hero":
            new, events = turns.pick_hero(state, seat, str(action["hero"]))
        elif kind == "attack":
            new, events = turns.attack(state, tuple(action["cards"]), rng)
        elif kind == "recover":
            new, events = turns.recover(state, rng)
        else:
            new, events = turns.defend(state, seat, dict(action), rng)
        return Transition(new, events)

    # -- what is known ----------------------------------------------------------------------
    def view(self, state: State, viewer: int | None) -> Any:
        return views.view(state, viewer)

    def encode(self, state: State) -> Any:
        return encode_state(state)

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != OVER:
            return None
        seats = 1 if state.mode == SOLO else 2
        draw = state.winner is None
        if state.mode == SOLO:
            placements: tuple[int, ...] = (1 if draw or state.winner == 0 else 2,)
        else:
            placements = tuple(1 if draw or s == state.winner else 2 for s in range(seats))
        return Outcome(placements, _scores(state, seats), state.reason, draw=draw,
                       breakdown=_breakdown(state))


def _extra_keys(action: Action, allowed: set[str]) -> str | None:
    extra = sorted(set(action) - allowed)
    return f"unexpected field {extra[0]!r}" if extra else None


def _scores(state: State, seats: int) -> tuple[int, ...]:
    if state.mode == BEST_OF_THREE:
        return state.tokens[:seats]
    if state.mode == HERO_MATCH:
        return tuple(_hero_match_health(state, s) for s in range(seats))
    return tuple(state.sides[s].health for s in range(seats))


def _hero_match_health(state: State, seat: int) -> int:
    side = state.sides[seat]
    standing = 0 if side.hero in side.fallen else side.health
    return standing + 25 * len(side.bench)


def _breakdown(state: State) -> dict[str, Any]:
    if state.winner is None:
        winner: Any = "double KO"
    elif state.sides[state.winner].computer:
        winner = "computer"
    else:
        winner = state.winner
    return {
        "winner": winner,
        "health": [s.health for s in state.sides],
        "stars": [s.stars for s in state.sides],
        "shields": [s.shields for s in state.sides],
        "heroes": [s.hero for s in state.sides],
        "cards_left": [len(s.hand) + len(s.deck) for s in state.sides],
        "arcade_tokens": list(state.tokens),
        "games": to_json(state.results),
        "fallen_heroes": [list(s.fallen) for s in state.sides],
        "computer": state.sides[1].computer,
        "difficulty": state.difficulty or None,
    }


__all__ = ["DEFEND", "NeonReignEngine"]
