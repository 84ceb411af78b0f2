"""NEON's presentation: content, schemas tested on real views and events, words, the table."""

from __future__ import annotations

import json

import jsonschema
from rich.console import Console

from services.platform.draws import SeededRandomness
from services.rules.games.contract import MatchConfig
from services.rules.games.neon import BOTS, ENGINE, present
from services.rules.games.neon.content import ACTION_CARDS, FIGHTERS, LOOT
from tests.unit.neon.helpers import Rng
from tests.unit.neon.test_fuzz import pick

VIEWS = jsonschema.Draft202012Validator(present.view_schema())
EVENTS = jsonschema.Draft202012Validator(present.event_schema())


def test_the_content_pack_names_every_card_fighter_and_sector() -> None:
    pack = json.loads(json.dumps(present.content()))
    assert {f["id"] for f in pack["fighters"]} == set(FIGHTERS)
    assert {c["id"] for c in pack["cards"]} == set(ACTION_CARDS)
    assert {c["id"] for c in pack["loot"]} == set(LOOT)
    assert len(pack["sectors"]) == 10 and all(s["text"] for s in pack["sectors"])
    assert all(c["name"] and c["effects"] for c in pack["loot"])
    names = {c["id"]: c["name"] for c in pack["cards"]}
    assert names["akari-1"] == "Move / Attack" and names["akari-7"] == "Joker Card"
    assert names["akari-3"] == "Move + 1 Energy / Defense"


def test_every_event_kind_of_a_fuzz_run_is_described_and_fits_the_schemas() -> None:
    described: dict[str, str] = {}
    for mode, seats in (("rebirth", 3), ("coalition", 4), ("battle-royale", 4)):
        rng = Rng(f"present-{mode}")
        state = ENGINE.setup(MatchConfig(mode, seats, {}), rng)
        while ENGINE.outcome(state) is None:
            seat, action = pick(rng, state)
            transition = ENGINE.apply(state, seat, action, rng)
            state = transition.state
            for e in transition.events:
                event = {"kind": e.kind, "data": json.loads(json.dumps(dict(e.data))),
                         "visible_to": sorted(e.visible_to) if e.visible_to else None}
                EVENTS.validate(event)
                viewer = min(e.visible_to) if e.visible_to else None
                described[e.kind] = present.describe_event(event, viewer)
            view = json.loads(json.dumps(ENGINE.view(state, seat)))
            VIEWS.validate(view)
            for decision in ENGINE.pending(state):
                for a in decision.legal[:5]:
                    assert present.describe_action(a, view)
    assert len(described) >= 25
    assert all(text for text in described.values()), described
    assert "attack_declared" in described and "with" in described["attack_declared"]


def test_render_shows_the_table_for_every_view_of_a_game() -> None:
    rng = SeededRandomness("render")
    state = ENGINE.setup(MatchConfig("rebirth", 2, {}), rng)
    bots = [BOTS["rule"](seat) for seat in range(2)]
    views = 0
    while ENGINE.outcome(state) is None:
        d = ENGINE.pending(state)[0]
        view = json.loads(json.dumps(ENGINE.view(state, d.seat)))
        if views % 3 == 0:
            console = Console(record=True, width=120)
            console.print(present.render(view, d.seat))
            text = console.export_text()
            assert all(present.fighter_name(f["name"]) in text for f in view["fighters"])
            if view["fighters"][d.seat].get("hand"):
                assert "Your hand" in text
                flat = " ".join(text.split())  # a long hand wraps onto the next line
                assert all(" ".join(present.action_card_name(c).split()) in flat
                           for c in view["fighters"][d.seat]["hand"])
        views += 1
        state = ENGINE.apply(state, d.seat, bots[d.seat].choose(view, d), rng).state
    spectator = Console(record=True, width=120)
    spectator.print(present.render(json.loads(json.dumps(ENGINE.view(state, None))), None))
    assert "automa" in spectator.export_text()
