"""The attack frame: typed, its windows on the shared helper, and hashed as before.

Engine versions 2 and 3 are published (exports name them), so their states must encode the
same whatever shape the code gives the attack. The digests below were taken on the code
before the attack became a typed frame (main at f9760c3); a change of any encoded byte of any
state of these games fails this test. They also cover the spectator view of every state, and
were taken again when the views began to show another fighter's supplies by their symbols
only (RULES.md, "Hidden information"): the states' own digests (the same loop without the
views) were the same before and after that change.
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
    "2 rebirth 2 {} 0": "7a16163d93396123",
    "2 rebirth 2 {} 1": "58029f0334340e9b",
    "2 battle-royale 4 {} 0": "69e6446681765113",
    "2 battle-royale 4 {} 1": "1f12f701e7f399c3",
    "2 coalition 4 {} 0": "a39f540d2425f648",
    "2 coalition 4 {} 1": "f7d86fda9faf60ae",
    "2 coalition 6 {'teams': 2} 0": "780b19e2f03777ba",
    "2 coalition 6 {'teams': 2} 1": "7a3028e5063ddbde",
    "2 coalition 6 {'teams': 3} 0": "75b1774c8e7a9539",
    "2 coalition 6 {'teams': 3} 1": "005dab1ecdc39223",
    "3 rebirth 2 {} 0": "90fe93971f566d02",
    "3 rebirth 2 {} 1": "7aa8d3dbd95448da",
    "3 battle-royale 4 {} 0": "524a1f1d843a21c8",
    "3 battle-royale 4 {} 1": "5de8d1392755b2e8",
    "3 coalition 4 {} 0": "5b55ec34ef2060a3",
    "3 coalition 4 {} 1": "b43480f2441a43fa",
    "3 coalition 6 {'teams': 2} 0": "28197cbcb9f7abc4",
    "3 coalition 6 {'teams': 2} 1": "b65d044a549a68fc",
    "3 coalition 6 {'teams': 3} 0": "3ddebaf013ae8d77",
    "3 coalition 6 {'teams': 3} 1": "e5ca9f8f2e1fc9ef",
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
