"""The shared response-window and stack helper (services/rules/games/windows.py)."""

import pytest

from services.rules.games.contract import Decision, answering
from services.rules.games.windows import ResponseWindow, Stack, turn_order_after


def test_every_other_player_in_turn_order_after_the_active_one():
    # Barbaric, Preparation: "every other player, in turn order, may do the same".
    assert turn_order_after(2, (0, 1, 2, 3)) == (3, 0, 1)
    window = ResponseWindow.after(2, (0, 1, 2, 3))
    assert window.current == 3
    window = window.pass_(3).respond(0)
    assert window.current == 1
    with pytest.raises(ValueError, match="waiting for seat 1"):
        window.respond(3)
    window = window.respond(1)
    assert window.closed and window.current is None
    assert window.responses == (0, 1)
    with pytest.raises(ValueError, match="closed"):
        window.pass_(1)


def test_eliminated_seats_leave_the_rest_of_a_window():
    window = ResponseWindow.after(0, (0, 1, 2, 3)).pass_(1)
    window = window.skip_seats({2})
    assert window.current == 3
    assert window.respond(3).closed


def test_counter_chain_resolves_last_in_first_out():
    chain = Stack[str]("lifo").push("attack").push("counter").push("counter-counter")
    assert chain.resolution_order() == ("counter-counter", "counter", "attack")
    first, rest = chain.pop()
    assert first == "counter-counter" and rest.next() == "counter"


def test_ultimates_resolve_first_in_first_out():
    queue = Stack[str]("fifo").push("u1").push("u2")
    assert queue.resolution_order() == ("u1", "u2")
    first, rest = queue.pop()
    assert first == "u1" and rest.pop()[0] == "u2" and rest.pop()[1].empty
    with pytest.raises(IndexError):
        Stack[str]("fifo").pop()


def test_the_highest_priority_decision_answers_an_action_listed_twice():
    pass_ = {"type": "pass"}
    owed = Decision(0, "defend", (pass_, {"type": "block"}), default=pass_)
    standing = Decision(0, "exchange", ({"type": "exchange", "give": "a"}, pass_),
                        standing=True, priority=5)
    assert answering([owed, standing], pass_) is standing
    assert answering([owed, standing], {"type": "block"}) is owed
    low = Decision(0, "exchange", (pass_,), standing=True)
    assert answering([low, owed], pass_) is owed  # same priority: owed before standing
    assert answering([owed], {"type": "nope"}) is None
