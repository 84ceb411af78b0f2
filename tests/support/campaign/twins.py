"""Twin-state probes: what a viewer receives must not depend on what it may not see.

``twin(game, state, keep, rng, seen)`` is another state that differs from ``state`` only in
what ``keep`` may not see (``keep`` is a seat, or ``None`` for a spectator; ``seen`` holds
every string ``keep`` could see in a state of the game so far, its own zones and the
public ones):

- every deck's order, and each other seat's hand shuffled together with its own deck (same
  sizes; a deck's cards stay with their owner, so the twin is a table the rules could have
  dealt);
- NEON: another fighter's face-down card choice (the two chosen cards go back into the pool
  of its hand and deck, and two cards of that pool are laid, in one of the 8 ways the
  choice allows), the default drawn for another fighter's card choice (engine 6) redrawn
  from its new hand, and the cards of another fighter's private loot or upgrade frame (keep,
  place, upgrade), each swapped with a card of the same loot class from its deck (the
  upgrade deck for upgrades): how many, and of which class, stays as public as it was; a
  keep's drawn default (engine 6) redrawn among its new cards;
- Neon Knights: 2086: the implants ``keep`` never saw, moved among the other seats' draft
  packets and implant hands (same sizes: a packet ``keep`` held keeps every card it saw),
  then another seat's pick of this draft round redrawn from its packet; another seat's
  hidden starting speed (``hidden_speeds``) redrawn from 2-10; the default drawn for another
  seat's hidden pick or speed (engine 0.6.0, ``defaults``) redrawn the same way;
- Neon Reign: another seat's secret starting-hero pick redrawn from its two heroes.

For a twin, ``probe`` requires the same, for the viewer: its view; the public pending list
``(seat, kind)`` and each public decision's shape (hidden, standing); the viewer's own
decisions (legal actions, prompt, default, everything); the answer the host would give the
viewer's illegal actions (``refusal``: another seat's legal actions, and the viewer's own
with a string swapped for a hidden one); and the public events of the same next action. A
difference names a side channel: something public that depends on a hidden card or pick.
With ``resign_every``, seats also resign at random, so what a resignation leaves hidden is
probed in the steps after it.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from dataclasses import replace
from typing import Any

from services.platform.draws import SeededRandomness
from services.rules.bots import RandomBot
from services.rules.games import load_engine
from services.rules.games.contract import RESIGN, ConfigError, MatchConfig, standing_options
from services.rules.host import refusal as host_refusal
from tests.support.campaign.leaks import HIDDEN_ZONES, _without, secrets, strings


def _split(rng: SeededRandomness, *zones: list[Any]) -> list[list[Any]]:
    pool = rng.shuffle([c for z in zones for c in z])
    out, at = [], 0
    for z in zones:
        out.append(list(pool[at:at + len(z)]))
        at += len(z)
    return out


def _twin_neon_reign(state: Any, keep: int | None, rng: SeededRandomness,
                     seen: set[str]) -> Any:
    if state.resolving is not None:
        return _twin_neon_reign_resolving(state, keep, rng)
    sides = []
    for index, side in enumerate(state.sides):
        if index == keep:
            sides.append(replace(side, deck=tuple(rng.shuffle(side.deck))))
        else:
            hand, deck = _split(rng, list(side.hand), list(side.deck))
            sides.append(replace(side, hand=tuple(hand), deck=tuple(deck)))
    # a secret starting-hero pick: either of the seat's two heroes (its bench is public)
    if state.phase != "pick":
        return replace(state, sides=tuple(sides))
    picks = [p if not p or index == keep
             else state.sides[index].bench[rng.randbelow(len(state.sides[index].bench))]
             for index, p in enumerate(state.picks)]
    return replace(state, sides=tuple(sides), picks=(picks[0], picks[1]))


def _moved_among(rng: SeededRandomness, cards: list[Any], movable: set[Any]) -> list[Any]:
    """``cards`` with those in ``movable`` shuffled among their places, the others kept."""
    places = [i for i, c in enumerate(cards) if c in movable]
    out = list(cards)
    for i, card in zip(places, rng.shuffle([cards[i] for i in places])):
        out[i] = card
    return out


def _twin_neon_reign_resolving(state: Any, keep: int | None, rng: SeededRandomness) -> Any:
    """A twin of a state paused for a Shield decision. The resolution starts again from the
    sides as the defence left them (``resolving.before``), hands and decks included, so the
    cards are moved there the same way: among those in both the side's hand and deck now and
    its hand and deck then (a Throw recycled from the discard pile stays; draws and strikes
    took deck tops, by place), so the twin resolves to its own sides."""
    sides, before = [], []
    for index, (side, then) in enumerate(zip(state.sides, state.resolving.before)):
        earlier = set(then.hand) | set(then.deck)
        if index == keep:
            pool = list(side.deck)
            moved = _moved_among(rng, pool, set(pool) & earlier)
            new = replace(side, deck=tuple(moved))
        else:
            pool = [*side.hand, *side.deck]
            moved = _moved_among(rng, pool, set(pool) & earlier)
            new = replace(side, hand=tuple(moved[:len(side.hand)]),
                          deck=tuple(moved[len(side.hand):]))
        to = dict(zip(pool, moved))
        sides.append(new)
        before.append(replace(then, hand=tuple(to.get(c, c) for c in then.hand),
                              deck=tuple(to.get(c, c) for c in then.deck)))
    return replace(state, sides=tuple(sides),
                   resolving=replace(state.resolving, before=tuple(before)))


def _twin_neon(state: Any, keep: int | None, rng: SeededRandomness, seen: set[str]) -> Any:
    from services.rules.games.neon.attack import Attack
    from services.rules.games.neon.cards import choice_actions, choice_of, pair_choices
    from services.rules.games.neon.content import LOOT
    from services.rules.games.neon.views import PRIVATE_FRAMES
    fighters = []
    for f in state.fighters:
        if f.idx == keep:
            fighters.append(replace(f, deck=tuple(rng.shuffle(f.deck))))
        elif f.choice is not None and not f.row:
            # chosen face down: the two cards are as hidden as the hand they came from
            c = f.choice
            hand, deck, pair = _split(rng, list(f.hand), list(f.deck), [c.top, c.bottom])
            ways = pair_choices(pair[0], pair[1])
            fighters.append(replace(f, hand=tuple(hand), deck=tuple(deck),
                                    choice=choice_of(ways[rng.randbelow(len(ways))])))
        else:
            hand, deck = _split(rng, list(f.hand), list(f.deck))
            fighters.append(replace(f, hand=tuple(hand), deck=tuple(deck)))
    defaults = []
    for idx, choice in state.defaults:  # another fighter's: any answer of its new hand
        ways = choice_actions(fighters[idx].hand)
        defaults.append((idx, choice if idx == keep or not ways
                         else choice_of(ways[rng.randbelow(len(ways))])))
    loot = [list(d) for d in state.loot_decks]
    upgrades = list(state.upgrade_deck)
    stack = list(state.stack)
    for i, fr in enumerate(stack):
        if isinstance(fr, Attack) or fr.kind not in PRIVATE_FRAMES or fr.owner == keep:
            continue
        cards = list(fr.get("cards"))
        if fr.kind == "upgrade":
            cards, upgrades = _split(rng, cards, upgrades)
        else:  # each card swapped with one of its loot class: the class is public
            for j, card in enumerate(cards):
                pool = loot[LOOT[card].cls - 1]
                if pool:
                    k = rng.randbelow(len(pool))
                    cards[j], pool[k] = pool[k], card
        if fr.get("default") is None:
            stack[i] = fr.but(cards=tuple(cards))
        else:  # a keep's drawn default: any pair of its new cards
            pair = rng.shuffle(cards)[:2]
            stack[i] = fr.but(cards=tuple(cards), default=tuple(sorted(pair)))
    return replace(state, fighters=tuple(fighters), stack=tuple(stack), defaults=tuple(defaults),
                   loot_decks=tuple(tuple(rng.shuffle(d)) for d in loot),
                   upgrade_deck=tuple(rng.shuffle(upgrades)))


def _twin_neon_knights(state: Any, keep: int | None, rng: SeededRandomness,
                       seen: set[str]) -> Any:
    from services.rules.games.neon_knights.race import SPEEDS
    from services.rules.games.neon_knights.state import freeze, thaw
    doc = thaw(state)
    for p in doc["players"]:
        if p["seat"] != keep:
            p["bets"], doc["decks"]["bets"] = _split(rng, p["bets"], doc["decks"]["bets"])
            p["hand"], doc["decks"]["parts"] = _split(rng, p["hand"], doc["decks"]["parts"])
    for name, deck in doc["decks"].items():
        doc["decks"][name] = list(rng.shuffle(deck))
    doc["stage_deck"] = list(rng.shuffle(doc["stage_deck"]))
    # implants the viewer never saw, anywhere among the other seats' packets and hands
    zones = [p["implant_hand"] for p in doc["players"] if p["seat"] != keep]
    draft = doc["draft"]
    if draft is not None:
        zones += [packet for seat, packet in enumerate(draft["packets"]) if seat != keep]
    slots = [(zone, i) for zone in zones for i, card in enumerate(zone) if card not in seen]
    for (zone, i), card in zip(slots, rng.shuffle([zone[i] for zone, i in slots])):
        zone[i] = card
    if draft is not None:  # this round's pick: any card of the seat's packet
        for seat, packet in enumerate(draft["packets"]):
            if seat != keep and draft["picks"][seat] is not None:
                draft["picks"][seat] = packet[rng.randbelow(len(packet))]
    if doc["speeds"] is not None and doc["hidden_speeds"]:
        doc["speeds"] = [s if seat == keep or s is None else SPEEDS[rng.randbelow(len(SPEEDS))]
                         for seat, s in enumerate(doc["speeds"])]
    for seat, drawn in enumerate(doc.get("defaults") or []):  # another seat's, redrawn
        if seat == keep or drawn is None:
            continue
        if isinstance(drawn, str):  # a draft pick's: any card of its (moved) packet
            packet = sorted(set(draft["packets"][seat]))
            doc["defaults"][seat] = packet[rng.randbelow(len(packet))]
        else:  # a hidden speed's
            doc["defaults"][seat] = SPEEDS[rng.randbelow(len(SPEEDS))]
    return freeze(doc)


def _twin_barbaric(state: Any, keep: int | None, rng: SeededRandomness,
                   seen: set[str]) -> Any:
    table = state.table()
    choosing = {step.get("seat") for step in table.agenda if step["step"] == "choose_card"}
    for p in table.players:
        if p.seat == keep:
            if p.seat not in choosing:  # before its starting hand is chosen, in printed order
                p.deck = list(rng.shuffle(p.deck))
        else:
            p.hand, p.deck = _split(rng, p.hand, p.deck)
    for name in ("event_deck", "monster_deck", "survivor_deck"):
        setattr(table, name, list(rng.shuffle(getattr(table, name))))
    return table.freeze()


TWINS = {"neon-reign": _twin_neon_reign, "neon": _twin_neon,
         "neon-knights-2086": _twin_neon_knights, "barbaric": _twin_barbaric}


def twin(game: str, state: Any, keep: int | None, rng: SeededRandomness,
         seen: set[str] | frozenset[str] = frozenset()) -> Any:
    return TWINS[game](state, keep, rng, set(seen))


def public_pending(engine: Any, state: Any) -> list[tuple[int, str]]:
    return [(d.seat, d.kind) for d in engine.pending(state)]


def public_shape(engine: Any, state: Any) -> list[tuple[Any, ...]]:
    """What the host lets everyone read of every decision, owed or standing: who, what
    kind, whether the answer stays hidden (an accepted action's record says so)."""
    return [(d.seat, d.kind, d.hidden, d.standing)
            for d in (*engine.pending(state), *standing_options(engine, state))]


def own_decisions(engine: Any, state: Any, seat: int) -> list[Any]:
    """``seat``'s decisions as the host hands them to it (``decisions_of``), whole."""
    return [d for d in (*engine.pending(state), *standing_options(engine, state))
            if d.seat == seat]


def refusal(engine: Any, state: Any, seat: int, action: Any) -> str | None:
    """What the host answers ``seat`` submitting ``action`` (``MatchHost._decision``, past
    the schema check, which depends on no state): ``None`` when accepted. The host's own
    words, from ``services.rules.host.refusal``."""
    mine = own_decisions(engine, state, seat)
    if any(action in d.legal for d in mine):
        return None
    return host_refusal(engine, state, seat, action, mine, engine.pending(state))


def _swap_strings(value: Any, old: str, new: str) -> Any:
    if value == old:
        return new
    if isinstance(value, dict):
        return {k: _swap_strings(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_swap_strings(v, old, new) for v in value]
    return value


def probe_actions(engine: Any, state: Any, seat: int, hidden: set[str],
                  rng: SeededRandomness, count: int) -> list[Any]:
    """Illegal actions a clever ``seat`` might send to learn something: another seat's
    legal actions, and its own with one string swapped for a hidden one."""
    others = [a for d in engine.pending(state) if d.seat != seat for a in d.legal]
    own = [a for d in own_decisions(engine, state, seat) for a in d.legal]
    out: list[Any] = [others[rng.randbelow(len(others))] for _ in range(count) if others]
    names = sorted(hidden)
    for _ in range(count if own and names else 0):
        action = own[rng.randbelow(len(own))]
        words = sorted(strings(action) - {action.get("type")})
        if words:
            out.append(_swap_strings(action, words[rng.randbelow(len(words))],
                                     names[rng.randbelow(len(names))]))
    return out


def _named(text: str, hidden: set[str]) -> set[str]:
    return {w for w in re.findall(r"[\w\-:.']+", text) if w in hidden}


def public_events(events: Any, viewer: int | None, masked: set[str] = frozenset()) -> list[Any]:
    """The events ``viewer`` sees, up to the first that names a masked (hidden) string: a
    card revealed face up may change what follows, legitimately."""
    out = []
    for e in events:
        if e.visible_to is None or (viewer is not None and viewer in e.visible_to):
            if strings(e.data) & masked:
                out.append(None)
                break
            out.append((e.kind, e.data))
    return out


def _same_until_a_reveal(a: list[Any], b: list[Any]) -> bool:
    cut = min(len(a), len(b)) if (a and a[-1] is None) or (b and b[-1] is None) else None
    return a[:cut] == b[:cut]


REDRAWN = frozenset({"picks", "cover", "speeds", "defaults", "default"})
"""Keys whose values a twin redraws instead of moving: a pick (a copy of a card of its
packet or bench), NEON's cover, NK's hidden speeds, and the defaults drawn for hidden
decisions (NEON's ``defaults`` and a keep frame's ``default``, engine 6; NK's ``defaults``,
engine 0.6.0; Barbaric's agenda ``default``, which its twin leaves as it is)."""


def _cards(value: Any) -> Counter[str]:
    """Every string of an encoded state, with its count: a twin only moves cards."""
    out: list[str] = []
    todo = [value]
    while todo:
        v = todo.pop()
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            todo += [x for k, x in v.items() if k not in REDRAWN]
        elif isinstance(v, (list, tuple)):
            todo += v
    return Counter(out)


def known(game: str, encoded: Any, viewer: int | None) -> tuple[set[str], set[str]]:
    """The strings ``viewer`` may see in this state (public zones and its own), and those
    it may not: from the state's zones (tests/support/campaign/leaks.py), never from what
    the engine shows, so a leaking view cannot make its leak count as seen."""
    zones = HIDDEN_ZONES[game](encoded)
    mine = [z for owner, z in zones if owner is not None and owner == viewer]
    hidden = [z for owner, z in zones if owner is None or owner != viewer]
    visible = strings(_without(encoded, hidden)) | strings(mine)
    return visible, strings(hidden) - visible



def _seeded_start(engine: Any, probe: str, game: str, mode: str, seats: int, seed: int,
                  options: dict[str, Any] | None) -> tuple[Any, SeededRandomness] | None:
    """A probe's game set up from its seed (``probe`` names the randomness, so each probe
    plays its own games), with the mode's default options under ``options``; None when the
    engine refuses that set-up (a seat count the mode does not take)."""
    rng = SeededRandomness(f"{probe}:{game}:{mode}:{seats}:{seed}")
    try:
        state = engine.setup(MatchConfig(mode, seats, {**engine.match_options(mode, seats),
                                                        **(options or {})}), rng)
    except ConfigError:
        return None
    return state, rng


def probe(game: str, mode: str, seats: int, seed: int, steps: int = 400,
          twins_per_state: int = 1, engine: Any = None, options: dict[str, Any] | None = None,
          refusals: int = 2, start: int = 0, first: bool = False,
          resign_every: int = 0) -> list[str]:
    """Findings of one random-bot game. Views, pending lists, own decisions and refusals
    must never differ; public events that differ need a reading (a struck card that has a
    twin id elsewhere is not masked), and Barbaric's starting-hand choice lists the first
    copy in a deck whose order is still public (not shuffled yet), so an own action refused
    there is expected. ``engine``: another engine object for the game (a planted leak);
    ``options``: match options over the mode's defaults; ``refusals``: illegal actions of
    each kind tried per viewer and step; ``start``: the steps played before the first one
    looked at (what a viewer saw in them still counts as seen); ``first``: stop at the
    first step with a finding; ``resign_every``: about once in that many steps, a seat
    still in the game resigns instead (its standing resign), so the steps after a
    resignation are looked at too (with three seats or more the game goes on)."""
    engine = engine if engine is not None else load_engine(game)
    started = _seeded_start(engine, "twins", game, mode, seats, seed, options)
    if started is None:
        return []
    state, rng = started
    bot = RandomBot(f"twins:{game}:{seed}")
    resigner = random.Random(f"twins-resign:{game}:{mode}:{seats}:{seed}")
    found: list[str] = []
    label = f"{game}/{mode}/{seats}/{seed}"
    viewers: list[int | None] = [None, *range(seats)]
    seen: dict[int | None, set[str]] = {v: set() for v in viewers}
    words = strings(engine.action_schema())  # "left", "right": not a card's name
    for step in range(steps):
        if engine.outcome(state) is not None:
            break
        pending = engine.pending(state)
        if not pending:
            break
        decision = pending[bot.pick(list(range(len(pending))))]
        action = bot.choose(decision)
        if resign_every and resigner.randrange(resign_every) == 0:
            resigning = [d for d in standing_options(engine, state) if RESIGN in d.legal]
            if resigning:
                decision, action = resigner.choice(resigning), dict(RESIGN)
        encoded = engine.encode(state)
        if step < start:
            for keep in viewers:
                seen[keep] |= known(game, encoded, keep)[0]
            state = engine.apply(state, decision.seat, action, rng).state
            continue
        cards = _cards(encoded)
        for keep in viewers:
            view = engine.view(state, keep)
            visible, hidden = known(game, encoded, keep)
            seen[keep] |= visible
            for t in range(twins_per_state):
                trng = SeededRandomness(f"twin:{label}:{step}:{keep}:{t}")
                other = twin(game, state, keep, trng, seen[keep])
                where = f"{label} step {step} viewer {keep}"
                if _cards(engine.encode(other)) != cards:
                    found.append(f"{where}: the twin is not the same cards moved")
                if engine.view(other, keep) != view:
                    found.append(f"{where}: view differs")
                    continue
                a, b = public_pending(engine, state), public_pending(engine, other)
                if a != b:
                    found.append(f"{where}: pending {a} vs {b}")
                elif public_shape(engine, state) != public_shape(engine, other):
                    found.append(f"{where}: pending shape {public_shape(engine, state)} vs "
                                 f"{public_shape(engine, other)}")
                if keep is not None:
                    mine = own_decisions(engine, state, keep)
                    if mine != own_decisions(engine, other, keep):
                        found.append(f"{where}: own decisions differ "
                                     f"{[d.kind for d in mine]}")
                    prng = SeededRandomness(f"refuse:{label}:{step}:{keep}:{t}")
                    names = hidden - seen[keep] - words
                    for tried in probe_actions(engine, state, keep, names, prng, refusals):
                        r1, r2 = refusal(engine, state, keep, tried), \
                            refusal(engine, other, keep, tried)
                        if r1 != r2:
                            found.append(f"{where}: refusal of {tried} differs: {r1!r} vs {r2!r}")
                        elif r1 and _named(r1, names) - strings(tried):
                            found.append(f"{where}: refusal of {tried} names hidden "
                                         f"{sorted(_named(r1, names) - strings(tried))}: {r1!r}")
                if decision.seat == keep or keep is None:
                    if engine.validate(other, decision.seat, action) is not None:
                        if decision.seat == keep:
                            found.append(f"{where}: own action {action} refused in twin")
                        continue
                    r1 = SeededRandomness(f"apply:{label}:{step}")
                    r2 = SeededRandomness(f"apply:{label}:{step}")
                    e1 = engine.apply(state, decision.seat, action, r1).events
                    e2 = engine.apply(other, decision.seat, action, r2).events
                    masked = (secrets(game, encoded, None)
                              | secrets(game, engine.encode(other), None))
                    p1, p2 = public_events(e1, keep, masked), public_events(e2, keep, masked)
                    if keep is None and not _same_until_a_reveal(p1, p2):
                        found.append(f"{where}: public events of {action} differ: "
                                     f"{json.dumps(p1, default=str)[:600]} vs "
                                     f"{json.dumps(p2, default=str)[:600]}")
        if first and found:
            break
        state = engine.apply(state, decision.seat, action, rng).state
    return found


# ---- bots on hidden decisions ----------------------------------------------------------------

BOT_SECRET = {
    ("neon", "choose_cards"): lambda a: tuple(sorted((a["top"], a["bottom"]))),
    ("neon", "place_loot"): lambda a: a["as"],
}
"""What of a bot's hidden answer the table must not be able to foretell, where it is not the
whole answer: NEON's card choice, the pair of cards (how a pair is laid follows from the pair,
which the reveal shows); NEON's laying out, whether the card is laid out, tucked or
discarded."""


def _one_way(game: str, decision: Any) -> str | None:
    """Why a hidden decision whose bot answer is the same for every seed tells nothing, or
    ``None``: NK's Fan Bet kept or discarded (the answer is public anyway, a discard by its
    event; the bot keeps every bet, so no card follows from it); NEON's laying out of a card
    that can go one way only besides the discard (laid out, or tucked: what the table sees
    of a tuck is the same whether the card could have been laid out or not, as the bot tucks
    some of those too, which ``tests/unit/neon/test_bots.py`` checks)."""
    if (game, decision.kind) == ("neon-knights-2086", "fan_bet"):
        return "the answer is public anyway"
    if (game, decision.kind) == ("neon", "place_loot"):
        ways = {a["as"] for a in decision.legal if a["as"] != "discard"}
        return "one way besides the discard" if len(ways) <= 1 else None
    return None


def bot_answers(game: str, engine: Any, state: Any, decision: Any, seeds: int, label: str,
                maker: Any) -> list[Any]:
    """The answers ``seeds`` rule bots (seeded ``label:0`` ...) give ``decision`` from its
    seat's view as a client reads it (what the rules host hands a timed-out seat's bot)."""
    from services.rules.selfplay import client_view

    view = client_view(engine)(engine.view(state, decision.seat))
    return [maker(f"{label}:{k}").choose(decision, view) for k in range(seeds)]


def bot_probe(game: str, mode: str, seats: int, seed: int, steps: int = 400,
              options: dict[str, Any] | None = None, start: int = 0, seeds: int = 24,
              maker: Any = None, first: bool = False,
              looked: Counter[str] | None = None) -> list[str]:
    """Findings of one random-bot game about the game's rule bot on hidden decisions (a
    seat the rules host hands to the bot after its timeouts). At every hidden decision
    with two answers or more, in the state and in a twin for another seat (other hidden
    cards for the seat that decides, the same table for that viewer), ``seeds`` bots of
    different seeds answer: every answer must be legal, and what the table must not
    foretell of it (``BOT_SECRET``) must not be the same for every seed, unless the
    decision tells nothing that way (``_one_way``). A bot whose hidden answer follows from
    the view alone (always the best card by a fixed taste, always speed 6) is found: the
    table, knowing the rule, would name the answer. ``maker``: what makes a bot from a
    seed (default the game's rule bot); ``looked`` counts the decisions looked at, by kind
    (so a test can tell the probe was not vacuous)."""
    from services.rules.bots import bot_maker

    engine = load_engine(game)
    maker = maker or bot_maker("rule", game)
    started = _seeded_start(engine, "bot-probe", game, mode, seats, seed, options)
    if started is None:
        return []
    state, rng = started
    bot = RandomBot(f"bot-probe:{game}:{seed}")
    label = f"{game}/{mode}/{seats}/{seed}"
    found: list[str] = []
    for step in range(steps):
        if engine.outcome(state) is not None:
            break
        pending = engine.pending(state)
        if not pending:
            break
        if step >= start:
            for d in pending:
                if not d.hidden or len(d.legal) < 2:
                    continue
                other = (d.seat + 1) % seats if seats > 1 else None
                tables = [("state", state)]
                if other is not None:
                    tables.append(("twin", twin(game, state, other,
                                                SeededRandomness(f"bot-twin:{label}:{step}"))))
                for name, table in tables:
                    mine = [x for x in engine.pending(table) if x.seat == d.seat and x.kind == d.kind]
                    if not mine or len(mine[0].legal) < 2:
                        continue
                    decision = mine[0]
                    where = f"{label} step {step} seat {d.seat} {d.kind} ({name})"
                    answers = bot_answers(game, engine, table, decision, seeds,
                                          f"bot-probe:{label}:{step}:{name}", maker)
                    bad = [a for a in answers if a not in decision.legal]
                    if bad:
                        found.append(f"{where}: bot answer not legal: {bad[0]}")
                        continue
                    secret = BOT_SECRET.get((game, d.kind), lambda a: a)

                    def told(some: Any, secret: Any = secret) -> set[str]:
                        return {json.dumps(secret(a), sort_keys=True, default=str) for a in some}
                    if len(told(decision.legal)) < 2:  # one pair of cards left: nothing to draw
                        continue
                    if looked is not None:
                        looked[d.kind] += 1
                    if len(told(answers)) == 1 and _one_way(game, decision) is None:
                        found.append(f"{where}: the bot's hidden answer is the same for all "
                                     f"{seeds} seeds: {next(iter(told(answers)))}")
        if first and found:
            break
        decision = pending[bot.pick(list(range(len(pending))))]
        state = engine.apply(state, decision.seat, bot.choose(decision), rng).state
    return found

