"""Ids that end with a newline are refused everywhere ids are checked.

``re.match(r"^...$")`` accepts a trailing "\\n" (``$`` matches before it). A ticket id
"t1\\n" was accepted by matchmaking and its events went on NATS subject
"...ticket.t1\\n", which NATS refuses: the outbox relay then retried that event forever
and published none of the events stored after it.
"""

from __future__ import annotations

import pytest

from services.matchmaking.requests import TicketRequest, check_shape
from services.platform.errors import InvalidArgument
from services.platform.settings import check_namespace
from services.rules.host import MATCH_ID
from services.scoring.results import GAME_ID
from services.scoring.results import MATCH_ID as RESULT_MATCH_ID
from services.tournament import director


@pytest.mark.parametrize("ticket_id, player", [("t1\n", "ann"), ("t1", "ann\n")])
def test_matchmaking_refuses_a_ticket_or_player_id_ending_in_a_newline(ticket_id: str, player: str) -> None:
    with pytest.raises(InvalidArgument):
        check_shape(TicketRequest(ticket_id=ticket_id, game="toy", players=(player,)))


def test_tournament_refuses_ids_ending_in_a_newline() -> None:
    with pytest.raises(InvalidArgument):
        director._check_id("cup1\n")
    with pytest.raises(InvalidArgument):
        director._check_player_id("ann\n")


def test_other_id_patterns_do_not_match_a_trailing_newline() -> None:
    for pattern, good in ((MATCH_ID, "m1"), (RESULT_MATCH_ID, "m1"), (GAME_ID, "neon")):
        assert pattern.fullmatch(good) and not pattern.match(good + "\n")
    with pytest.raises(ValueError):
        check_namespace("ns\n")
