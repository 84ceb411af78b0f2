"""An invited player declines a party's invitation (matchmaker.py, "Declining"), on the
matchmaker itself (SQLite store, no rules service unless a test brings one).

The ruling: a player whom a party named without their consent may decline, with their own
player token only. They leave the party, which waits on without them with its waiting time,
modes and seat limits (a smaller party fits every table the larger one did); a match proposed
to it falls through (it seated them) and goes back to the queue. The party's players see
``declined`` and the reason "X declined the invitation", nothing else of X; the player who
declined sees only that they did (status "declined"), never the party's progress since. A
repeat is answered as the first; everything else is refused with a reason, and a ticket that
does not name the caller is NOT_FOUND exactly as one that does not exist."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from services.matchmaking import events
from services.matchmaking.app import MatchmakingApplication
from services.matchmaking.domain import Ticket
from services.matchmaking.matchmaker import Matchmaker
from services.matchmaking.requests import TicketRequest
from services.platform.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Unauthenticated,
)
from services.platform.tokens import Claims
from tests.unit.test_matchmaking_party_apart import opened, seated
from tests.unit.test_matchmaking_restart import ORGANISER, claims


def declined_view(ticket_id: str, player: str, modes: tuple[str, ...] = ("race",)) -> dict[str, Any]:
    """All the player who declined is shown of the ticket, whatever the party does next."""
    return {"ticket_id": ticket_id, "game": "toy", "modes": list(modes), "players": [],
            "status": "declined", "reason": f"{player} declined the invitation",
            "waited_seconds": 0.0, "assignment": None, "accepted": [],
            "accept_seconds_left": 0.0, "declined": [player], "match_started": False,
            "seed_window": None}


def party(mm: Matchmaker, ticket_id: str) -> dict[str, Any]:
    """The ticket as its players see it, without the clock."""
    view = dict(mm.view(mm.tickets[ticket_id]))
    del view["waited_seconds"], view["accept_seconds_left"]
    return view


def stored(mm: Matchmaker) -> int:
    return mm.app.recorder.max_notification_id() or 0


def match_of(mm: Matchmaker, ticket_id: str) -> str:
    return mm.tickets[ticket_id].proposal["match_id"]  # type: ignore[index]


async def queue(mm: Matchmaker, ticket_id: str, *players: str, by: Claims | None = None) -> None:
    await mm.create_ticket(by or claims(players[0]), TicketRequest(ticket_id, "toy",
                                                                   players=players))


async def test_the_party_waits_on_without_the_player_who_declined(tmp_path: Path) -> None:
    """bob declines ann's party of three while it waits: it keeps its place (queued_at) and
    is grouped as the pair it is now (with two strangers at a table of four, where the three
    would have needed one); cy, still invited, is untouched."""
    mm = await opened(tmp_path / "mm.db", seats=4)
    await queue(mm, "t-a", "ann", "bob", "cy")
    queued_at = mm.tickets["t-a"].queued_at
    assert await mm.decline_invite(claims("bob"), "t-a") == declined_view("t-a", "bob")
    seen = await mm.get_ticket(claims("ann"), "t-a")
    assert (seen["status"], seen["players"], seen["declined"], seen["reason"]) == (
        "waiting", ["ann", "cy"], ["bob"], "bob declined the invitation")
    assert (await mm.get_ticket(claims("cy"), "t-a"))["declined"] == ["bob"]
    assert mm.tickets["t-a"].queued_at == queued_at
    assert mm.invited == {"cy": {"t-a"}} and mm.player_ticket == {"ann": "t-a"}
    for p in ("dee", "eve"):
        await queue(mm, f"t-{p}", p)
    await mm.cycle()
    assert seated(mm) == [["ann", "cy", "dee", "eve"]]
    mm.app.close()


async def test_a_decline_sends_the_proposed_match_back_and_names_nobody_to_strangers(
    tmp_path: Path,
) -> None:
    """bob declines while ann's party is proposed with cy (a stranger) at a table of three:
    the match falls through for both tickets, which keep their waiting time; cy is told the
    match fell through, not by whom nor which ticket; the batch closes. ann and cy are then
    seated with a newcomer."""
    mm = await opened(tmp_path / "mm.db", seats=3)
    await queue(mm, "t-a", "ann", "bob")
    await queue(mm, "t-c", "cy")
    await mm.cycle()
    match = match_of(mm, "t-a")
    await mm.accept_match(claims("cy"), "t-c", match)
    await mm.accept_match(claims("ann"), "t-a", match)
    await mm.decline_invite(claims("bob"), "t-a")
    assert not mm.proposals and not mm.batches
    a = mm.tickets["t-a"]
    assert (a.status, a.players, a.released, a.accepted) == ("waiting", ["ann"], match, [])
    c = await mm.get_ticket(claims("cy"), "t-c")
    assert (c["status"], c["reason"]) == ("waiting", f"match {match} fell through: a player "
                                                     "of it declined")
    assert c["declined"] == [] and c["assignment"] is None
    assert (await mm.get_ticket(claims("ann"), "t-a"))["reason"] == "bob declined the invitation"
    await queue(mm, "t-d", "dee")
    await mm.cycle()
    assert seated(mm) == [["ann", "cy", "dee"]]
    mm.app.close()


async def test_a_decline_replays_the_same_after_a_restart(tmp_path: Path) -> None:
    """The decline is an event of the ticket: a new process on the same store has the same
    party, the same declined player and the same holds; the proposal the decline ended (still
    in its batch) is not proposed again; a repeat after the restart changes nothing."""
    path = tmp_path / "mm.db"
    mm = await opened(path, seats=3)
    await queue(mm, "t-a", "ann", "bob", "cy")
    await queue(mm, "t-x", "xia", "yan", "zed")
    await mm.cycle()
    for p, t in (("cy", "t-a"), ("xia", "t-x")):
        await mm.accept_match(claims(p), t, match_of(mm, t))
    await mm.decline_invite(claims("bob"), "t-a")
    await mm.decline_invite(claims("zed"), "t-x")  # t-x: still proposed then
    before = {i: party(mm, i) for i in ("t-a", "t-x")}
    again = await opened(path, seats=3)
    assert {i: party(again, i) for i in ("t-a", "t-x")} == before
    assert before["t-a"]["status"] == "waiting" and before["t-a"]["players"] == ["ann", "cy"]
    assert again.player_ticket == mm.player_ticket == {"ann": "t-a", "cy": "t-a", "xia": "t-x"}
    assert again.invited == mm.invited == {"yan": {"t-x"}}
    assert not again.proposals
    n = stored(again)
    assert await again.decline_invite(claims("bob"), "t-a") == declined_view("t-a", "bob")
    assert stored(again) == n, "a repeat stores nothing"
    assert await again.get_ticket(claims("bob"), "t-a") == declined_view("t-a", "bob")
    # the party of two (ann, cy) and another of one make the next table of three
    await queue(again, "t-d", "dee")
    await again.cycle()
    assert ["ann", "cy", "dee"] in seated(again)
    for m in (mm, again):
        m.app.close()


class Rules:
    """A rules service that creates every match it is asked for."""

    def address(self, game: str) -> str:
        return ""

    async def create_match(self, game: str, match_id: str, mode: str, players: list[str],
                           teams: list[list[int]],
                           on_behalf_of_organiser: str | None = None,
                           await_client_seeds: bool = False) -> dict[int, str]:
        return {seat: f"token-{seat}" for seat in range(len(players))}

    async def start_match(self, game: str, match_id: str) -> None:
        return None


async def refused(call: Any, kind: type[Exception]) -> str:
    with pytest.raises(kind) as info:
        await call
    return str(info.value)


async def test_only_the_invited_player_declines_and_every_refusal_says_why(
    tmp_path: Path,
) -> None:
    mm = await opened(tmp_path / "mm.db", seats=4)
    await queue(mm, "t-a", "ann", "bob", "cy", "dee")  # a table by itself (no cycle yet)
    await queue(mm, "t-o", "oli", "pat", by=ORGANISER)
    await queue(mm, "t-s", "sam")
    # a stranger's ticket and no ticket at all: the same NOT_FOUND, nothing to tell apart
    stranger = await refused(mm.decline_invite(claims("sam"), "t-a"), NotFound)
    missing = await refused(mm.decline_invite(claims("sam"), "t-zz"), NotFound)
    assert stranger == "no invitation for 'sam' in ticket 't-a'"
    assert missing == stranger.replace("t-a", "t-zz")
    assert "sam" in await refused(mm.decline_invite(claims("sam"), "t-s"), FailedPrecondition)
    # only the player's own token: not an organiser's, a service's or a seat's
    for role in ("organiser", "service", "seat"):
        said = await refused(mm.decline_invite(Claims(role=role, match="*", player="bob",
                                                      exp=2**40), "t-a"), PermissionDenied)
        assert "own player token" in said and role in said
    await refused(mm.decline_invite(None, "t-a"), Unauthenticated)
    await refused(mm.decline_invite(claims("bob"), ""), InvalidArgument)
    # players the ticket holds have no invitation to decline
    assert "queued" in await refused(mm.decline_invite(claims("ann"), "t-a"), FailedPrecondition)
    assert "organiser" in await refused(mm.decline_invite(claims("pat"), "t-o"),
                                        FailedPrecondition)
    assert mm.tickets["t-a"].players == ["ann", "bob", "cy", "dee"], "nothing changed"
    # accepted: consent binds (the three left are seated with sam)
    await mm.decline_invite(claims("dee"), "t-a")
    await mm.cycle()
    assert seated(mm) == [["ann", "bob", "cy", "sam"]]
    match = match_of(mm, "t-a")
    await mm.accept_match(claims("cy"), "t-a", match)
    said = await refused(mm.decline_invite(claims("cy"), "t-a"), FailedPrecondition)
    assert "accepted" in said and "CancelTicket" in said
    # a decline is answered the same however often it is sent, and stores nothing more
    n = stored(mm)
    assert await mm.decline_invite(claims("dee"), "t-a") == declined_view("t-a", "dee")
    assert stored(mm) == n
    # ended tickets: no invitation left
    await mm.cancel_ticket(claims("ann"), "t-a")
    said = await refused(mm.decline_invite(claims("bob"), "t-a"), FailedPrecondition)
    assert said == "ticket 't-a' is already cancelled: there is no invitation left to decline"
    assert await mm.decline_invite(claims("dee"), "t-a") == declined_view("t-a", "dee")
    mm.app.close()


async def test_a_matched_ticket_has_no_invitation_left(tmp_path: Path) -> None:
    mm = await opened(tmp_path / "mm.db")
    mm.rules = Rules()  # type: ignore[assignment]
    await queue(mm, "t-a", "ann", "bob")
    await mm.cycle()
    await mm.accept_match(ORGANISER, "t-a", match_of(mm, "t-a"))  # for both
    await mm.cycle()
    await asyncio.gather(*mm._creating)
    assert mm.tickets.get("t-a") is None and (await mm.get_ticket(ORGANISER, "t-a"))[
        "status"] == "matched"
    said = await refused(mm.decline_invite(claims("bob"), "t-a"), FailedPrecondition)
    assert said == "ticket 't-a' is already matched: there is no invitation left to decline"
    mm.app.close()


async def test_the_player_who_declined_sees_only_that_they_did(tmp_path: Path) -> None:
    """bob's watch of ann's party ends with his decline; from then on every call of his on the
    ticket shows only that he declined (GetTicket, WatchTicket, a repeated CreateTicket,
    CancelTicket, which cancels nothing), and AcceptMatch is refused. ann's watch goes on."""
    mm = await opened(tmp_path / "mm.db", seats=4)
    await queue(mm, "t-a", "ann", "bob", "cy")
    mine = mm.watch(claims("bob"), "t-a")
    first = await anext(mine)
    assert first["players"] == ["ann", "bob", "cy"] and first["status"] == "waiting"
    theirs = mm.watch(claims("ann"), "t-a")
    await anext(theirs)
    rest = asyncio.create_task(_rest(mine))
    await asyncio.sleep(0)
    await mm.decline_invite(claims("bob"), "t-a")
    assert await asyncio.wait_for(rest, 2) == [declined_view("t-a", "bob")]
    told = await asyncio.wait_for(anext(theirs), 2)
    assert (told["players"], told["declined"]) == (["ann", "cy"], ["bob"])
    await theirs.aclose()
    assert await _rest(mm.watch(claims("bob"), "t-a")) == [declined_view("t-a", "bob")]
    assert await mm.get_ticket(claims("bob"), "t-a") == declined_view("t-a", "bob")
    again = await mm.create_ticket(claims("bob"), TicketRequest("t-a", "toy",
                                                                players=("ann", "bob", "cy")))
    assert again == declined_view("t-a", "bob")
    assert await mm.cancel_ticket(claims("bob"), "t-a") == declined_view("t-a", "bob")
    assert mm.tickets["t-a"].status == "waiting", "bob cancels nothing of ann's party"
    with pytest.raises(FailedPrecondition, match="declined"):
        await mm.accept_match(claims("bob"), "t-a", "mm-any")
    # an organiser sees the party as it is, with who declined
    seen = await mm.get_ticket(ORGANISER, "t-a")
    assert (seen["players"], seen["declined"]) == (["ann", "cy"], ["bob"])
    mm.app.close()


async def _rest(stream: Any) -> list[dict[str, Any]]:
    return [view async for view in stream]


async def test_a_decline_while_the_cycle_groups_is_not_proposed_with_the_old_party(
    tmp_path: Path,
) -> None:
    """The grouping runs outside the lock on a snapshot: bob declines after it formed ann's
    party (with bob) into a match. That group is not proposed; the next cycle groups the
    party as it is now."""
    mm = await opened(tmp_path / "mm.db")
    await queue(mm, "t-a", "ann", "bob")  # fills a table of two by itself
    loop = asyncio.get_running_loop()
    group = mm._group

    def group_then_decline(pools: Any) -> Any:
        formed = group(pools)
        asyncio.run_coroutine_threadsafe(mm.decline_invite(claims("bob"), "t-a"), loop).result(5)
        return formed

    mm._group = group_then_decline  # type: ignore[method-assign]
    assert not await mm.cycle()
    assert not mm.proposals and mm.tickets["t-a"].status == "waiting"
    mm._group = group  # type: ignore[method-assign]
    await queue(mm, "t-c", "cy")
    await mm.cycle()
    assert seated(mm) == [["ann", "cy"]]
    mm.app.close()


async def test_a_decline_goes_out_as_a_public_ticket_event(tmp_path: Path) -> None:
    """On NATS (the relay's projection): TicketDeclined with the player, on the party's ticket
    subject, and the TicketRequeued of a match it ended."""
    mm = await opened(tmp_path / "mm.db")
    await queue(mm, "t-a", "ann", "bob")
    await mm.cycle()
    match = match_of(mm, "t-a")
    start = stored(mm) + 1
    await mm.decline_invite(claims("bob"), "t-a")
    app: MatchmakingApplication = mm.app
    out = [m for n in app.recorder.select_notifications(start, 10)
           for m in events.project(app.mapper.to_domain_event(n))]
    payloads = [(subject, {k: v for k, v in p.items() if k != "timestamp"}) for subject, p in out]
    subject = "neon.events.matchmaking.ticket.t-a"
    assert (subject, {"type": "TicketRequeued", "ticket_id": "t-a", "match_id": match,
                      "reason": f"match {match} fell through: bob declined the invitation"}
            ) in payloads
    assert (subject, {"type": "TicketDeclined", "ticket_id": "t-a", "player": "bob"}) in payloads
    mm.app.close()


def test_a_store_written_before_declines_still_loads(tmp_path: Path) -> None:
    """A Ticket replayed from the events of a release without declines (Created only) has
    nobody declined."""
    app = MatchmakingApplication(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                                      "SQLITE_DBNAME": str(tmp_path / "old.db")})
    resolved = {"game": "toy", "modes": ["race"], "players": ["ann", "bob"], "min_seats": 1,
                "max_seats": 24, "region": "", "rating_window": 0.0, "allow_bots": False}
    app.save(Ticket("t-old", {"game": "toy"}, resolved, 1.0, "player:ann"))
    loaded = app.find("t-old")
    assert loaded is not None and loaded.declined == () and loaded.players == ["ann", "bob"]
    app.close()
