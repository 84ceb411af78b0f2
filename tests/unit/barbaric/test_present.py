"""The presentation works on served JSON of real games, validates, and leaks nothing."""

from __future__ import annotations

import io
import random
import re
from pathlib import Path

import jsonschema
import pytest
from rich.console import Console

from services.platform.draws import SeededRandomness
from services.rules.games.barbaric import content, present
from services.rules.games.barbaric.bots import RuleBot
from services.rules.games.barbaric.engine import BarbaricEngine
from services.rules.games.contract import MatchConfig

ENGINE = BarbaricEngine()


def test_views_events_and_words_of_a_real_game() -> None:
    rng = SeededRandomness(3)
    state = ENGINE.setup(MatchConfig("competitive", 3), rng)
    bots = [RuleBot(s) for s in range(3)]
    console = Console(file=io.StringIO(), width=160)
    for _ in range(300):
        if ENGINE.outcome(state) is not None:
            break
        (d,) = ENGINE.pending(state)
        view = ENGINE.view(state, d.seat)
        jsonschema.validate(view, present.view_schema())
        assert all(present.describe_action(a, view) for a in d.legal)
        action = bots[d.seat].choose(view, d)
        transition = ENGINE.apply(state, d.seat, action, rng)
        for e in transition.events:
            projected = {"kind": e.kind, "data": dict(e.data)}
            jsonschema.validate(projected, present.event_schema())
            line = present.describe_event(projected, d.seat)
            assert line
            if e.kind == "card_drawn":
                assert e.visible_to == frozenset({e.data["seat"]})
        state = transition.state
        console.print(present.render(ENGINE.view(state, 0), 0))
    spectator = ENGINE.view(state, None)
    assert all("hand" not in p for p in spectator["players"])


def test_content_names_ruthless_tail_and_the_skills() -> None:
    pack = present.content()
    assert any(c["name"] == "RUTHLESS TAIL" for c in pack["monster"]["cards"])
    assert present.describe_action({"type": "learn", "card": "jackrabbit-carrot-missile/1"},
                                   {}) == "learn CARROT MISSILE"


def test_board_picks_name_the_board_once() -> None:
    """The set-up's board picks read as the table says them ("pick rider rider keltz" before)."""
    rng = SeededRandomness(3)
    state = ENGINE.setup(MatchConfig("competitive", 2), rng)
    (d,) = ENGINE.pending(state)
    assert d.kind == "pick_rider"
    assert [present.describe_action(a, {}) for a in d.legal] \
        == [f"pick the Rider {content.RIDERS[a['rider']].name}" for a in d.legal]
    assert present.describe_action({"type": "pick_rider", "rider": "keltz"}, {}) \
        == "pick the Rider Keltz, the Vagabond"
    gear = next(iter(content.GEARS))
    assert present.describe_action({"type": "pick_gear", "gear": gear}, {}) \
        == f"pick the Gear {content.GEARS[gear].name}"


PACKAGE = Path(present.__file__).parent
SURVIVOR_CHOICES = ("survivors_rescue", "survivors_plunder", "survivors_ignore")
RAW_IDS = {i for table in (content.SKILLS, content.EVENTS, content.MONSTER_CARDS,
                           content.SURVIVORS, content.MASTERY) for i in table if "-" in i}
RAW_IDS |= {"time-dimension", "tidal-trap"}


def test_every_event_the_engine_says_has_words() -> None:
    said = set()
    for source in PACKAGE.glob("*.py"):
        said |= set(re.findall(r'say\(\s*"([a-z_]+)"', source.read_text()))
    said |= {"repair", *SURVIVOR_CHOICES}  # said through an expression
    said.discard("survivors_")
    assert said - set(present.WORDS) == set()


@pytest.mark.parametrize(("mode", "seats"), [("solo", 1), ("competitive", 4)])
def test_events_of_random_games_read_as_words_with_names(mode: str, seats: int) -> None:
    """Every event of real games is told in words (no fallback to its kind), with the
    printed names of the cards and boards it names."""
    seen = set()
    for seed in range(2):
        rng = SeededRandomness(seed)
        pick = random.Random(seed)
        state = ENGINE.setup(MatchConfig(mode, seats), rng)
        while ENGINE.outcome(state) is None:
            (d,) = ENGINE.pending(state)
            transition = ENGINE.apply(state, d.seat, pick.choice(d.legal), rng)
            for e in transition.events:
                line = present.WORDS[e.kind](dict(e.data))  # KeyError: a kind without words
                assert "/" not in line and not any(i in line for i in RAW_IDS), line
                seen.add(e.kind)
            state = transition.state
    assert {"event", "turn_started", "damaged"} <= seen
    line = present.describe_event(
        {"kind": "rider_picked", "data": {"seat": 1, "rider": "keltz"}}, None)
    assert line == "seat 1 picks the Rider Keltz, the Vagabond"


def test_the_table_shows_components_by_name_with_printed_values() -> None:
    from .support import table

    t = table(2, positions=[(4, -2), (2, 2)])
    t.rage = 6  # revealed: Monster Move +1, Minion Move +1
    t.event_face = "dust-storm"
    t.players[0].learned = {"keltz-time-rift": ["keltz-time-rift/1", "keltz-time-rift/2"]}
    state = t.freeze()
    console = Console(file=io.StringIO(), width=250)
    console.print(present.render(ENGINE.view(state, 0), 0))
    text = console.file.getvalue()
    assert "Keltz, the Vagabond / Jackrabbit, the Outrunner" in text
    assert "Move 2, Attack 2, Range 1" in text  # board A's 1/2/1 plus Move +1
    assert "Minions (6): Move 1, Attack 1, Range 1, Health 1" in text
    assert "DUST STORM - While this Event is face-up, Skills have a maximum Range of 2." in text
    assert "2 max, 0 dmg" in text and "(4, -2)" in text
    assert "TIME RIFT II" in text


def test_the_first_player_roll_off_is_told_as_set_up_events() -> None:
    """``start`` gives ``setup``'s state from the same draws with the roll-off: every round
    of rolls (the tied highest roll again) and who goes first, public and in words."""
    from services.platform.canonical import canonical_json

    for seed in range(20):
        a, b = SeededRandomness(seed), SeededRandomness(seed)
        started = ENGINE.start(MatchConfig("competitive", 4), a)
        state = ENGINE.setup(MatchConfig("competitive", 4), b)
        assert canonical_json(ENGINE.encode(started.state)) == canonical_json(ENGINE.encode(state))
        assert a.records == b.records
        *rounds, first = started.events
        assert first.kind == "first_player" and first.visible_to is None
        assert first.data["seat"] == state.data["first_player"]
        rolling = [0, 1, 2, 3]
        for event in rounds:
            assert event.kind == "first_player_rolls" and event.visible_to is None
            rolls = {r["seat"]: r["roll"] for r in event.data["rolls"]}
            assert sorted(rolls) == rolling
            rolling = sorted(s for s, r in rolls.items() if r == max(rolls.values()))
        assert rolling == [first.data["seat"]]
        text = present.describe_event({"kind": rounds[0].kind, "data": dict(rounds[0].data)}, None)
        assert text.startswith("for first player: seat 0 rolls ")
    solo = ENGINE.start(MatchConfig("solo", 1), SeededRandomness(1))
    assert solo.events == ()  # one player: nobody to roll against
