"""The Computer/Solo deck: Computer Offense (flip, Attack section) and Defense (Defend section)."""

from __future__ import annotations

from services.rules.games.frozen import replace

from .cards import BUTTON, JOYSTICK
from .content import COMPUTER_CARDS, card
from .resolution import Defense
from .state import Side

DEFEND_FLIPS = {"training": 1, "normal": 1, "hard": 2}


def flip(side: Side, count: int) -> tuple[Side, tuple[str, ...]]:
    """Flip up to ``count`` top cards face up onto the Computer's discard pile."""
    flipped = side.deck[:count]
    return replace(side, deck=side.deck[len(flipped):], discard=side.discard + flipped), flipped


def offense(side: Side) -> tuple[Side, tuple[str, ...], str]:
    """The Computer attacks: the top card's Attack section becomes its played cards."""
    side, flipped = flip(side, 1)
    return side, tuple(v.id for v in COMPUTER_CARDS[flipped[0]].attack), flipped[0]


def defense(side: Side, attack: tuple[str, ...],
            flips: int) -> tuple[Side, Defense, tuple[str, ...]]:
    """The Computer defends with the Defend sections of ``flips`` flipped cards.

    A Throw removes the first played Joystick not yet removed; a Block removes the
    highest-damage Button (earliest played on ties). Counters with nothing to remove do
    nothing (the Computer cannot choose not to flip).
    """
    side, flipped = flip(side, flips)
    total: dict[str, int] = {}
    for cpu_id in flipped:  # every count is positive (the content schema): a plain sum
        for name, amount in COMPUTER_CARDS[cpu_id].defend:
            total[name] = total.get(name, 0) + amount
    sticks = [i for i in attack if card(i).kind == JOYSTICK]
    buttons = sorted((i for i in attack if card(i).kind == BUTTON),
                     key=lambda i: (-card(i).damage, attack.index(i)))
    thrown = tuple(sticks[: total.get("throw", 0)])
    blocked = tuple(buttons[: total.get("block", 0)])
    answer = Defense(
        targets=thrown + blocked,
        throws=len(thrown),
        blocks=len(blocked),
        combo_breakers=min(1, total.get("combo_breaker", 0)),
        early_damage=total.get("damage", 0),
        gains=tuple(sorted((k, total[k]) for k in ("stars", "shields", "heal") if total.get(k))),
    )
    return side, answer, flipped
