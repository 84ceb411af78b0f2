"""The rules-fidelity audit for engine 1.5.0 (RULES.md, "Rulebook coverage", "1.5.0"): a
rule interaction the engine got wrong, written from the rulebook's words (quoted above
each test) before the fix; engine 1.4.0 keeps its old answer so that its exports replay.

Neon Pulse reference-1 cards: NP-01 red 2, NP-09..12 green 1, NP-17..20 Up (2 Stars),
NP-21..24 Down (1 Star + 1 Shield). Chrome Fury: CF-33 Throw, CF-37 Block, CF-41 Combo
Breaker. The Attacker is Sol (Hero Ability: heal on Recover, nothing here); the defender
is Lux (a green Button bonus: it plays no Button here).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from services.rules.games.neon_reign import ENGINE
from services.rules.games.neon_reign.content import COMPUTER_DECK
from services.rules.games.neon_reign.resolution import combos_after_counters
from services.rules.games.neon_reign.rulesets import V1_4
from services.rules.games.neon_reign.state import Side
from services.rules.replay import ReplayError, replay

from .support import act, attack, defend, position, side


def attacked(attack_cards: list[str], defender_hand: list[str], rules: object = None) -> object:
    state = position(side("sol", "neon-pulse", attack_cards),
                     side("lux", "chrome-fury", defender_hand))
    if rules is not None:
        state = replace(state, rules=rules)
    return attack(state, *attack_cards)


# Universal Combos: "When you Attack, check your played cards against all Universal Combos
# and activate every effect that you meet the requirement for." Throw: "Removes an
# opponent's played Joystick card." Block: "Removes an opponent's played Button card."
# The played cards Down + green + green meet Double Tap and Guard Break, not Jab Strike
# ("Joystick and a Button"); the Block takes a green away (and so both combos with it): it
# cannot give the Attacker a Jab Strike its played cards never met.
def test_a_block_gives_the_attacker_no_combo_its_played_cards_did_not_meet() -> None:
    state = attacked(["NP-21", "NP-09", "NP-10"], ["CF-37"])
    deck = state.sides[1].deck
    after = defend(state, "CF-37", targets=["NP-10"])
    sol, lux = after.sides
    assert lux.deck == deck  # no Strike: the top card of Lux's deck is still there
    assert lux.discard == ("CF-37",)
    assert (sol.stars, sol.shields, 25 - lux.health) == (1, 1, 1)  # the Down and a green


def test_a_throw_gives_the_attacker_no_combo_its_played_cards_did_not_meet() -> None:
    # Up + Up + red meet Same Stick (+1 Star); the Throw takes an Up: no Same Stick, and no
    # Jab Strike either (the played cards were two Joysticks and a Button).
    state = attacked(["NP-17", "NP-18", "NP-01"], ["CF-33"])
    deck = state.sides[1].deck
    after = defend(state, "CF-33", targets=["NP-18"])
    sol, lux = after.sides
    assert lux.deck == deck
    assert (sol.stars, 25 - lux.health) == (2, 2)


def test_a_counter_still_leaves_the_pairs_of_the_cards_it_did_not_remove() -> None:
    # Three greens make three Double Taps; a Block on one leaves one pair: 1 + 1 + 1 damage.
    state = attacked(["NP-09", "NP-10", "NP-11"], ["CF-37"])
    after = defend(state, "CF-37", targets=["NP-11"])
    assert 25 - after.sides[1].health == 3


# FAQ: "Can I play a Counter card when it will have no effect? No." After the Block, the
# Attack meets no combo any more: a Combo Breaker beside it would stop nothing.
def test_no_idle_combo_breaker_against_a_combo_only_the_counters_would_have_made() -> None:
    state = attacked(["NP-21", "NP-09", "NP-10"], ["CF-37", "CF-41"])
    idle = {"type": "defend", "cards": ["CF-37", "CF-41"], "targets": ["NP-10"]}
    (decision,) = ENGINE.pending(state)
    assert idle not in decision.legal
    assert "no effect" in str(ENGINE.validate(state, 1, idle))
    # The Combo Breaker alone still stops Double Tap and Guard Break.
    assert {"type": "defend", "cards": ["CF-41"]} in decision.legal


def test_the_computer_s_counters_give_the_attacker_no_combo_either() -> None:
    # Solo: the Computer flips CPU-01 (Defend: Block 1), which blocks the first green.
    cpu_deck = ("CPU-01",) + tuple(c for c in COMPUTER_DECK if c != "CPU-01")
    state = position(side("sol", "neon-pulse", ["NP-21", "NP-09", "NP-10"]),
                     Side("cpu-brick", deck=cpu_deck, computer=True), mode="solo",
                     difficulty="normal")
    after = act(state, 0, {"type": "attack", "cards": ["NP-21", "NP-09", "NP-10"]})
    kinds = [e.kind for e in after.events]
    assert [e.data for e in after.events if e.kind == "computer_defends"] == [
        {"flipped": ["CPU-01"]}]
    assert "struck" not in kinds and "combos" not in kinds
    # Only its flips left the Computer deck: CPU-01 to Defend, then CPU-02 to Attack.
    cpu = after.state.sides[1]
    assert cpu.deck == cpu_deck[2:] and cpu.discard == ("CPU-01", "CPU-02")


def test_engine_1_4_0_let_a_counter_make_a_combo() -> None:
    state = attacked(["NP-21", "NP-09", "NP-10"], ["CF-37", "CF-41"], rules=V1_4)
    top = state.sides[1].deck[0]
    idle = {"type": "defend", "cards": ["CF-37", "CF-41"], "targets": ["NP-10"]}
    assert ENGINE.validate(state, 1, idle) is None
    after = defend(state, "CF-37", targets=["NP-10"])
    assert after.sides[1].discard == (top, "CF-37")  # 1.4.0: a Jab Strike after the Block
    old = ENGINE.for_version("1.4.0")
    assert old.engine_version == "1.4.0" and old.rules == V1_4


# -- the published 1.5.0 export covers the change ------------------------------------------
def _export(name: str) -> tuple[list[dict[str, Any]], bytes]:
    from services.platform.draws import state_key
    from services.rules.export import parse_export

    path = Path(__file__).resolve().parents[2] / "fixtures" / "exports" / f"{name}.jsonl"
    records, _checkpoint = parse_export(path.read_bytes())
    sealed = next(r for r in records if r["type"] == "MatchSealed")
    return records, state_key(bytes.fromhex(sealed["seed"]), records[0]["dice"]["stream_id"])


def _as(version: str, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**r, "engine_version": version} if r["type"] == "MatchCreated" else r
            for r in records]


def test_the_1_5_0_export_has_a_block_or_throw_that_1_4_0_turned_into_a_combo() -> None:
    """``neon-reign-1.5.0-single.jsonl`` (rule bots, ``selfplay.export_game`` seed 3) holds
    a Throw or Block after which 1.4.0 would have fired a combo the played cards did not
    meet: it replays with 1.5.0 only, and the 1.4.0 export with 1.4.0 as before."""
    records, key = _export("neon-reign-1.5.0-single")
    assert records[0]["engine_version"] == "1.5.0"
    made, attack = [], None
    for event in (e for r in records for e in (r.get("events") or [])):
        if event["kind"] == "attacked":
            attack = event["data"]["cards"]
        if event["kind"] == "countered" and not event["data"]["combo_breakers"]:
            removed = event["data"]["removed"]
            old = combos_after_counters(attack, removed)
            if old != combos_after_counters(attack, removed, as_played=True):
                made.append(old)
    assert made  # the counters of this game would have made combos in 1.4.0
    assert replay(ENGINE, records, key).outcome is not None
    with pytest.raises(ReplayError):
        replay(ENGINE.for_version("1.4.0"), _as("1.4.0", records), key)
    old_records, old_key = _export("neon-reign-1.4.0-hero-match")
    assert replay(ENGINE.for_version("1.4.0"), old_records, old_key).outcome is not None
