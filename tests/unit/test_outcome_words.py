"""The result in words names every place, the sides the engine plays included: a seat placed
2nd behind NEON's Automa or Neon Reign's Computer sees who was 1st (`neon play`, `neon
replay`, `neon queue`, `neon tournament play`)."""

from __future__ import annotations

from typing import Any

from services.cli.screen import load_presentation
from services.cli.terminal import describe_outcome
from services.platform.draws import SeededRandomness
from services.rules.games import load_engine
from services.rules.games.contract import MatchConfig
from services.rules.replay import outcome_json


def _played_out(game: str, mode: str, seats: int, seed: int) -> dict[str, Any]:
    """The outcome (as served) of a whole game between first-legal-action bots."""
    engine = load_engine(game)
    rng = SeededRandomness(f"outcome-words-{seed}".encode())
    state = engine.setup(MatchConfig(mode=mode, seats=seats, options={}), rng)
    for _ in range(20_000):
        if engine.outcome(state) is not None:
            return outcome_json(engine.outcome(state))
        decision = engine.pending(state)[0]
        state = engine.apply(state, decision.seat, decision.legal[-1], rng).state
    raise AssertionError("the game did not end")


def test_neon_s_automa_takes_its_place_among_the_seats() -> None:
    outcome = _played_out("neon", "rebirth", 2, 1)
    automa = outcome["breakdown"]["automa"]
    text = describe_outcome(outcome, 0, load_presentation("neon"))
    lines = text.splitlines()
    assert f"{automa['rank']}. the Automa ({automa['score']})" in lines
    places = [int(line.split(".")[0]) for line in lines if line[:1].isdigit()]
    assert places == sorted(places) and len(places) == 3  # two seats and the Automa, in order
    assert "the Automa" not in describe_outcome(outcome, 0)  # without the game: seats only


def test_the_automa_first_is_told_first() -> None:
    outcome = {"placements": [2, 3], "scores": [5, 1], "draw": False, "reason": "rounds",
               "breakdown": {"automa": {"rank": 1, "score": 9}}}
    assert describe_outcome(outcome, 1, load_presentation("neon")).splitlines()[:3] == [
        "1. the Automa (9)", "2. seat 0 (5)", "3. you (1)"]


def test_neon_reign_s_computer_is_first_when_it_wins_solo() -> None:
    present = load_presentation("neon-reign")
    lost = {"placements": [2], "scores": [0], "draw": False, "reason": "ko",
            "breakdown": {"computer": True, "winner": "computer", "health": [0, 7]}}
    assert describe_outcome(lost, 0, present).splitlines()[:2] == [
        "1. the Computer (7)", "2. you (0)"]
    won = {**lost, "placements": [1], "scores": [4],
           "breakdown": {"computer": True, "winner": 0, "health": [4, 0]}}
    assert describe_outcome(won, 0, present).splitlines()[:2] == ["1. you (4)", "2. the Computer (0)"]
    two_seats = {**won, "placements": [1, 2], "scores": [4, 0],
                 "breakdown": {"computer": False, "winner": 0, "health": [4, 0]}}
    assert "Computer" not in describe_outcome(two_seats, 0, present)


def test_a_played_solo_game_names_the_computer() -> None:
    outcome = _played_out("neon-reign", "solo", 1, 2)
    text = describe_outcome(outcome, 0, load_presentation("neon-reign"))
    assert "the Computer" in text
    first = text.splitlines()[0]
    if outcome["placements"] == [2]:
        assert first.startswith("1. the Computer")
    else:
        assert first.startswith("1. you")


def test_the_other_seats_are_named_where_the_players_are_known() -> None:
    """A tournament's table knows its players: the result names them, not "seat 1"."""
    outcome = {"placements": [2, 1], "scores": [3, 8], "draw": False, "reason": "ko"}
    assert describe_outcome(outcome, 0, None, {0: "ann", 1: "ben"}).splitlines()[:2] == [
        "1. ben (8)", "2. you (3)"]
    assert describe_outcome(outcome, None, None, {0: "ann", 1: "ben"}).splitlines()[:2] == [
        "1. ben (8)", "2. ann (3)"]
    assert describe_outcome(outcome, 0).splitlines()[0] == "1. seat 1 (8)"
