"""What each viewer may know: own hand only, counts of the rest, never a deck's order."""

from __future__ import annotations

from typing import Any

from .content import hero
from .state import PICK, ShieldAsk, Side, State, to_json


def _hero_card(hero_id: str) -> dict[str, Any] | None:
    if not hero_id:
        return None
    card = _HERO_CARDS.get(hero_id)
    if card is None:
        h = hero(hero_id)
        card = _HERO_CARDS[hero_id] = {"id": h.id, "name": h.name, "star_limit": h.star_limit,
                                       "star_power": dict(h.star_power),
                                       "ability": to_json(h.ability)}
    # A new dict each time (a view is its reader's to keep); the inner ones hold only
    # strings and numbers, so copying them is copying them whole.
    return {**card, "star_power": dict(card["star_power"]), "ability": dict(card["ability"])}


_HERO_CARDS: dict[str, dict[str, Any]] = {}
"""Each hero card's JSON, built once (the printed card never changes)."""


def _side(state: State, index: int, side: Side, viewer: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "side": index,
        "computer": side.computer,
        "hero": _hero_card(side.hero),
        "health": side.health,
        "stars": side.stars,
        "shields": side.shields,
        "hand_count": len(side.hand),
        "deck_count": len(side.deck),
        "discard": list(side.discard),
        "bench": list(side.bench) if state.phase != PICK else [],
        "fallen": list(side.fallen),
    }
    if state.phase == PICK:
        out["heroes"] = sorted(side.bench)
        out["picked"] = bool(state.picks[index])
        if viewer == index:
            out["my_pick"] = state.picks[index] or None
    if viewer == index and not side.computer:
        out["hand"] = list(side.hand)
    return out


def view(state: State, viewer: int | None) -> dict[str, Any]:
    sides, results, resolving = state.sides, state.results, state.resolving
    return {
        "mode": state.mode,
        "difficulty": state.difficulty or None,
        "you": viewer,
        "phase": state.phase,
        "attacker": state.active,
        "turn": state.turn,
        "game": state.game,
        "decks": list(state.decks),
        "in_play": list(state.in_play),
        "sides": [_side(state, 0, sides[0], viewer), _side(state, 1, sides[1], viewer)],
        "arcade_tokens": list(state.tokens),
        "results": to_json(results) if results else [],
        "winner": state.winner,
        "reason": state.reason,
        "engine_version": state.rules.version,
        "pending_damage": None if resolving is None else _pending_damage(resolving.ask),
    }


def _pending_damage(ask: ShieldAsk | None) -> dict[str, Any] | None:
    """While a Shield decision is owed: the damage about to be dealt (public knowledge)."""
    if ask is None:
        return None
    return {"side": ask.side, "amount": ask.amount, "most": ask.most, "source": ask.source}
