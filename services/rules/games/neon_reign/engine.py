"""The Neon Reign engine: the contract's entry points over the rules modules."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Any

from services.rules.games.contract import (
    RESIGN,
    Action,
    Decision,
    GameEngine,
    MatchConfig,
    ModeInfo,
    Outcome,
    Randomness,
    RemembersPending,
    Transition,
)
from services.rules.games.frozen import transition

from . import schemas, turns, views
from .canon import canonical_state
from .cards import Hero
from .content import hero
from .legality import (
    attack_options,
    attack_problem,
    can_attack,
    defense_options,
    defense_problem,
    first_attack,
)
from .modes import BEST_OF_THREE, HERO_MATCH, MODES, SOLO, start
from .rulesets import CURRENT, RULESETS, Ruleset
from .state import DEFEND, OVER, PICK, SHIELDS, TURN, Side, State, encode_state, to_json

ENGINE_VERSION = CURRENT.version
_RECOVER: dict[str, Any] = {"type": "recover"}
_PASS = {"type": "pass"}
# The decisions' fixed fields; each pending decision is one of these with its seat and lists.
_TURN = Decision(0, "turn", (_RECOVER,), "Attack with 1-3 cards, or Recover", default=_RECOVER)
_DEFEND = Decision(1, "defend", (_PASS,), "Defend with up to 2 cards, or pass", optional=True,
                   default=_PASS)


class _LegalWhenRead:
    """``Owed.legal``: a non-data descriptor, so a list already in the instance's dict (the
    one built at the first read, or one given to ``Decision.__init__`` by
    ``dataclasses.replace``) is read as any field is, without it."""

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        attrs = obj.__dict__
        make, args = attrs["_legal_from"]
        return attrs.setdefault("legal", make(*args))  # a racing first read: the first kept


class Owed(Decision):
    """A turn or defend decision whose ``legal`` tuple is built the first time it is read.

    Its fields are those of the :class:`Decision` it stands for, and it equals that
    decision; ``legal`` is made from what ``_legal_from`` holds (a function of the state's
    immutable parts) and then kept, so every read gives the same tuple. Verify asks
    ``pending`` about every state for the decision's seat, kind and hidden flag only, and
    building every Attack and defence there was most of its cost; a bot or the host that
    reads the list gets the same list as before, in the same order."""

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Decision):  # the plain decision it stands for, or another
            return _fields_of(self) == _fields_of(other)
        return NotImplemented

    __hash__ = Decision.__hash__
    legal = _LegalWhenRead()  # type: ignore[assignment]


_FIELD_NAMES = tuple(f.name for f in fields(Decision))


def _fields_of(decision: Decision) -> tuple[Any, ...]:
    return tuple([getattr(decision, name) for name in _FIELD_NAMES])


def _owed(fields_of: dict[str, Any], seat: int, default: Action, make: Any,
          args: tuple[Any, ...]) -> Owed:
    """The decision of ``fields_of`` (a template's fields but ``legal``) for ``seat`` with
    ``default``, its legal tuple ``make(*args)`` when first read."""
    new = _NEW(Owed)
    attrs = dict(fields_of)
    attrs["seat"] = seat
    attrs["default"] = default
    attrs["_legal_from"] = (make, args)
    _SET(new, "__dict__", attrs)
    return new


_NEW = object.__new__
_SET = object.__setattr__
_TURN_FIELDS_OF = {name: value for name, value in vars(_TURN).items() if name != "legal"}
_DEFEND_FIELDS_OF = {name: value for name, value in vars(_DEFEND).items() if name != "legal"}


def _turn_legal(hand: tuple[str, ...], recover: bool, default: Action) -> tuple[Action, ...]:
    """A turn's legal actions: every Attack (1-3 usable cards, in the order of
    ``attack_options``), then Recover if it is legal. A default Attack is the first one."""
    legal: list[Action] = [{"type": "attack", "cards": [*c]} for c in attack_options(hand)]
    if default is not _RECOVER:
        legal[0] = default  # the same action: {"type": "attack", "cards": [first_attack]}
    if recover:
        legal.append(_RECOVER)
    return tuple(legal)


def _defend_legal(hand: tuple[str, ...], fighter: Hero, attack: tuple[str, ...], strict: bool,
                  as_played: bool) -> tuple[Action, ...]:
    """A defend decision's legal actions: pass, then every defence."""
    return (_PASS, *defense_options(hand, fighter, attack, strict, as_played))


class NeonReignEngine(RemembersPending):
    """The engine of one ruleset (the current one unless :meth:`for_version` chose another)."""

    game_id = "neon-reign"
    title = "Neon Reign"
    contract_version = 2
    json_views = True
    """Views hold JSON values only (dicts with string keys, lists, strings, integers,
    booleans, ``None``), each call its own: equal type for type to what a client reads
    back from their JSON, so self-play gives them to the bots without a round trip
    (tests/unit/neon_reign/test_views_json.py)."""

    def __init__(self, rules: Ruleset = CURRENT) -> None:
        self.rules = rules
        self.engine_version = rules.version
        self.content_version = rules.content

    def for_version(self, engine_version: str) -> GameEngine:
        """The engine that replays matches made with ``engine_version``; ``KeyError`` if none."""
        if engine_version == self.engine_version:
            return self
        if engine_version not in RULESETS:
            raise KeyError(f"neon-reign engine {engine_version!r} is not kept; "
                           f"replayable versions: {', '.join(RULESETS)}")
        return NeonReignEngine(RULESETS[engine_version])

    def match_options(self, mode: str, seats: int,
                      teams: Sequence[Sequence[int]] | None = None) -> Mapping[str, Any]:
        """No mode needs options to be played: every option has a default."""
        return {}

    def modes(self) -> Mapping[str, ModeInfo]:
        return dict(MODES)

    def config_schema(self) -> Any:
        return schemas.config_schema()

    def action_schema(self) -> Any:
        return schemas.action_schema()

    def setup(self, config: MatchConfig, rng: Randomness) -> State:
        return self.start(config, rng).state

    def start(self, config: MatchConfig, rng: Randomness) -> Transition:
        """The set-up with its events (the contract's optional ``start``; the rules host
        records them in MatchStarted): each side's hero(es), the game started and its first
        player, and per seat its starting hand (that seat only) and its count (public).
        ``setup`` is this state, from the same draws in the same order."""
        state, events = start(config, rng, self.rules)
        return Transition(state, events)

    # -- who acts now -----------------------------------------------------------------------
    def _pending(self, state: State) -> tuple[Decision, ...]:
        if state.phase == OVER:
            return ()
        if state.phase == PICK:
            return tuple(
                Decision(seat, "pick_hero",
                         tuple({"type": "pick_hero", "hero": h} for h in sorted(side.bench)),
                         "pick your starting hero in secret", hidden=True,
                         default={"type": "pick_hero", "hero": _pick_default(state, side)})
                for seat, side in enumerate(state.sides) if not state.picks[seat])
        if state.phase == TURN:
            return (self._turn(state),)
        if state.phase == SHIELDS:
            return (self._shields(state),)
        defender = 1 - state.active
        side = state.sides[defender]
        rules = state.rules
        return (_owed(_DEFEND_FIELDS_OF, defender, _PASS, _defend_legal,
                      (side.hand, hero(side.hero), state.in_play, rules.strict_combo_breaker,
                       rules.combos_as_played)),)

    @staticmethod
    def _turn(state: State) -> Decision:
        side = state.sides[state.active]
        hand = side.hand
        recover = turns.may_recover(state, side)
        # The clock's answer: a Recover that draws (or the only way to end the turn), else
        # the first one-card Attack (the first legal action), so a timed-out seat still
        # moves the game on. Without a Recover, some card in hand can Attack.
        if recover and (turns.recover_draws(side) or not can_attack(hand)):
            default = _RECOVER
        else:
            default = {"type": "attack", "cards": [first_attack(hand)]}
        return _owed(_TURN_FIELDS_OF, state.active, default, _turn_legal, (hand, recover, default))

    @staticmethod
    def _shields(state: State) -> Decision:
        assert state.resolving is not None and state.resolving.ask is not None
        ask = state.resolving.ask
        legal = tuple({"type": "shields", "spend": n} for n in range(ask.most, -1, -1))
        return Decision(ask.side, "shields", legal,
                        f"{ask.amount} damage ({ask.source}) is about to hit you: how many "
                        f"Shields do you spend (each prevents 1)?", default=legal[0])

    def decision_labels(self, state: State) -> tuple[tuple[int, str, bool], ...]:
        """The contract's optional labels: ``(seat, kind, hidden)`` of :meth:`pending` then
        of :meth:`standing`, in that order, read off the phase without making a decision
        (a turn's default alone looks through the hand; verify's decision check asks every
        state, and its ``validate`` of a parsed action never reads the pending it left).
        tests/unit/test_decision_labels.py compares them with ``pending`` and ``standing``
        on every state of self-play of every kept ruleset."""
        phase = state.phase
        if phase == OVER:
            return ()
        if phase == PICK:
            owed: tuple[tuple[int, str, bool], ...] = tuple(
                (seat, "pick_hero", True) for seat in range(len(state.sides))
                if not state.picks[seat])
        elif phase == TURN:
            owed = ((state.active, "turn", False),)
        elif phase == SHIELDS:
            resolving = state.resolving
            if resolving is None or resolving.ask is None:  # never made so: as pending fails
                return tuple((d.seat, d.kind, bool(d.hidden))
                             for d in (*self.pending(state), *self.standing(state)))
            owed = ((resolving.ask.side, "shields", False),)
        else:
            owed = ((1 - state.active, "defend", False),)
        return owed + _RESIGN_LABELS[_seats(state)]

    def standing(self, state: State) -> tuple[Decision, ...]:
        """Resigning, open to every seat while the match runs."""
        if state.phase == OVER:
            return ()
        return tuple(Decision(seat, "resign", (dict(RESIGN),), "resign the match",
                              standing=True) for seat in range(_seats(state)))

    def validate(self, state: State, seat: int, action: Action) -> str | None:
        last = self._pending_memo
        if last[0] is state:
            # The very action object listed for this seat (a bot's answer) is legal.
            for decision in last[1]:
                if decision.seat == seat:
                    # only a list already built (an Owed's is built when first read)
                    for listed in vars(decision).get("legal", ()):
                        if listed is action:
                            return None
        phase = state.phase
        if phase == OVER:
            return "the match is over"
        # an action parsed from JSON is a dict: no ABC check for it
        kind = action.get("type") if type(action) is dict or isinstance(action, Mapping) else None
        if not isinstance(kind, str):
            return "an action is an object with a type"
        if kind == "resign":
            if not isinstance(seat, int) or not 0 <= seat < _seats(state):
                return "no such seat"
            return _extra_keys(action, _ONLY_TYPE)
        if phase == PICK:
            return self._validate_pick(state, seat, action)
        if phase == SHIELDS:
            return _validate_shields(state, seat, action)
        if phase == TURN:
            if seat != state.active:
                return "it is not your turn"
            if kind == "recover":
                if not turns.may_recover(state, state.sides[seat]):
                    return "Recover would draw no card while you can Attack: Attack instead"
                return _extra_keys(action, _ONLY_TYPE)
            if kind != "attack":
                return "on your turn you Attack or Recover"
            return _extra_keys(action, _ATTACK_FIELDS) or attack_problem(
                state.sides[seat].hand, action.get("cards"))
        if seat != 1 - state.active:
            return "only the defender may answer an Attack"
        if kind == "pass":
            return _extra_keys(action, _ONLY_TYPE)
        if kind != "defend":
            return "answer the Attack with defend or pass"
        side = state.sides[seat]
        return _extra_keys(action, _DEFEND_FIELDS) or defense_problem(
            side.hand, hero(side.hero), state.in_play, action.get("cards"),
            action.get("targets"), state.rules.strict_combo_breaker,
            state.rules.combos_as_played)

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
        return _extra_keys(action, _PICK_FIELDS)

    def apply(self, state: State, seat: int, action: Action, rng: Randomness) -> Transition:
        kind = action["type"]
        if kind == "resign":
            new, events = turns.resign(state, seat)
        elif kind == "shields":
            new, events = turns.spend_shields(state, int(action["spend"]), rng)
        elif kind == "pick_hero":
            new, events = turns.pick_hero(state, seat, str(action["hero"]))
        elif kind == "attack":
            new, events = turns.attack(state, tuple(action["cards"]), rng)
        elif kind == "recover":
            new, events = turns.recover(state, rng)
        else:
            new, events = turns.defend(state, seat, dict(action), rng)
        return transition(new, events)  # Transition(new, events), its dict set at once

    # -- what is known ----------------------------------------------------------------------
    def view(self, state: State, viewer: int | None) -> Any:
        return views.view(state, viewer)

    def encode(self, state: State) -> Any:
        return encode_state(state)

    def canonical_state(self, state: State) -> bytes:
        """``canonical_json(self.encode(state))``, faster (``canon.canonical_state``)."""
        return canonical_state(state)

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != OVER:
            return None
        seats = _seats(state)
        draw = state.winner is None
        if state.mode == SOLO:
            placements: tuple[int, ...] = (1 if draw or state.winner == 0 else 2,)
        else:
            placements = tuple(1 if draw or s == state.winner else 2 for s in range(seats))
        return Outcome(placements, _scores(state, seats), state.reason, draw=draw,
                       breakdown=_breakdown(state))


def _pick_default(state: State, side: Side) -> str:
    """The hero a clock picks for a seat that runs out of time in a Hero Match's secret pick.

    A timeout is public (the clock), so the default must not follow from public knowledge:
    from 1.4.0 it is one of the seat's heroes chosen by a hash of its starting hand (as a
    set), which only the seat sees. 1.1.0-1.3.0: the first hero as dealt, the first the
    public ``heroes`` option lists when the heroes were chosen."""
    if not state.rules.secret_pick_default:
        return side.bench[0]
    heroes = sorted(side.bench)
    digest = hashlib.sha256(",".join(sorted(side.hand)).encode()).digest()
    return heroes[digest[0] % len(heroes)]


def _seats(state: State) -> int:
    return 1 if state.mode == SOLO else 2


_RESIGN_LABELS = {seats: tuple((seat, "resign", False) for seat in range(seats))
                  for seats in (1, 2)}
"""The labels of :meth:`NeonReignEngine.standing` by seat count (``_seats``)."""


def _validate_shields(state: State, seat: int, action: Action) -> str | None:
    ask = state.resolving.ask if state.resolving else None
    if ask is None or seat != ask.side:
        return "damage is about to hit the other player: wait for their Shield decision"
    if action["type"] != "shields":
        return "say how many Shields you spend against the damage about to hit you"
    spend = action.get("spend")
    if not isinstance(spend, int) or isinstance(spend, bool) or not 0 <= spend <= ask.most:
        return f"spend must be a whole number from 0 to {ask.most}"
    return _extra_keys(action, _SHIELDS_FIELDS)


# The fields each kind of action may have, built once (not a set per call).
_ONLY_TYPE = frozenset({"type"})
_ATTACK_FIELDS = frozenset({"type", "cards"})
_DEFEND_FIELDS = frozenset({"type", "cards", "targets"})
_PICK_FIELDS = frozenset({"type", "hero"})
_SHIELDS_FIELDS = frozenset({"type", "spend"})


def _extra_keys(action: Action, allowed: frozenset[str]) -> str | None:
    if action.keys() <= allowed:  # the usual answer, without building the difference
        return None
    return f"unexpected field {sorted(set(action) - allowed)[0]!r}"


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
