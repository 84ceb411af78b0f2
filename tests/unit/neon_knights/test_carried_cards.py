"""Engine 0.5.0: a continuing campaign match deals no card its drivers carry.

A Campaign or Epic Campaign match continuing an earlier one (``MatchConfig.carried``) sets up
the table as the rulebook's Game Setup does ("Shuffle each deck separately ... Reveal cards from
each of those decks to fill the row"), and the drivers keep their cards ("Keep track of all info
and cards for each player for the next time game"): the parts on their cars and in their hands,
their weapons, shields and specials. Up to 0.4.0 the decks were built whole, so a carried card
could also be dealt into a shop row or drawn later: two copies of one physical card in play.
From 0.5.0 the decks leave out every card a driver carries (ruling, RULES.md "Cards a driver
carries are not in the new match's decks"); 0.4.0 and older set up as they did, for their
exports.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from services.platform.draws import SeededRandomness
from services.rules.games.contract import ConfigError, MatchConfig
from services.rules.games.neon_knights.content import (
    DECK_PARTS,
    FAN_BETS,
    IMPLANTS,
    SPONSORS,
    STAGES,
    UPGRADES,
)
from services.rules.games.neon_knights.engine import NeonKnightsEngine
from services.rules.games.neon_knights.state import State

from .support import ENGINE, card_places, doubled

V4 = ENGINE.for_version("0.4.0")
SEEDS = [bytes([n]) * 32 for n in range(0x51, 0x59)]
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "exports"


def _start(seed: bytes, carried: Any = None, seats: int = 2, mode: str = "epic-campaign",
           engine: NeonKnightsEngine = ENGINE) -> tuple[State, SeededRandomness]:
    rng = SeededRandomness(seed)
    return engine.setup(MatchConfig(mode, seats, {}, carried=carried), rng), rng


def _first_carry(mode: str, seats: int) -> Any:
    """A real match 1's carry (every decision its default): the piles, order, grid and stage
    deck as a match hands them on."""
    state, rng = _start(SEEDS[0], seats=seats, mode=mode)
    while (outcome := ENGINE.outcome(state)) is None:
        decision = ENGINE.pending(state)[0]
        state = ENGINE.apply(state, decision.seat, decision.default, rng).state
    return outcome.carry


KEPT = [
    # seat 0: the fixture chain's car (g10 among its parts), a hand, a face-down shield
    {"car": {"red": "r08", "orange": "o07", "yellow": "y08", "green": "g10"}, "hand": ["r01", "g02"],
     "weapon": None, "shield": {"id": "u-s03", "up": False}, "specials": [{"id": "u-x05", "up": True}]},
    # seat 1: the fixture chain's weapon and special (u-w10, u-x10), an empty car, a hand
    {"car": {"red": None, "orange": None, "yellow": "y02", "green": None}, "hand": ["o10"],
     "weapon": {"id": "u-w10", "up": True}, "shield": None,
     "specials": [{"id": "u-x10", "up": True}, {"id": "u-x01", "up": False}]},
]


def _carrying(carried: Any, kept: list[dict[str, Any]] = KEPT) -> Any:
    """``carried`` with the first players holding the cards of ``kept``."""
    out = copy.deepcopy(carried)
    for player, cards in zip(out["players"], kept, strict=False):
        player.update(copy.deepcopy(cards))
    return out


def _kept_cards(carried: Any) -> tuple[set[str], set[str]]:
    """The parts and the upgrades the drivers of ``carried`` hold."""
    parts, upgrades = set(), set()
    for p in carried["players"]:
        parts |= {c for c in p["car"].values() if c and c in DECK_PARTS} | set(p["hand"])
        upgrades |= {u["id"] for u in (p["weapon"], p["shield"], *p["specials"]) if u}
    return parts, upgrades


def _dealt(doc: dict[str, Any], deck: str) -> list[str]:
    return [*doc["decks"][deck], *doc["rows"][deck], *doc["discards"][deck]]


@pytest.mark.parametrize("mode", ["campaign", "epic-campaign"])
def test_no_card_a_driver_carries_is_in_a_deck_or_a_shop_row(mode: str) -> None:
    """Parts on the car and in the hand, a weapon, shields and specials face up or down: none
    is in the new match's part or upgrade deck, shop row or black market, whatever the seed."""
    carried = _carrying(_first_carry(mode, 2))
    parts, upgrades = _kept_cards(carried)
    assert {"g10", "r01", "o10", "y02"} <= parts and {"u-w10", "u-x10", "u-s03", "u-x01"} <= upgrades
    for seed in SEEDS[1:]:
        doc = _start(seed, carried, mode=mode)[0].doc
        assert not parts & set(_dealt(doc, "parts")), "a carried part is dealt again"
        assert not upgrades & set(_dealt(doc, "upgrades")), "a carried upgrade is dealt again"
        assert doubled(doc) == {}
        for seat, player in enumerate(doc["players"]):  # the drivers keep them as they were
            for key in ("car", "hand", "weapon", "shield", "specials"):
                assert player[key] == carried["players"][seat][key]


@pytest.mark.parametrize("mode", ["campaign", "epic-campaign"])
@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_a_continuing_match_holds_every_card_once(mode: str, seats: int) -> None:
    """Every zone of every deck: each part, upgrade, sponsor, Fan Bet and implant is in exactly
    one place at the continuing match's set-up (and in the first match's), a stage card in at
    most one; the decks hold all the rest."""
    carried = _carrying(_first_carry(mode, seats))
    first = _start(SEEDS[0], seats=seats, mode=mode)[0].doc
    second = _start(SEEDS[1], carried, seats=seats, mode=mode)[0].doc
    for doc in (first, second):
        places = card_places(doc)
        for cards in (DECK_PARTS, UPGRADES, SPONSORS, FAN_BETS, IMPLANTS):
            for card in cards:
                assert len(places.get(card, [])) == 1, (card, places.get(card))
        assert all(len(places.get(card, [])) <= 1 for card in STAGES)
        assert set(places) <= {*DECK_PARTS, *UPGRADES, *SPONSORS, *FAN_BETS, *IMPLANTS, *STAGES}
    parts, upgrades = _kept_cards(carried)
    assert sorted(_dealt(second, "parts")) == sorted(set(DECK_PARTS) - parts)
    assert sorted(_dealt(second, "upgrades")) == sorted(set(UPGRADES) - upgrades)
    assert sorted(_dealt(second, "sponsors")) == sorted(SPONSORS)  # no sponsor is carried
    assert sorted(second["decks"]["bets"] + [b for p in second["players"] for b in p["bets"]]) \
        == sorted(FAN_BETS)  # nor a Fan Bet: dealt anew


def test_the_decks_come_from_the_match_s_own_draws_whatever_the_carried_order() -> None:
    """The same seed and carried cards give the same decks (replays); the order in which the
    carry lists a hand does not enter."""
    carried = _carrying(_first_carry("epic-campaign", 2))
    one = _start(SEEDS[1], carried)[0].doc
    again = _start(SEEDS[1], carried)[0].doc
    assert (one["decks"], one["rows"]) == (again["decks"], again["rows"])
    reordered = copy.deepcopy(carried)
    reordered["players"][0]["hand"].reverse()
    other = _start(SEEDS[1], reordered)[0].doc
    assert (other["decks"], other["rows"]) == (one["decks"], one["rows"])


def test_a_card_carried_twice_is_kept_where_it_is_and_dealt_to_nobody() -> None:
    """A campaign begun before 0.5.0 may carry one card twice (it could be bought from the shop
    while on another car): the set-up keeps both drivers' cards as they are (refusing would
    end the campaign) and deals the card from no deck."""
    carried = _first_carry("campaign", 2)
    twice = _carrying(carried, [{"hand": ["g10"]}, {"car": {**carried["players"][1]["car"], "green": "g10"}}])
    doc = _start(SEEDS[1], twice, mode="campaign")[0].doc
    assert doc["players"][0]["hand"] == ["g10"] and doc["players"][1]["car"]["green"] == "g10"
    assert "g10" not in _dealt(doc, "parts")
    assert len(_dealt(doc, "parts")) == len(DECK_PARTS) - 1


@pytest.mark.parametrize(("change", "card"), [
    (lambda p: p["hand"].append("g99"), "g99"),
    (lambda p: p["car"].update(green="x-42"), "x-42"),
    (lambda p: p.update(weapon={"id": "u-w99", "up": True}), "u-w99"),
    (lambda p: p["specials"].append({"up": True}), "None"),
    (lambda p: p.update(hand="g10"), "g"),
])
def test_a_carried_card_unknown_or_malformed_is_refused(change: Any, card: str) -> None:
    carried = copy.deepcopy(_first_carry("campaign", 2))
    change(carried["players"][0])
    with pytest.raises(ConfigError, match="malformed"):
        _start(SEEDS[1], carried, mode="campaign")


def test_engine_0_4_0_still_builds_whole_decks_for_a_continuing_match() -> None:
    """Exports of 0.4.0 and older replay as they were played: their continuing matches built
    every deck whole, carried cards included, with the same draws as before."""
    carried = _carrying(_first_carry("campaign", 2))
    parts, upgrades = _kept_cards(carried)
    old, old_rng = _start(SEEDS[1], carried, mode="campaign", engine=V4)
    assert sorted(_dealt(old.doc, "parts")) == sorted(DECK_PARTS)
    assert sorted(_dealt(old.doc, "upgrades")) == sorted(UPGRADES)
    assert doubled(old.doc)  # the defect, kept for 0.4.0's exports
    new, new_rng = _start(SEEDS[1], carried, mode="campaign")
    sizes = [(r.op, r.n) for r in new_rng.records]
    assert sizes == [(r.op, r.n - (len(parts) if r.n == len(DECK_PARTS) else len(upgrades)
                                   if r.n == len(UPGRADES) else 0)) for r in old_rng.records]


def test_the_0_5_0_epic_campaign_chain_never_holds_a_card_twice() -> None:
    """The published 0.5.0 chain (tests/fixtures/exports/neon-knights-2086-0.5.0-epic-campaign
    -{1,2}.jsonl), replayed record by record: no state of either match holds a card in two
    places; match 2's drivers carry parts (g08, o04, r02, y08, o07) and a shield (u-s01) in
    from match 1, and its decks leave them out: its set-up shuffles 35 parts and 31 upgrades."""
    from services.platform.draws import state_key
    from services.rules.export import parse_export
    from services.rules.replay import Replayed, step

    for n in (1, 2):
        records, _ = parse_export((FIXTURES / f"neon-knights-2086-0.5.0-epic-campaign-{n}.jsonl")
                                  .read_bytes())
        sealed = next(r for r in records if r["type"] == "MatchSealed")
        replayed = Replayed(key=state_key(bytes.fromhex(sealed["seed"]), records[0]["dice"]["stream_id"]))
        for record in records:
            step(ENGINE.for_version("0.5.0"), replayed, record)
            if record["type"] == "MatchStarted" and n == 2:
                parts, upgrades = _kept_cards(records[0]["campaign"]["carried"])
                assert parts == {"g08", "o04", "r02", "y08", "o07"} and upgrades == {"u-s01"}
                assert [d["n"] for d in record["draws"]][1:3] == [len(DECK_PARTS) - 5, len(UPGRADES) - 1]
                assert not parts & set(_dealt(replayed.state.doc, "parts"))
                assert not upgrades & set(_dealt(replayed.state.doc, "upgrades"))
            if replayed.state is not None:
                assert doubled(replayed.state.doc) == {}, (n, record["n"])
        assert replayed.outcome is not None
