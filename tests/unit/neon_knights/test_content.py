"""The content pack: valid against its schema and faithful to the rulebook's numbers."""

from __future__ import annotations

import copy
from collections import Counter

import jsonschema
import pytest

from services.rules.games.neon_knights import content as c


def test_component_counts_match_the_rulebook() -> None:
    assert len(c.DECK_PARTS) == 40
    assert len(c.SPONSORS) == 18
    assert len(c.UPGRADES) == 32
    assert len(c.IMPLANTS) == 30
    assert len(c.FAN_BETS) == 15
    assert len(c.STAGES) == 16
    assert len(c.TILES) == 23 and c.FINISH_TILE["kind"] == "finish"
    assert c.RAW["dice"]["count"] == 3


def test_parts_come_in_four_colours_and_four_starters() -> None:
    colours = Counter(c.PARTS[p]["colour"] for p in c.DECK_PARTS)
    assert colours == {"red": 10, "orange": 10, "yellow": 10, "green": 10}
    assert {c.PARTS[s]["name"] for s in c.STARTERS.values()} == {"Brakes", "Tires", "Engine", "Turbo"}
    assert c.STARTERS["red"] == "starter-red" and c.PARTS["starter-green"]["name"] == "Turbo"


def test_upgrade_slots_one_weapon_one_shield_two_specials() -> None:
    assert c.UPGRADE_SLOTS == {"weapon": 1, "shield": 1, "special": 2}
    emp = [u for u in c.UPGRADES.values() if u["name"] == "EMP Hacker"]
    assert emp and all(u["amount"] == 3 for u in emp)  # "increase or lower ... speed by 3"


def test_implants_in_three_levels_and_stages_in_four() -> None:
    assert Counter(i["level"] for i in c.IMPLANTS.values()) == {1: 10, 2: 10, 3: 10}
    assert Counter(s["stage"] for s in c.STAGES.values()) == {1: 4, 2: 4, 3: 4, 4: 4}


def test_damage_die_faces_hold_blank_one_and_two() -> None:
    assert {f["damage"] for f in c.DIE_FACES} == {0, 1, 2}
    assert all((f["face"] == "blank") == (f["damage"] == 0) for f in c.DIE_FACES)


@pytest.mark.parametrize(("speed", "colour"), [(2, "red"), (3, "red"), (4, "orange"), (5, "orange"),
                                               (6, "yellow"), (7, "yellow"), (8, "green"), (10, "green")])
def test_speed_zones(speed: int, colour: str) -> None:
    assert c.speed_colour(speed) == colour


def test_danger_lines_free_passage_as_listed() -> None:
    # red speed: free through every light
    assert all(c.danger_dice(2, line) == 0 for line in c.COLOURS)
    # orange: free through yellow and orange only, not red
    assert (c.danger_dice(4, "yellow"), c.danger_dice(4, "orange"), c.danger_dice(4, "red")) == (0, 0, 1)
    # yellow: free through yellow only
    assert (c.danger_dice(6, "yellow"), c.danger_dice(6, "orange"), c.danger_dice(6, "red")) == (0, 1, 2)
    # green: check every line; speed 10 on orange rolls 2 dice (the rulebook's example)
    assert (c.danger_dice(10, "yellow"), c.danger_dice(10, "orange"), c.danger_dice(10, "red")) == (1, 2, 3)


def test_schema_refuses_a_bad_part() -> None:
    data = copy.deepcopy(c.RAW["parts"])
    data["parts"][0]["colour"] = "purple"
    with pytest.raises(jsonschema.ValidationError):
        c.validate_content("parts", data)


def test_schema_refuses_a_bad_tile_cell() -> None:
    data = copy.deepcopy(c.RAW["tiles"])
    data["tiles"][0]["rows"][0]["cells"] = "..X"
    with pytest.raises(jsonschema.ValidationError):
        c.validate_content("tiles", data)
