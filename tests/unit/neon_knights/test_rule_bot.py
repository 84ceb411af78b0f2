"""Games between rule bots end by the rulebook's ending in every mode."""

from __future__ import annotations

from collections import Counter

import pytest

from services.platform.draws import SeededRandomness
from services.rules.games.contract import MatchConfig
from services.rules.games.neon_knights import BOTS, ENGINE


@pytest.mark.parametrize("mode", ["normal", "campaign", "epic-campaign"])
@pytest.mark.parametrize("seats", [2, 5])
def test_rule_bots_finish_a_game(mode: str, seats: int) -> None:
    rng = SeededRandomness(f"rule:{mode}:{seats}")
    state = ENGINE.setup(MatchConfig(mode, seats, {}), rng)
    bots = [BOTS["rule"](seat) for seat in range(seats)]
    for _ in range(5000):
        if ENGINE.outcome(state) is not None:
            break
        decision = ENGINE.pending(state)[0]
        action = bots[decision.seat].choose(ENGINE.view(state, decision.seat), decision)
        assert ENGINE.validate(state, decision.seat, action) is None
        state = ENGINE.apply(state, decision.seat, action, rng).state
    outcome = ENGINE.outcome(state)
    assert outcome is not None and outcome.reason.startswith("the last race")
    assert state.doc["race"] == state.doc["races"]


def test_rule_bot_clears_danger_lines_it_can_see() -> None:
    """At speed 10 before an orange line across the road it prefers a speed that passes free."""
    from .support import decision_of, edit, racing

    state = racing(2)
    seat = state.doc["racing"]["order"][0]

    def place(doc: dict) -> None:
        doc["track"] = ["t01", "t07", "t02", "t03", "t05", "t06", "t09", "t12"]  # orange line on row 4
        p = doc["players"][seat]
        p.update(row=0, lane=1, speed=6, car={**p["car"], "yellow": "y08", "green": "g08"})

    state = edit(state, place)
    decision = decision_of(state)
    action = BOTS["rule"](1).choose(ENGINE.view(state, seat), decision)
    assert action["to"] == 5  # the fastest speed in the orange zone passes the orange line free


# ---- hidden decisions (RULES.md, "Bots on hidden decisions") ----------------------------------

SEEDS = 300


def test_a_bot_picks_among_the_best_of_a_draft_packet_not_one_the_passer_can_name() -> None:
    """The seat that passed a packet on knows it card for card: a pick by a fixed taste
    would name the pick. Over seeds the bot picks each of the packet's three best (by its
    taste), the best most often, every pick legal; the same seed picks the same."""
    from services.rules.games.neon_knights.bots import IMPLANT_TASTE
    from services.rules.games.neon_knights.content import IMPLANTS

    from .support import decision_of, new_game

    state = new_game(3)
    decision = decision_of(state, 1)
    assert decision.kind == "draft" and decision.hidden and len(decision.legal) > 3
    view = ENGINE.view(state, 1)

    def taste(implant: str) -> int:
        return IMPLANTS[implant]["level"] * 20 - IMPLANT_TASTE.index(IMPLANTS[implant]["effect"])

    picks: Counter[str] = Counter()
    for seed in range(SEEDS):
        action = BOTS["rule"](f"draft-{seed}").choose(view, decision)
        assert action in decision.legal
        picks[action["implant"]] += 1
    best = sorted((a["implant"] for a in decision.legal), key=lambda i: (-taste(i), i))
    assert set(picks) == set(best[:3])
    assert picks.most_common(1)[0][0] == best[0] and picks[best[0]] < SEEDS * 0.7
    assert BOTS["rule"]("x").choose(view, decision) == BOTS["rule"]("x").choose(view, decision)


def test_the_pick_does_not_follow_from_the_packet() -> None:
    """Two seats' packets that share their best implant: the bot does not always take it
    from either, so seeing that implant installed later names no packet's pick."""
    from .support import decision_of, new_game

    state = new_game(3)
    for seat in range(3):
        decision = decision_of(state, seat)
        view = ENGINE.view(state, seat)
        picks = {BOTS["rule"](f"p{seat}-{n}").choose(view, decision)["implant"] for n in range(60)}
        assert len(picks) > 1, seat


def test_a_hidden_starting_speed_is_drawn_around_six() -> None:
    """Always 6 told every seat the bot's hidden speed while they still chose theirs: over
    seeds the bot's hidden speed is each of 4-8 (6 most often), every one legal; chosen in
    the open (shown as chosen) it stays 6."""
    from .support import decision_of, new_game, play_defaults

    hidden = play_defaults(new_game(3, hidden_speeds=True), lambda d: d["phase"] == "speeds")
    decision = decision_of(hidden)
    assert decision.kind == "start_speed" and decision.hidden
    view = ENGINE.view(hidden, decision.seat)
    speeds: Counter[int] = Counter()
    for seed in range(SEEDS):
        action = BOTS["rule"](f"speed-{seed}").choose(view, decision)
        assert action in decision.legal
        speeds[action["speed"]] += 1
    assert set(speeds) == {4, 5, 6, 7, 8}
    assert speeds.most_common(1)[0][0] == 6 and speeds[6] < SEEDS * 0.5
    open_ = play_defaults(new_game(3), lambda d: d["phase"] == "speeds")
    decision = decision_of(open_)
    assert decision.kind == "start_speed" and not decision.hidden
    view = ENGINE.view(open_, decision.seat)
    assert {BOTS["rule"](f"o{n}").choose(view, decision)["speed"] for n in range(40)} == {6}


def test_a_bot_keeps_every_fan_bet() -> None:
    """The Fan Bet kept or discarded is hidden only in which card a discard drops (the
    discard itself is public): the bot keeps them all, whatever its bets, so nothing of them
    follows."""
    from .support import decision_of, new_game, play_defaults

    state = play_defaults(new_game(3), lambda d: d["phase"] == "actions")
    decision = decision_of(state)
    assert {"type": "draw_bet"} in decision.legal
    state = ENGINE.apply(state, decision.seat, {"type": "draw_bet"}, SeededRandomness("bet")).state
    decision = decision_of(state)
    assert decision.kind == "fan_bet" and decision.hidden and len(decision.legal) > 2
    view = ENGINE.view(state, decision.seat)
    assert {BOTS["rule"](f"b{n}").choose(view, decision)["type"] for n in range(40)} == \
        {"keep_bets"}
