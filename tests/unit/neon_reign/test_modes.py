"""2-Player Game Modes: Single Game, Best of Three, 2v2 Hero Match."""

from __future__ import annotations

from dataclasses import replace

from services.rules.games.neon_reign import ENGINE

from .support import FakeRandomness, act, exchange, new_match, position, side

FINISHER = ["NP-01", "NP-02"]  # 4 damage


def ko_position(mode: str, health: int = 4, **changes: object):  # type: ignore[no-untyped-def]
    return position(side("brick", "neon-pulse", FINISHER),
                    side("sol", "chrome-fury", ["CF-01"], health=health), mode=mode, **changes)


def test_single_game_ends_at_the_first_ko() -> None:
    after = exchange(ko_position("single"), FINISHER)
    outcome = ENGINE.outcome(after)
    assert outcome is not None
    assert (outcome.placements, outcome.scores, outcome.draw) == ((1, 2), (25, 0), False)
    assert outcome.breakdown["winner"] == 0


class TestBestOfThree:
    def test_a_ko_awards_an_arcade_token_and_a_fresh_game_starts(self) -> None:
        after = exchange(ko_position("best-of-three"), FINISHER)
        assert ENGINE.outcome(after) is None
        assert (after.tokens, after.game, after.active) == ((1, 0), 2, 1)  # the loser starts
        for s in after.sides:
            assert (s.health, len(s.hand), len(s.deck), s.discard, s.stars) == (25, 7, 37, (), 0)

    def test_two_tokens_win_the_match(self) -> None:
        after = exchange(ko_position("best-of-three", tokens=(1, 0), game=2), FINISHER)
        outcome = ENGINE.outcome(after)
        assert outcome is not None
        assert (outcome.placements, outcome.scores) == ((1, 2), (2, 0))
        assert len(outcome.breakdown["games"]) == 1

    def test_a_double_ko_gives_both_a_token(self) -> None:
        state = position(side("brick", "neon-pulse", ["NP-01"], health=2),
                         side("mika", "chrome-fury", ["CF-01"], health=2), mode="best-of-three")
        after = exchange(state, ["NP-01"], ["CF-01"])
        assert after.tokens == (1, 1) and after.active == 1  # the other player starts

    def test_both_reaching_two_at_once_is_a_drawn_match(self) -> None:
        state = position(side("brick", "neon-pulse", ["NP-01"], health=2),
                         side("mika", "chrome-fury", ["CF-01"], health=2),
                         mode="best-of-three", tokens=(1, 1), game=2)
        outcome = ENGINE.outcome(exchange(state, ["NP-01"], ["CF-01"]))
        assert outcome is not None
        assert (outcome.placements, outcome.draw, outcome.scores) == ((1, 1), True, (2, 2))


class TestHeroMatch:
    def test_both_pick_secretly_and_at_once(self) -> None:
        state = new_match("hero-match", heroes=[["volt", "kira"], ["rex", "lux"]])
        pending = ENGINE.pending(state)
        assert [(d.seat, d.kind, d.hidden) for d in pending] == [
            (0, "pick_hero", True), (1, "pick_hero", True)]
        transition = act(state, 0, {"type": "pick_hero", "hero": "kira"})
        for viewer in (1, None):  # both heroes are public; the pick is not
            seen = ENGINE.view(transition.state, viewer)["sides"][0]
            assert seen["hero"] is None and seen["picked"] and "my_pick" not in seen
        assert ENGINE.view(transition.state, 0)["sides"][0]["my_pick"] == "kira"
        for event in transition.events:
            if "hero" in event.data:
                assert event.visible_to == frozenset({0})
        assert [d.seat for d in ENGINE.pending(transition.state)] == [1]
        assert ENGINE.validate(transition.state, 0, {"type": "pick_hero", "hero": "volt"})
        final = act(transition.state, 1, {"type": "pick_hero", "hero": "lux"})
        assert [e.data for e in final.events if e.kind == "heroes_revealed"] == [
            {"heroes": ["kira", "lux"]}]
        assert (final.state.sides[0].hero, final.state.sides[1].hero) == ("kira", "lux")
        assert (final.state.sides[0].bench, final.state.sides[1].bench) == (("volt",), ("rex",))

    def test_the_second_hero_comes_in_when_the_first_is_ko(self) -> None:
        state = ko_position("hero-match")
        state = replace(state, sides=(state.sides[0], replace(state.sides[1], bench=("lux",),
                                                              stars=3, shields=0)))
        after = exchange(state, FINISHER)
        lux = after.sides[1]
        assert ENGINE.outcome(after) is None
        assert (lux.hero, lux.health, lux.stars, lux.fallen) == ("lux", 25, 0, ("sol",))
        assert lux.hand == ("CF-01",)  # the seat keeps its hand, deck and discard
        assert after.active == 1

    def test_beating_both_heroes_wins(self) -> None:
        state = ko_position("hero-match")
        state = replace(state, sides=(state.sides[0], replace(state.sides[1], fallen=("lux",))))
        outcome = ENGINE.outcome(exchange(state, FINISHER))
        assert outcome is not None and outcome.placements == (1, 2)


def test_random_heroes_in_a_hero_match_are_four_different_heroes() -> None:
    state = ENGINE.setup(__import__("services.rules.games.contract", fromlist=["MatchConfig"])
                         .MatchConfig("hero-match", 2, {}), FakeRandomness(3))
    benches = state.sides[0].bench + state.sides[1].bench
    assert len(set(benches)) == 4
