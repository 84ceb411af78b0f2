"""``validate`` checks a turn's answer against the answers of its type alone
(``turn_actions(..., only=type)``; a declared attack against the attacks with its weapon and
target alone), and an attack window's answer against the window's
list, when the decisions are not made yet: the same answers, in the same order, as the
whole list filtered by type, and the same verdict and reason as the check against the
pending decisions, on every turn and attack window of seeded games of every mode and
ruleset, for the seat that owes the answer and for another one.

The default run plays one seeded game of each ruleset and mode (the seat counts taken in
turn); ``-m slow`` (or NEON_SLOW=1) plays the first three seat counts of each."""

from __future__ import annotations

import pytest

from services.platform.draws import SeededRandomness
from services.rules.bots import make_bot
from services.rules.games.contract import MatchConfig
from services.rules.games.neon.engine import ENGINES
from services.rules.games.neon.turns import turn_actions
from services.rules.selfplay import as_client_json, setups

TYPES = ("land", "move", "attack", "search", "defense", "gain_energy", "leadership", "ability",
         "pass", "resign", "choose_cards", "roll", "done", "boost", "effect", "reroll",
         "assign_blocks", "dodge")


def _variants(legal: list[dict]) -> list[dict]:
    """Each legal answer, and answers near them that may not be legal."""
    out = [dict(a) for a in legal]
    for a in legal:
        if "sector" in a:
            out.append({**a, "sector": (a["sector"] + 1) % 12})
        if "target" in a:
            out += [{**a, "target": "f:0"}, {**a, "target": "bot:3"}, {**a, "pull": True}]
        if "weapon" in a:
            out.append({**a, "weapon": "howitzer"})
        if "amount" in a:
            out.append({**a, "amount": a["amount"] + 1})
    return out + [{"type": t} for t in TYPES] + [{"type": "attack", "weapon": "base",
                                                  "target": "f:9"}]


def _verdict(engine, state, seat, action, listed: bool, other):
    # ``listed``: the turn's whole list is made (pending remembers this state), else not
    engine.pending(state if listed else other)
    assert (engine._pending_memo[0] is state) is listed
    return engine.validate(state, seat, action)


def _check(games: list[tuple[str, str, int]]) -> tuple[int, int]:
    """Every turn and attack window of the games (ruleset, mode, seat count's index) checked:
    the turns and the windows seen."""
    turns = windows = 0
    for version, mode, n in games:
        engine = ENGINES[version]
        setup = setups(engine, mode)[n]
        rng = SeededRandomness(f"turn-check:{version}:{mode}:{n}")
        state = first = engine.setup(MatchConfig(mode, setup.seats, setup.options), rng)
        bots = [make_bot("rule", f"{n}-{s}", "neon") for s in range(setup.seats)]
        while pending := engine.pending(state):
            decision = pending[0]
            seat = decision.seat
            if decision.kind in ("turn", "land"):
                turns += 1
                whole = turn_actions(state, seat)
                for t in TYPES:
                    assert turn_actions(state, seat, only=t) == \
                        [a for a in whole if a["type"] == t], (version, mode, t)
                attacks = [a for a in whole if a["type"] == "attack"]
                weapons = {a["weapon"] for a in attacks} | {"base", "howitzer", ""}
                targets = {a["target"] for a in attacks} | {"f:0", "bot:3", "sector:2"}
                for weapon in (*weapons, None):
                    for target in (*targets, None):
                        assert turn_actions(state, seat, only="attack", weapon=weapon,
                                            target=target) == \
                            [a for a in attacks if weapon in (None, a["weapon"]) and
                             target in (None, a["target"])], (version, mode)
            if decision.kind in ("turn", "land") or decision.kind.startswith("attack_"):
                windows += decision.kind.startswith("attack_")
                for who in (seat, (seat + 1) % setup.seats):
                    for action in _variants(list(decision.legal)):
                        assert _verdict(engine, state, who, action, False, first) == \
                            _verdict(engine, state, who, action, True, first), action
            view = as_client_json(engine.view(state, decision.seat))
            action = bots[decision.seat].choose(decision, view)
            state = engine.apply(state, decision.seat, action, rng).state
    return turns, windows


MODES = ("rebirth", "battle-royale", "coalition")


def test_a_turn_or_attack_window_checked_directly_is_checked_as_against_pending():
    """One game of each ruleset and mode, the first three seat counts taken in turn."""
    games = [(version, mode, (i + j) % 3) for i, version in enumerate(ENGINES)
             for j, mode in enumerate(MODES)]
    assert {n for _, _, n in games} == {0, 1, 2}
    turns, windows = _check(games)
    assert turns > 300 and windows > 300, (turns, windows)


@pytest.mark.slow
def test_every_turn_and_attack_window_of_three_games_of_each_ruleset_and_mode():
    """The long run (-m slow): the first three seat counts of each ruleset and mode."""
    turns, windows = _check([(version, mode, n) for version in ENGINES for mode in MODES
                             for n in range(3)])
    assert turns > 300 and windows > 300
