"""Action cards: choosing and overlapping two cards, the action row, initiative, turn order."""

from __future__ import annotations

import functools
from itertools import permutations
from typing import Any

from services.rules.games.neon.content import ACTION_CARDS
from services.rules.games.neon.state import CardChoice, Draft, State

Half = tuple[str, ...]


def halves(card_id: str, rotated: bool) -> tuple[Half, Half]:
    """(left, right) halves as seen on the table; a 180-degree turn swaps them."""
    left, right = ACTION_CARDS[card_id].halves
    return (right, left) if rotated else (left, right)


def initiative(card_id: str, rotated: bool) -> int:
    return ACTION_CARDS[card_id].initiative[1 if rotated else 0]


def action_row(choice: CardChoice) -> tuple[Half, Half, Half]:
    """The three visible halves, left to right.

    The top card covering the bottom card's left half sits to its left (top-left, top-right,
    bottom-right); covering the right half it sits to its right (bottom-left, top-left,
    top-right).
    """
    top_l, top_r = halves(choice.top, choice.top_rotated)
    bottom_l, bottom_r = halves(choice.bottom, choice.bottom_rotated)
    if choice.cover == "left":
        return top_l, top_r, bottom_r
    return bottom_l, top_l, top_r


@functools.lru_cache(maxsize=1024)
def choice_actions(hand: tuple[str, ...]) -> tuple[dict[str, Any], ...]:
    """Pick 2 of 3 x which on top x which half covered x rotations: at most 48 answers.

    Kept by hand (a tuple of card ids): a hand's answers are listed when its default is
    drawn (``flow.draw_choice_defaults``) and again when the choice is asked
    (``engine.choose_decision``), and legal answers are read, never changed."""
    out: list[dict[str, Any]] = []
    for top, bottom in permutations(hand, 2):
        out += pair_choices(top, bottom)
    return tuple(out)


@functools.lru_cache(maxsize=4096)
def pair_choices(top: str, bottom: str) -> tuple[dict[str, Any], ...]:
    """The 8 ways to lay ``top`` over ``bottom`` (legal answers are read, never changed, so
    the same dicts serve every hand holding both cards)."""
    return tuple({"type": "choose_cards", "top": top, "bottom": bottom, "cover": cover,
                  "top_rotated": top_rot, "bottom_rotated": bottom_rot}
                 for cover in ("left", "right") for top_rot in (False, True)
                 for bottom_rot in (False, True))


def choice_of(action: Any) -> CardChoice:
    return CardChoice(action["top"], action["bottom"], action["cover"],
                      bool(action["top_rotated"]), bool(action["bottom_rotated"]))


def clockwise_from_leader(s: State, idx: int) -> int:
    leader = s.leader if s.leader is not None else 0
    return (idx - leader) % s.seats


def turn_key(s: State, idx: int) -> tuple[int, int]:
    """Lower initiative first; ties to the leader, then clockwise from the leader."""
    return s.fighters[idx].initiative, clockwise_from_leader(s, idx)


def next_actor(s: State) -> int | None:
    waiting = [f.idx for f in s.fighters
               if f.fighter != "automa" and not f.eliminated and not f.acted and f.row]
    return min(waiting, key=lambda i: turn_key(s, i)) if waiting else None


def round_order(s: State) -> tuple[int, ...]:
    """Who has acted, then who will act as things stand, the Automa last."""
    rest = sorted((f.idx for f in s.fighters if f.fighter != "automa" and not f.acted and f.row),
                  key=lambda i: turn_key(s, i))
    automa = [f.idx for f in s.fighters if f.fighter == "automa" and f.idx not in s.acted_order]
    return tuple(s.acted_order) + tuple(rest) + tuple(automa)


def choosers(s: State) -> tuple[int, ...]:
    return tuple(f.idx for f in s.fighters if f.fighter != "automa" and not f.eliminated and f.hand)


def reveal(w: Draft) -> None:
    """Turn the chosen cards face up; Defense halves put shield tokens on at once."""
    shown = []
    for idx in choosers(w.s):
        f = w.f(idx)
        if f.choice is None:
            continue
        row = action_row(f.choice)
        shields = min(2, sum(1 for half in row if "defense" in half))
        init = initiative(f.choice.top, f.choice.top_rotated)
        w.update(idx, row=row, initiative=init, shields=shields, step=0)
        shown.append({"fighter": idx, "top": f.choice.top, "bottom": f.choice.bottom,
                      "cover": f.choice.cover, "top_rotated": f.choice.top_rotated,
                      "bottom_rotated": f.choice.bottom_rotated, "initiative": init,
                      "row": [list(h) for h in row], "shields": shields})
    w.emit("cards_revealed", {"rows": shown})


def draw_cards(w: Draft, idx: int, n: int) -> None:
    """Draw from the action deck, shuffling the discard pile into a new deck when it runs out."""
    f = w.f(idx)
    hand, deck, discard = f.hand, f.deck, f.discard
    drawn: list[str] = []
    for _ in range(n):
        if not deck and discard:
            deck, discard = tuple(w.rng.shuffle(discard)), ()
            w.emit("deck_reshuffled", {"fighter": idx, "size": len(deck)})
        if not deck:
            break
        drawn.append(deck[0])
        deck = deck[1:]
    w.update(idx, hand=hand + tuple(drawn), deck=deck, discard=discard)
    if drawn:
        w.emit("cards_drawn", {"fighter": idx, "count": len(drawn)})
        w.emit("cards_drawn_private", {"fighter": idx, "cards": drawn}, frozenset({idx}))


def discard_played(w: Draft, idx: int) -> None:
    f = w.f(idx)
    if f.choice is not None:
        w.update(idx, discard=f.discard + (f.choice.top, f.choice.bottom), choice=None)
