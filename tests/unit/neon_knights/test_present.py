"""Presentation: schemas hold for real views and events; words never leak hidden cards."""

from __future__ import annotations

import jsonschema
from rich.console import Console

from services.platform.draws import SeededRandomness
from services.rules.bots import RandomBot
from services.rules.games.contract import MatchConfig
from services.rules.games.neon_knights import present

from .support import ENGINE


def test_content_names_every_card_with_its_values() -> None:
    pack = present.content()
    assert len(pack["parts"]) == 44 and len(pack["upgrades"]) == 32 and len(pack["tiles"]) == 24
    emp = next(u for u in pack["upgrades"] if u["name"] == "EMP Hacker")
    assert "by 3" in emp["text"]
    assert present.part_text("y08") == "Quantum Block (yellow, Power 4, bonus 2, hand: re-roll dice)"


def test_views_events_and_words_on_a_real_game() -> None:
    rng = SeededRandomness("present")
    state = ENGINE.setup(MatchConfig("normal", 3, {}), rng)
    bot = RandomBot("present")
    view_schema = jsonschema.Draft202012Validator(present.view_schema())
    event_schema = jsonschema.Draft202012Validator(present.event_schema())
    console = Console(width=200, record=True)
    kinds = set()
    for step in range(3000):
        if ENGINE.outcome(state) is not None:
            break
        decision = ENGINE.pending(state)[0]
        view = ENGINE.view(state, decision.seat)
        if step % 50 == 0:
            view_schema.validate(view)
            console.print(present.render(view, decision.seat))
            console.print(present.render(ENGINE.view(state, None), None))
        for action in decision.legal[:5]:
            assert present.describe_action(action, view)
        transition = ENGINE.apply(state, decision.seat, bot.choose(decision), rng)
        for event in transition.events:
            projected = {"kind": event.kind, "data": dict(event.data)}
            event_schema.validate(projected)
            line = present.describe_event(projected, None)
            assert line and line != event.kind or event.kind in ("cleaned_up",), event.kind
            kinds.add(event.kind)
        state = transition.state
    assert ENGINE.outcome(state) is not None
    assert {"race_result", "danger_check", "tile_placed", "paid"} <= kinds
    assert "Drivers" in console.export_text()


def test_describe_a_speed_and_a_private_bet() -> None:
    assert present.describe_action({"type": "speed", "to": 7}, {}) == "Speed 7 (yellow)"
    line = present.describe_event({"kind": "fan_bet_dealt", "data": {"seat": 0, "bet": "b01"}}, 0)
    assert "Podium Finish" in line


def test_the_terminal_shows_cars_and_the_shop_with_printed_values() -> None:
    state = ENGINE.setup(MatchConfig("normal", 2, {}), SeededRandomness("printed"))
    view = ENGINE.view(state, 0)
    console = Console(width=400, record=True)
    console.print(present.render(view, 0))
    text = console.export_text()
    for slot, part in view["players"][0]["car"].items():
        if part is not None:
            printed = present.PARTS[part]
            assert f"{slot[0].upper()}:{printed['name']} P{printed['power']}+{printed['bonus']}" in text
    shown = [c for cards in view["rows"].values() for c in cards]
    assert shown, "the shop's rows hold cards at set-up"
    for card in shown:
        assert present.card_text(card) in text
