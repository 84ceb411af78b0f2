"""Games between rule-based bots: every mode ends by one of the rulebook's own endings."""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any

import pytest

from services.platform.draws import SeededRandomness
from services.rules.games.contract import MatchConfig
from services.rules.games.neon import BOTS, ENGINE
from services.rules.games.neon.state import State
from tests.unit.neon.test_fuzz import check_invariants, check_no_leak

RULEBOOK_ENDINGS = {
    "rebirth": {"the last round has been played", "one fighter remains on the arena",
                "no fighters remain on the arena"},
    "coalition": {"the last round has been played", "one team remains on the arena",
                  "no fighters remain on the arena"},
    "battle-royale": {"one fighter remains on the arena", "no fighters remain on the arena"},
}
SETUPS = [("rebirth", 2, {}), ("rebirth", 4, {}),
          ("battle-royale", 3, {}), ("battle-royale", 4, {}), ("battle-royale", 5, {}),
          ("battle-royale", 6, {}),
          ("coalition", 4, {}), ("coalition", 6, {"teams": 2}), ("coalition", 6, {"teams": 3})]
GAMES = int(os.environ.get("NEON_BOT_GAMES", "50"))  # per mode, shared by its set-ups


def per_setup(mode: str, games: int) -> int:
    return -(-games // sum(1 for m, _, _ in SETUPS if m == mode))


def play(mode: str, seats: int, options: dict, seed: int, leaks: bool = False) -> tuple[State, int]:
    rng = SeededRandomness(f"bots-{mode}-{seats}-{seed}")
    state = ENGINE.setup(MatchConfig(mode, seats, options), rng)
    bots = [BOTS["rule"](f"{seed}-{seat}") for seat in range(seats)]
    actions = 0
    while ENGINE.outcome(state) is None:
        decision = ENGINE.pending(state)[0]
        action = bots[decision.seat].choose(ENGINE.view(state, decision.seat), decision)
        assert ENGINE.validate(state, decision.seat, action) is None, (decision.kind, action)
        transition = ENGINE.apply(state, decision.seat, action, rng)
        state = transition.state
        actions += 1
        if leaks:
            check_invariants(state)
            check_no_leak(state, transition.events)
        assert actions < 20_000, "the game did not end"
    return state, actions


def run(mode: str, seats: int, options: dict, games: int) -> tuple[Counter, list[int]]:
    endings: Counter = Counter()
    lengths = []
    for seed in range(games):
        state, actions = play(mode, seats, options, seed, leaks=seed == 0)
        assert state.ended in RULEBOOK_ENDINGS[mode], state.ended
        endings[state.ended] += 1
        lengths.append(actions)
    return endings, lengths


@pytest.mark.parametrize(("mode", "seats", "options"), SETUPS)
def test_rule_bots_finish_every_mode_by_a_rulebook_ending(mode, seats, options) -> None:
    endings, lengths = run(mode, seats, options, per_setup(mode, GAMES))
    print(f"{mode} {seats} {options}: {dict(endings)}; actions "
          f"min {min(lengths)} mean {sum(lengths) // len(lengths)} max {max(lengths)}")


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "seats", "options"), SETUPS)
def test_a_thousand_rule_bot_games_per_mode(mode, seats, options) -> None:
    endings, lengths = run(mode, seats, options, per_setup(mode, 1000))
    print(f"{mode} {seats}: {dict(endings)}; mean {sum(lengths) // len(lengths)} actions")


def test_the_bot_is_deterministic_given_its_seed() -> None:
    a, n = play("rebirth", 3, {}, 7)
    b, m = play("rebirth", 3, {}, 7)
    assert n == m and ENGINE.encode(a) == ENGINE.encode(b)


# ---- hidden decisions (RULES.md, "Bots on hidden decisions") ----------------------------------

SEEDS = 300


def _card_choice(hand: tuple[str, ...]) -> tuple[Any, Any]:
    """A real view of a rebirth table and fighter 0's hidden card choice of ``hand``."""
    from services.rules.games.contract import Decision
    from services.rules.games.neon.cards import choice_actions

    state = ENGINE.setup(MatchConfig("rebirth", 3, {}), SeededRandomness("hidden-bot"))
    legal = choice_actions(hand)
    return ENGINE.view(state, 0), Decision(0, "choose_cards", legal, hidden=True, default=legal[0])


def _pairs_laid(hand: tuple[str, ...]) -> Counter:
    view, decision = _card_choice(hand)
    laid: Counter = Counter()
    for seed in range(SEEDS):
        action = BOTS["rule"](f"pair-{seed}").choose(view, decision)
        assert action in decision.legal
        laid[frozenset((action["top"], action["bottom"]))] += 1
    return laid


def test_a_bot_lays_any_pair_of_its_hand_the_better_ones_likelier() -> None:
    """Always the best pair would tell the table, at the reveal, that the card left in hand
    makes no better row: over seeds every pair of the hand is laid (each legal), the best
    most often, so the pair shown names nothing of the card kept."""
    from services.rules.games.neon.bots import row_pairs, row_value

    hand = ("ronin-1", "ronin-5", "ronin-7")
    view, decision = _card_choice(hand)
    worth = {frozenset((w[0]["top"], w[0]["bottom"])): row_value(w[0])
             for w, _ in row_pairs(decision.legal)}
    assert len(set(worth.values())) > 1  # the pairs are not worth the same: a best one exists
    laid = _pairs_laid(hand)
    assert set(laid) == set(worth)
    best = max(worth, key=lambda p: worth[p])
    assert laid.most_common(1)[0][0] == best
    assert laid[best] < SEEDS * 0.7


def test_the_pair_a_bot_lays_does_not_name_the_card_it_keeps() -> None:
    """Hands that share two cards and differ in the third: the shared pair is laid from each
    of them, so seeing it laid leaves every third card possible."""
    shared = ("ronin-1", "ronin-5")
    for third in ("ronin-2", "ronin-3", "ronin-6", "ronin-7"):
        assert _pairs_laid((*shared, third))[frozenset(shared)] > 0, third


def test_a_bot_answers_a_hidden_choice_the_same_way_for_a_seed() -> None:
    view, decision = _card_choice(("ronin-1", "ronin-5", "ronin-7"))
    assert BOTS["rule"]("s").choose(view, decision) == BOTS["rule"]("s").choose(view, decision)
    assert len({json.dumps(BOTS["rule"](f"s{n}").choose(view, decision), sort_keys=True)
                for n in range(40)}) > 2


def test_a_bot_sometimes_tucks_a_card_it_could_lay_out() -> None:
    """A tuck shows only its symbols; a bot that lays a card out whenever it can would tell,
    with every tuck, that the card could not be laid out. Over seeds a card that can go
    either way is laid out mostly and tucked some of the time, each answer legal."""
    from services.rules.games.contract import Decision
    from services.rules.games.neon.bots import TUCK_ANYWAY
    from services.rules.games.neon.loot import place_actions
    from tests.unit.neon.helpers import equip, new_game, set_fighter

    state = set_fighter(new_game("rebirth", 3, ["ronin", "glyba", "snake"]), 0,
                        equipment=equip("stinger-1"))
    legal = place_actions(state, state.fighters[0], "scrap-rifle-1")
    assert {a["as"] for a in legal} == {"equipment", "supply", "discard"}
    decision = Decision(0, "place_loot", legal, hidden=True, default=legal[-1])
    view = ENGINE.view(state, 0)
    ways: Counter = Counter()
    for seed in range(SEEDS):
        action = BOTS["rule"](f"place-{seed}").choose(view, decision)
        assert action in legal
        ways[action["as"]] += 1
    assert ways["discard"] == 0
    assert ways["equipment"] > ways["supply"] > 0
    assert abs(ways["supply"] - SEEDS / TUCK_ANYWAY) < SEEDS / TUCK_ANYWAY / 2


def _row_pairs_before(legal: tuple[Any, ...]) -> list[tuple[list[Any], int]]:
    """``bots.row_pairs`` as it was before its caches per pair (issue 18): the reference."""
    from services.rules.games.neon.bots import PAIR_WEIGHTS, _best_picks, row_value

    by_pair: dict[frozenset[str], list[Any]] = {}
    for a in legal:
        by_pair.setdefault(frozenset((a["top"], a["bottom"])), []).append(a)
    best = [_best_picks(tuple(ways), row_value) for ways in by_pair.values()]
    worth = [row_value(ways[0]) for ways in best]
    last = len(PAIR_WEIGHTS) - 1
    return [(ways, PAIR_WEIGHTS[min(sum(1 for w in worth if w > mine), last)])
            for ways, mine in zip(best, worth, strict=True)]


def test_row_pairs_equals_the_reference_on_every_kind_of_list() -> None:
    """The pairs a card choice is drawn from, found a block of 8 answers at a time and
    remembered per pair, are those of the answer-by-answer reference, answer for answer
    (the same objects, in the same order, with the same weights): on hands of every
    fighter (shared pairs in different hands, a card twice), and on lists that are not a
    hand's blocks (reordered, cut, copies of the answers), which take the general path."""
    import random

    from services.rules.games.neon.bots import row_pairs
    from services.rules.games.neon.cards import choice_actions
    from services.rules.games.neon.content import FIGHTERS, fighter_cards

    draw = random.Random(18)
    lists = []
    for fighter in sorted(FIGHTERS):
        cards = fighter_cards(fighter)
        if len(cards) < 3:
            continue
        for _ in range(12):
            hand = tuple(draw.sample(cards, 3))
            lists.append(choice_actions(hand))
            lists.append(choice_actions(hand[::-1]))
            lists.append(choice_actions(hand[:2]))
        lists.append(choice_actions((cards[0], cards[0], cards[1])))  # a card twice
        legal = list(choice_actions(tuple(draw.sample(cards, 3))))
        draw.shuffle(legal)
        lists.append(tuple(legal))
        lists.append(tuple(legal[:13]))
        lists.append(tuple(dict(a) for a in choice_actions(tuple(draw.sample(cards, 3)))))
    assert len(lists) > 100
    for legal in lists:
        for _ in range(2):  # found, then remembered
            got = row_pairs(legal)
            want = _row_pairs_before(legal)
            assert [(list(map(id, ways)), weight) for ways, weight in got] == \
                [(list(map(id, ways)), weight) for ways, weight in want]
