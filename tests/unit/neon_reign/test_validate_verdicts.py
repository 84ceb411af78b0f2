"""``validate``'s plain-dict fast path (field sets built once, a list of exact strs checked
in C) gives the verdict of the code before it on every action: legal and illegal, with
extra or missing fields, fields of the wrong type, str and dict subclasses, Mappings that
are no dict, things that are no Mapping, in every phase and from every seat."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Mapping
from types import MappingProxyType

import orjson

from services.platform.draws import SeededRandomness
from services.rules.bots import make_bot
from services.rules.games.contract import MatchConfig
from services.rules.games.neon_reign import ENGINE, engine, legality, turns
from services.rules.games.neon_reign.content import hero
from services.rules.games.neon_reign.state import OVER, PICK, SHIELDS, TURN
from services.rules.selfplay import setups


def _old_card_list(value):
    if not isinstance(value, list) or not all(isinstance(i, str) for i in value):
        return None
    return value


def _old_extra_keys(action, allowed):
    if action.keys() <= allowed:
        return None
    return f"unexpected field {sorted(set(action) - allowed)[0]!r}"


def _old_pick(state, seat, action):
    if action["type"] != "pick_hero":
        return "both players first pick their starting hero"
    if not 0 <= seat < len(state.picks):
        return "no such seat"
    if state.picks[seat]:
        return "you already picked your starting hero"
    if action.get("hero") not in state.sides[seat].bench:
        return "pick one of your two heroes"
    return _old_extra_keys(action, {"type", "hero"})


def _old_shields(state, seat, action):
    ask = state.resolving.ask if state.resolving else None
    if ask is None or seat != ask.side:
        return "damage is about to hit the other player: wait for their Shield decision"
    if action["type"] != "shields":
        return "say how many Shields you spend against the damage about to hit you"
    spend = action.get("spend")
    if not isinstance(spend, int) or isinstance(spend, bool) or not 0 <= spend <= ask.most:
        return f"spend must be a whole number from 0 to {ask.most}"
    return _old_extra_keys(action, {"type", "spend"})


def _old_validate(self, state, seat, action):
    """``NeonReignEngine.validate`` as it was before the fast path (set literals per call,
    an ABC check for every action, ``_card_list`` in Python)."""
    last = self._pending_memo
    if last[0] is state:
        for decision in last[1]:
            if decision.seat == seat:
                for listed in decision.legal:
                    if listed is action:
                        return None
    if state.phase == OVER:
        return "the match is over"
    if not isinstance(action, Mapping) or not isinstance(action.get("type"), str):
        return "an action is an object with a type"
    kind = action["type"]
    if kind == "resign":
        if not isinstance(seat, int) or not 0 <= seat < engine._seats(state):
            return "no such seat"
        return _old_extra_keys(action, {"type"})
    if state.phase == PICK:
        return _old_pick(state, seat, action)
    if state.phase == SHIELDS:
        return _old_shields(state, seat, action)
    if state.phase == TURN:
        if seat != state.active:
            return "it is not your turn"
        if kind == "recover":
            if not turns.may_recover(state, state.sides[seat]):
                return "Recover would draw no card while you can Attack: Attack instead"
            return _old_extra_keys(action, {"type"})
        if kind != "attack":
            return "on your turn you Attack or Recover"
        return _old_extra_keys(action, {"type", "cards"}) or legality.attack_problem(
            state.sides[seat].hand, action.get("cards"))
    if seat != 1 - state.active:
        return "only the defender may answer an Attack"
    if kind == "pass":
        return _old_extra_keys(action, {"type"})
    if kind != "defend":
        return "answer the Attack with defend or pass"
    side = state.sides[seat]
    return _old_extra_keys(action, {"type", "cards", "targets"}) or legality.defense_problem(
        side.hand, hero(side.hero), state.in_play, action.get("cards"),
        action.get("targets"), state.rules.strict_combo_breaker)


def _verdict(call, *args):
    try:
        return ("verdict", call(*args))
    except Exception as error:  # noqa: BLE001 - the same error either way is the verdict
        return ("raises", type(error), str(error))


class _Str(str):
    pass


class _Dict(dict):
    pass


def _games():
    for mode in ("single", "best-of-three", "hero-match", "solo"):
        for seed in range(3):
            rng = SeededRandomness(f"verdicts:{mode}:{seed}")
            plan = setups(ENGINE, mode)[seed % len(setups(ENGINE, mode))]
            state = ENGINE.setup(MatchConfig(mode, plan.seats, dict(plan.options)), rng)
            bots = [make_bot("rule", f"v-{seed}-{s}", "neon-reign") for s in range(plan.seats)]
            for _ in range(400):
                pending = ENGINE.pending(state)
                yield state, pending
                if not pending:
                    break
                decision = pending[0]
                action = bots[decision.seat].choose(decision, ENGINE.view(state, decision.seat))
                state = ENGINE.apply(state, decision.seat, action, rng).state


def _variants(state, pending):
    """Actions to ask about in ``state``: the legal ones (as listed and parsed from JSON)
    and many illegal or malformed ones."""
    listed = [a for d in pending for a in d.legal]
    yield from listed
    plain = [orjson.loads(orjson.dumps(a)) for a in listed[:12]]
    yield from plain
    hand = list(state.sides[0].hand) + list(state.sides[1].hand)
    some = hand[:3]
    kinds = ("resign", "recover", "attack", "pass", "defend", "pick_hero", "shields", "x")
    for kind in kinds:
        yield {"type": kind}
        yield {"type": kind, "extra": 1}
        yield {"type": kind, "cards": some}
        yield {"type": kind, "cards": some[:1], "targets": list(state.in_play)[:1]}
        yield {"type": kind, "hero": (state.sides[0].bench or ("nobody",))[0]}
        yield {"type": kind, "spend": 0}
        yield {"type": _Str(kind)}
        yield _Dict({"type": kind})
        yield MappingProxyType({"type": kind, "cards": some})
    for a in plain[:6]:
        b = copy.deepcopy(a)
        if "cards" in b:
            yield {**b, "cards": tuple(b["cards"])}
            yield {**b, "cards": [*b["cards"], b["cards"][0]]}
            yield {**b, "cards": [_Str(c) for c in b["cards"]]}
            yield {**b, "cards": [*b["cards"], 3]}
            yield {**b, "cards": []}
            yield {**b, "cards": "abc"}
            yield {**b, "cards": None}
            yield {**b, "cards": [*b["cards"], "no-such-card"]}
            yield {**b, "cards": [*b["cards"], *hand[:2]]}
            yield {**b, "targets": [*b.get("targets", []), "no-such-card"]}
            yield {**b, "targets": tuple(b.get("targets", []))}
            yield {**b, "targets": [_Str(t) for t in b.get("targets", [])]}
            yield {**b, "targets": list(state.in_play)}
        if "spend" in b:
            for spend in (-1, 99, True, 1.0, "1", None, _Str("1")):
                yield {**b, "spend": spend}
        if "hero" in b:
            yield {**b, "hero": _Str(b["hero"])}
            yield {**b, "hero": None}
            yield {**b, "hero": ["x"]}
        b.pop("type", None)
        yield b
        yield {**b, "type": 1}
        yield _Dict(b, type=a["type"])
    yield from (None, 3, "attack", ["attack"], {}, {"type": None}, {1: 2})
    defend = [{"type": "defend", "cards": list(c), "targets": list(t)}
              for c in itertools.combinations(hand[:6], 2)
              for t in ([], list(state.in_play)[:1], list(state.in_play)[:2])]
    yield from defend
    yield from ({"type": "attack", "cards": list(c)}
                for n in (1, 2, 3, 4) for c in itertools.combinations(hand[:5], n))


def test_validate_gives_the_verdicts_of_the_code_before(monkeypatch):
    asked = 0
    seen = set()
    for state, pending in _games():
        seats = (0, 1, 2, -1, True, None)
        for action in _variants(state, pending):
            for seat in seats:
                with monkeypatch.context() as patch:
                    patch.setattr(legality, "_card_list", _old_card_list)
                    want = _verdict(_old_validate, ENGINE, state, seat, action)
                got = _verdict(ENGINE.validate, state, seat, action)
                assert got == want, (state.phase, seat, action)
                asked += 1
                seen.add(want[:2] if want[0] == "raises" else (want[1] is None))
    assert asked > 50_000
    assert {True, False} <= seen  # legal and illegal verdicts both met
