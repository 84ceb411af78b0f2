"""Which cards may be played when Attacking and when Defending (How to Play, Defend, FAQ)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations, product
from typing import Any

from .cards import BLOCK, BUTTON, COMBO_BREAKER, COUNTERS, JOYSTICK, THROW, Hero
from .content import CARDS, card
from .resolution import button_damage, combos_after_counters
from .state import Defense, defense

MAX_ATTACK = 3
MAX_DEFEND = 2


def _card_list(value: Any) -> list[str] | None:
    if type(value) is list and _ONLY_STR.issuperset(map(type, value)):
        return value  # a list of exact strs (an action parsed from JSON), checked in C
    if not isinstance(value, list) or not all(isinstance(i, str) for i in value):
        return None
    return value


_ONLY_STR = frozenset({str})


def attack_problem(hand: Sequence[str], cards: Any) -> str | None:
    played = _card_list(cards)
    if played is None:
        return "cards must be a list of card ids"
    if not 1 <= len(played) <= MAX_ATTACK:
        return "an Attack plays 1 to 3 cards"
    if len(set(played)) != len(played):
        return "a card can only be played once"
    for card_id in played:
        if card_id not in hand:
            return f"{card_id} is not in your hand"
        if not _ATTACKS[card_id]:  # a card in hand is a card of the pack (KeyError as before)
            return f"{card_id} cannot be played when Attacking"
    return None


def attack_options(hand: Sequence[str]) -> list[tuple[str, ...]]:
    usable = sorted([i for i in hand if _ATTACKS[i]])
    return [combo for n in range(1, MAX_ATTACK + 1) for combo in combinations(usable, n)]


def first_attack(hand: Sequence[str]) -> str:
    """The first card of ``attack_options(hand)``'s first Attack (the lowest usable id);
    the hand holds a card that can Attack."""
    return min([i for i in hand if _ATTACKS[i]])


def can_attack(hand: Sequence[str]) -> bool:
    return any(map(_ATTACKS.__getitem__, hand))


_ATTACKS: dict[str, bool] = {card_id: c.usable_when_attacking for card_id, c in CARDS.items()}
"""Whether each card may be played when Attacking."""
_STICK_WITHOUT_DEFEND: dict[str, bool] = {
    card_id: c.kind == JOYSTICK and not c.defend_icon for card_id, c in CARDS.items()}
"""A Joystick without a Defend icon (it may not be played when Defending)."""


def _defends_with_buttons(fighter: Hero) -> bool:
    return fighter.ability.type == "defend_with_buttons"


def _cards_problem(hand: Sequence[str], fighter: Hero, played: list[str]) -> str | None:
    if not played:
        return "play at least one card, or pass"
    if len(set(played)) != len(played):
        return "a card can only be played once"
    for card_id in played:
        if card_id not in hand:
            return f"{card_id} is not in your hand"
        if _STICK_WITHOUT_DEFEND[card_id]:
            return f"{card_id} has no Defend icon"
    kinds = [KIND[i] for i in played]
    buttons, breakers = kinds.count(BUTTON), kinds.count(COMBO_BREAKER)
    if buttons > breakers and not _defends_with_buttons(fighter):
        return "a Button can only be played when Defending together with a Combo Breaker"
    if len(played) - min(buttons, breakers) > MAX_DEFEND:
        return ("you may play at most 2 cards when Defending "
                "(a Button played with a Combo Breaker does not count)")
    return None


def defense_problem(hand: Sequence[str], fighter: Hero, attack: Sequence[str],
                    cards: Any, targets: Any, strict: bool = True,
                    as_played: bool = False) -> str | None:
    """Why this defence is illegal, or ``None``. Counters that would have no effect are illegal.

    ``strict`` (engine 1.2.0): a Combo Breaker without a Button has no effect when another
    Combo Breaker of the same defence brings a Button, since that one already stops every
    Universal Combo. ``as_played`` (engine 1.5.0): the combos a Combo Breaker without a
    Button could stop are those the played cards met that the defence's Throws and Blocks
    leave (``combos_after_counters``).
    """
    played = _card_list(cards)
    if played is None:
        return "cards must be a list of card ids"
    aimed = _card_list([] if targets is None else targets)
    if aimed is None:
        return "targets must be a list of the Attacker's card ids"
    problem = _cards_problem(hand, fighter, played)
    if problem:
        return problem
    kind = KIND
    kinds = [kind[i] for i in played]
    if len(set(aimed)) != len(aimed) or any(t not in attack for t in aimed):
        return "each target must be a different one of the Attacker's played cards"
    aimed_kinds = [kind[t] for t in aimed]
    attack_kinds = [kind[i] for i in attack]
    if kinds.count(THROW) > attack_kinds.count(JOYSTICK):
        return "a Throw would have no effect: it needs a played Joystick to remove"
    if kinds.count(BLOCK) > attack_kinds.count(BUTTON):
        return "a Block would have no effect: it needs a played Button to remove"
    if aimed_kinds.count(JOYSTICK) != kinds.count(THROW):
        return "name one Joystick target for each Throw"
    if aimed_kinds.count(BUTTON) != kinds.count(BLOCK):
        return "name one Button target for each Block"
    paired = min(kinds.count(BUTTON), kinds.count(COMBO_BREAKER))
    idle = kinds.count(COMBO_BREAKER) - paired
    if idle > 1 or (idle == 1 and not combos_after_counters(attack, aimed, as_played)):
        return "a Combo Breaker would have no effect: no Universal Combo to stop and no Button"
    if strict and idle and paired:
        return ("a Combo Breaker would have no effect: the Combo Breaker that brings your "
                "Button already stops every Universal Combo")
    return None


def _eligible(hand: Sequence[str], fighter: Hero) -> list[str]:
    breakers = any(card(i).kind == COMBO_BREAKER for i in hand)
    buttons_ok = breakers or _defends_with_buttons(fighter)
    out = []
    for card_id in sorted(hand):
        c = card(card_id)
        if (c.kind in COUNTERS or (c.kind == JOYSTICK and c.defend_icon)
                or (c.kind == BUTTON and buttons_ok)):
            out.append(card_id)
    return out


KIND: dict[str, str] = {card_id: c.kind for card_id, c in CARDS.items()}
"""Each card's kind, read straight from a table (the legal lists ask for it constantly)."""
_DEFENDS: dict[str, bool] = {
    card_id: c.kind in COUNTERS or c.kind == BUTTON or (c.kind == JOYSTICK and c.defend_icon)
    for card_id, c in CARDS.items()}
"""May the card be among a defence's cards at all (a Button further needs a Combo Breaker
in hand or a Hero Ability)."""


def defense_options(hand: Sequence[str], fighter: Hero, attack: Sequence[str],
                    strict: bool = True, as_played: bool = False) -> list[dict[str, Any]]:
    """Every legal non-pass defence, with concrete card ids and targets, in a fixed order:
    by number of cards, then the cards' combinations of the sorted eligible hand, then
    the Throws' and the Blocks' targets in the order of the Attack.

    The same list as asking :func:`defense_problem` about every candidate, built without
    the questions whose answer the enumeration already fixes (cards from hand, each once,
    one target of the right kind per Throw and Block).
    """
    if len(set(hand)) != len(hand) or len(set(attack)) != len(attack):
        return _defense_options_asking(hand, fighter, attack, strict, as_played)
    kind = KIND
    with_buttons = _defends_with_buttons(fighter)
    buttons_ok = with_buttons or any([kind[i] == COMBO_BREAKER for i in hand])
    eligible = [i for i in sorted(hand) if _DEFENDS[i] and (buttons_ok or kind[i] != BUTTON)]
    sticks = [i for i in attack if kind[i] == JOYSTICK]
    buttons = [i for i in attack if kind[i] == BUTTON]
    aims: dict[tuple[int, int, int], list[tuple[str, ...]]] = {}
    out: list[dict[str, Any]] = []
    for picked, throws, blocks, idle in _shapes(tuple([kind[i] for i in eligible]),
                                                with_buttons, strict):
        targets = aims.get((throws, blocks, idle))
        if targets is None:
            targets = aims[throws, blocks, idle] = _aims(attack, sticks, buttons, throws,
                                                         blocks, idle, as_played)
        for aimed in targets:
            action: dict[str, Any] = {"type": "defend", "cards": [eligible[j] for j in picked]}
            if aimed:
                action["targets"] = list(aimed)
            out.append(action)
    return out


def _aims(attack: Sequence[str], sticks: list[str], buttons: list[str], throws: int,
          blocks: int, idle: int, as_played: bool = False) -> list[tuple[str, ...]]:
    """The targets of ``throws`` Throws and ``blocks`` Blocks, in order; with an idle
    Combo Breaker, only those that leave a Universal Combo for it to stop."""
    return [thrown + blocked
            for thrown, blocked in product(combinations(sticks, throws),
                                           combinations(buttons, blocks))
            if not idle or combos_after_counters(attack, thrown + blocked, as_played)]


@lru_cache(maxsize=4096)
def _shapes(kinds: tuple[str, ...], with_buttons: bool,
            strict: bool) -> tuple[tuple[tuple[int, ...], int, int, int], ...]:
    """Which sets of the eligible cards (by place; ``kinds`` are theirs, in order) make a
    legal defence, in order, each with its number of Throws, Blocks and idle Combo
    Breakers. Remembered by the kinds: hands sorted by id group their kinds the same way
    again and again."""
    out = []
    for n in range(1, MAX_DEFEND * 2 + 1):
        for picked in combinations(range(len(kinds)), n):
            pressed = breakers = throws = blocks = 0
            for j in picked:
                k = kinds[j]
                if k == BUTTON:
                    pressed += 1
                elif k == COMBO_BREAKER:
                    breakers += 1
                elif k == THROW:
                    throws += 1
                elif k == BLOCK:
                    blocks += 1
            if pressed > breakers and not with_buttons:
                continue
            paired = min(pressed, breakers)
            idle = breakers - paired
            if n - paired > MAX_DEFEND or idle > 1 or (strict and idle and paired):
                continue
            out.append((picked, throws, blocks, idle))
    return tuple(out)


def _defense_options_asking(hand: Sequence[str], fighter: Hero, attack: Sequence[str],
                            strict: bool = True,
                            as_played: bool = False) -> list[dict[str, Any]]:
    """:func:`defense_options` by asking :func:`defense_problem` about every candidate
    (kept for hands or attacks that repeat a card id, which no deck deals)."""
    eligible = _eligible(hand, fighter)
    sticks = [i for i in attack if card(i).kind == JOYSTICK]
    buttons = [i for i in attack if card(i).kind == BUTTON]
    out: list[dict[str, Any]] = []
    for n in range(1, MAX_DEFEND * 2 + 1):
        for played in combinations(eligible, n):
            if _cards_problem(hand, fighter, list(played)):
                continue
            kinds = [card(i).kind for i in played]
            throws, blocks = kinds.count(THROW), kinds.count(BLOCK)
            for thrown, blocked in product(combinations(sticks, throws),
                                           combinations(buttons, blocks)):
                aimed = list(thrown + blocked)
                if defense_problem(hand, fighter, attack, list(played), aimed, strict,
                                   as_played) is None:
                    action: dict[str, Any] = {"type": "defend", "cards": list(played)}
                    if aimed:
                        action["targets"] = aimed
                    out.append(action)
    return out


def build_defense(fighter: Hero, cards: Sequence[str], targets: Sequence[str]) -> Defense:
    """Sort a legal defence into resolution steps.

    The Buttons played with Combo Breakers are the strongest ones (ties by id); any
    further Buttons (a Hero Ability allowing it) resolve in Step 3.
    """
    kind = KIND
    kinds = [kind[i] for i in cards]
    buttons = [i for i in cards if kind[i] == BUTTON]
    if len(buttons) > 1:
        buttons.sort(key=lambda i: (-button_damage(fighter, card(i)), i))
    free = min(len(buttons), kinds.count(COMBO_BREAKER))
    return defense(tuple(cards), tuple(targets), kinds.count(THROW), kinds.count(BLOCK),
                   kinds.count(COMBO_BREAKER), tuple(buttons[:free]),
                   tuple([i for i in cards if kind[i] == JOYSTICK]), tuple(buttons[free:]))


def known_card(card_id: Any) -> bool:
    return isinstance(card_id, str) and card_id in CARDS
