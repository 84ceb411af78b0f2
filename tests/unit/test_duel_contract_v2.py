"""The contract-v2 toy (tests/support/duel.py): any-time actions and a LIFO counter chain."""

from services.platform.draws import SeededRandomness
from services.rules.games.contract import MatchConfig, answering, standing_options
from tests.support.duel import ENGINE, State

STRIKE, COUNTER, PASS, EXCHANGE = ({"type": "strike"}, {"type": "counter"}, {"type": "pass"},
                                   {"type": "exchange"})


def play(state, *moves):
    for seat, action in moves:
        assert ENGINE.validate(state, seat, action) is None, (seat, action)
        state = ENGINE.apply(state, seat, action, SeededRandomness(0)).state
    return state


def test_a_counter_of_a_counter_lets_the_strike_through():
    # chain: strike (0), counter (1), counter (0); seat 1 passes; resolved last in, first out
    state = play(State(active=0), (0, STRIKE), (1, COUNTER), (0, COUNTER), (1, PASS))
    assert state.health == (10, 8) and state.sparks == (1, 1) and state.chain.empty


def test_a_single_counter_cancels_the_strike():
    state = play(State(active=0), (0, STRIKE), (1, COUNTER), (0, PASS))
    assert state.health == (10, 10) and state.sparks == (2, 1)


def test_any_time_exchanges_interleave_with_the_chain():
    state = play(State(active=0),
                 (1, EXCHANGE),          # on seat 0's turn
                 (0, STRIKE),
                 (0, EXCHANGE),          # while seat 1 owes its answer
                 (1, COUNTER), (0, COUNTER), (1, EXCHANGE), (1, COUNTER), (0, PASS))
    # chain strike(0) counter(1) counter(0) counter(1): the last cancels seat 0's counter,
    # seat 1's first counter then cancels the strike.
    assert state.health == (8, 6) and state.sparks == (2, 2)


def test_standing_options_are_offered_to_both_seats_and_answer_by_priority():
    state = State(active=0)
    standing = standing_options(ENGINE, state)
    assert {d.seat for d in standing} == {0, 1} and all(d.standing for d in standing)
    owed = [d for d in ENGINE.pending(state) if d.seat == 1]
    assert owed == []  # seat 1 owes nothing, yet may exchange
    assert answering([*owed, *[d for d in standing if d.seat == 1]], EXCHANGE).kind == "any_time"
    assert all(d.default is not None for d in ENGINE.pending(state))


def test_random_duels_end_by_their_own_rule():
    from services.rules.bots import RandomBot

    for game in range(50):
        rng = SeededRandomness(game)
        state = ENGINE.setup(MatchConfig("duel", 2), rng)
        bot = RandomBot(game)
        for _ in range(500):
            if ENGINE.outcome(state):
                break
            decision = ENGINE.pending(state)[0]
            action = bot.choose(decision)
            state = ENGINE.apply(state, decision.seat, action, rng).state
        assert ENGINE.outcome(state) is not None


def test_verify_refuses_a_timeout_that_did_not_apply_the_default():
    import pytest

    from services.rules.replay import ReplayError, _check_timeout

    state = State(active=0)  # seat 0 owes its turn; the default is to rest
    _check_timeout(ENGINE, state, 0, {"type": "rest"}, {"n": 3, "timeout": True})
    with pytest.raises(ReplayError, match="not its decision's default"):
        _check_timeout(ENGINE, state, 0, STRIKE, {"n": 3, "timeout": True})
    _check_timeout(ENGINE, state, 0, {"type": "resign"}, {"n": 3, "timeout": "forfeit"})
