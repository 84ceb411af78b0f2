"""The reference content pack: valid against its schema and faithful to the rulebook's numbers."""

from __future__ import annotations

import json
from collections import Counter

import jsonschema
import pytest

from services.rules.games.neon import content
from services.rules.games.neon.content import (
    ACTION_CARDS,
    ATTACK_DIE,
    BOT_TOKENS,
    CONTENT_DIR,
    DEFENSE_DIE,
    FIGHTERS,
    LOOT,
    SECTORS,
    UPGRADES,
)

SCHEMA = json.loads((CONTENT_DIR / "schema.json").read_text())


@pytest.mark.parametrize("name", ["components", "sectors", "fighters", "action_cards", "loot",
                                  "upgrades"])
def test_content_files_validate_against_the_schema(name: str) -> None:
    schema = {"$defs": SCHEMA["$defs"], **SCHEMA[name]}
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(content.RAW[name], schema)


def test_component_counts_match_the_rulebook() -> None:
    assert len(ACTION_CARDS) == 42
    assert Counter(c.fighter for c in ACTION_CARDS.values()) == {f: 7 for f in FIGHTERS}
    assert len(LOOT) == 66 and {c.cls for c in LOOT.values()} == {1, 2, 3}
    assert len(UPGRADES) == 8 and len(FIGHTERS) == 6
    assert len(BOT_TOKENS) == 10 and len({t.rsplit("-", 1)[0] for t in BOT_TOKENS}) == 5
    assert sorted(s.name for s in SECTORS.values()) == sorted([
        "Park", "Factory", "Electric Charging Station", "Highway", "Underpass", "Shopping Mall",
        "Railway Station", "Police Station", "Stadium", "TV Tower"])
    assert sum(content.HEALTH_TOKENS.values()) == 72
    assert sorted(v for row in content.FIGHTER_HEALTH_ROWS for v in row) == [1, 1, 2, 2, 2, 3]
    assert sorted(v for row in content.AUTOMA_HEALTH_ROWS for v in row) == [1, 1, 1, 1, 1, 2]
    assert set(ATTACK_DIE) == {"crit", "hit", "maybe", "miss"}
    assert set(DEFENSE_DIE) == {"full", "block", "fail_energy", "fail"}


def test_named_cards_are_as_printed() -> None:
    akari = FIGHTERS["akari"]
    assert (akari.base_armour, akari.base_weapon) == (1, 1)
    assert dict(akari.manoeuvres) == {"A": 1, "B": 1, "C": 2}
    assert [(a.id, a.cost) for a in akari.abilities] == [("pull", 2), ("neko", 2)]
    assert FIGHTERS["glyba"].ability("howitzer") and FIGHTERS["glyba"].ability("shield")
    assert FIGHTERS["glyba"].ability("shield").dice == 2
    assert FIGHTERS["snake"].ability("smoke") and FIGHTERS["illusion"].ability("trap")
    assert UPGRADES["stabilizer"].timing == "once_per_round"
    assert UPGRADES["stabilizer"].kind == "flip_maybe_to_hit"
    reaper = LOOT["reaper-1"]
    assert [e.kind for e in reaper.effects] == ["add_attack_die", "block_to_fail"]
    assert [e.supply for e in reaper.effects] == ["ammo", "energy"]
    jokers = [c for c in ACTION_CARDS.values() if c.joker]
    assert len(jokers) == 6
    assert all(set(h) == {"move", "attack", "search", "energy1"} for c in jokers for h in c.halves)
