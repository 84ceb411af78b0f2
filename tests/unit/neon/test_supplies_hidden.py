"""A loot card tucked as a supply shows only its supply symbol (RULES.md, "Hidden information").

"If you want to use a card as a supply, tuck it under one of your equipment cards so that only
the supply symbol at the bottom of the card is visible" (neon.txt, Search). The other seats and
spectators see which symbols lie under each equipment card, never which cards they are; the
owner sees its own cards. So the cards a fighter keeps and lays out after a search are chosen
in hidden decisions (the keep names the kept pair, which the supply's symbol would otherwise
name by elimination), and the public event of a tuck names the symbol only. What is public
stays public: the cards not kept (face up in the discard pile), equipment laid out, a supply
spent (discarded face up).
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from services.rules import records
from services.rules.games.neon.content import LOOT
from services.rules.games.neon.engine import ENGINE
from services.rules.games.neon.present import describe_event
from services.rules.games.neon.state import State
from tests.unit.neon.helpers import Rng, arena, equip, every_mode, new_game, on_turn, set_fighter

SUPPLY, OTHER = "scrap-rifle-1", "stinger-2"
"""Two loot cards of class I with the same supply symbol (ammo): a heavy weapon and a pistol."""


def _table(supply: str, in_deck: str) -> State:
    """Fighter 1 wears a Stinger with ``supply`` tucked under it; ``in_deck`` is in the class I
    loot deck (the two tables differ only in which card is tucked and which is in the deck)."""
    state = arena(new_game("rebirth", 3, ["ronin", "glyba", "snake"]), f0=6, f1=6, f2=1)
    state = on_turn(state, 0, ["attack"], ["attack"], ["search"])
    state = set_fighter(state, 1, equipment=equip(("stinger-1", [supply])))
    deck = tuple(c for c in state.loot_decks[0] if c not in (SUPPLY, OTHER, "stinger-1"))
    return replace(state, loot_decks=(deck + (in_deck,), *state.loot_decks[1:]))


def test_another_fighters_supply_shows_its_symbol_and_not_the_card() -> None:
    a, b = _table(SUPPLY, OTHER), _table(OTHER, SUPPLY)
    assert LOOT[SUPPLY].supplies == LOOT[OTHER].supplies == ("ammo",)
    for viewer in (0, 2, None):
        view = ENGINE.view(a, viewer)
        assert view == ENGINE.view(b, viewer), viewer
        assert SUPPLY not in json.dumps(view)
        assert view["fighters"][1]["equipment"] == [{"card": "stinger-1",
                                                     "supply_symbols": [["ammo"]]}]
    own = ENGINE.view(a, 1)["fighters"][1]["equipment"]
    assert own == [{"card": "stinger-1", "supply_symbols": [["ammo"]], "supplies": [SUPPLY]}]
    assert ENGINE.view(b, 1)["fighters"][1]["equipment"][0]["supplies"] == [OTHER]


def _searching(first: tuple[str, ...]) -> State:
    """Fighter 0 in the Park (class I) with a Stinger laid out, about to search a class I deck
    whose top cards are ``first``."""
    state = arena(new_game("rebirth", 3, ["ronin", "glyba", "snake"]), f0=1, f1=6, f2=6)
    state = on_turn(state, 0, ["attack"], ["attack"], ["search"])
    state = set_fighter(state, 0, step=2, equipment=equip("stinger-1"))
    rest = tuple(c for c in state.loot_decks[0] if c not in first and c != "stinger-1")
    return replace(state, loot_decks=(first + rest, *state.loot_decks[1:]))


def _public(events: Any, viewer: int | None) -> str:
    return json.dumps([{"kind": e.kind, "data": dict(e.data)} for e in events
                       if e.visible_to is None or viewer in e.visible_to])


def test_keeping_and_laying_out_loot_are_hidden_and_a_tuck_names_only_the_symbol() -> None:
    state = ENGINE.apply(_searching((SUPPLY, OTHER, "knuckles-1")), 0, {"type": "search"},
                         Rng("search")).state
    keep = ENGINE.pending(state)[0]
    assert keep.kind == "keep_loot" and keep.hidden
    kept = {"type": "keep", "cards": sorted([SUPPLY, OTHER])}
    t = ENGINE.apply(state, 0, kept, Rng("loot"))
    assert "knuckles-1" in _public(t.events, None)  # not kept: face up in the discard pile
    state = t.state
    place = ENGINE.pending(state)[0]
    assert place.kind == "place_loot" and place.hidden
    assert ENGINE.view(state, 1)["stack"][-1] == {"kind": "place", "owner": 0, "cards": 2}
    # the host keeps a hidden decision's action off every other seat's and the public path
    body = {"type": "ActionAccepted", "seat": 0, "command_id": "c", "action": kept,
            "decision": keep.kind, "hidden": keep.hidden, "draws": [], "events": [],
            "state_hash": ""}
    record = records.seal_record("m", 2, records.head([]), records.blinded(body))
    assert "action" not in records.project(record, 1)
    assert "action" not in records.project(record, None)
    tuck = {"type": "place", "card": SUPPLY, "as": "supply", "under": "stinger-1"}
    assert tuck in place.legal
    t = ENGINE.apply(state, 0, tuck, Rng("loot"))
    for viewer in (1, 2, None):
        assert SUPPLY not in _public(t.events, viewer)
        assert SUPPLY not in json.dumps(ENGINE.view(t.state, viewer))
    assert {"kind": "supply_tucked", "data": {"fighter": 0, "under": "stinger-1",
                                               "symbols": ["ammo"]}} in \
        json.loads(_public(t.events, None))
    assert SUPPLY in _public(t.events, 0)
    public = [e for e in t.events if e.kind == "supply_tucked"][0]
    assert describe_event({"kind": public.kind, "data": dict(public.data)}, 1) == \
        "fighter 0 tucks a supply (ammo) under Stinger"
    lay = {"type": "place", "card": OTHER, "as": "equipment"}
    t = ENGINE.apply(t.state, 0, lay, Rng("loot"))
    assert OTHER in _public(t.events, None)  # equipment is laid out face up


def test_no_view_names_another_fighters_supply_in_random_games() -> None:
    """Every state of a few seeded games of each mode: a fighter's equipment shows the cards
    of its supplies to its own seat, their symbols to everyone else. (A card may be named
    elsewhere while it is public: a weapon covered in the middle of the attack it declared.)"""
    tucked = 0
    for state in every_mode("supplies-hidden", 2):
        if not any(e.supplies for f in state.fighters for e in f.equipment):
            continue
        tucked += 1
        for viewer in (None, *range(state.seats)):
            for f, part in zip(state.fighters, ENGINE.view(state, viewer)["fighters"],
                               strict=True):
                symbols = [[list(LOOT[s].supplies) for s in e.supplies] for e in f.equipment]
                assert [e["supply_symbols"] for e in part["equipment"]] == symbols
                if f.idx == viewer:
                    assert [e["supplies"] for e in part["equipment"]] == \
                        [list(e.supplies) for e in f.equipment]
                else:
                    assert not any("supplies" in e for e in part["equipment"])
                    assert not {s for e in f.equipment for s in e.supplies} & \
                        set(json.dumps(part["equipment"]).split('"'))
    assert tucked > 50


def test_the_leak_checker_counts_a_supply_as_its_owners() -> None:
    """tests/support/campaign/leaks.py: the card tucked under another fighter's equipment is
    a secret to every other viewer (it counted as seen by everyone before: the checker took
    every string outside its hidden zones as public), so a view naming it is caught."""
    from tests.support.campaign.leaks import found_in, secrets

    state = _table(SUPPLY, OTHER)
    encoded = ENGINE.encode(state)
    assert SUPPLY not in secrets("neon", encoded, 1)
    for viewer in (0, 2, None):
        secret = secrets("neon", encoded, viewer)
        assert SUPPLY in secret and "stinger-1" not in secret
        view = ENGINE.view(state, viewer)
        assert not found_in(view, secret)
        leaking = {**view, "leak": [f["equipment"] for f in ENGINE.view(state, 1)["fighters"]]}
        assert found_in(leaking, secret) == {SUPPLY}


class _ShowsSupplies:
    """NEON with a planted leak: every view lists every fighter's supplies' card ids."""

    def __init__(self) -> None:
        self._engine = ENGINE

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)

    def view(self, state: State, viewer: int | None) -> Any:
        return {**ENGINE.view(state, viewer),
                "leak": [list(e.supplies) for f in state.fighters for e in f.equipment]}


def test_a_planted_supply_leak_is_found_in_whole_games() -> None:
    """The leak checker's whole-game run (``leaks.play_one``) finds a view that shows the
    other fighters' supplies, and finds nothing in the engine's own views."""
    from tests.support.campaign.leaks import play_one

    found: list[str] = []
    for seed in range(3):
        clean = play_one("neon", "rebirth", 3, seed)
        assert clean.actions > 100 and clean.leaks == []
        found += play_one("neon", "rebirth", 3, seed, engine=_ShowsSupplies()).leaks
    assert found and all(": view of " in leak for leak in found)
