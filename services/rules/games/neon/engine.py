"""The NEON engine: the contract's thin shell over the rules modules."""

from __future__ import annotations

from dataclasses import fields, is_dataclass, replace
from typing import Any

from services.rules.games.contract import (
    ConfigError,
    Decision,
    MatchConfig,
    ModeInfo,
    Outcome,
    Randomness,
    Transition,
)
from services.rules.games.neon import views
from services.rules.games.neon.cards import choice_actions, choice_of, choosers
from services.rules.games.neon.combat import attack_apply, attack_legal, window_owner
from services.rules.games.neon.content import CONTENT_VERSION, FIGHTERS
from services.rules.games.neon.defeat import (
    choose_upgrade,
    place_first,
    take_trophy_equipment,
    trophy_actions,
)
from services.rules.games.neon.flow import advance, setup_state
from services.rules.games.neon.legality import explain
from services.rules.games.neon.loot import discard_loot, keep_actions, place_actions
from services.rules.games.neon.schemas import ACTION_SCHEMA, CONFIG_SCHEMA
from services.rules.games.neon.scoring import outcome
from services.rules.games.neon.sectors import evacuate, evacuate_options
from services.rules.games.neon.state import Draft, Frame, State, frame
from services.rules.games.neon.turns import apply_turn, turn_actions

Action = dict[str, Any]
MODES = {
    "rebirth": ModeInfo("rebirth", 2, 6, "Most victory points wins; a fighter is reborn once."),
    "battle-royale": ModeInfo("battle-royale", 2, 6, "Last fighter on the arena wins."),
    "coalition": ModeInfo("coalition", 4, 6, "Teams of 2 or 3 share trophies (option: teams)."),
}
SORTED_LISTS = ("cards", "dice")


def normalize(action: Any) -> Action:
    """Canonical form of an answer: sorted card and dice lists, no false ``pull``."""
    out = dict(action)
    for key in SORTED_LISTS:
        if isinstance(out.get(key), list | tuple):
            out[key] = sorted(out[key])
    if out.get("pull") is False:
        del out["pull"]
    return out


def frame_decision(s: State, fr: Frame) -> Decision:
    if fr.kind == "attack":
        owner = window_owner(fr)
        return Decision(owner, f"attack_{fr.get('stage')}", tuple(attack_legal(s, fr)),
                        "attack: apply an effect or go on", optional=True)
    legal: tuple[Action, ...]
    if fr.kind == "keep":
        legal = keep_actions(fr.get("cards"))
        return Decision(fr.owner, "keep_loot", legal, "keep 2 of the loot cards you look at")
    if fr.kind == "place":
        legal = place_actions(s.fighters[fr.owner], fr.get("cards")[0])
        return Decision(fr.owner, "place_loot", legal, "lay out a loot card")
    if fr.kind == "trophy":
        victim = s.fighters[fr.get("victim")]
        legal = trophy_actions(tuple(e.card for e in victim.equipment))
        return Decision(fr.owner, "trophy_equipment", legal,
                        "take up to 2 equipment cards as trophies", optional=True)
    if fr.kind == "upgrade":
        legal = tuple({"type": "choose_upgrade", "card": c} for c in fr.get("cards"))
        return Decision(fr.owner, "choose_upgrade", legal, "keep 1 of 2 upgrade cards")
    if fr.kind == "evacuate":
        legal = tuple(evacuate_options(s, fr.owner, fr))
        return Decision(fr.owner, "evacuate", legal, "your sector closes: where to?")
    raise ValueError(f"no decision for frame {fr.kind}")


class NeonEngine:
    game_id = "neon"
    title = "NEON"
    engine_version = "2"  # 2: Rebirth with no fighter left has no winner
    content_version = CONTENT_VERSION

    def modes(self) -> dict[str, ModeInfo]:
        return dict(MODES)

    def config_schema(self) -> dict[str, Any]:
        return CONFIG_SCHEMA

    def action_schema(self) -> dict[str, Any]:
        return ACTION_SCHEMA

    # ---- set-up --------------------------------------------------------------------------------

    def setup(self, config: MatchConfig, rng: Randomness) -> State:
        mode = MODES.get(config.mode)
        if mode is None:
            raise ConfigError(f"unknown mode {config.mode!r}; modes: {', '.join(MODES)}")
        if not mode.min_seats <= config.seats <= mode.max_seats:
            raise ConfigError(f"{mode.name} needs {mode.min_seats}-{mode.max_seats} seats")
        options = dict(config.options)
        unknown = set(options) - {"fighters", "teams", "automa"}
        if unknown:
            raise ConfigError(f"unknown options: {', '.join(sorted(unknown))}")
        automa = self._automa(config, options)
        teams = self._teams(config, options)
        chosen = options.get("fighters")
        if chosen is not None:
            if not isinstance(chosen, list) or len(chosen) != config.seats or \
                    len(set(chosen)) != len(chosen) or any(c not in FIGHTERS for c in chosen):
                raise ConfigError(f"fighters: one distinct fighter per seat from "
                                  f"{', '.join(FIGHTERS)}")
            fighters = tuple(chosen)
        else:
            fighters = tuple(rng.shuffle(sorted(FIGHTERS)))[:config.seats]
        w = Draft(setup_state(config, rng, fighters, teams, automa), rng)
        advance(w)
        return w.s

    def _automa(self, config: MatchConfig, options: dict[str, Any]) -> bool:
        wanted = options.get("automa")
        if wanted is not None and not isinstance(wanted, bool):
            raise ConfigError("automa must be true or false")
        if config.seats == 2:
            if wanted is False:
                raise ConfigError("the Automa always plays in a 2-player game")
            return True
        if wanted and config.mode == "coalition":
            raise ConfigError("the Automa does not play in Coalition")
        if wanted and config.seats >= 6:
            raise ConfigError("there are only 6 fighter boards and the Automa makes a 7th")
        return bool(wanted)

    def _teams(self, config: MatchConfig, options: dict[str, Any]) -> tuple[tuple[int, ...], ...]:
        raw = options.get("teams")
        if config.mode != "coalition":
            if raw is not None:
                raise ConfigError("teams are only for Coalition")
            return ()
        if config.seats not in (4, 6):
            raise ConfigError("Coalition is for 4 or 6 players")
        if raw is None:
            size = 2
            count = config.seats // size
            return tuple(tuple(i for i in range(config.seats) if i % count == t)
                         for t in range(count))
        if isinstance(raw, int) and not isinstance(raw, bool):
            if raw not in (2, 3) or config.seats % raw or config.seats // raw not in (2, 3):
                raise ConfigError("teams: 2 or 3 teams of 2 or 3 players")
            return tuple(tuple(i for i in range(config.seats) if i % raw == t)
                         for t in range(raw))
        ok = isinstance(raw, list) and all(isinstance(t, list) for t in raw)
        seats = sorted(s for t in raw for s in t) if ok else []
        sizes = {len(t) for t in raw} if ok else set()
        if not ok or seats != list(range(config.seats)) or len(sizes) != 1 or \
                sizes.pop() not in (2, 3) or len(raw) < 2:
            raise ConfigError("teams: a list of 2 or 3 equal teams of 2 or 3 seats, each seat once")
        return tuple(tuple(sorted(t)) for t in raw)

    # ---- who acts ------------------------------------------------------------------------------

    def pending(self, state: State) -> tuple[Decision, ...]:
        s = state
        if s.ended:
            return ()
        if s.stack:
            return (frame_decision(s, s.stack[-1]),)
        if s.phase == "choose":
            return tuple(
                Decision(i, "choose_cards", choice_actions(s.fighters[i].hand),
                         "choose 2 cards and how to overlap them", hidden=True)
                for i in choosers(s) if s.fighters[i].choice is None)
        if s.phase == "act" and s.current is not None:
            f = s.fighters[s.current]
            kind = "land" if f.sector is None else "turn"
            return (Decision(f.idx, kind, tuple(turn_actions(s, f.idx)),
                             "land in a sector" if kind == "land" else "your next action",
                             optional=kind == "turn"),)
        return ()

    def validate(self, state: State, seat: int, action: Any) -> str | None:
        if state.ended:
            return "the game is over"
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            return "an action is an object with a type"
        mine = [d for d in self.pending(state) if d.seat == seat]
        if not mine:
            return "it is not your turn to act"
        wanted = normalize(action)
        for decision in mine:
            if any(normalize(legal) == wanted for legal in decision.legal):
                return None
        return explain(state, seat, mine[0].kind, wanted)

    # ---- acting --------------------------------------------------------------------------------

    def apply(self, state: State, seat: int, action: Any, rng: Randomness) -> Transition:
        w = Draft(replace(state, serial=state.serial + 1), rng)
        act = normalize(action)
        s = w.s
        if s.stack:
            self._answer_frame(w, seat, act)
        elif s.phase == "choose":
            f = s.fighters[seat]
            choice = choice_of(act)
            hand = tuple(c for c in f.hand if c not in (choice.top, choice.bottom))
            w.update(seat, choice=choice, hand=hand)
            w.emit("cards_chosen", {"fighter": seat})
            w.emit("cards_chosen_private", {"fighter": seat, **act}, frozenset({seat}))
        else:
            apply_turn(w, seat, act)
        advance(w)
        return Transition(w.s, tuple(w.events))

    def _answer_frame(self, w: Draft, seat: int, act: Action) -> None:
        fr = w.s.stack[-1]
        if fr.kind == "attack":
            attack_apply(w, seat, act)
        elif fr.kind == "keep":
            w.pop()
            kept = tuple(c for c in fr.get("cards") if c in act["cards"])
            discard_loot(w, tuple(c for c in fr.get("cards") if c not in kept))
            w.push(frame("place", seat, cards=kept))
        elif fr.kind == "place":
            place_first(w, seat, act)
        elif fr.kind == "trophy":
            w.pop()
            take_trophy_equipment(w, seat, fr.get("victim"), tuple(act["cards"]))
        elif fr.kind == "upgrade":
            w.pop()
            choose_upgrade(w, seat, fr.get("cards"), act["card"])
        elif fr.kind == "evacuate":
            evacuate(w, seat, act["sector"], bool(act["manoeuvre_c"]))

    # ---- reading -------------------------------------------------------------------------------

    def view(self, state: State, viewer: int | None) -> dict[str, Any]:
        return views.view(state, viewer, self.pending(state))

    def outcome(self, state: State) -> Outcome | None:
        return outcome(state) if state.ended else None

    def encode(self, state: State) -> Any:
        return to_json(state)


def to_json(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        out = {f.name: to_json(getattr(value, f.name)) for f in fields(value)}
        if "data" in out and hasattr(value, "kind"):
            out["data"] = {k: to_json(v) for k, v in value.data}
        return out
    if isinstance(value, tuple | list):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, float):
        raise TypeError("no floats in NEON states")
    return value


ENGINE = NeonEngine()
