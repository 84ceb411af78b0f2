"""Presentation: content, schemas tested against real views and events, words and rendering."""

from __future__ import annotations

import json
import random
from typing import Any

import jsonschema
import pytest
from rich.console import Console

from services.platform.draws import SeededRandomness
from services.rules.games.contract import MatchConfig
from services.rules.games.neon_reign import ENGINE, RuleBot, present
from services.rules.games.neon_reign.content import DECKS, HEROES

MODES = [("single", 2, {}), ("best-of-three", 2, {}), ("hero-match", 2, {}),
         ("solo", 1, {"difficulty": "hard"})]


def _games(games: int = 4) -> list[tuple[int, list[tuple[int | None, dict[str, Any]]],
                                         list[dict[str, Any]]]]:
    """(seats, views by viewer, events as served) of a few rule-bot and random games."""
    out = []
    for mode, seats, options in MODES:
        for game in range(games):
            rng = SeededRandomness(f"present-{mode}-{game}")
            rnd = random.Random(game)
            started = ENGINE.start(MatchConfig(mode, seats, options), rng)
            state = started.state
            bots = [RuleBot(game * 10 + s) for s in range(seats)]
            views: list[tuple[int | None, dict[str, Any]]] = []
            events = _served(started.events)  # the set-up's events come first
            while pending := ENGINE.pending(state):
                d = pending[0]
                view = json.loads(json.dumps(ENGINE.view(state, d.seat)))
                action = (bots[d.seat].choose(view, d) if game % 2 == 0
                          else rnd.choice(d.legal))
                t = ENGINE.apply(state, d.seat, action, rng)
                state = t.state
                events += _served(t.events)
                views += [(v, json.loads(json.dumps(ENGINE.view(state, v))))
                          for v in [*range(seats), None]]
            out.append((seats, views, events))
    return out


def _served(events: Any) -> list[dict[str, Any]]:
    return [{"kind": e.kind, "data": json.loads(json.dumps(dict(e.data))),
             "visible_to": sorted(e.visible_to) if e.visible_to else None} for e in events]


GAMES = _games()


def test_the_content_pack_names_every_card_and_hero_in_words() -> None:
    pack = present.content()
    json.dumps(pack)
    for deck in DECKS.values():
        for card_id in deck:
            entry = pack["cards"][card_id]
            assert entry["name"] and entry["text"] and entry["play_text"]
    assert pack["cards"]["NP-45"]["name"] == "Neon Punch"
    assert pack["cards"]["NP-45"]["damage"] == 4 and pack["cards"]["NP-45"]["colour"] == "red"
    for hero_id in HEROES:
        hero = pack["heroes"][hero_id]
        assert hero["ability_text"] and "Stars" in hero["star_power_text"]
    assert "shield" in pack["heroes"]["brick"]["ability_text"].lower()
    assert len(pack["universal_combos"]) == 5 and pack["computer_deck"]


def test_views_and_events_of_real_games_follow_their_schemas() -> None:
    views = jsonschema.Draft202012Validator(present.view_schema())
    events = jsonschema.Draft202012Validator(present.event_schema())
    for _, seen, happened in GAMES:
        for _, view in seen[::3]:
            views.validate(view)
        for event in happened:
            events.validate(event)


def test_every_event_kind_gets_a_line_in_words() -> None:
    kinds = set()
    for seats, _, happened in GAMES:
        for event in happened:
            kinds.add(event["kind"])
            viewers = event["visible_to"] or [*range(seats), None]
            for viewer in viewers:
                line = present.describe_event(event, viewer)
                assert line and line.strip() and "{" not in line, event
    assert {"attacked", "damage", "ko", "stars", "heroes_dealt", "drew_count"} <= kinds
    assert kinds <= set(present.EVENT_KINDS)


def test_a_star_power_event_reads_like_the_table_talk() -> None:
    event = {"kind": "star_power", "data": {"side": 1, "hero": "ruin", "effects": {"damage": 4}}}
    assert present.describe_event(event, 0) == "Ruin's Star Power fires for seat 1: 4 damage"
    hit = {"kind": "damage", "data": {"side": 0, "amount": 4, "prevented": 0, "lost": 4,
                                      "health": 21, "source": "star power"}}
    assert present.describe_event(hit, 0) == "You take 4 damage (star power), health 21"


def test_events_read_in_english_for_you_and_for_another_seat() -> None:
    """The verb agrees with its subject: "You attack", "Seat 1 attacks"; "your top card", not
    "you's" (seen in the README's curl walkthrough)."""
    said = lambda kind, viewer, **data: present.describe_event(  # noqa: E731
        {"kind": kind, "data": {"side": 1, **data}}, viewer)
    assert said("attacked", 1, cards=["NP-45"]) == "You attack with Neon Punch (red, 4 damage)"
    assert said("attacked", 0, cards=["NP-45"]) == "Seat 1 attacks with Neon Punch (red, 4 damage)"
    assert said("passed", 0) == "Seat 1 does not defend" and said("passed", 1) == "You do not defend"
    assert said("stars", 0, gained=2) == "Seat 1 gains 2 Star(s)"
    assert said("struck", 1, card="NP-45") == (
        "Strike: your top card Neon Punch (red, 4 damage) is discarded")
    assert said("struck", None, card="NP-45").startswith("Strike: seat 1's top card")
    assert said("strike_missed", 0) == "Strike: seat 1 has no card left to discard"
    assert said("recovered", 0, drew=2) == "Seat 1 Recovers and draws 2 card(s)"
    assert said("damage", 0, lost=3, health=9) == "Seat 1 takes 3 damage, health 9"
    assert said("resigned", 1) == "You resign" and said("resigned", 0) == "Seat 1 resigns"


def test_actions_are_described_by_card_names_and_printed_values() -> None:
    line = present.describe_action({"type": "attack", "cards": ["NP-45", "NP-21"]}, {})
    assert line == ("Attack with Neon Punch (red, 4 damage) + Guard Stance (down Joystick: "
                    "gain 1 Shield(s), gain 1 Star(s))")
    assert present.describe_action({"type": "shields", "spend": 0}, {}) == "Keep your Shields"
    assert present.describe_action({"type": "resign"}, {}) == "Resign the match"


def _rendered(games: list[tuple[int, list[tuple[int | None, dict[str, Any]]], list[Any]]]) -> None:
    for _, seen, _ in games:
        for viewer, view in seen:
            console = Console(record=True, width=100)
            console.print(present.render(view, viewer))
            screen = console.export_text()
            for side in view["sides"]:
                assert f"Health {side['health']}/25" in screen
            if viewer is not None:
                for card_id in view["sides"][viewer].get("hand", []):
                    assert card_id in screen and present.card_name(card_id) in screen


def test_render_shows_hand_names_and_health_for_every_view() -> None:
    """Every view of the first rule-bot game of each mode; ``-m slow`` (or NEON_SLOW=1)
    of both rule-bot games of each."""
    assert len({seats for seats, _, _ in GAMES[::4]}) == 2 and len(GAMES[::4]) == len(MODES)
    _rendered(GAMES[::4])


@pytest.mark.slow
def test_render_shows_hand_names_and_health_for_every_view_of_every_rule_bot_game() -> None:
    _rendered(GAMES[::2])
