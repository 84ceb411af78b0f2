"""Engine 0.5.0: what a campaign match carries hidden is not told by an earlier match's seed.

A match's dice seed is revealed when the match is sealed (MatchSealed). Up to engine 0.4.0 the
Epic Campaign's stage deck was shuffled once, in match 1's set-up, and carried unshuffled into
matches 2-4: anyone holding match 1's revealed seed could re-run its set-up and read the order
of every later stage, which the view hides ("order hidden"). From 0.5.0 each continuing match
shuffles the stage cards it carries again, stage by stage, with its own draws ("shuffle Stage 4,
3, 2, and 1 track cards separately. Make a deck with the Stage 1 cards on top"). A carried
implant hand is the driver's own and is not dealt again (ruling, RULES.md "Hidden information
between campaign matches").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from services.platform.draws import SeededRandomness
from services.rules.games.contract import ConfigError, MatchConfig
from services.rules.games.neon_knights.content import STAGES
from services.rules.games.neon_knights.engine import NeonKnightsEngine
from services.rules.games.neon_knights.state import State

from .support import ENGINE

V4 = ENGINE.for_version("0.4.0")
V5 = ENGINE.for_version("0.5.0")
SEEDS = [bytes([n]) * 32 for n in (0x11, 0x22, 0x33, 0x44)]
"""The dice seeds of four campaign matches, as the dice service reveals them at each seal."""


def _start(seed: bytes, carried: Any = None, seats: int = 2, mode: str = "epic-campaign",
           engine: NeonKnightsEngine = ENGINE, **options: Any) -> tuple[State, SeededRandomness]:
    rng = SeededRandomness(seed)
    return engine.setup(MatchConfig(mode, seats, options, carried=carried), rng), rng


def _play_out(state: State, rng: SeededRandomness, engine: NeonKnightsEngine = ENGINE) -> Any:
    """Every decision answered with its default to the end; the match's outcome."""
    while (outcome := engine.outcome(state)) is None:
        decision = engine.pending(state)[0]
        state = engine.apply(state, decision.seat, decision.default, rng).state
    return outcome


def _stage_order(state: State) -> list[str]:
    """The stage cards still to come at set-up: the card drawn for the first race (public,
    ``stage_drawn``), then the hidden deck in order."""
    return [state.doc["stage"], *state.doc["stage_deck"]]


def _stages(cards: list[str]) -> list[int]:
    return [STAGES[c]["stage"] for c in cards]


def _told_by_match_one(seed: bytes, seats: int = 2) -> list[str]:
    """What an onlooker reads once match 1 is sealed: its set-up re-run offline from the
    revealed seed and the public config, less the four stage cards match 1 drew in public."""
    first, _ = _start(seed, seats=seats)
    whole = _stage_order(first)
    return whole[4:]


def test_match_one_s_revealed_seed_does_not_tell_match_two_s_stage_order() -> None:
    """The order of stages 2-4 hidden in match 2 is not the one match 1's seed implies."""
    state, rng = _start(SEEDS[0])
    carried = _play_out(state, rng).carry
    predicted = _told_by_match_one(SEEDS[0])
    assert carried["stage_deck"] == predicted  # what match 1 hands on is what its seed tells
    second, _ = _start(SEEDS[1], carried)
    actual = _stage_order(second)
    assert sorted(actual) == sorted(predicted)  # the same cards ...
    assert _stages(actual) == [2] * 4 + [3] * 4 + [4] * 4  # ... stage 2 on top, stage 4 last
    assert actual != predicted, "match 2's hidden stage order follows from match 1's revealed seed"
    assert second.doc["ruleset"] == "0.7.0"  # reshuffled from 0.5.0 on (the current engine)


def test_match_two_s_stage_order_comes_from_its_own_draws() -> None:
    """Two different match-2 seeds, the same carried table: two different orders, each stage's
    cards kept together in stage order; the same seed gives the same order (replays)."""
    state, rng = _start(SEEDS[0])
    carried = _play_out(state, rng).carry
    one, other, again = (_stage_order(_start(seed, carried)[0])
                         for seed in (SEEDS[1], SEEDS[2], SEEDS[1]))
    assert one != other and one == again
    for order in (one, other):
        assert _stages(order) == [2] * 4 + [3] * 4 + [4] * 4
        assert sorted(order) == sorted(carried["stage_deck"])
    # The carried order does not enter: a carried deck in another order gives the same shuffle.
    shuffled = {**carried, "stage_deck": list(reversed(carried["stage_deck"]))}
    assert _stage_order(_start(SEEDS[1], shuffled)[0]) == one


def test_every_continuing_match_shuffles_the_stages_it_carries_again() -> None:
    """Four matches, all 16 stage cards: at each continuing match the hidden order is not the
    carried one (the order every earlier revealed seed implies), and stage k is match k's."""
    carried = None
    played: list[str] = []
    for match, seed in enumerate(SEEDS, start=1):
        state, rng = _start(seed, carried)
        order = _stage_order(state)
        if carried is not None:
            assert sorted(order) == sorted(carried["stage_deck"])
            assert order != carried["stage_deck"], f"match {match} kept the carried order"
        assert _stages(order) == sorted(_stages(order)) and _stages(order)[0] == match
        outcome = _play_out(state, rng)
        played += [c for c in order if c not in outcome.carry["stage_deck"]]
        carried = outcome.carry
    assert _stages(played) == [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4 and len(set(played)) == 16
    assert carried["complete"] and carried["stage_deck"] == []


def test_a_deck_left_with_two_stages_keeps_them_in_stage_order() -> None:
    """A match that ended early (every other driver resigned) leaves cards of its stage: the
    next match shuffles each stage's cards separately, the lower stage still on top."""
    state, rng = _start(SEEDS[0])
    decision = ENGINE.pending(state)[0]
    state = ENGINE.apply(state, 1 - decision.seat, {"type": "resign"}, rng).state
    carried = ENGINE.outcome(state).carry
    assert _stages(carried["stage_deck"]) == [1] * 3 + [2] * 4 + [3] * 4 + [4] * 4
    orders = [_stage_order(_start(seed, carried)[0]) for seed in SEEDS[1:]]
    for order in orders:
        assert _stages(order) == [1] * 3 + [2] * 4 + [3] * 4 + [4] * 4
        assert sorted(order) == sorted(carried["stage_deck"])
    assert len({tuple(o) for o in orders}) > 1 and carried["stage_deck"] not in orders


def test_a_carried_deck_naming_an_unknown_card_is_refused() -> None:
    state, rng = _start(SEEDS[0])
    carried = _play_out(state, rng).carry
    with pytest.raises(ConfigError, match="malformed"):
        _start(SEEDS[1], {**carried, "stage_deck": ["stage-9-9", *carried["stage_deck"]]})


def test_engine_0_4_0_still_carries_the_deck_unshuffled() -> None:
    """Exports of 0.4.0 and older replay as they were played: 0.4.0 continues with the
    carried order, with no draw for it."""
    state, rng = _start(SEEDS[0], engine=V4)
    carried = _play_out(state, rng, V4).carry
    second, second_rng = _start(SEEDS[1], carried, engine=V4)
    assert _stage_order(second) == carried["stage_deck"] == _told_by_match_one(SEEDS[0])
    assert second.doc["ruleset"] == "0.4.0"
    now, now_rng = _start(SEEDS[1], carried)
    assert len(now_rng.records) == len(second_rng.records) + 3  # stages 2, 3 and 4 shuffled


def test_a_continuing_campaign_match_is_dealt_as_before() -> None:
    """The Campaign (no stage cards) carries nothing shuffled: a continuing match of 0.5.0 on is
    0.4.0's, draw for draw, apart from the ruleset it names, when its drivers carry no card
    (every answer the default, nobody buys one). Carried cards are left out of the decks from
    0.5.0 on, which shortens their shuffles (``test_carried_cards.py``)."""
    state, rng = _start(SEEDS[0], mode="campaign", seats=3, races=1)
    carried = _play_out(state, rng).carry
    assert all(not p["hand"] and p["weapon"] is p["shield"] is None and not p["specials"]
               and all(c is None or c.startswith("starter-") for c in p["car"].values())
               for p in carried["players"])
    new, new_rng = _start(SEEDS[1], carried, seats=3, mode="campaign", races=1)
    old, old_rng = _start(SEEDS[1], carried, seats=3, mode="campaign", races=1, engine=V4)
    assert new_rng.records == old_rng.records
    # (0.6.0's defaults: drawn for hidden picks and speeds only, none at a campaign's set-up)
    assert new.doc["defaults"] == [None] * 3
    assert {**{k: v for k, v in new.doc.items() if k != "defaults"}, "ruleset": "0.4.0"} == old.doc


def test_a_carried_implant_hand_is_not_dealt_again() -> None:
    """Ruling (RULES.md, "Hidden information between campaign matches"): the implants a driver
    holds are that driver's own cards ("Keep track of all info and cards for each player"), so
    a continuing match starts from the carried hand as it is. The level 1 implants dealt at
    match 1's set-up therefore follow from match 1's revealed seed for as long as they stay in
    the hand; this test pins that documented limit."""
    state, rng = _start(SEEDS[0], mode="campaign", seats=3, races=1)
    dealt = [p["implant_hand"] for p in state.doc["players"]]
    carried = _play_out(state, rng).carry
    second, _ = _start(SEEDS[1], carried, seats=3, mode="campaign", races=1)
    again, _ = _start(SEEDS[0], seats=3, mode="campaign", races=1)  # from the revealed seed
    assert [p["implant_hand"] for p in again.doc["players"]] == dealt
    for seat, player in enumerate(second.doc["players"]):
        assert player["implant_hand"] == carried["players"][seat]["implant_hand"]
        kept = [i for i in dealt[seat] if i not in player["implants"]]
        assert [i for i in player["implant_hand"] if i in dealt[seat]] == kept


# -- the published 0.5.0 chain: two Epic Campaign matches, the second continuing the first -------
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "exports"


def _chain() -> list[tuple[bytes, list[dict[str, Any]], bytes]]:
    """tests/fixtures/exports/neon-knights-2086-0.5.0-epic-campaign-{1,2}.jsonl: each export's
    bytes, records and state key (from the seed its MatchSealed reveals)."""
    from services.platform.draws import state_key
    from services.rules.export import parse_export

    out = []
    for n in (1, 2):
        data = (FIXTURES / f"neon-knights-2086-0.5.0-epic-campaign-{n}.jsonl").read_bytes()
        records, _checkpoint = parse_export(data)
        sealed = next(r for r in records if r["type"] == "MatchSealed")
        out.append((data, records, state_key(bytes.fromhex(sealed["seed"]),
                                             records[0]["dice"]["stream_id"])))
    return out


def _drawn(records: list[dict[str, Any]]) -> list[str]:
    return [e["data"]["stage"] for r in records for e in r.get("events", ())
            if e["kind"] == "stage_drawn"]


def _carry(records: list[dict[str, Any]]) -> Any:
    return next(r for r in records if r["type"] == "MatchEnded")["outcome"]["carry"]


def test_the_0_5_0_epic_campaign_fixture_chain_verifies_and_hides_match_two_s_order() -> None:
    """Recorded with ``neon play neon-knights-2086 --mode epic-campaign --bots rule,random
    --embedded`` on the 0.5.0 code (dev seeds 51 and 52, the second ``--after`` the first).
    Both verify with their link; match 1's revealed seed re-runs its set-up to the very order
    match 1 played and carried, and that order is not match 2's; each replays with 0.5.0 only
    (0.4.0 would have kept the carried order)."""
    from services.rules.replay import ReplayError, replay
    from services.rules.verify import campaign_links, verify_export

    (first, one, key_one), (second, two, key_two) = _chain()
    assert [r[0]["engine_version"] for r in (one, two)] == ["0.5.0", "0.5.0"]
    assert two[0]["campaign"]["previous_match_id"] == one[0]["match_id"]
    assert two[0]["campaign"]["carried"] == _carry(one)
    assert all(verify_export(data).ok for data in (first, second))
    assert campaign_links([first, second]) == []

    sealed = next(r for r in one if r["type"] == "MatchSealed")
    told = V5.setup(MatchConfig("epic-campaign", 2, one[0]["options"]),
                        SeededRandomness(bytes.fromhex(sealed["seed"]), one[0]["dice"]["stream_id"]))
    assert _stage_order(told) == _drawn(one) + _carry(one)["stage_deck"]  # the onlooker is right
    played = _drawn(two) + _carry(two)["stage_deck"]  # match 2's order at its set-up
    assert sorted(played) == sorted(_carry(one)["stage_deck"])
    assert _stages(played) == [2] * 4 + [3] * 4 + [4] * 4
    assert played != _carry(one)["stage_deck"] and _drawn(two) != _carry(one)["stage_deck"][:4]

    for records, key in ((one, key_one), (two, key_two)):
        assert replay(V5, records, key).outcome is not None
        as_0_4_0 = [{**r, "engine_version": "0.4.0"} if r["type"] == "MatchCreated" else r
                    for r in records]
        with pytest.raises(ReplayError):
            replay(V4, as_0_4_0, key)
