"""NEON's set-up events (contract ``start``): the state of ``setup`` from the same draws, with
the events of set-up, each seat's opening hand visible to that seat alone.

``setup`` is ``start``'s state, so comparing the two alone would prove little: the digests
below were taken from ``setup`` before ``start`` existed (commit 8b3ae5b), over the encoded
states and the draw records of three seeds per set-up, for every kept engine version
(version 5's when it was made: its set-up is version 4's, the state naming ruleset "5";
version 6's when it was made: version 5's set-up, then one draw per seat for its first card
choice's default).
They must never change: replays of old exports run ``setup`` with the recorded draws."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import jsonschema
import pytest

from services.platform.canonical import canonical_json
from services.platform.draws import SeededRandomness
from services.rules.games.contract import MatchConfig
from services.rules.games.neon import present
from services.rules.games.neon.content import HAND_SIZE
from services.rules.games.neon.engine import ENGINE, ENGINES
from tests.unit.neon.test_fuzz import SETUPS, check_no_leak, secrets

SEEDS = (1, 7, 2024)
FIXED = ["akari", "glyba", "ronin"]
GOLDEN: dict[tuple[str, str, int, str], str] = {
    # (engine version, mode, seats, options as JSON): digest of setup's states and draws
    ("2", "rebirth", 2, "{}"): "ee0ceecde716f740",
    ("2", "rebirth", 3, "{}"): "10ce8b1b81e32352",
    ("2", "rebirth", 6, "{}"): "d46dbb3c606429ae",
    ("2", "battle-royale", 2, "{}"): "1ac8a757a537e002",
    ("2", "battle-royale", 5, "{}"): "4498d8b6fbcb3a9c",
    ("2", "coalition", 4, "{}"): "2cc3e87c6c658e48",
    ("2", "coalition", 6, "{}"): "6794f5e82f702f6e",
    ("2", "coalition", 6, '{"teams": 2}'): "e2061279557ddea3",
    ("2", "rebirth", 3, '{"fighters": ["akari", "glyba", "ronin"]}'): "67ab23db4162fb5b",
    ("2", "rebirth", 4, '{"automa": true}'): "af7db7312271f6f2",
    ("3", "rebirth", 2, "{}"): "7ff60d4bd397d7bd",
    ("3", "rebirth", 3, "{}"): "7392ab6ccfce31fa",
    ("3", "rebirth", 6, "{}"): "b7a1684bcec0053e",
    ("3", "battle-royale", 2, "{}"): "88d2dc4aea71cb59",
    ("3", "battle-royale", 5, "{}"): "37b7cebe4f8dba09",
    ("3", "coalition", 4, "{}"): "f773f5a83be02c67",
    ("3", "coalition", 6, "{}"): "5b5661c687fb0ad5",
    ("3", "coalition", 6, '{"teams": 2}'): "4b8cb5b91c2637f1",
    ("3", "rebirth", 3, '{"fighters": ["akari", "glyba", "ronin"]}'): "d86037d1068b8799",
    ("3", "rebirth", 4, '{"automa": true}'): "118ef0463149d770",
    ("3", "battle-royale", 3, '{"round_board": "4-6"}'): "a87f8609fe5db72c",
    ("4", "rebirth", 2, "{}"): "76b577b0add5ed41",
    ("4", "rebirth", 3, "{}"): "4eeecaf0be81c2f7",
    ("4", "rebirth", 6, "{}"): "7b17cd775608d948",
    ("4", "battle-royale", 2, "{}"): "79f098a58321a217",
    ("4", "battle-royale", 5, "{}"): "26a14608597bd291",
    ("4", "coalition", 4, "{}"): "b2d19f00e56e6d20",
    ("4", "coalition", 6, "{}"): "5e9e9f36da2bacad",
    ("4", "coalition", 6, '{"teams": 2}'): "4639260cef127adb",
    ("4", "rebirth", 3, '{"fighters": ["akari", "glyba", "ronin"]}'): "d083ac41358d475c",
    ("4", "rebirth", 4, '{"automa": true}'): "a7db91c4269c2056",
    ("4", "battle-royale", 3, '{"round_board": "4-6"}'): "e1876b05afdfc72b",
    ("5", "rebirth", 2, "{}"): "d083402cdcac2d8d",
    ("5", "rebirth", 3, "{}"): "3bea4178c7fe13f3",
    ("5", "rebirth", 6, "{}"): "5fa376bc23086843",
    ("5", "battle-royale", 2, "{}"): "61ca1597e490f9bc",
    ("5", "battle-royale", 5, "{}"): "1c21292e8869a22c",
    ("5", "coalition", 4, "{}"): "a19596a00d0d7505",
    ("5", "coalition", 6, "{}"): "91e9e0cf66ed53bc",
    ("5", "coalition", 6, '{"teams": 2}'): "d40265efbd563429",
    ("5", "rebirth", 3, '{"fighters": ["akari", "glyba", "ronin"]}'): "cd4dc8c3279da9a2",
    ("5", "rebirth", 4, '{"automa": true}'): "f83b4bbf7d8c9d18",
    ("5", "battle-royale", 3, '{"round_board": "4-6"}'): "b48f35f960b85106",
    # version 6's, taken when it was made: version 5's set-up, then the draws of the first
    # card choices' defaults (``State.defaults``), the state naming ruleset "6"
    ("6", "rebirth", 2, "{}"): "2474f42b0d5013d0",
    ("6", "rebirth", 3, "{}"): "658a495487ca5d34",
    ("6", "rebirth", 6, "{}"): "97f3274ecba0c528",
    ("6", "battle-royale", 2, "{}"): "3b1d2328938743a5",
    ("6", "battle-royale", 5, "{}"): "29f26553f70a4122",
    ("6", "coalition", 4, "{}"): "0cca2d998ef3a89f",
    ("6", "coalition", 6, "{}"): "e2c7a97304aeaa83",
    ("6", "coalition", 6, '{"teams": 2}'): "0df4684c0d311bef",
    ("6", "rebirth", 3, '{"fighters": ["akari", "glyba", "ronin"]}'): "7cf185cfcf9fc4fb",
    ("6", "rebirth", 4, '{"automa": true}'): "d0f681411be48875",
    ("6", "battle-royale", 3, '{"round_board": "4-6"}'): "23add40cfefbf3c7",
    # version 7's (the rules-fidelity audit: closing and the Coalition end, no set-up
    # change): version 6's set-up, the state naming ruleset "7"
    ("7", "rebirth", 2, "{}"): "f0c3a8c79e87004c",
    ("7", "rebirth", 3, "{}"): "a884dbcecb35bad1",
    ("7", "rebirth", 6, "{}"): "8424ca4b20b800da",
    ("7", "battle-royale", 2, "{}"): "64807a058a4f20fb",
    ("7", "battle-royale", 5, "{}"): "bb2cfb2cea111653",
    ("7", "coalition", 4, "{}"): "64fea2c2022b8062",
    ("7", "coalition", 6, "{}"): "dd143b182c4e992f",
    ("7", "coalition", 6, '{"teams": 2}'): "bc7a106fed318cac",
    ("7", "rebirth", 3, '{"fighters": ["akari", "glyba", "ronin"]}'): "f3fab55309f3cc49",
    ("7", "rebirth", 4, '{"automa": true}'): "06e125ab6424c2fa",
    ("7", "battle-royale", 3, '{"round_board": "4-6"}'): "36ddb856b91bf923",
}


def _draws(rng: SeededRandomness) -> list[dict[str, Any]]:
    return [r.to_json() for r in rng.records]


@pytest.mark.parametrize(("version", "mode", "seats", "options"), sorted(GOLDEN),
                         ids=["-".join(map(str, k)) for k in sorted(GOLDEN)])
def test_start_gives_the_state_and_draws_setup_always_gave(
        version: str, mode: str, seats: int, options: str) -> None:
    engine = ENGINES[version]
    config = MatchConfig(mode, seats, json.loads(options))
    digest = hashlib.sha256()
    for seed in SEEDS:
        a, b = SeededRandomness(seed), SeededRandomness(seed)
        started = engine.start(config, a)
        state = engine.setup(config, b)
        encoded = canonical_json(engine.encode(started.state))
        assert encoded == canonical_json(engine.encode(state))
        assert engine.canonical_state(started.state) == engine.canonical_state(state)
        assert _draws(a) == _draws(b)
        assert started.events, "start gives the events of set-up"
        digest.update(hashlib.sha256(encoded).digest())
        digest.update(hashlib.sha256(json.dumps(_draws(a)).encode()).digest())
    assert digest.hexdigest()[:16] == GOLDEN[(version, mode, seats, options)], \
        "set-up's state or draws changed: old exports would no longer replay"


def test_the_digests_cover_every_mode_of_every_kept_version() -> None:
    for version, engine in ENGINES.items():
        assert {m for v, m, _, _ in GOLDEN if v == version} == set(engine.modes())


@pytest.mark.parametrize(("mode", "seats", "options"), SETUPS)
@pytest.mark.parametrize("seed", SEEDS)
def test_the_set_up_events_hold_what_the_state_holds(
        mode: str, seats: int, options: dict[str, Any], seed: int) -> None:
    started = ENGINE.start(MatchConfig(mode, seats, options), SeededRandomness(seed))
    s, events = started.state, started.events
    by_kind: dict[str, list[Any]] = {}
    for e in events:
        by_kind.setdefault(e.kind, []).append(e)
    # every event is public but the opening hands, each visible to its seat alone
    assert {e.kind for e in events if e.visible_to is not None} == {"cards_drawn_private"}
    private = by_kind["cards_drawn_private"]
    assert [(e.data["fighter"], e.visible_to) for e in private] == \
        [(i, frozenset({i})) for i in range(seats)]
    for e in private:
        assert tuple(e.data["cards"]) == s.fighters[e.data["fighter"]].hand
    counts = by_kind["cards_drawn"]
    assert [(e.data["fighter"], e.data["count"]) for e in counts] == \
        [(i, len(s.fighters[i].hand)) for i in range(seats)]
    assert all(e.data["count"] == HAND_SIZE for e in counts)
    assert [(e.data["fighter"], e.data["name"], e.data["side"], e.data["by"])
            for e in by_kind["fighter_taken"]] == \
        [(f.idx, f.fighter, "B" if mode == "battle-royale" else "A", "random")
         for f in s.fighters[:seats]]
    (arena,) = by_kind["arena_built"]
    assert arena.data["ring"] == list(s.ring)
    assert [(b["sector"], b["bot"]) for b in arena.data["bots"]] == list(s.bots)
    assert arena.data["next_to_close"] == s.scoreboard[0]
    assert arena.data["scoreboard_left"] == len(s.scoreboard) == 10
    assert arena.data["cells"] == list(s.cells)
    (decks,) = by_kind["decks_formed"]
    assert decks.data == {"loot_decks": [len(d) for d in s.loot_decks],
                          "upgrade_deck": len(s.upgrade_deck)}
    automa = [(e.data["fighter"], e.data["sector"]) for e in by_kind.get("automa_placed", [])]
    assert automa == ([(seats, s.scoreboard[0])] if s.automa else [])
    assert [e.data["fighter"] for e in by_kind["leader"]] == [s.leader]
    # nobody's events or view hold another seat's cards, the public's no hand at all
    check_no_leak(s, events)
    hands = {c for f in s.fighters for c in f.hand}
    public = json.dumps([dict(e.data) for e in events if e.visible_to is None])
    assert hands and not [c for c in hands if f'"{c}"' in public]
    assert not [c for c in secrets(s)[None] if f'"{c}"' in public]


def test_fighters_from_the_option_are_taken_by_choice() -> None:
    started = ENGINE.start(MatchConfig("rebirth", 3, {"fighters": FIXED}), SeededRandomness(3))
    assert [(e.data["name"], e.data["by"]) for e in started.events
            if e.kind == "fighter_taken"] == [(name, "choice") for name in FIXED]


def test_a_seat_sees_its_own_hand_and_no_other() -> None:
    """What the host projects: the events visible to a seat (public, or naming it)."""
    started = ENGINE.start(MatchConfig("rebirth", 4, {}), SeededRandomness(5))
    for seat in range(4):
        seen = [e for e in started.events if e.visible_to is None or seat in e.visible_to]
        cards = [c for e in seen for c in e.data.get("cards", ())]
        assert cards == list(started.state.fighters[seat].hand)
    spectator = [e for e in started.events if e.visible_to is None]
    assert not [e for e in spectator if "cards" in e.data]


EVENTS = jsonschema.Draft202012Validator(present.event_schema())


def test_every_set_up_event_is_described_in_words_and_fits_the_schema() -> None:
    started = ENGINE.start(MatchConfig("rebirth", 2, {}), SeededRandomness(2))
    kinds = set()
    for e in started.events:
        event = {"kind": e.kind, "data": json.loads(json.dumps(dict(e.data))),
                 "visible_to": sorted(e.visible_to) if e.visible_to else None}
        EVENTS.validate(event)
        viewer = min(e.visible_to) if e.visible_to else None
        text = present.describe_event(event, viewer)
        # the fallback spells the kind out ("arena built: ..."): each kind has its own words
        assert text and not text.startswith(e.kind.replace("_", " ")), text
        kinds.add(e.kind)
    assert kinds == {"arena_built", "decks_formed", "fighter_taken", "cards_drawn",
                     "cards_drawn_private", "automa_placed", "leader"}
    hand = started.state.fighters[0].hand
    private = next(e for e in started.events if e.kind == "cards_drawn_private")
    mine = present.describe_event({"kind": private.kind, "data": dict(private.data)}, 0)
    assert mine.startswith("you draw ") and all(present.action_card_name(c) in mine for c in hand)


@pytest.mark.parametrize(("mode", "seats", "options"), SETUPS)
def test_version_6_sets_up_as_version_5_then_draws_the_first_choices_defaults(
        mode: str, seats: int, options: dict[str, Any]) -> None:
    """Version 6 changes nothing of the set-up itself: its draws are version 5's, followed
    by one draw for each seat's first card choice's default; the table is version 5's but for
    the ruleset it names and the defaults it holds."""
    config = MatchConfig(mode, seats, options)
    a, b = SeededRandomness(11), SeededRandomness(11)
    six, five = ENGINES["6"].setup(config, a), ENGINES["5"].setup(config, b)
    assert _draws(a)[:len(_draws(b))] == _draws(b)
    assert [(d["op"], d["n"]) for d in _draws(a)[len(_draws(b)):]] == \
        [("randbelow", len(ENGINE.pending(six)[i].legal)) for i in range(seats)]
    assert [i for i, _ in six.defaults] == list(range(seats))
    old = ENGINES["5"].encode(five)
    assert {**ENGINES["6"].encode(six), "ruleset": "5", "defaults": None} == \
        {**old, "defaults": None}


@pytest.mark.parametrize(("mode", "seats", "options"), SETUPS)
def test_version_7_sets_up_as_version_6(mode: str, seats: int, options: dict[str, Any]) -> None:
    """Version 7 changes rules of play only (closing, the Coalition end): its set-up draws
    and table are version 6's but for the ruleset the state names."""
    config = MatchConfig(mode, seats, options)
    a, b = SeededRandomness(11), SeededRandomness(11)
    seven, six = ENGINES["7"].setup(config, a), ENGINES["6"].setup(config, b)
    assert _draws(a) == _draws(b)
    assert {**ENGINES["7"].encode(seven), "ruleset": "6"} == ENGINES["6"].encode(six)
