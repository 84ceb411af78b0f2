"""Twin-state probes: what a viewer receives must not depend on what it may not see.

``twin(game, state, keep, rng)`` is another state that differs from ``state`` only in zones
``keep`` may not see: every deck's order, and each other seat's hand shuffled together with
its own deck (same sizes; a deck's cards stay with their owner, so the twin is a table the
rules could have dealt). ``keep`` is a seat, or ``None`` for a spectator.

For a twin, the viewer's view, the public pending list ``(seat, kind)`` (what the host shows
everyone) and the public events of the same next action must be the same as for ``state``.
A difference names a side channel: something public that depends on a hidden card.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from services.platform.draws import SeededRandomness
from services.rules.bots import RandomBot
from services.rules.games import load_engine
from services.rules.games.contract import ConfigError, MatchConfig
from tests.support.campaign.leaks import secrets, strings


def _split(rng: SeededRandomness, *zones: list[Any]) -> list[list[Any]]:
    pool = rng.shuffle([c for z in zones for c in z])
    out, at = [], 0
    for z in zones:
        out.append(list(pool[at:at + len(z)]))
        at += len(z)
    return out


def _twin_neon_reign(state: Any, keep: int | None, rng: SeededRandomness) -> Any:
    sides = []
    for index, side in enumerate(state.sides):
        if index == keep:
            sides.append(replace(side, deck=tuple(rng.shuffle(side.deck))))
        else:
            hand, deck = _split(rng, list(side.hand), list(side.deck))
            sides.append(replace(side, hand=tuple(hand), deck=tuple(deck)))
    return replace(state, sides=tuple(sides))


def _twin_neon(state: Any, keep: int | None, rng: SeededRandomness) -> Any:
    fighters = []
    for f in state.fighters:
        if f.idx == keep or f.choice is not None or f.row:
            fighters.append(replace(f, deck=tuple(rng.shuffle(f.deck))))
        else:
            hand, deck = _split(rng, list(f.hand), list(f.deck))
            fighters.append(replace(f, hand=tuple(hand), deck=tuple(deck)))
    return replace(state, fighters=tuple(fighters),
                   loot_decks=tuple(tuple(rng.shuffle(d)) for d in state.loot_decks),
                   upgrade_deck=tuple(rng.shuffle(state.upgrade_deck)))


def _twin_neon_knights(state: Any, keep: int | None, rng: SeededRandomness) -> Any:
    from services.rules.games.neon_knights.state import freeze, thaw
    doc = thaw(state)
    for p in doc["players"]:
        if p["seat"] != keep:
            p["bets"], doc["decks"]["bets"] = _split(rng, p["bets"], doc["decks"]["bets"])
            p["hand"], doc["decks"]["parts"] = _split(rng, p["hand"], doc["decks"]["parts"])
    for name, deck in doc["decks"].items():
        doc["decks"][name] = list(rng.shuffle(deck))
    doc["stage_deck"] = list(rng.shuffle(doc["stage_deck"]))
    return freeze(doc)


def _twin_barbaric(state: Any, keep: int | None, rng: SeededRandomness) -> Any:
    table = state.table()
    for p in table.players:
        if p.seat == keep:
            p.deck = list(rng.shuffle(p.deck))
        else:
            p.hand, p.deck = _split(rng, p.hand, p.deck)
    for name in ("event_deck", "monster_deck", "survivor_deck"):
        setattr(table, name, list(rng.shuffle(getattr(table, name))))
    return table.freeze()


TWINS = {"neon-reign": _twin_neon_reign, "neon": _twin_neon,
         "neon-knights-2086": _twin_neon_knights, "barbaric": _twin_barbaric}


def public_pending(engine: Any, state: Any) -> list[tuple[int, str]]:
    return [(d.seat, d.kind) for d in engine.pending(state)]


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


def probe(game: str, mode: str, seats: int, seed: int, steps: int = 400,
          twins_per_state: int = 1) -> list[str]:
    """Findings of one random-bot game. Views and pending lists must never differ; public
    events that differ need a reading (a struck card that has a twin id elsewhere is not
    masked), and Barbaric's starting-hand choice lists the first copy in a deck whose order
    is still public (not shuffled yet), so an own action refused there is expected."""
    engine = load_engine(game)
    options = dict(engine.match_options(mode, seats))
    rng = SeededRandomness(f"twins:{game}:{mode}:{seats}:{seed}")
    try:
        state = engine.setup(MatchConfig(mode, seats, options), rng)
    except ConfigError:
        return []
    bot = RandomBot(f"twins:{game}:{seed}")
    found: list[str] = []
    label = f"{game}/{mode}/{seats}/{seed}"
    for step in range(steps):
        if engine.outcome(state) is not None:
            break
        pending = engine.pending(state)
        if not pending:
            break
        decision = pending[bot.pick(list(range(len(pending))))]
        action = bot.choose(decision)
        for keep in [None, *range(seats)]:
            for t in range(twins_per_state):
                trng = SeededRandomness(f"twin:{label}:{step}:{keep}:{t}")
                other = TWINS[game](state, keep, trng)
                where = f"{label} step {step} viewer {keep}"
                if engine.view(other, keep) != engine.view(state, keep):
                    found.append(f"{where}: view differs")
                    continue
                a, b = public_pending(engine, state), public_pending(engine, other)
                if a != b:
                    found.append(f"{where}: pending {a} vs {b}")
                if decision.seat == keep or keep is None:
                    if engine.validate(other, decision.seat, action) is not None:
                        if decision.seat == keep:
                            found.append(f"{where}: own action {action} refused in twin")
                        continue
                    r1 = SeededRandomness(f"apply:{label}:{step}")
                    r2 = SeededRandomness(f"apply:{label}:{step}")
                    e1 = engine.apply(state, decision.seat, action, r1).events
                    e2 = engine.apply(other, decision.seat, action, r2).events
                    masked = (secrets(game, engine.encode(state), None)
                              | secrets(game, engine.encode(other), None))
                    p1, p2 = public_events(e1, keep, masked), public_events(e2, keep, masked)
                    if keep is None and not _same_until_a_reveal(p1, p2):
                        found.append(f"{where}: public events of {action} differ: "
                                     f"{json.dumps(p1, default=str)[:600]} vs "
                                     f"{json.dumps(p2, default=str)[:600]}")
        state = engine.apply(state, decision.seat, action, rng).state
    return found
