"""The content pack: valid against its schema and faithful to every number the rulebook prints."""

from __future__ import annotations

import jsonschema
import pytest

from services.rules.games.barbaric import content as c


def test_every_file_validates_and_a_broken_one_is_refused() -> None:
    for name in c.FILES:
        c.validate_content(name, c.load_raw(name))
    broken = c.load_raw("monster")
    broken["boards"]["B"]["monster"]["move"] = -1
    with pytest.raises(jsonschema.ValidationError):
        c.validate_content("monster", broken)


def test_components_counts() -> None:
    assert sum(s.copies for s in c.SKILLS.values()) == 80  # Skill Cards (80)
    assert len(c.RIDERS) == 4 and len(c.GEARS) == 4
    assert len(c.EVENTS) == 14 and len(c.SURVIVORS) == 12 and len(c.MONSTER_CARDS) == 10
    assert c.RAGE_TOKENS == 8 and c.MAX_MINIONS == 6
    aids = [b["aid"] for kind in ("riders", "gears") for b in c.RAW["characters"][kind]]
    assert len(aids) == 8  # Player Aid Cards (8)


def test_map_has_one_core_in_the_middle_and_every_icon() -> None:
    assert c.CORE_SPACE == (0, 0)
    assert len(c.NESTS) == 6 and len(c.SURVIVOR_SPACES) == 6  # 6 Minions, 6 Survivors Tokens
    for name in ("spawn", "tunnel", "whirlpool", "exit", "resource"):
        assert c.with_icon(name)
    assert {c.SPACES[h].resource for h in c.with_icon("resource")} == {"fuel", "food", "scrap", "?", "??"}


def test_monster_boards_as_printed() -> None:
    a, b = c.BOARDS["A"], c.BOARDS["B"]
    assert a["monster"] == {"move": 1, "attack": 2, "range": 1}  # Monster Phase example
    assert a["minion"] == {"move": 0, "attack": 1, "range": 1, "health": 1}
    assert b["monster"] == {"move": 1, "attack": 2, "range": 1, "armor_per_player": 3}
    assert b["minion"] == {"move": 0, "attack": 1, "range": 1, "health": 1}
    assert [d["name"] for d in b["disruptions"]] == [
        "Stuned", "Confused", "Run Away", "Irritate", "Spawn", "Counter"]
    assert len(a["reactions"]) == 6 and len(a["frenzy_levels"]) == 8


def test_ruthless_tail_as_printed() -> None:
    tail = c.MONSTER_CARDS["ruthless-tail"]
    assert tail["text"] == ("Move toward the Character with the least damage, "
                            "then Attack all adjacent targets.")
    assert (tail["target"], tail["attack"]) == ("least_damage", "all_adjacent")


def test_named_characters_and_their_tokens() -> None:
    names = {b.name for b in (*c.RIDERS.values(), *c.GEARS.values())}
    for who in ("Keltz, the Vagabond", "Megalodon, the Tidehunter", "Genbu, the Immortal Shield",
                "Mobydick, the Gigantic", "Pia Amber, the Mercenary", "Theodore"):
        assert who in names
    tokens = {t["name"]: t for kind in ("riders", "gears") for b in c.RAW["characters"][kind]
              for t in b["aid"]["tokens"]}
    assert tokens["Tidal Trap"]["limit"] == 5 and tokens["Dive"]["max_stack"] == 1
    assert {"CARROT MISSILE", "RADAR SYSTEM", "OIL HUNT"} <= {s.name for s in c.SKILLS.values()}


def test_dials_start_at_two_and_learning_skills_have_both_costs() -> None:
    for board in (*c.RIDERS.values(), *c.GEARS.values()):
        assert board.dial[0]["max"] == 2  # 1 Stamina / 2 Health, 1 Energy / 2 Shields
        assert board.dial[-1].get("paragon") is True
        assert [d.get("icon") for d in board.dial].count("sub") == 3  # first, second, third Sub
        assert all(d.get("max", 0) <= 6 for d in board.dial)  # never above 6
        assert len(c.card_ids(board)) == 10
    for skill in c.SKILLS.values():
        assert (skill.cost is not None) == (skill.kind == "learning")
        assert skill.kind != "counter" or skill.condition


def test_dice_faces() -> None:
    assert c.MONSTER_DIE == (1, 2, 3, 4, 5, 6)
    assert {"any", "blank"} <= set(c.RESOURCE_DIE)  # "?" and the blank face
