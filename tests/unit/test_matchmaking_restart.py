"""A cycle's proposals are one ProposalBatch: after a restart on the same store (SQLite) no
ticket and no proposal is lost or doubled, whatever happened to the proposals since."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from services.matchmaking import events
from services.matchmaking.app import MatchmakingApplication
from services.matchmaking.catalogue import Catalogue, GameSpec, ModeSpec
from services.matchmaking.config import Config
from services.matchmaking.grouping import Policy
from services.matchmaking.matchmaker import Matchmaker
from services.matchmaking.ratings import StaticRatings
from services.matchmaking.requests import TicketRequest
from services.platform.tokens import Claims

ORGANISER = Claims(role="organiser", match="*", player="org", exp=2**40)


class NoRules:
    def address(self, game: str) -> str:
        return ""


def claims(player: str) -> Claims:
    return Claims(role="player", match="*", player=player, exp=2**40)


class Store:
    """One SQLite file; every ``open()`` is a fresh process's view of it."""

    def __init__(self, path: Path) -> None:
        self.env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)}
        self.apps: list[MatchmakingApplication] = []

    async def open(
        self, ratings: dict[str, float] | None = None, auto_accept: bool = False
    ) -> Matchmaker:
        app = MatchmakingApplication(env=self.env)
        self.apps.append(app)
        catalogue = Catalogue()
        catalogue.register(GameSpec("toy", (ModeSpec("race", 2, 2),)))
        config = Config(policy=Policy(partial_after=0, backfill_after=1e9), auto_accept=auto_accept)
        mm = Matchmaker(app, NoRules(), StaticRatings(ratings or {}), config, catalogue)  # type: ignore[arg-type]
        await mm.recover()
        return mm

    def close(self) -> None:
        for app in self.apps:
            app.close()


def state(mm: Matchmaker) -> dict[str, Any]:
    return {
        "tickets": {
            i: (t.status, (t.proposal or {}).get("match_id"), tuple(t.accepted))
            for i, t in mm.tickets.items()
        },
        "proposals": {
            m: (p.mode, tuple(p.ticket_ids), tuple(s["player"] for s in p.seats))
            for m, p in mm.proposals.items()
        },
    }


async def test_proposals_accepts_and_requeues_survive_a_restart(tmp_path: Path) -> None:
    store = Store(tmp_path / "mm.db")
    # three pairs far apart in rating: three matches, each of two neighbours
    ratings = {"a1": 0, "a2": 1, "b1": 50, "b2": 51, "c1": 100, "c2": 101}
    mm = await store.open(ratings)
    for p in ratings:
        await mm.create_ticket(claims(p), TicketRequest(f"t-{p}", "toy", players=(p,)))
    before = mm.app.recorder.max_notification_id()
    groups = await mm.cycle()
    assert sorted(sorted(g.ticket_ids) for g in groups) == [
        ["t-a1", "t-a2"],
        ["t-b1", "t-b2"],
        ["t-c1", "t-c2"],
    ]
    # one cycle, a few stored events whatever the number of matches: the queue (created the
    # first time) and the batch
    assert mm.app.recorder.max_notification_id() - before == 3
    match_a = mm.tickets["t-a1"].proposal["match_id"]  # type: ignore[index]
    match_b = mm.tickets["t-b1"].proposal["match_id"]  # type: ignore[index]
    await mm.accept_match(claims("a1"), "t-a1", match_a)
    await mm.cancel_ticket(claims("b1"), "t-b1")  # b2 goes back to the queue
    assert mm.tickets["t-b2"].status == "waiting"

    again = await store.open(ratings)
    assert state(again) == state(mm)
    assert again.tickets["t-a1"].accepted == ["a1"] and "t-b1" not in again.tickets
    assert match_b not in again.proposals and len(again.proposals) == 2
    assert all(p.deadline >= mm.proposals[m].deadline for m, p in again.proposals.items())

    # the restarted one proposes b2 with a newcomer; the old proposals stay as they were
    ratings["d1"] = 52
    again.ratings_source = StaticRatings(ratings)
    await again.create_ticket(claims("d1"), TicketRequest("t-d1", "toy", players=("d1",)))
    before = again.app.recorder.max_notification_id()
    [group] = await again.cycle()
    assert sorted(group.ticket_ids) == ["t-b2", "t-d1"]
    assert again.app.recorder.max_notification_id() - before == 2
    third = await store.open(ratings)
    assert state(third) == state(again)
    every = [i for p in third.proposals.values() for i in p.ticket_ids]
    assert len(every) == len(set(every)) == 6
    store.close()


async def test_a_batch_closes_with_its_last_proposal(tmp_path: Path) -> None:
    store = Store(tmp_path / "mm.db")
    mm = await store.open()
    for p in ("ann", "bob", "cy", "dee"):
        await mm.create_ticket(claims(p), TicketRequest(f"t-{p}", "toy", players=(p,)))
    assert len(await mm.cycle()) == 2
    assert len(mm.app.open_ids().batches) == 1
    await mm.cancel_ticket(claims("ann"), "t-ann")
    assert len(mm.app.open_ids().batches) == 1  # the other proposal still holds
    partner = next(i for i in ("t-cy", "t-dee") if mm.tickets[i].proposal)
    await mm.cancel_ticket(ORGANISER, partner)
    assert mm.app.open_ids().batches == [] and not mm.batches
    again = await store.open()
    assert {i: t.status for i, t in again.tickets.items()} == {i: "waiting" for i in mm.tickets}
    assert not again.proposals
    store.close()


async def test_auto_accepted_proposals_come_back_accepted(tmp_path: Path) -> None:
    store = Store(tmp_path / "mm.db")
    mm = await store.open(auto_accept=True)
    for p in ("ann", "bob"):
        await mm.create_ticket(claims(p), TicketRequest(f"t-{p}", "toy", players=(p,)))
    await mm.cycle()
    again = await store.open(auto_accept=True)
    assert again.tickets["t-ann"].accepted == ["ann"] and again.tickets["t-bob"].accepted == ["bob"]
    [proposal] = again.proposals.values()
    assert again._accepted(proposal)
    store.close()


async def test_an_auto_accepted_party_comes_back_accepted_by_its_creator_only(
    tmp_path: Path,
) -> None:
    """Auto-accept accepts for the player who queued the party, not for the friends it named,
    before and after a restart; a friend's own acceptance is kept. An organiser's party is
    accepted whole."""
    store = Store(tmp_path / "mm.db")
    mm = await store.open(auto_accept=True)
    await mm.create_ticket(claims("ann"), TicketRequest("t-ann", "toy", players=("ann", "bob")))
    await mm.cycle()
    assert mm.tickets["t-ann"].status == "proposed" and mm.tickets["t-ann"].accepted == ["ann"]
    again = await store.open(auto_accept=True)
    assert again.tickets["t-ann"].status == "proposed" and again.tickets["t-ann"].accepted == ["ann"]
    [proposal] = again.proposals.values()
    assert not again._accepted(proposal)
    await again.accept_match(claims("bob"), "t-ann", proposal.match_id)
    third = await store.open(auto_accept=True)
    assert third.tickets["t-ann"].accepted == ["ann", "bob"]
    assert third._accepted(third.proposals[proposal.match_id])
    store.close()

    store = Store(tmp_path / "org.db")
    mm = await store.open(auto_accept=True)
    await mm.create_ticket(ORGANISER, TicketRequest("t-org", "toy", players=("cy", "dee")))
    await mm.cycle()
    assert mm.tickets["t-org"].accepted == ["cy", "dee"]
    again = await store.open(auto_accept=True)
    assert again.tickets["t-org"].accepted == ["cy", "dee"]
    assert again._accepted(next(iter(again.proposals.values())))
    store.close()


async def test_the_batch_is_published_as_one_proposed_message_per_ticket(tmp_path: Path) -> None:
    store = Store(tmp_path / "mm.db")
    mm = await store.open()
    for p in ("ann", "bob", "cy", "dee"):
        await mm.create_ticket(claims(p), TicketRequest(f"t-{p}", "toy", players=(p,)))
    await mm.cycle()
    [batch_event] = [e for e in mm.app.events.get(mm.app.open_ids().batches[0])]
    messages = events.project(batch_event)
    assert sorted(m["ticket_id"] for _, m in messages) == ["t-ann", "t-bob", "t-cy", "t-dee"]
    for subject, m in messages:
        assert subject == f"neon.events.matchmaking.ticket.{m['ticket_id']}"
        assert (
            m["type"] == "TicketProposed"
            and m["match_id"] == mm.tickets[m["ticket_id"]].proposal["match_id"]
        )  # type: ignore[index]
        assert [set(s) for s in m["seats"]] == [{"seat", "player", "bot", "team"}] * 2
    store.close()


async def test_a_ticket_cancelled_while_the_cycle_groups_is_not_proposed(tmp_path: Path) -> None:
    """The grouping runs outside the lock: a group one of whose tickets was cancelled
    meanwhile is dropped, the others are proposed, and a restart agrees."""
    store = Store(tmp_path / "mm.db")
    ratings = {"a1": 0, "a2": 1, "b1": 50, "b2": 51}
    mm = await store.open(ratings)
    for p in ratings:
        await mm.create_ticket(claims(p), TicketRequest(f"t-{p}", "toy", players=(p,)))
    loop = asyncio.get_running_loop()
    grouping = mm._group

    def group_then_cancel(entries: Any) -> Any:
        groups = grouping(entries)
        asyncio.run_coroutine_threadsafe(mm.cancel_ticket(claims("a1"), "t-a1"), loop).result()
        return groups

    mm._group = group_then_cancel  # type: ignore[method-assign]
    [group] = await mm.cycle()
    assert sorted(group.ticket_ids) == ["t-b1", "t-b2"]
    assert mm.tickets["t-a2"].status == "waiting" and "t-a1" not in mm.tickets
    again = await store.open(ratings)
    assert state(again) == state(mm)
    store.close()
