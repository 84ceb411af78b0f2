"""A player a party names without their consent is not held by it (matchmaker.py, "Consent"):
they may wait in other tickets too. No match seats a player twice (grouping.group_apart), the
ticket that holds a player is grouped as if the parties naming them were not there, and who
holds whom comes back after a restart (SQLite store, no rules service)."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.matchmaking.app import MatchmakingApplication
from services.matchmaking.catalogue import Catalogue, GameSpec, ModeSpec
from services.matchmaking.config import Config
from services.matchmaking.grouping import Policy
from services.matchmaking.matchmaker import Matchmaker
from services.matchmaking.ratings import StaticRatings
from services.matchmaking.requests import TicketRequest
from services.platform.errors import FailedPrecondition
from tests.unit.test_matchmaking_restart import ORGANISER, NoRules, claims


async def opened(path: Path, seats: int = 2) -> Matchmaker:
    app = MatchmakingApplication(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                                      "SQLITE_DBNAME": str(path)})
    catalogue = Catalogue()
    catalogue.register(GameSpec("toy", (ModeSpec("race", seats, seats),)))
    config = Config(policy=Policy(partial_after=0, backfill_after=1e9))
    mm = Matchmaker(app, NoRules(), StaticRatings({}), config, catalogue)  # type: ignore[arg-type]
    await mm.recover()
    return mm


def seated(mm: Matchmaker) -> list[list[str]]:
    return sorted(sorted(s["player"] for s in p.seats) for p in mm.proposals.values())


async def test_no_match_seats_a_player_twice_and_their_own_ticket_comes_first(
    tmp_path: Path,
) -> None:
    mm = await opened(tmp_path / "mm.db", seats=3)
    await mm.create_ticket(claims("vic"), TicketRequest("t-vic", "toy", players=("vic",)))
    await mm.create_ticket(claims("mal"), TicketRequest("t-mal", "toy", players=("mal", "vic")))
    await mm.create_ticket(claims("eve"), TicketRequest("t-eve", "toy", players=("eve", "vic")))
    for p in ("cy", "dee", "fay"):
        await mm.create_ticket(claims(p), TicketRequest(f"t-{p}", "toy", players=(p,)))
    assert mm.shared == {"vic"} and mm.player_ticket["vic"] == "t-vic"
    assert mm.invited["vic"] == {"t-mal", "t-eve"}
    groups = await mm.cycle()
    for g in groups:
        players = [s.player for s in g.seats]
        assert len(players) == len(set(players)), players
    # vic's own ticket with the two oldest others; the parties, one a round, oldest first,
    # from what is left
    assert seated(mm) == [["cy", "dee", "vic"], ["fay", "mal", "vic"]]
    assert mm.tickets["t-eve"].status == "waiting"
    # vic can accept only the match of the ticket that holds them
    party = mm.tickets["t-mal"].proposal["match_id"]  # type: ignore[index]
    with pytest.raises(FailedPrecondition, match="t-vic"):
        await mm.accept_match(claims("vic"), "t-mal", party)
    own = mm.tickets["t-vic"].proposal["match_id"]  # type: ignore[index]
    assert (await mm.accept_match(claims("vic"), "t-vic", own))["accepted"] == ["vic"]
    mm.app.close()


async def test_accepting_holds_a_named_player_and_a_restart_agrees(tmp_path: Path) -> None:
    mm = await opened(tmp_path / "mm.db")
    await mm.create_ticket(claims("ann"), TicketRequest("t-a", "toy", players=("ann", "bob")))
    await mm.create_ticket(claims("cy"), TicketRequest("t-c", "toy", players=("cy", "bob")))
    await mm.cycle()
    assert mm.invited == {"bob": {"t-a", "t-c"}} and "bob" not in mm.player_ticket
    again = await opened(tmp_path / "mm.db")
    assert again.invited == mm.invited and again.player_ticket == {"ann": "t-a", "cy": "t-c"}
    match = again.tickets["t-a"].proposal["match_id"]  # type: ignore[index]
    await again.accept_match(claims("bob"), "t-a", match)
    assert again.player_ticket["bob"] == "t-a" and again.invited == {"bob": {"t-c"}}
    third = await opened(tmp_path / "mm.db")
    assert third.player_ticket["bob"] == "t-a" and third.invited == {"bob": {"t-c"}}
    with pytest.raises(FailedPrecondition, match="t-a"):
        await third.create_ticket(claims("bob"), TicketRequest("t-b", "toy", players=("bob",)))
    other = third.tickets["t-c"].proposal["match_id"]  # type: ignore[index]
    with pytest.raises(FailedPrecondition, match="t-a"):
        await third.accept_match(claims("bob"), "t-c", other)
    with pytest.raises(FailedPrecondition, match="t-a"):  # an organiser may not either
        await third.accept_match(ORGANISER, "t-c", other)
    # the held ticket ends: bob is free again, and no longer in any map
    await third.cancel_ticket(claims("bob"), "t-a")
    await third.cancel_ticket(claims("cy"), "t-c")
    assert not third.invited and not third.shared and "bob" not in third.player_ticket
    await third.create_ticket(claims("bob"), TicketRequest("t-b", "toy", players=("bob",)))
    for m in (mm, again, third):
        m.app.close()
