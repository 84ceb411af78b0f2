"""Set-up events (the contract's optional ``start``): ``start`` gives ``setup``'s state from the
same draws, and its events show each seat its own starting hand and everyone the rest."""

from __future__ import annotations

import hashlib
import json
import random
import re
from typing import Any

import pytest

from services.platform.canonical import canonical_json
from services.platform.draws import SeededRandomness
from services.rules.games.contract import MatchConfig, setup_transition
from services.rules.games.neon_reign import ENGINE, present
from services.rules.games.neon_reign.modes import MODES
from services.rules.games.neon_reign.rulesets import RULESETS

from .support import FakeRandomness

OPTIONS: dict[str, list[tuple[int, dict[str, Any]]]] = {
    "single": [(2, {}), (2, {"first_player": "random"}),
               (2, {"heroes": ["rex", "lux"], "first_player": 1,
                    "decks": ["chrome-fury", "neon-pulse"]})],
    "best-of-three": [(2, {}), (2, {"first_player": "random"})],
    "hero-match": [(2, {}), (2, {"first_player": "random"}),
                   (2, {"heroes": [["volt", "kira"], ["rex", "lux"]]})],
    "solo": [(1, {}), (1, {"difficulty": "hard"}),
             (1, {"difficulty": "training", "heroes": ["volt"], "computer_hero": "cpu-zed"})],
}
SEEDS = range(8)
CARD_ID = re.compile(r"[A-Z]+-[0-9]{2}")

# The set-up states and draws of engine 1.1.0 and 1.2.0 as `setup` made them before `start`
# existed (commit 8b3ae5b): a digest of, for every option set of the mode above and every
# seed, the canonical state and the draw records. Exports and replays depend on them.
PINNED = {
    ("1.1.0", "single"):
        "78bbb55cc6e412962f26d318430f964ae5fd7096ac532f93a6ea6c4f50051e79",
    ("1.1.0", "best-of-three"):
        "1bd1a2a68a5b6f2699739315a973d9b3d4fa0a38570395e46382fbd03057aa18",
    ("1.1.0", "hero-match"):
        "881e07ed0441d0aa8f6aa7fa941fe104b98dda5999484607273a520dd3bf7092",
    ("1.1.0", "solo"):
        "2363b10fb51f9a837495460b85a1fdc447266be02f93c27a0c9c713255923c93",
    ("1.2.0", "single"):
        "37d6150e250f1b15f1875436f792af56382e483e20ff98175af1f53d241a752b",
    ("1.2.0", "best-of-three"):
        "6bc55cb4e15bae8042cf447b526486349831723129b67b8135a931156b9e708a",
    ("1.2.0", "hero-match"):
        "6da17d40d8637f0ddc1a4d8dd74858725f993a3f464ee24c33330ce89fa93865",
    ("1.2.0", "solo"):
        "9332e2681f9effbe2a5619c4ee0978eaa5c524af75dbd8de362f9a4df7032e26",
    # Engine 1.3.0 (recorded when it was made): 1.2.0's set-up, the same draws; its states
    # name the 1.3.0 ruleset.
    ("1.3.0", "single"):
        "973ddd483aef82cf78e7d541994b7cd5723f7844ce1b29e90aac97dcde21b5f7",
    ("1.3.0", "best-of-three"):
        "2f29d12e29de498eb13daa9bcf8bb830b67d5d11b34b18dffe71e48947acd568",
    ("1.3.0", "hero-match"):
        "241cae0c0f706afd5b3a42047669e7eccd90694086cc2414dd85dd11720aab4a",
    ("1.3.0", "solo"):
        "aa8a700926b4ac9063bd0537d372639fc99980334192327f2ae011651b6f61de",
    # Engine 1.4.0 (recorded when it was made): 1.3.0's set-up, the same draws; its states
    # name the 1.4.0 ruleset.
    ("1.4.0", "single"):
        "76e509450785893351b95ffb7565f3e8bef1304c9b603c7a47d15ec619c426c7",
    ("1.4.0", "best-of-three"):
        "b5391e5594725803545b6889205b11e1190a38e17bf1bdb52880718f94339feb",
    ("1.4.0", "hero-match"):
        "468d41bb6b24ffb3a08234a1fbc12cfc714b29e7adb3e4bb002f14ea3dfd1068",
    ("1.4.0", "solo"):
        "fe6fb26f03ee8c11d528755d60b07754a3b8b9e43a3c514145060cc56c02d6cc",
    # Engine 1.5.0 (recorded when it was made): 1.4.0's set-up, the same draws; its states
    # name the 1.5.0 ruleset.
    ("1.5.0", "single"):
        "364230b7e583f81ffc80cfb68177870925e7e876ee0bccbf3f9ceb2025434e85",
    ("1.5.0", "best-of-three"):
        "c505f978c794a0188fe6a8bc414e0340d0a4f86890dfd754fbd398e160de3b8e",
    ("1.5.0", "hero-match"):
        "808642a33dfcdce01b1aec2dc2fb1f9c96340e01e968a0bb6deb2d70b1f82339",
    ("1.5.0", "solo"):
        "88eec9cc1c654aef5f015cfd93188576ad5263e28497c3e405524ddecedcf402",
}


def test_every_mode_is_covered() -> None:
    assert set(OPTIONS) == set(MODES) == {mode for _, mode in PINNED}
    assert {version for version, _ in PINNED} == set(RULESETS)


def _setup_digest(version: str, mode: str) -> str:
    engine = ENGINE.for_version(version)
    digest = hashlib.sha256()
    for seats, options in OPTIONS[mode]:
        for seed in SEEDS:
            rng = SeededRandomness(seed)
            state = engine.setup(MatchConfig(mode, seats, options), rng)
            digest.update(canonical_json(engine.encode(state)))
            digest.update(json.dumps([d.to_json() for d in rng.records], sort_keys=True).encode())
    return digest.hexdigest()


@pytest.mark.parametrize(("version", "mode"), sorted(PINNED))
def test_setup_makes_the_states_and_draws_it_made_before_start(version: str, mode: str) -> None:
    assert _setup_digest(version, mode) == PINNED[version, mode]


@pytest.mark.parametrize("version", sorted(RULESETS))
@pytest.mark.parametrize("mode", sorted(MODES))
def test_start_gives_setups_state_from_the_same_draws(version: str, mode: str) -> None:
    engine = ENGINE.for_version(version)
    for seats, options in OPTIONS[mode]:
        config = MatchConfig(mode, seats, options)
        for seed in SEEDS:
            a, b = SeededRandomness(seed), SeededRandomness(seed)
            started = engine.start(config, a)  # type: ignore[attr-defined]
            assert canonical_json(engine.encode(started.state)) == \
                canonical_json(engine.encode(engine.setup(config, b)))
            assert a.records == b.records and a.records  # the same draws, in the same order
            assert started.events
            # what the rules host calls: the engine's start
            c = SeededRandomness(seed)
            assert setup_transition(engine, config, c).events == started.events
            assert c.records == a.records
            # any Randomness: the same number of calls
            f, g = FakeRandomness(seed), FakeRandomness(seed)
            assert engine.encode(engine.start(config, f).state) == \
                engine.encode(engine.setup(config, g))  # type: ignore[attr-defined]
            assert f.calls == g.calls


def _cards(value: Any) -> set[str]:
    return set(CARD_ID.findall(json.dumps(value)))


@pytest.mark.parametrize("mode", sorted(MODES))
def test_each_seat_is_shown_its_own_hand_and_everyone_the_counts(mode: str) -> None:
    for seats, options in OPTIONS[mode]:
        for seed in SEEDS:
            started = ENGINE.start(MatchConfig(mode, seats, options), SeededRandomness(seed))
            state, events = started.state, started.events
            kinds = [e.kind for e in events]
            players = [s for s, side in enumerate(state.sides) if not side.computer]
            assert players == list(range(seats))
            assert kinds == ["heroes_dealt", "heroes_dealt", "game_started",
                             *["drew", "drew_count"] * seats]
            by_kind = {k: [e for e in events if e.kind == k] for k in set(kinds)}
            # private: exactly the seat's hand in the state, to that seat only
            for seat, drew in zip(players, by_kind["drew"], strict=True):
                assert drew.visible_to == frozenset({seat})
                assert dict(drew.data) == {"side": seat, "cards": list(state.sides[seat].hand),
                                           "source": "starting hand"}
                assert len(drew.data["cards"]) == 7
            # public: the count equals the hand's size, and no card is named
            for seat, count in zip(players, by_kind["drew_count"], strict=True):
                assert count.visible_to is None
                assert dict(count.data) == {"side": seat, "count": len(state.sides[seat].hand),
                                            "source": "starting hand"}
            public = [dict(e.data) for e in events if e.visible_to is None]
            assert not _cards(public), public
            assert all(e.visible_to is None or e.kind == "drew" for e in events)
            (start,) = by_kind["game_started"]
            assert dict(start.data) == {"game": 1, "first_player": state.active}
            assert state.active == state.starter
            for side_index, dealt in enumerate(by_kind["heroes_dealt"]):
                side = state.sides[side_index]
                assert dealt.data["side"] == side_index and dealt.visible_to is None
                assert dealt.data["heroes"] == (sorted(side.bench) if mode == "hero-match"
                                                else [side.hero])
                assert dealt.data.get("computer", False) == side.computer
            heroes = options.get("heroes")
            assert by_kind["heroes_dealt"][0].data["source"] == (
                "chosen" if heroes else "dealt at random")
            if mode == "solo":
                assert by_kind["heroes_dealt"][1].data["source"] == (
                    "chosen" if "computer_hero" in options else "dealt at random")


def test_the_public_reads_counts_and_each_seat_its_own_cards_in_words() -> None:
    started = ENGINE.start(MatchConfig("single", 2, {"heroes": ["rex", "lux"]}),
                           SeededRandomness(1))
    hand = started.state.sides[0].hand
    lines = {e.kind: present.describe_event({"kind": e.kind, "data": dict(e.data)}, 0)
             for e in started.events if e.visible_to in (None, frozenset({0}))}
    assert lines["heroes_dealt"] == "Seat 1 takes Lux (chosen)"
    assert lines["game_started"] == "Game 1 starts; seat 0 attacks first"
    assert lines["drew_count"] == "Seat 1 draws 7 card(s) (starting hand)"
    assert lines["drew"].startswith("You draw ")
    assert lines["drew"].count(" + ") == len(hand) - 1
    cpu = ENGINE.start(MatchConfig("solo", 1, {"computer_hero": "cpu-zed"}), SeededRandomness(1))
    dealt = [e for e in cpu.events if e.kind == "heroes_dealt"][1]
    assert present.describe_event({"kind": dealt.kind, "data": dict(dealt.data)}, None) \
        .startswith("The Computer takes Zed")


def test_game_ones_deal_has_the_shape_of_a_later_games_deal() -> None:
    """A Best of Three deals again after each KO with ``game_started`` and each seat's private
    ``drew`` and public ``drew_count``; game 1's set-up uses the same kinds with the same
    fields and visibility (it adds ``heroes_dealt``: later games keep their heroes)."""
    rnd = random.Random(5)
    rng = SeededRandomness(5)
    started = ENGINE.start(MatchConfig("best-of-three", 2, {}), rng)
    state, later = started.state, None
    while later is None and ENGINE.pending(state):
        decision = rnd.choice(ENGINE.pending(state))
        t = ENGINE.apply(state, decision.seat, rnd.choice(decision.legal), rng)
        state = t.state
        if any(e.kind == "game_started" for e in t.events):
            later = t.events[[e.kind for e in t.events].index("game_started"):]
    assert later is not None, "no second game was dealt"

    def shape(events: Any) -> list[tuple[str, list[str], Any, Any]]:
        return [(e.kind, sorted(e.data), e.data.get("source"), e.visible_to) for e in events
                if e.kind in ("game_started", "drew", "drew_count")]

    assert shape(started.events) == shape(later)
    assert [e.kind for e in later] == ["game_started", "drew", "drew_count", "drew", "drew_count"]
    counts = {e.data["side"]: e.data["count"] for e in later if e.kind == "drew_count"}
    assert counts == {seat: len(side.hand) for seat, side in enumerate(state.sides)}
    assert all(not e.visible_to for e in later if e.kind == "drew_count")
