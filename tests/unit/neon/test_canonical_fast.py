"""``encoding.canonical_state`` writes the state's fields' bytes itself, in sorted-key order,
re-encoding only the fields, fighters and frames that are not the objects of the last state
of the same match: its bytes are those of the reference, RFC 8785 through
``canonical_json(encode(state))``, on every state of seeded games of every mode, on states
with odd values (which take the reference path), and when matches interleave."""

from __future__ import annotations

import dataclasses

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from services.platform.canonical import canonical_json
from services.rules.bots import RandomBot, make_bot
from services.rules.games.neon import encoding
from services.rules.games.neon.attack import AlliesWindow, Attack, new_attack
from services.rules.games.neon.encoding import canonical_state, encode
from services.rules.games.neon.engine import ENGINE
from services.rules.games.neon.state import CardChoice, Equip, Fighter, State, frame
from services.rules.games.windows import ResponseWindow
from services.rules.selfplay import setups

from .helpers import played

MODES = ("rebirth", "battle-royale", "coalition")


def _reference(state: State) -> bytes:
    return canonical_json(encode(state))


def _game(mode: str, plan: int, bot: str, seed: int):
    """The states of one seeded game, from the set-up to the end."""
    plans = setups(ENGINE, mode)
    setup = plans[plan % len(plans)]
    bots = [make_bot("rule", f"{seed}-{s}", "neon") if bot == "rule" else RandomBot(seed * 10 + s)
            for s in range(setup.seats)]
    return played(mode, setup, bots, f"canonical-fast:{mode}:{seed}")


def test_the_fields_are_those_encode_writes_in_sorted_order():
    state = next(_game("rebirth", 0, "rule", 0))
    # ``defaults`` (engine 6) only while it holds something, as at the first card choice
    assert state.defaults and encoding._OPTIONAL == ("defaults",)
    assert sorted([*encoding._NAMES, *encoding._OPTIONAL]) == sorted(encode(state))
    assert list(encoding._NAMES) == sorted(encode(dataclasses.replace(state, defaults=())))
    assert sorted([*encoding._NAMES, *encoding._OPTIONAL]) == \
        sorted(f.name for f in dataclasses.fields(State))
    assert list(encoding._F_NAMES) == sorted(encode(state)["fighters"][0])
    assert list(encoding._F_NAMES) == sorted(f.name for f in dataclasses.fields(Fighter))


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.sampled_from(MODES), st.integers(0, 5), st.sampled_from(["rule", "random"]),
       st.integers(0, 2**32))
def test_every_state_of_seeded_games_has_the_reference_bytes(mode, plan, bot, seed):
    steps = 0
    for state in _game(mode, plan, bot, seed):
        want = _reference(state)
        assert canonical_state(state) == want, (mode, plan, bot, seed, steps)
        steps += 1
    assert steps > 1
    assert want == rfc8785.dumps(encode(state))  # the reference is RFC 8785


def test_many_games_of_every_mode_step_by_step():
    seen = 0
    for mode in MODES:
        for n in range(4):
            for state in _game(mode, n, "rule" if n % 2 else "random", 100 + n):
                assert canonical_state(state) == _reference(state), (mode, n, seen)
                seen += 1
    assert seen > 1000


def test_matches_interleaved_step_by_step():
    """Two (then many more than the remembered 64) matches stepped in turn: each state's
    bytes are its own, whichever match was encoded just before."""
    games = [_game("rebirth", 0, "rule", 1), _game("coalition", 1, "random", 2)]
    both = 0
    while games:
        for game in list(games):
            state = next(game, None)
            if state is None:
                games.remove(game)
                continue
            assert canonical_state(state) == _reference(state)
            both += 1
    assert both > 100
    many = [_game(MODES[n % 3], n, "random", 300 + n) for n in range(70)]
    for _ in range(12):
        for game in many:
            state = next(game, None)
            if state is not None:
                assert canonical_state(state) == _reference(state)
    assert len(encoding._MATCHES) <= encoding._MATCH_LIMIT


def test_matches_encoded_in_two_threads_at_once():
    """The host rebuilds matches in worker threads while the event loop hashes others: two
    threads encoding their own matches at once, switching as often as the interpreter lets
    them, each get every state's own bytes. (The remembered record is one tuple replaced
    whole, and the most recent match one tuple rebound whole, so no thread reads one
    state's values with another's bytes; a record of another match found by a thread only
    decides how much is reused.)"""
    import sys
    import threading

    games = [list(_game(MODES[n % 3], n, "rule", 700 + n)) for n in range(4)]
    expected = [[_reference(state) for state in game] for game in games]
    wrong: list[tuple[int, int]] = []

    def encode_mine(parity: int) -> None:
        for _ in range(15):
            for g in range(parity, len(games), 2):
                for i, state in enumerate(games[g]):
                    if canonical_state(state) != expected[g][i]:
                        wrong.append((g, i))
                        return

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=encode_mine, args=(p,)) for p in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert sum(map(len, games)) > 200
    assert wrong == []


def test_a_state_met_again_after_later_states_of_its_match():
    states = list(_game("battle-royale", 0, "rule", 7))[:80]
    for state in states:
        canonical_state(state)
    for state in reversed(states):
        assert canonical_state(state) == _reference(state)
    for state in states[::7] + states[3::5]:
        assert canonical_state(state) == _reference(state)


class Str(str):
    pass


class Int(int):
    pass


class Row(tuple):
    pass


@dataclasses.dataclass(frozen=True)
class OddFighter(Fighter):
    pass


@dataclasses.dataclass(frozen=True)
class OddState(State):
    pass


@dataclasses.dataclass(frozen=True)
class OddEquip(Equip):
    pass


@dataclasses.dataclass(frozen=True)
class OddChoice(CardChoice):
    pass


def _odd_variants(state: State) -> list[State]:
    f = state.fighters[0]
    put = dataclasses.replace
    fighters = state.fighters[1:]
    return [
        put(state, round=1.5),
        put(state, serial=float(state.serial)),
        put(state, phase="ch\u00f6ose"),
        put(state, phase=Str(state.phase)),
        put(state, serial=Int(state.serial)),
        put(state, serial=2**70),
        put(state, cells=(*state.cells, 0.5)),
        put(state, ring=Row(state.ring)),
        put(state, teams=((1.0, 2),)),
        put(state, loot_decks=(("\u00e9p\u00e9e",), (), ())),
        put(state, fighters=(put(f, energy=2.5), *fighters)),
        put(state, fighters=(put(f, fighter="h\u00e9ro"), *fighters)),
        put(state, fighters=(put(f, hand=(*f.hand, float("nan"))), *fighters)),
        put(state, fighters=(put(f, health=((1.5,),)), *fighters)),
        put(state, fighters=(put(f, energy=Int(3)), *fighters)),
        put(state, fighters=(put(f, energy=2**70), *fighters)),
        put(state, fighters=(put(f, hand=list(f.hand)), *fighters)),
        put(state, fighters=(put(f, hand=Row(f.hand)), *fighters)),
        put(state, fighters=(put(f, deck=(*f.deck, ("a", "b"))), *fighters)),
        put(state, fighters=(put(f, health=tuple(list(r) for r in f.health)), *fighters)),
        put(state, fighters=(put(f, row=(("move", Str("attack")),)), *fighters)),
        put(state, fighters=(put(f, bots=(("x", 1.0),)), *fighters)),
        put(state, fighters=(put(f, upgrades=("\u00fc",)), *fighters)),
        put(state, fighters=(put(f, equipment=(Equip("a", ("b", 1.5)),)), *fighters)),
        put(state, fighters=(put(f, equipment=(Equip(1.5, ("b",)),)), *fighters)),
        put(state, fighters=(put(f, equipment=(Equip("\u00e9", ()),)), *fighters)),
        put(state, fighters=(put(f, equipment=(Equip("a", ["b"]),)), *fighters)),
        put(state, fighters=(put(f, equipment=(Equip("a", Row(("b",))),)), *fighters)),
        put(state, fighters=(put(f, equipment=(OddEquip("a", ("b",)),)), *fighters)),
        put(state, fighters=(put(f, equipment=[Equip("a", ("b",))]), *fighters)),
        put(state, fighters=(put(f, equipment=Row((Equip("a", ("b",)),))), *fighters)),
        put(state, fighters=(put(f, equipment=(Equip("a", ("b", 2**70)),)), *fighters)),
        put(state, fighters=(put(f, choice=CardChoice("a", "b", "left", 0.5, True)), *fighters)),
        put(state, fighters=(put(f, choice=CardChoice("a", Str("b"), "left", False, True)),
                             *fighters)),
        put(state, fighters=(put(f, choice=CardChoice("\u00e0", "b", "left", False, True)),
                             *fighters)),
        put(state, fighters=(put(f, choice=OddChoice("a", "b", "left", False, True)), *fighters)),
        put(state, acted_order=[0]),
        put(state, acted_order=(0, 1.5)),
        put(state, bots=[(1, "x")]),
        put(state, bots=((1, "x"), [2, "y"])),
        put(state, search=((1, 2**70),)),
        put(state, fighters=(OddFighter(**{k.name: getattr(f, k.name)
                                           for k in dataclasses.fields(Fighter)}), *fighters)),
        put(state, stack=(*state.stack, frame("keep", 0, cards=("a", 1.5)))),
        put(state, stack=(*state.stack, frame("keep", 0, cards=("\u00e9",)))),
        OddState(**{k.name: getattr(state, k.name) for k in dataclasses.fields(State)}),
    ]


def _as_the_reference(odd: State) -> bool:
    """``canonical_state(odd)`` gives the reference's bytes, or raises what the reference
    raises; True when there were bytes to compare."""
    try:
        want = _reference(odd)
    except Exception as refused:  # noqa: BLE001 - the same refusal is expected
        with pytest.raises(type(refused)):
            canonical_state(odd)
        return False
    assert canonical_state(odd) == want
    return True


@pytest.mark.parametrize("mode", MODES)
def test_odd_values_take_the_reference_path(mode):
    """Floats, NaN, non-ASCII text, subclasses of str, int, tuple, Fighter and State, ints
    beyond 64 bits, in a scalar field, a table tuple, a fighter or a stack frame: the bytes
    (or the refusal) of the reference path; the match's next ordinary state is still right."""
    states = list(_game(mode, 0, "random", 11))
    checked = 0
    for state in states[:: max(1, len(states) // 6)]:
        canonical_state(state)  # the match's last state remembered on the fast path
        for odd in _odd_variants(state):
            checked += _as_the_reference(odd)
        assert canonical_state(state) == _reference(state)
    assert checked > 20


@dataclasses.dataclass(frozen=True)
class OddAttack(Attack):
    pass


def _attack_variants(attack: Attack) -> list[Attack]:
    """An attack changed as the engine changes it (a new frame sharing the fields it keeps)
    and with odd values in each kind of field."""
    return [
        attack.but(stage="after", attack_roll=("hit", "crit")),
        attack.but(defender="f:1", defense_dice=2, defense_roll=("block",)),
        attack.but(blocks_assigned=True, full_blocks_on_crits=1),
        attack.but(allies=AlliesWindow("attack_prep", ResponseWindow((1, 2)))),
        attack.but(simultaneous_defense=(("bot:3", ("block", "blank")),)),
        attack.but(stage=Str("after")),
        attack.but(stage="\u00e4fter"),
        attack.but(weapon="\u00e9p\u00e9e"),
        attack.but(attack_dice=2.5),
        attack.but(attack_dice=Int(3)),
        attack.but(attack_dice=2**70),
        attack.but(attacker=Int(attack.attacker)),
        attack.but(attack_roll=("hit", 1.5)),
        attack.but(attack_roll=("hit", float("nan"))),
        attack.but(attack_roll=Row(("hit",))),
        attack.but(attack_roll=["hit"]),
        attack.but(attack_roll=("h\u00eft",)),
        attack.but(simultaneous_defense=(("bot:3", ("block", 0.5)),)),
        attack.but(simultaneous_defense=(("bot:3", ("bl\u00f6ck",)),)),
        attack.but(blocks_assigned=True, full_blocks_on_crits=1.5),
        attack.but(allies=AlliesWindow("attack_prep", ResponseWindow((1, 2.5)))),
        attack.but(allies=AlliesWindow("\u00e4ttack_prep", ResponseWindow((1, 2)))),
        OddAttack(**{k.name: getattr(attack, k.name) for k in dataclasses.fields(Attack)}),
    ]


@pytest.mark.parametrize("mode", MODES)
def test_odd_values_in_attack_frames_take_the_reference_path(mode):
    """An attack frame on top of the stack of states of a real game, then in its place the
    same attack changed, ordinarily or with a float, NaN, non-ASCII text, a subclass of str,
    int, tuple or Attack, a list, an int beyond 64 bits, in any kind of field: the bytes
    (or the refusal) of the reference path; the match's next ordinary state is still right."""
    states = list(_game(mode, 0, "random", 12))
    checked = 0
    for state in states[:: max(1, len(states) // 5)]:
        attack = new_attack(state.fighters[0].idx, "base", ("f:1", "bot:3"), 3)
        base = dataclasses.replace(state, stack=(*state.stack, attack))
        for changed in _attack_variants(attack):
            assert canonical_state(base) == _reference(base)  # remembered with the attack
            checked += _as_the_reference(dataclasses.replace(base, stack=(*state.stack, changed)))
        # an attack in place of a frame and a frame in place of an attack
        keep = frame("keep", 0, cards=("a",))
        for first, then in ((keep, attack), (attack, keep)):
            for stack in ((*state.stack, first), (*state.stack, then)):
                s = dataclasses.replace(state, stack=stack)
                assert canonical_state(s) == _reference(s)
                checked += 1
        assert canonical_state(state) == _reference(state)
    assert checked > 50


def test_the_first_and_last_fields_alone_changed_keep_the_object_closed():
    """The object's braces are in its first and last fields' bytes (the state's and each
    fighter's): a state whose last field in key order (``upgrade_deck``), a fighter's last
    (``used_upgrades``) or first (``acted``), or the state's first (``acted_order``) alone
    changed since the state encoded just before is still the reference's bytes."""
    assert encoding._NAMES[0] == "acted_order" and encoding._NAMES[-1] == "upgrade_deck"
    assert encoding._F_NAMES[0] == "acted" and encoding._F_NAMES[-1] == "used_upgrades"
    put = dataclasses.replace
    for state in list(_game("coalition", 1, "rule", 11))[::25]:
        f = state.fighters[0]
        rest = state.fighters[1:]
        for changed in (put(state, upgrade_deck=(*state.upgrade_deck, "x")),
                        put(state, acted_order=(*state.acted_order, 9)),
                        put(state, fighters=(put(f, used_upgrades=(*f.used_upgrades, "y")),
                                             *rest)),
                        put(state, fighters=(put(f, acted=not f.acted), *rest)),
                        put(state, upgrade_deck=(), acted_order=(),
                            fighters=(put(f, acted=not f.acted, used_upgrades=()), *rest))):
            assert canonical_state(state) == _reference(state)
            assert canonical_state(changed) == _reference(changed)
