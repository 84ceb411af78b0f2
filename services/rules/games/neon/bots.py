"""A rule-based NEON bot: it plays from what a client sees (its seat's view and the decision).

It prefers progress: it attacks whenever it can (fighters before bots, the most dice first),
lays out the cards it finds, moves toward the nearest opponent, spends energy on dice, and
defends with what it has. Ties are broken by its own seeded randomness, so a bot built with the
same seed answers the same view and decision the same way.

Hidden decisions (RULES.md, "Bots on hidden decisions"): the rules host hands a timed-out seat
to this bot, every answer it gives is recorded, and the cards of a hidden answer show later (a
card choice at the reveal, a tuck by its symbols). An answer that follows from the seat's
hidden cards by a fixed rule would let the table work those cards out from what it sees, so the
bot draws these answers with its seeded randomness (the host keys the seed with the match's
secret state key): the two cards it lays are any pair of its hand, the better pairs likelier
(``choose_row``), and a card it could lay out as equipment is sometimes tucked as a supply
instead (``place``), so a tuck does not say the card could not be laid out.
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import is_, itemgetter
from typing import Any

from services.platform.draws import SeededRandomness
from services.rules.bots import weighted
from services.rules.games.contract import Decision
from services.rules.games.neon.cards import action_row, choice_of, pair_choices

Action = Mapping[str, Any]
HALF_VALUE = {"attack": 4, "move": 2, "search": 2, "defense": 1, "energy1": 1, "energy2": 2,
              "leadership": 1}
TURN_ORDER = ("attack", "search", "move", "defense", "gain_energy", "leadership", "pass")


class RuleBot:
    name = "rule"

    def __init__(self, seed: int | str = 0) -> None:
        self.rng = SeededRandomness(f"neon-rule-bot:{seed}")

    def pick(self, options: list[Action]) -> Action:
        return options[self.rng.randbelow(len(options))] if len(options) > 1 else options[0]

    def best(self, legal: tuple[Action, ...], score: Any) -> Action:
        """A random one of the best scored answers (ties in the order listed)."""
        return self.pick(_best_picks(legal, score))

    def choose_row(self, legal: tuple[Action, ...]) -> Action:
        """The hidden card choice: a pair of the hand drawn with the seeded randomness, the
        better pairs likelier (``row_pairs``, ``PAIR_WEIGHTS``), then the best way to lay
        that pair (ties drawn).
        Always the best pair would tell the table, once the cards are revealed, that the
        card left in hand makes no better row with either of them; any pair can be laid, so
        the pair shown names nothing of the card kept. How the pair is laid follows from the
        pair alone, which the reveal shows anyway."""
        pairs = row_pairs(legal)
        ways = weighted(self.rng, [ways for ways, _ in pairs], [weight for _, weight in pairs])
        return self.pick(ways)

    def choose(self, view: Mapping[str, Any], decision: Decision) -> Action:
        legal = decision.legal
        kind = decision.kind
        me = view["fighters"][decision.seat]
        if kind == "choose_cards":
            return self.choose_row(legal) if HIDDEN_DRAWN else self.best(legal, row_value)
        if kind == "land":
            return self.best(legal, lambda a: crowd(view, decision.seat, a["sector"]))
        if kind == "turn":
            return self.turn(view, decision.seat, legal)
        if kind.startswith("attack_"):
            return self.attack_window(me, kind, legal)
        if kind == "keep_loot":
            return self.pick(list(legal))
        if kind == "place_loot":
            return self.place(legal) if HIDDEN_DRAWN else self.best(legal, _laid_out_first)
        if kind == "trophy_equipment":
            return self.best(legal, lambda a: len(a["cards"]))
        if kind == "evacuate":
            return self.best(legal, lambda a: (bool(a["manoeuvre_c"]),
                                               crowd(view, decision.seat, a["sector"])))
        return self.pick(list(legal))

    def place(self, legal: tuple[Action, ...]) -> Action:
        """The hidden laying out of a loot card: as equipment where it can (in a free place
        before covering one), else tucked as a supply, else discarded; but a card it could
        lay out is tucked instead one time in ``TUCK_ANYWAY`` when it can be tucked, drawn
        with the seeded randomness, so a tuck (whose symbols the table sees) does not say
        that the card could not be laid out."""
        tucks = [a for a in legal if a["as"] == "supply"]
        if tucks and any(a["as"] == "equipment" for a in legal) \
                and self.rng.randbelow(TUCK_ANYWAY) == 0:
            return self.pick(tucks)
        return self.best(legal, _laid_out_first)

    def turn(self, view: Mapping[str, Any], seat: int, legal: tuple[Action, ...]) -> Action:
        attacks = [a for a in legal if a["type"] == "attack"]
        if attacks:
            return self.best(tuple(attacks), lambda a: (a["target"].startswith("f:"),
                                                        a["weapon"] != "base"))
        moves = [a for a in legal if a["type"] == "move"]
        if moves:
            return self.best(tuple(moves), lambda a: crowd(view, seat, a["sector"]))
        rank = {t: n for n, t in enumerate(TURN_ORDER)}
        row = [a for a in legal if a["type"] != "ability"] or list(legal)
        return min(row, key=lambda a: rank.get(a["type"], len(rank)))

    def attack_window(self, me: Mapping[str, Any], kind: str,
                      legal: tuple[Action, ...]) -> Action:
        go_on = [a for a in legal if a["type"] in ("roll", "done")]
        if kind in ("attack_blocks", "attack_worn"):
            return legal[0]
        if kind == "attack_dodge":
            return self.pick([a for a in legal if a["type"] == "dodge"] or go_on)
        useful = [a for a in legal if a["type"] in ("boost", "effect")
                  and (me["energy"] >= 2 or str(a.get("effect", "")).startswith("equip:"))
                  and a.get("pay") != "card"]
        if useful:
            return self.pick(useful)
        return go_on[0] if go_on else legal[0]


def row_pairs(legal: tuple[Action, ...]) -> list[tuple[list[Action], int]]:
    """The pairs of cards a hidden card choice can lay, each as (its best ways to lay it,
    its weight): ``PAIR_WEIGHTS`` by how many pairs make a better row (of three pairs worth
    three amounts, 3, 2 and 1; pairs worth the same weigh the same). Found once per list: the
    engine lists a hand's choices with the same answer objects every time
    (``pair_choices``), so the list's answers, by identity, name it (the entry keeps the
    list, so no identity in its key is reused while it lasts; answers are read, never
    changed)."""
    key = tuple(map(id, legal))
    hit = _ROW_PAIRS.get(key)
    if hit is None:
        by_pair = _by_pair(legal)
        best = []
        worth = []
        for ways in by_pair.values():
            ways_best, ways_worth = _pair_best(ways)
            best.append(ways_best)
            worth.append(ways_worth)
        last = len(PAIR_WEIGHTS) - 1
        pairs = [(ways, PAIR_WEIGHTS[min(sum(1 for w in worth if w > mine), last)])
                 for ways, mine in zip(best, worth, strict=True)]
        if len(_ROW_PAIRS) >= 4096:
            _ROW_PAIRS.clear()
        hit = _ROW_PAIRS[key] = (legal, pairs)
    return hit[1]


def _by_pair(legal: tuple[Action, ...]) -> dict[frozenset[str], list[Action]]:
    """The answers of ``legal`` grouped by their pair of cards, each group in the order
    listed, the groups in the order of their first answer. A card choice's list is made
    of blocks of 8, each the ways to lay one card over another (``cards.choice_actions``:
    ``pair_choices``' very answers): read a block at a time, checked by identity; any
    other list answer by answer."""
    by_pair: dict[frozenset[str], list[Action]] = {}
    if len(legal) % _BLOCK == 0:
        for at in range(0, len(legal), _BLOCK):
            first = legal[at]
            block = pair_choices(first["top"], first["bottom"])
            if len(block) != _BLOCK or not all(map(is_, block, legal[at:at + _BLOCK])):
                break
            by_pair.setdefault(frozenset((first["top"], first["bottom"])), []).extend(block)
        else:
            return by_pair
        by_pair = {}
    for a, pair in zip(legal, map(frozenset, map(_TOP_BOTTOM, legal)), strict=True):
        by_pair.setdefault(pair, []).append(a)
    return by_pair


_BLOCK = 8
"""The ways to lay one card over another (``cards.pair_choices``)."""


def _pair_best(ways: list[Action]) -> tuple[list[Action], int]:
    """``(_best_picks(tuple(ways), row_value), row_value of the first)``: the best ways to lay
    one pair of cards and their worth. Found once per list of ways, by the answers'
    identities (the engine lists a pair's ways with the same answer objects every time,
    ``cards.pair_choices``, whatever the rest of the hand: hands change every round, the
    pairs in them far less); the entry keeps ``ways``, so no identity in its key is reused
    while it lasts (answers are read, never changed)."""
    key = tuple(map(id, ways))
    hit = _PAIR_BEST.get(key)
    if hit is None:
        best = _best_picks(tuple(ways), row_value)
        if len(_PAIR_BEST) >= 4096:
            _PAIR_BEST.clear()
        hit = _PAIR_BEST[key] = (ways, best, row_value(best[0]))
    return hit[1], hit[2]


_PAIR_BEST: dict[tuple[int, ...], tuple[list[Action], list[Action], int]] = {}
"""``_pair_best`` of each list of ways met, by its answers' identities."""
_TOP_BOTTOM = itemgetter("top", "bottom")


def row_value(action: Action) -> int:
    key = (action["top"], action["bottom"], action["cover"], bool(action["top_rotated"]),
           bool(action["bottom_rotated"]))
    value = _ROW_VALUES.get(key)
    if value is None:
        row = action_row(choice_of(action))
        value = _ROW_VALUES[key] = sum(max(HALF_VALUE.get(option, 0) for option in half)
                                       for half in row)
    return value


_ROW_VALUES: dict[tuple[str, str, str, bool, bool], int] = {}
"""A row's worth by the choice that lays it out: the content pack's cards are fixed, so the
worth of (top, bottom, cover, rotations) never changes (at most 48 per hand of 3 cards)."""
_ROW_PAIRS: dict[tuple[int, ...], tuple[tuple[Action, ...], list[tuple[list[Action], int]]]] = {}
"""The pairs of each choice list met, by its answers' identities (``row_pairs``)."""
PAIR_WEIGHTS = (3, 2, 1)
"""The weight of a pair of cards in a hidden card choice, by how many pairs of the hand make a
better row (none: the first; pairs worth the same weigh the same)."""
TUCK_ANYWAY = 3
HIDDEN_DRAWN = True
"""False: the bot of before December 2026, whose hidden answers followed from its cards (the
best pair, laid out whenever it could). Only ``bench/bench_selfplay.py`` sets it, so that
today's tree plays the same games as its baseline tree; never a served bot."""


def _laid_out_first(a: Action) -> int:
    """A loot card laid out as equipment (in a free place first), else tucked, else discarded."""
    return {"equipment": 3 if "on" not in a else 2, "supply": 1}.get(a["as"], 0)
"""A loot card the bot could lay out as equipment is tucked as a supply instead one time in
this many, when it can be tucked (``RuleBot.place``)."""


def _best_picks(legal: tuple[Action, ...], score: Any) -> list[Action]:
    """The best scored answers, in the order listed (``RuleBot.best``)."""
    if not legal:
        raise ValueError("max() arg is an empty sequence")
    top: Any = None
    picks: list[Action] = []
    for a in legal:
        value = score(a)
        if not picks or value > top:
            top, picks = value, [a]
        elif value == top:
            picks.append(a)
    return picks


def crowd(view: Mapping[str, Any], seat: int, sector: int) -> tuple[int, int]:
    """How close ``sector`` is to the opponents: (opponents there or next door, bot there)."""
    ring = [s["sector"] for s in view["ring"]]
    if sector not in ring:
        return (0, 0)
    i = ring.index(sector)
    near = {ring[(i + d) % len(ring)] for d in (-1, 0, 1)}
    me = view["fighters"][seat]
    foes = sum(1 for f in view["fighters"]
               if f["fighter"] != seat and f["sector"] in near and not f["eliminated"]
               and (view["mode"] != "coalition" or f["team"] != me["team"]))
    bot = next((1 for s in view["ring"] if s["sector"] == sector and s["bot"]), 0)
    return (foes, bot)


