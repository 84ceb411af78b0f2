"""Shortcuts of the attack's steps give what the general steps give, on states of seeded
games of every mode (rule and random bots)."""

from __future__ import annotations

from services.platform.draws import SeededRandomness
from services.rules.bots import RandomBot, make_bot
from services.rules.games.contract import MatchConfig
from services.rules.games.neon.cards import round_order
from services.rules.games.neon.combat import opponents, target_order
from services.rules.games.neon.engine import ENGINE
from services.rules.selfplay import setups

MODES = ("rebirth", "battle-royale", "coalition")


def _states():
    for mode in MODES:
        plans = setups(ENGINE, mode)
        for n in range(4):
            setup = plans[n % len(plans)]
            rng = SeededRandomness(f"combat-shortcuts:{mode}:{n}")
            state = ENGINE.setup(MatchConfig(mode, setup.seats, dict(setup.options)), rng)
            bots = [make_bot("rule", f"{n}-{s}", "neon") if n % 2 else RandomBot(n * 10 + s)
                    for s in range(setup.seats)]
            while pending := ENGINE.pending(state):
                yield state
                decision = pending[0]
                action = bots[decision.seat].choose(decision, ENGINE.view(state, decision.seat))
                state = ENGINE.apply(state, decision.seat, action, rng).state


def _in_turn_order(s, targets):
    """``target_order`` without its one-target shortcut."""
    order = {idx: n for n, idx in enumerate(round_order(s))}
    fighters = sorted((t for t in targets if t.startswith("f:")),
                      key=lambda t: order.get(int(t[2:]), 99))
    return tuple(fighters) + tuple(t for t in targets if t.startswith("bot:"))


def test_a_single_target_is_its_own_order_and_several_keep_the_turn_order():
    checked = 0
    for s in _states():
        for f in s.fighters:
            foes = tuple(t for t, _ in opponents(s, f.idx))
            for t in foes:
                assert target_order(s, (t,)) == _in_turn_order(s, (t,)) == (t,)
                checked += 1
            assert target_order(s, foes) == _in_turn_order(s, foes)
            assert target_order(s, foes[::-1]) == _in_turn_order(s, foes[::-1])
    assert checked > 1000
