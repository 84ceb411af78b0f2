"""The NEON engine: the contract's thin shell over the rules modules."""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from services.platform.canonical import canonical_json
from services.rules.games.contract import (
    RESIGN,
    ConfigError,
    Decision,
    MatchConfig,
    ModeInfo,
    Outcome,
    Randomness,
    RemembersPending,
    TeamLayout,
    Transition,
)
from services.rules.games.frozen import _plain_fields, but
from services.rules.games.neon import views
from services.rules.games.neon.attack import Attack
from services.rules.games.neon.cards import choice_actions, choice_of, choosers, pair_choices
from services.rules.games.neon.combat import attack_apply, attack_legal, window_owner
from services.rules.games.neon.content import CONTENT_VERSION, FIGHTERS
from services.rules.games.neon.defeat import (
    choose_upgrade,
    place_first,
    take_trophy_equipment,
    trophy_actions,
)
from services.rules.games.neon.encoding import canonical_state
from services.rules.games.neon.encoding import encode as encode_state
from services.rules.games.neon.flow import advance, setup_events, setup_state
from services.rules.games.neon.legality import explain
from services.rules.games.neon.loot import discard_loot, keep_actions, place_actions
from services.rules.games.neon.resign import resign
from services.rules.games.neon.ruleset import CURRENT, RULESETS, Ruleset
from services.rules.games.neon.schemas import ACTION_SCHEMA, CONFIG_SCHEMA
from services.rules.games.neon.scoring import outcome
from services.rules.games.neon.sectors import evacuate, evacuate_options
from services.rules.games.neon.state import CardChoice, Draft, Frame, StackFrame, State, frame
from services.rules.games.neon.turns import apply_turn, turn_actions

Action = dict[str, Any]
AUTOMA_SIDE = ("automa",)
MODES = {
    "rebirth": ModeInfo("rebirth", 2, 6, "Most victory points wins; a fighter is reborn once.",
                        ai_participants=AUTOMA_SIDE),
    "battle-royale": ModeInfo("battle-royale", 2, 6, "Last fighter on the arena wins.",
                              ai_participants=AUTOMA_SIDE),
    "coalition": ModeInfo("coalition", 4, 6, "Teams of 2 or 3 share trophies (option: teams).",
                          team_layouts=(TeamLayout(4, 2), TeamLayout(6, 3), TeamLayout(6, 2)),
                          ai_participants=AUTOMA_SIDE),
}
"""The Automa is a side the engine plays (never a seat): always in a game of two, and
"with more participants you may bring the Automa into the game if you wish" (option)."""
SORTED_LISTS = ("cards", "dice")
LEGACY_ATTACK_KEYS = {"defender_used": "dused", "blocks_as_fails": "b2f",
                      "hits_cancelled": "dcancel", "defense_roll": "ddice",
                      "defense_rerolled": "drerolled", "defense_count": "dcount",
                      "bot_defense_rolls": "sim", "defender": "cur"}


def normalize(action: Any) -> Action:
    """Canonical form of an answer: sorted card and dice lists, no false ``pull``. A plain
    dict with none of the keys it may change (most answers) is its own normal form, given
    as it is (answers are read, never changed: no copy is made of them)."""
    if type(action) is dict and _NORMALISED.isdisjoint(action):
        return action
    out = dict(action)
    if not _NORMALISED.isdisjoint(out):  # else nothing to change
        for key in SORTED_LISTS:
            if isinstance(out.get(key), _SEQUENCES):
                out[key] = sorted(out[key])
        if out.get("pull") is False:
            del out["pull"]
    return out


_SEQUENCES = (list, tuple)
"""``isinstance``'s ``list | tuple``, made once (a union is a new object at each use)."""
_NORMALISED = frozenset((*SORTED_LISTS, "pull"))
"""The keys :func:`normalize` may change."""


PASSES = ("roll", "done", "pass")
CHEAPEST_TURN = ("defense", "gain_energy", "leadership", "move", "land", "search", "attack")
TURN_RANK = {kind: n for n, kind in enumerate(CHEAPEST_TURN)}
UNRANKED = len(TURN_RANK)


def default_of(legal: tuple[Action, ...]) -> Action:
    """What a clock applies: a pass when passing is legal, else the cheapest legal answer
    (a free row action before one that costs energy; no Manoeuvre C; nothing taken)."""
    for action in legal:
        if action["type"] in PASSES:
            return action
    return cheapest(legal)


def cheapest(legal: tuple[Action, ...]) -> Action:
    """``default_of(legal)`` of a list without a pass: ``min(free or legal, key=rank)``, the
    first answer of the lowest rank among the free ones (no Manoeuvre C, nothing taken, no
    ability), else of all. Looked for rank by rank in the answers' types (found in C: a
    turn lists many attacks, the dearest rank), the first free one of a rank present."""
    kinds = list(map(_TYPE, legal))
    for kind in CHEAPEST_TURN:
        if kind in kinds:
            at = kinds.index(kind)
            while True:
                if _free(legal[at]):
                    return legal[at]
                try:
                    at = kinds.index(kind, at + 1)
                except ValueError:
                    break
    for a, kind in zip(legal, kinds, strict=True):  # then the unranked types, in order
        if str(kind) not in TURN_RANK and _free(a):
            return a
    return min(legal, key=lambda a: TURN_RANK.get(str(a["type"]), UNRANKED))


def _free(a: Action) -> bool:
    """An answer a clock may take: no Manoeuvre C, nothing taken, not an ability."""
    return not a.get("manoeuvre_c") and a.get("as") in (None, "discard") and \
        a["type"] != "ability"


_TYPE = itemgetter("type")


def decision(seat: int, kind: str, legal: tuple[Action, ...], prompt: str, *,
             optional: bool = False, hidden: bool = False,
             default: Action | None = None) -> Decision:
    # Decision(seat, kind, legal, prompt, ...) copied from a blank one (frozen.but: one
    # dict copy, not a frozen __init__ setting each field in turn)
    return but(_BLANK_DECISION, {"seat": seat, "kind": kind, "legal": legal, "prompt": prompt,
                                 "optional": optional, "hidden": hidden,
                                 "default": default_of(legal) if default is None else default})


def _combined(obj: Any) -> Any:
    """``obj``'s equal with a combined instance dict (see ``state.Draft``): the copies
    ``frozen.but`` makes of it hold combined dicts too, whose attribute reads specialise."""
    new = _NEW(obj.__class__)
    _SET(new, "__dict__", dict(obj.__dict__))
    return new


_BLANK_DECISION = Decision(0, "", ())


def _transition_by_dict(state: State, events: tuple[Any, ...]) -> Transition:
    """``Transition(state, events)``, its instance dict set at once (as ``frozen.event``
    makes events: the generated ``__init__`` of a frozen dataclass sets each field through
    ``object.__setattr__``)."""
    new = _NEW(Transition)
    _SET(new, "__dict__", {"state": state, "events": events})
    return new


_NEW = object.__new__
_SET = object.__setattr__
_TRANSITION_BY_DICT = _plain_fields(Transition) == {"state", "events"}
_transition = _transition_by_dict if _TRANSITION_BY_DICT else Transition
if _plain_fields(Decision):
    _BLANK_DECISION = _combined(_BLANK_DECISION)


def pass_last(legal: tuple[Action, ...]) -> Action | None:
    """The pass of a list that lists its pass, if any, last and once (an attack window's
    ``roll``/``done``, a turn's ``pass``: see ``stage_legal`` and ``turn_actions``), which is
    then ``default_of(legal)``; ``None`` when the list has no pass."""
    if legal and legal[-1]["type"] in PASSES:
        return legal[-1]
    return None


def choose_decision(seat: int, hand: tuple[str, ...], drawn: CardChoice | None = None) -> Decision:
    """The seat's card choice, which depends on its hand and its drawn default alone: while
    the others choose, the seats still choosing keep theirs (one decision kept per seat;
    decisions and their legal lists are read, never changed)."""
    last = _CHOICES.get(seat)
    if last is not None and last[0] == hand and last[1] == drawn:
        return last[2]
    legal = choice_actions(hand)
    made = decision(seat, "choose_cards", legal, "choose 2 cards and how to overlap them",
                    hidden=True, default=_choice_default(hand, drawn, legal))
    _CHOICES[seat] = (hand, drawn, made)
    return made


def _choice_default(hand: tuple[str, ...], drawn: CardChoice | None,
                    legal: tuple[Action, ...]) -> Action | None:
    """Engine 6: the answer ``drawn`` names (``State.defaults``: drawn at random when the
    choice was asked). Engines 2-5 draw none: the first answer, ``default_of(legal)`` (no
    pass, and every choice ranks the same), the first two cards of the hand laid the same
    way every time, which a timeout (public) told the table."""
    if drawn is not None and drawn.top in hand and drawn.bottom in hand:
        for action in pair_choices(drawn.top, drawn.bottom):
            if action["cover"] == drawn.cover and action["top_rotated"] == drawn.top_rotated \
                    and action["bottom_rotated"] == drawn.bottom_rotated:
                return action
    return legal[0] if legal else None


def _drawn_choice(s: State, idx: int) -> CardChoice | None:
    for seat, choice in s.defaults:
        if seat == idx:
            return choice
    return None


_CHOICES: dict[int, tuple[tuple[str, ...], CardChoice | None, Decision]] = {}


def frame_decision(s: State, fr: StackFrame) -> Decision:
    if isinstance(fr, Attack):
        owner = window_owner(fr)
        legal = tuple(attack_legal(s, fr))
        go_on = pass_last(legal)
        return decision(owner, f"attack_{fr.stage}", legal,
                        "attack: apply an effect or go on",
                        optional=go_on is not None, default=go_on)
    kind, legal = frame_legal(s, fr)
    return decision(fr.owner, kind, legal, FRAME_PROMPTS[kind], optional=kind == "trophy_equipment",
                    hidden=kind in HIDDEN_FRAME_DECISIONS, default=_kept_default(fr, legal))


def frame_label(fr: StackFrame) -> tuple[int, str, bool]:
    """``frame_decision``'s (seat, kind, hidden), without its legal list."""
    if isinstance(fr, Attack):
        return window_owner(fr), f"attack_{fr.stage}", False
    kind = FRAME_DECISIONS.get(fr.kind)
    if kind is None:
        raise ValueError(f"no decision for frame {fr.kind}")
    return fr.owner, kind, kind in HIDDEN_FRAME_DECISIONS


def _kept_default(fr: Frame, legal: tuple[Action, ...]) -> Action | None:
    """Engine 6: a keep's default, the pair drawn when it was asked (``loot.keep_default``);
    else (every other frame, and keeps of engines 2-5) ``default_of(legal)``: for a keep the
    first two cards drawn, for a laying out the discard (public anyway: the card is face up
    in the discard pile)."""
    drawn = fr.get("default") if fr.kind == "keep" else None
    if drawn is not None:
        for action in legal:
            if tuple(action["cards"]) == drawn:
                return action
    return None


def frame_legal(s: State, fr: Frame) -> tuple[str, tuple[Action, ...]]:
    """The decision kind of a frame other than an attack, and the answers it lists (its
    owner answers it)."""
    if fr.kind == "keep":
        return "keep_loot", keep_actions(fr.get("cards"))
    if fr.kind == "place":
        return "place_loot", place_actions(s, s.fighters[fr.owner], fr.get("cards")[0])
    if fr.kind == "trophy":
        victim = s.fighters[fr.get("victim")]
        return "trophy_equipment", trophy_actions(tuple(e.card for e in victim.equipment))
    if fr.kind == "upgrade":
        return "choose_upgrade", tuple({"type": "choose_upgrade", "card": c}
                                       for c in fr.get("cards"))
    if fr.kind == "evacuate":
        return "evacuate", tuple(evacuate_options(s, fr.owner, fr))
    raise ValueError(f"no decision for frame {fr.kind}")


FRAME_PROMPTS = {"keep_loot": "keep 2 of the loot cards you look at",
                 "place_loot": "lay out a loot card",
                 "trophy_equipment": "take up to 2 equipment cards as trophies",
                 "choose_upgrade": "keep 1 of 2 upgrade cards",
                 "evacuate": "your sector closes: where to?"}
FRAME_DECISIONS = {"keep": "keep_loot", "place": "place_loot", "trophy": "trophy_equipment",
                   "upgrade": "choose_upgrade", "evacuate": "evacuate"}
"""The decision kind of each frame other than an attack, as ``frame_legal`` names it."""
FRAME_KINDS = frozenset(FRAME_DECISIONS)
HIDDEN_FRAME_DECISIONS = frozenset({"keep_loot", "place_loot"})
"""Answered in secret (the host keeps the action off every other seat's path): a card tucked
as a supply shows only its supply symbol, so which cards were kept and where each went is the
owner's; what the table sees comes as public events (the cards not kept, face up in the
discard pile; equipment laid out; a tuck's symbol). RULES.md, "Hidden information"."""
NOT_OWED: tuple[str, list[Any]] = ("", [])
"""``NeonEngine._owed``'s answer for a seat that owes no decision now."""


def choice_legal(hand: tuple[str, ...], action: Any) -> tuple[Action, ...]:
    """The answers of ``choice_actions(hand)`` that ``action`` (or its normal form, which
    keeps its cards and cover) can equal: the 8 of its top and bottom cards when they are
    two cards of the hand (``permutations(hand, 2)``), else none."""
    top, bottom = action.get("top"), action.get("bottom")
    if top in hand and bottom in hand and (top != bottom or hand.count(top) >= 2):
        return pair_choices(top, bottom)
    return ()


class NeonEngine(RemembersPending):
    """The NEON engine of one ruleset (the current one, or an older one kept for replay).

    Versions: 2 (Rebirth with no fighter left has no winner); 3 (contract v2 and the
    rulings of issue 11); 4 (resigning reveals nothing); 5 (the rulebook audit); 6 (the
    defaults of hidden decisions drawn); 7 (the rules-fidelity audit: Manoeuvre C after the
    closing move, the last Coalition team wins), see RULES.md "Version history".
    """

    game_id = "neon"
    title = "NEON"
    contract_version = 2
    content_version = CONTENT_VERSION
    json_views = True
    """Views hold JSON values only, equal type for type to what a client reads back from
    their JSON (see ``views``): self-play gives them to the bots without a round trip."""

    def __init__(self, ruleset: Ruleset = CURRENT) -> None:
        self.ruleset = ruleset
        self.engine_version = ruleset.version
        self.offers_resign = ruleset.resign
        """Contract: "resign" (ruleset 2 had no resignation; a clock's forfeit needs it)."""

    def for_version(self, engine_version: str) -> NeonEngine:
        if engine_version == self.engine_version:
            return self
        return ENGINES[RULESETS[engine_version].version]

    def match_options(self, mode: str, seats: int,
                      teams: Any = None) -> dict[str, Any]:
        """The Automa in a game of two ("In a 2-player game the Automa always takes part")
        and, for Coalition, the team split as lists of seats."""
        options: dict[str, Any] = {}
        if seats == 2:
            options["automa"] = True
        if mode == "coalition" and teams:
            options["teams"] = [sorted(int(s) for s in team) for team in teams]
        return options

    def modes(self) -> dict[str, ModeInfo]:
        return dict(MODES)

    def config_schema(self) -> dict[str, Any]:
        return CONFIG_SCHEMA

    def action_schema(self) -> dict[str, Any]:
        return ACTION_SCHEMA

    # ---- set-up --------------------------------------------------------------------------------

    def setup(self, config: MatchConfig, rng: Randomness) -> State:
        return self.start(config, rng).state

    def start(self, config: MatchConfig, rng: Randomness) -> Transition:
        """The set-up (steps 1-6 of the rulebook) with its events (``flow.setup_events``):
        the arena, the decks, each seat's fighter and opening hand (the count public, the
        cards to that seat alone), the Automa's sector and the leader. ``setup`` is this
        state: the events are read from it and draw nothing, so the draws and the state
        are those of every earlier version (replays read states, not events)."""
        mode = MODES.get(config.mode)
        if mode is None:
            raise ConfigError(f"unknown mode {config.mode!r}; modes: {', '.join(MODES)}")
        if not mode.min_seats <= config.seats <= mode.max_seats:
            raise ConfigError(f"{mode.name} needs {mode.min_seats}-{mode.max_seats} seats")
        options = dict(config.options)
        known = {"fighters", "teams", "automa"} | \
            ({"round_board"} if self.ruleset.round_board_side else set())
        unknown = set(options) - known
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
        board = self._round_board(options)
        state = setup_state(config, rng, fighters, teams, automa, board)
        w = Draft(state, rng, setup_events(state, dealt=chosen is None),
                  ruleset=self.ruleset.version)
        advance(w)
        return Transition(w.finish(), tuple(w.events))

    def _automa(self, config: MatchConfig, options: dict[str, Any]) -> bool:
        wanted = options.get("automa")
        if wanted is not None and not isinstance(wanted, bool):
            raise ConfigError("automa must be true or false")
        if config.seats == 2:
            if wanted is False:
                raise ConfigError("the Automa always plays in a 2-player game")
            return True
        if self.ruleset.automa_with_more_participants:
            return bool(wanted)
        if wanted and config.mode == "coalition":
            raise ConfigError("the Automa does not play in Coalition")
        if wanted and config.seats >= 6:
            raise ConfigError("there are only 6 fighter boards and the Automa makes a 7th")
        return bool(wanted)

    def _round_board(self, options: dict[str, Any]) -> str | None:
        side = options.get("round_board")
        if side is not None and side not in ("2-3", "4-6"):
            raise ConfigError("round_board: \"2-3\" or \"4-6\" (the side of the round board)")
        return side

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

    def _pending(self, state: State) -> tuple[Decision, ...]:
        s = state
        if s.ended:
            return ()
        if s.stack:
            return (frame_decision(s, s.stack[-1]),)
        if s.phase == "choose":
            return tuple(choose_decision(i, s.fighters[i].hand, _drawn_choice(s, i))
                         for i in choosers(s) if s.fighters[i].choice is None)
        if s.phase == "act" and s.current is not None:
            f = s.fighters[s.current]
            kind = "land" if f.sector is None else "turn"
            legal = tuple(turn_actions(s, f.idx))
            skip = pass_last(legal)
            # a turn lists its pass last and once (turn_actions): without one, default_of
            # is the cheapest answer
            return (decision(f.idx, kind, legal,
                             "land in a sector" if kind == "land" else "your next action",
                             optional=skip is not None,
                             default=skip if skip is not None else cheapest(legal)),)
        return ()

    def standing(self, state: State) -> tuple[Decision, ...]:
        """Resigning, for each seat still in the game (contract v2; not in ruleset 2)."""
        if state.ended or not state.rules.resign:
            return ()
        return tuple(Decision(f.idx, "resign", (dict(RESIGN),), "resign from the Tournament",
                              optional=True, standing=True, priority=-1)
                     for f in state.fighters[:state.seats] if not f.eliminated)

    def decision_labels(self, state: State) -> tuple[tuple[int, str, bool], ...]:
        """The (seat, kind, hidden) of ``pending(state)`` then of ``standing(state)``, as
        they name them (contract: "decision labels"), without building a legal list: what
        verify's decision check compares."""
        s = state
        if s.ended:
            return ()
        if s.stack:
            owed: tuple[tuple[int, str, bool], ...] = (frame_label(s.stack[-1]),)
        elif s.phase == "choose":
            owed = tuple((i, "choose_cards", True)
                         for i in choosers(s) if s.fighters[i].choice is None)
        elif s.phase == "act" and s.current is not None:
            f = s.fighters[s.current]
            owed = ((f.idx, "land" if f.sector is None else "turn", False),)
        else:
            owed = ()
        if not s.rules.resign:
            return owed
        return owed + tuple((f.idx, "resign", False)
                            for f in s.fighters[:s.seats] if not f.eliminated)

    def validate(self, state: State, seat: int, action: Any) -> str | None:
        if state.ended:
            return "the game is over"
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            return "an action is an object with a type"
        if action["type"] == "resign" and state.rules.resign:
            if any(d.seat == seat for d in self.standing(state)):
                return None if dict(action) == dict(RESIGN) else "resign takes no options"
            return "you are no longer in the game"
        memo = self._pending_memo
        if memo[0] is state:  # the decisions are made (verify and self-play ask them first)
            decisions = memo[1]
        else:
            owed = self._owed(state, seat, action)
            if owed is NOT_OWED:
                return "it is not your turn to act"
            if owed is not None:
                return self._refusal(state, seat, owed[0], (owed[1],), action)
            decisions = self.pending(state)
        if len(decisions) == 1:  # one decision (every one but the card choice): its seat's?
            only = decisions[0]
            if only.seat != seat:
                return "it is not your turn to act"
            return self._refusal(state, seat, only.kind, (only.legal,), action)
        mine = [d for d in decisions if d.seat == seat]
        if not mine:
            return "it is not your turn to act"
        return self._refusal(state, seat, mine[0].kind, [d.legal for d in mine], action)

    @staticmethod
    def _owed(s: State, seat: int, action: Action) -> tuple[str, Any] | None:
        """For a state whose decisions are not made yet (a replay checks each recorded
        action once): the kind of the seat's decision, as ``_pending`` names it, and the
        answers it would list that ``action`` can equal (of a turn, those of the action's
        type alone; of a card choice, those of its two cards), without building the
        decisions; :data:`NOT_OWED` when the seat owes none; ``None`` for a frame of
        another kind (``pending`` then decides, as it always did)."""
        if s.stack:
            top = s.stack[-1]
            if isinstance(top, Attack):
                if window_owner(top) == seat:
                    return f"attack_{top.stage}", attack_legal(s, top)
                return NOT_OWED
            if top.kind not in FRAME_KINDS:
                return None
            return frame_legal(s, top) if top.owner == seat else NOT_OWED
        if s.phase == "choose":
            if seat in choosers(s) and s.fighters[seat].choice is None:
                return "choose_cards", choice_legal(s.fighters[seat].hand, action)
            return NOT_OWED
        if s.phase == "act" and s.current is not None:
            if s.current != seat:
                return NOT_OWED
            f = s.fighters[seat]
            kind = action["type"]
            if kind == "attack":
                # a declared attack can equal only the attacks with its weapon and target
                # (normalize keeps both; a missing one is None: checked against them all,
                # it equals none)
                return ("land" if f.sector is None else "turn"), \
                    turn_actions(s, seat, only=kind, weapon=action.get("weapon"),
                                 target=action.get("target"))
            return ("land" if f.sector is None else "turn"), turn_actions(s, seat, only=kind)
        return NOT_OWED

    def _refusal(self, state: State, seat: int, kind: str, lists: Any, action: Action) -> str | None:
        """``None`` if ``action`` is one of ``lists``' answers, as it is or in normal form,
        else why not (for the seat's first decision, of ``kind``)."""
        for legal in lists:
            if action in legal:  # listed as it is: its normal form is listed too
                return None
        wanted = normalize(action)
        for legal in lists:
            if any(normalize(a) == wanted for a in legal):
                return None
        return explain(state, seat, kind, wanted)

    # ---- acting --------------------------------------------------------------------------------

    def apply(self, state: State, seat: int, action: Any, rng: Randomness) -> Transition:
        w = Draft.after(state, rng)
        act = normalize(action)
        s = w.s
        if act["type"] == "resign":
            resign(w, seat)
        elif s.stack:
            self._answer_frame(w, seat, act)
        elif s.phase == "choose":
            f = s.fighters[seat]
            choice = choice_of(act)
            hand = tuple(c for c in f.hand if c not in (choice.top, choice.bottom))
            w.update(seat, choice=choice, hand=hand)
            if s.defaults:  # its drawn default (engine 6) is spent
                w.set(defaults=tuple(entry for entry in s.defaults if entry[0] != seat))
            w.emit("cards_chosen", {"fighter": seat})
            w.emit("cards_chosen_private", {"fighter": seat, **act}, frozenset({seat}))
        else:
            apply_turn(w, seat, act)
        advance(w)
        if _TRANSITION_BY_DICT:  # _transition(...), written out (one call less per answer)
            done = _NEW(Transition)
            _SET(done, "__dict__", {"state": w.finish(), "events": tuple(w.events)})
            return done  # type: ignore[no-any-return]
        return _transition(w.finish(), tuple(w.events))

    def _answer_frame(self, w: Draft, seat: int, act: Action) -> None:
        fr = w.s.stack[-1]
        if isinstance(fr, Attack):
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
        out = encode_state(state)
        if state.ruleset == "2":
            # Engine version 2 states hashed without the fields added since, and with the
            # attack frame's old key names.
            del out["ruleset"]
            for f in out["fighters"]:
                del f["resigned"]
            for fr in out["stack"]:
                if fr["kind"] == "attack":
                    fr["data"] = {LEGACY_ATTACK_KEYS.get(k, k): v for k, v in fr["data"].items()}
        return out

    def canonical_state(self, state: State) -> bytes:
        """``canonical_json(self.encode(state))``, faster (``encoding.canonical_state``)."""
        if state.ruleset == "2":
            return canonical_json(self.encode(state))
        return canonical_state(state)


ENGINES = {version: NeonEngine(r) for version, r in RULESETS.items()}
ENGINE = ENGINES[CURRENT.version]
