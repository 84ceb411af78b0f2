"""The attack frame: typed, its windows on the shared helper, and hashed as before.

Engine versions 2 and 3 are published (exports name them), so their states must encode the
same whatever shape the code gives the attack. The digests below were taken on the code
before the attack became a typed frame (main at f9760c3); a change of any encoded byte of any
state of these games fails this test.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from services.platform.draws import SeededRandomness
from services.rules.games.contract import MatchConfig, json_key
from services.rules.games.neon.attack import AlliesWindow, Attack, new_attack
from services.rules.games.neon.engine import ENGINES, NeonEngine
from services.rules.games.neon.state import State
from services.rules.games.windows import ResponseWindow

GOLDEN = {
    "2 rebirth 2 {} 0": "6c60601784ff8436",
    "2 rebirth 2 {} 1": "a57349979f1a7b11",
    "2 battle-royale 4 {} 0": "ada03ff416f920b4",
    "2 battle-royale 4 {} 1": "a78796d9c0f2ffc3",
    "2 coalition 4 {} 0": "b4b396601ad948b4",
    "2 coalition 4 {} 1": "dac5c98b468a9b51",
    "2 coalition 6 {'teams': 2} 0": "437f91195b060d2b",
    "2 coalition 6 {'teams': 2} 1": "0431e5005b370201",
    "2 coalition 6 {'teams': 3} 0": "59fafb09052ba5d6",
    "2 coalition 6 {'teams': 3} 1": "630fb7527d7df5f5",
    "3 rebirth 2 {} 0": "093e982599e42f3a",
    "3 rebirth 2 {} 1": "9b61f2f23a2f9d04",
    "3 battle-royale 4 {} 0": "2faca40a084390bc",
    "3 battle-royale 4 {} 1": "8e5263a7caa86dff",
    "3 coalition 4 {} 0": "8952d5b3e66baa0c",
    "3 coalition 4 {} 1": "be99fd58270ecf2b",
    "3 coalition 6 {'teams': 2} 0": "d167a456a0c0f411",
    "3 coalition 6 {'teams': 2} 1": "145a95650bc0c848",
    "3 coalition 6 {'teams': 3} 0": "812934a32536e7e7",
    "3 coalition 6 {'teams': 3} 1": "f14651aa63db0812",
}


def pick(engine: NeonEngine, state: State, chance: SeededRandomness) -> tuple[int, Any]:
    """Random legal play; in version 3, an ally asked to help resigns now and then (so the
    allies' window also closes because everyone in it left)."""
    pending = engine.pending(state)
    standing = engine.standing(state)
    if standing and pending[0].kind == "attack_help" and chance.randbelow(3) == 0:
        return pending[0].seat, {"type": "resign"}
    if standing and chance.randbelow(300) == 0:
        resign = standing[chance.randbelow(len(standing))]
        return resign.seat, dict(resign.legal[0])
    decision = pending[chance.randbelow(len(pending))]
    return decision.seat, decision.legal[chance.randbelow(len(decision.legal))]


def digest(version: str, mode: str, seats: int, options: dict[str, Any], seed: int) -> str:
    engine = ENGINES[version]
    rng = SeededRandomness(f"attack-frame-{version}-{mode}-{seats}-{options}-{seed}")
    chance = SeededRandomness(f"attack-frame-pick-{seed}")
    state = engine.setup(MatchConfig(mode, seats, options), rng)
    out = hashlib.sha256(json_key(engine.encode(state)).encode())
    while engine.outcome(state) is None:
        seat, action = pick(engine, state, chance)
        state = engine.apply(state, seat, action, rng).state
        out.update(json_key(engine.encode(state)).encode())
        out.update(json_key(engine.view(state, None)).encode())
    return out.hexdigest()[:16]


SETUPS = [(v, m, n, o, seed) for v in ("2", "3") for m, n, o in (
    ("rebirth", 2, {}), ("battle-royale", 4, {}), ("coalition", 4, {}),
    ("coalition", 6, {"teams": 2}), ("coalition", 6, {"teams": 3})) for seed in (0, 1)]


@pytest.mark.parametrize(("version", "mode", "seats", "options", "seed"), SETUPS)
def test_states_encode_exactly_as_before_the_typed_frame(version, mode, seats, options,
                                                         seed) -> None:
    key = f"{version} {mode} {seats} {options} {seed}"
    assert digest(version, mode, seats, options, seed) == GOLDEN[key]


def test_each_stage_waits_for_its_side() -> None:
    attack = new_attack(0, "base", ("f:1",), 2)
    assert attack.answering.current == 0  # prep: the attacker's effects before the roll
    defending = attack.but(stage="dafter", defender="f:1")
    assert defending.answering.current == 1
    helping = attack.but(stage="help", allies=AlliesWindow("attack_prep", ResponseWindow((2, 4))))
    assert helping.answering.current == 2


def test_the_allies_window_encodes_the_allies_still_to_answer() -> None:
    window = AlliesWindow("defense_after", ResponseWindow((2, 4)))
    attack = new_attack(0, "base", ("f:1",), 2).but(stage="help", allies=window)
    assert attack.encoded()["helpers"] == (2, 4)
    passed = AlliesWindow("defense_after", window.window.pass_(2))
    assert attack.but(allies=passed).encoded()["helpers"] == (4,)
    closed = AlliesWindow("defense_after", passed.window.pass_(4))
    assert attack.but(allies=closed).encoded()["helpers"] == (4,)  # the last one asked
    assert attack.but(allies=None).encoded().keys().isdisjoint({"help", "helpers"})


def test_the_full_blocks_choice_is_encoded_once_a_defender_made_it() -> None:
    attack = new_attack(0, "base", ("f:1",), 2)
    assert "fulls_on_crits" not in attack.encoded()
    chose = attack.but(full_blocks_on_crits=None, blocks_assigned=True)
    assert chose.encoded()["fulls_on_crits"] is None
    assert isinstance(chose, Attack) and chose.kind == "attack" and chose.owner == 0


@pytest.mark.parametrize("assigned", [False, True])
@pytest.mark.parametrize("helping", [False, True])
def test_the_encoded_keys_come_sorted(assigned: bool, helping: bool) -> None:
    """Views show the attack's keys in sorted order; ``encoded`` writes them so, unsorted."""
    window = AlliesWindow("attack_prep", ResponseWindow((2, 4))) if helping else None
    attack = new_attack(0, "base", ("f:1",), 2).but(blocks_assigned=assigned, allies=window)
    keys = list(attack.encoded())
    assert keys == sorted(keys)
    assert ("fulls_on_crits" in keys) is assigned and ("helpers" in keys) is helping


def test_an_attacks_but_is_frozen_but():
    """``Attack.but`` writes ``frozen.but`` out: the same attack, a new object, frozen, and
    a name that is no field refused as ``dataclasses.replace`` refuses it."""
    import dataclasses

    from services.rules.games.frozen import but as frozen_but
    from services.rules.games.neon.attack import Attack, new_attack

    fr = new_attack(1, "base", ("f:0",), 2)
    for changes in ({}, {"stage": "after"}, {"attack_roll": ("hit",), "attack_dice": 3}):
        made = fr.but(**changes)
        assert made == frozen_but(fr, changes) == dataclasses.replace(fr, **changes)
        assert made is not fr and type(made) is Attack
        assert list(vars(made)) == list(vars(dataclasses.replace(fr, **changes)))
        with pytest.raises(dataclasses.FrozenInstanceError):
            made.stage = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        fr.but(not_a_field=1)
    assert fr == new_attack(1, "base", ("f:0",), 2)
