"""Setup and match options."""

from __future__ import annotations

import pytest

from services.rules.games.contract import ConfigError, MatchConfig
from services.rules.games.neon_reign import ENGINE

from .support import FakeRandomness, new_match


def test_each_player_starts_with_25_health_and_7_cards() -> None:
    state = new_match()
    for side in state.sides:
        assert (side.health, len(side.hand), len(side.deck), side.stars, side.shields) == (
            25, 7, 37, 0, 0)
    assert state.active == 0
    assert state.sides[0].hero != state.sides[1].hero


def test_chosen_decks_and_heroes() -> None:
    state = new_match(decks=["chrome-fury", "neon-pulse"], heroes=["rex", "lux"],
                      first_player=1)
    assert state.sides[0].hand[0].startswith("CF-")
    assert (state.sides[0].hero, state.sides[1].hero, state.active) == ("rex", "lux", 1)


def test_random_first_player_uses_the_dice() -> None:
    starters = {new_match(seed=s, first_player="random").active for s in range(20)}
    assert starters == {0, 1}


@pytest.mark.parametrize(("mode", "seats", "options", "words"), [
    ("single", 2, {"decks": ["neon-pulse", "neon-pulse"]}, "different Action deck"),
    ("single", 2, {"decks": ["no-deck", "neon-pulse"]}, "unknown Action deck"),
    ("single", 2, {"heroes": ["volt", "volt"]}, "only be taken once"),
    ("single", 2, {"heroes": ["volt"]}, "each of the 2 seat"),
    ("single", 2, {"heroes": ["nobody", "volt"]}, "unknown hero"),
    ("single", 2, {"first_player": 2}, "first_player"),
    ("single", 2, {"difficulty": "hard"}, "does not apply"),
    ("single", 3, {}, "2 seat"),
    ("solo", 1, {"first_player": 0}, "does not apply"),
    ("solo", 1, {"difficulty": "brutal"}, "difficulty"),
    ("solo", 1, {"computer_hero": "volt"}, "Computer hero"),
    ("hero-match", 2, {"heroes": ["volt", "kira"]}, "2 heroes"),
    ("marathon", 2, {}, "unknown mode"),
])
def test_bad_options_are_refused(mode: str, seats: int, options: dict[str, object],
                                 words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        ENGINE.setup(MatchConfig(mode, seats, options), FakeRandomness())


def test_mode_names() -> None:
    modes = ENGINE.modes()
    assert list(modes) == ["single", "best-of-three", "hero-match", "solo"]
    assert (modes["solo"].min_seats, modes["solo"].max_seats) == (1, 1)


def test_schemas_are_real_json_schemas() -> None:
    import jsonschema

    config = jsonschema.Draft202012Validator(ENGINE.config_schema())
    action = jsonschema.Draft202012Validator(ENGINE.action_schema())
    jsonschema.Draft202012Validator.check_schema(ENGINE.config_schema())
    jsonschema.Draft202012Validator.check_schema(ENGINE.action_schema())
    assert config.is_valid({"heroes": [["volt", "kira"], ["rex", "lux"]], "first_player": "random"})
    assert not config.is_valid({"colour": "red"})
    for good in ({"type": "attack", "cards": ["NP-01"]}, {"type": "recover"}, {"type": "pass"},
                 {"type": "defend", "cards": ["NP-33"], "targets": ["CF-17"]},
                 {"type": "pick_hero", "hero": "volt"}):
        assert action.is_valid(good), good
    assert not action.is_valid({"type": "attack", "cards": []})
    assert not action.is_valid({"type": "attack", "cards": ["a", "b", "c", "d"]})


def test_setup_uses_only_the_injected_randomness() -> None:
    a = ENGINE.encode(new_match(seed="same"))
    b = ENGINE.encode(new_match(seed="same"))
    assert a == b


def test_the_engine_is_pure() -> None:
    """No Python random, no clock, nothing of the platform: chance comes only through rng."""
    from pathlib import Path

    import services.rules.games.neon_reign as package

    for module in Path(package.__file__).parent.glob("*.py"):
        source = module.read_text(encoding="utf-8")
        if module.name == "bots.py":  # a player, not the engine: its tie-breaks are seeded draws
            source = source.replace("from services.platform.draws import SeededRandomness", "")
        if module.name == "canon.py":  # the state hash's bytes: RFC 8785 encoding, pure functions
            source = source.replace("from services.platform.canonical import (", "")
        for banned in ("import random", "import time", "datetime", "services.platform", "open("):
            assert banned not in source, (module.name, banned)
