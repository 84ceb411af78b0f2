"""The terminal's rendering: a game's own present.py when it has one, a generic one otherwise."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text

from services.cli.screen import (
    GenericPresentation,
    Presenter,
    load_presentation,
    narrate,
    options_table,
)
from services.rules.games.contract import Decision

VIEW = {"you": 0, "sides": [{"side": 0, "health": 21, "hand": ["NP-06"]},
                            {"side": 1, "health": 25, "hand_count": 7}]}


class FakePresentation:
    """A tiny Neon-Reign-like presentation: names cards, tells star power."""

    CARDS = {"NP-06": "Neon Punch"}

    def render(self, view: dict, viewer: int | None) -> Text:
        mine = view["sides"][viewer]
        return Text(f"You: {mine['health']} health; hand: "
                    + ", ".join(self.CARDS[c] for c in mine["hand"]))

    def describe_event(self, event: dict, viewer: int | None) -> str:
        if event["kind"] == "damage":
            return f"Ruin's Star Power hits you for {event['data']['amount']}"
        return event["kind"]

    def describe_action(self, action: dict, view: dict) -> str:
        return "Attack with " + ", ".join(self.CARDS[c] for c in action["cards"])


def _text(renderable: object) -> str:
    console = Console(record=True, width=100, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text()


def test_a_games_presentation_names_cards_and_tells_what_happened() -> None:
    presenter = Presenter("fake", FakePresentation())
    assert "You: 21 health; hand: Neon Punch" in _text(presenter.render(VIEW, 0))
    records = [{"type": "ActionAccepted", "seat": 1, "action": {"type": "attack", "cards": ["NP-06"]},
                "events": [{"kind": "damage", "data": {"amount": 4, "side": 0}}]}]
    lines = narrate(presenter, records, 0, VIEW, {1: "Ruin"})
    assert lines == ["Ruin: Attack with Neon Punch", "  Ruin's Star Power hits you for 4"]
    decisions = [Decision(seat=0, kind="turn", legal=({"type": "attack", "cards": ["NP-06"]},),
                          prompt="Attack or recover")]
    menu, numbered = options_table(presenter, decisions, VIEW)
    assert "Attack or recover" in _text(menu) and "1  Attack with Neon Punch" in _text(menu)
    assert numbered == [(0, {"type": "attack", "cards": ["NP-06"]})]


def test_without_a_presentation_the_view_is_a_tree_in_words_not_json() -> None:
    generic = Presenter("fake")
    shown = _text(generic.render(VIEW, 0))
    assert "health: 21" in shown and "hand: NP-06" in shown and "hand count: 7" in shown
    assert "{" not in shown and '"' not in shown
    event = {"kind": "star_power", "data": {"side": 1, "damage": 4}}
    assert GenericPresentation().describe_event(event, 0) == "star power: side 1; damage 4"
    assert GenericPresentation().describe_event({**event, "data": {"side": 0}}, 0) == "star power: you"
    assert GenericPresentation().describe_action({"type": "attack", "cards": ["a", "b"]}, {}) == \
        "attack: cards a, b"
    hidden = [{"type": "ActionAccepted", "seat": 1, "events": []}]
    assert narrate(generic, hidden, 0, VIEW) == ["seat 1: made a hidden choice"]


def test_a_broken_presentation_falls_back_rather_than_ending_the_match() -> None:
    class Broken:
        def describe_action(self, action: dict, view: dict) -> str:
            raise KeyError("no such card")

    assert Presenter("x", Broken()).describe_action({"type": "pass"}, {}) == "pass"


def test_a_present_module_is_picked_up_when_it_appears(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "fakegame_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("NEON_ENGINES", "fakegame=fakegame_pkg")
    assert not load_presentation("fakegame").from_game
    (package / "present.py").write_text(
        "def describe_action(action, view):\n    return 'from the game'\n")
    sys.modules.pop("fakegame_pkg.present", None)
    presenter = load_presentation("fakegame")
    assert presenter.from_game
    assert presenter.describe_action({"type": "x"}, {}) == "from the game"
    assert "health: 21" in _text(presenter.render(VIEW, 0))  # what it lacks stays generic
