"""The queueing limits (matchmaker.py, "Queueing limits"), on a real store (SQLite; each
``open()`` a fresh process's view of it) under an injected clock:

- a player through whom proposed matches keep falling through (not accepted in time, or
  cancelled while proposed) is refused CreateTicket for a while (FAILED_PRECONDITION, saying
  when they may queue again), also after a restart; an invited player who lets a party's
  match lapse is not (the party's creator is);
- a player queueing and cancelling in a loop is refused past the churn limit
  (RESOURCE_EXHAUSTED, saying when), also after a restart; a repeat of a ticket already
  queued, and an organiser's tickets, are not counted."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.matchmaking.app import MatchmakingApplication
from services.matchmaking.catalogue import Catalogue, GameSpec, ModeSpec
from services.matchmaking.config import Config, config_from_env
from services.matchmaking.grouping import Policy
from services.matchmaking.matchmaker import Matchmaker, cooldown_until
from services.matchmaking.ratings import StaticRatings
from services.matchmaking.requests import TicketRequest
from services.platform.errors import ServiceError
from services.platform.tokens import Claims

ORGANISER = Claims(role="organiser", match="*", player="org", exp=2**40)
T0 = 1_800_000_000.0  # 2027-01-15T08:00:00Z


def claims(player: str) -> Claims:
    return Claims(role="player", match="*", player=player, exp=2**40)


class NoRules:
    def address(self, game: str) -> str:
        return ""


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


class Store:
    def __init__(self, path: Path, **config: Any) -> None:
        self.env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)}
        self.apps: list[MatchmakingApplication] = []
        self.clock = Clock()
        self.config = Config(policy=Policy(partial_after=0, backfill_after=1e9),
                             client_seeds=False, accept_timeout=30, **config)

    async def open(self) -> Matchmaker:
        app = MatchmakingApplication(env=self.env)
        self.apps.append(app)
        catalogue = Catalogue()
        catalogue.register(GameSpec("toy", (ModeSpec("race", 2, 2),)))
        mm = Matchmaker(app, NoRules(), StaticRatings({}), self.config, catalogue,  # type: ignore[arg-type]
                        clock=self.clock)
        await mm.recover()
        return mm

    def close(self) -> None:
        for app in self.apps:
            app.close()


Stores = Callable[..., Store]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Stores]:
    made: list[Store] = []

    def make(**config: Any) -> Store:
        made.append(Store(tmp_path / f"mm{len(made)}.db", **config))
        return made[-1]

    yield make
    for s in made:
        s.close()


async def queue(mm: Matchmaker, who: Claims, ticket_id: str, *players: str) -> dict[str, Any]:
    return await mm.create_ticket(who, TicketRequest(ticket_id, "toy",
                                                     players=players or (who.player,)))


async def refused(mm: Matchmaker, who: Claims, ticket_id: str, *players: str) -> ServiceError:
    with pytest.raises(ServiceError) as info:
        await queue(mm, who, ticket_id, *players)
    return info.value


async def lapse(mm: Matchmaker, clock: Clock, n: int) -> None:
    """ann's ticket n and bob's are proposed; bob accepts, ann does not, the deadline passes."""
    await queue(mm, claims("ann"), f"ann-{n}")
    if "bob" not in mm.tickets:  # queued once: sent back to the queue after each lapse
        await queue(mm, claims("bob"), "bob")
    await mm.cycle()
    (match_id,) = mm.proposals
    await mm.accept_match(claims("bob"), "bob", match_id)
    clock.now += 31
    await mm.cycle()
    assert mm.app.find(f"ann-{n}").status == "expired"  # type: ignore[union-attr]
    assert mm.tickets["bob"].status == "waiting"


async def test_a_player_whose_matches_keep_lapsing_cools_down_also_after_a_restart(
        store: Stores) -> None:
    s = store(decline_limit=2, decline_window=600, decline_cooldown=300)
    mm = await s.open()
    await lapse(mm, s.clock, 1)
    await lapse(mm, s.clock, 2)  # the second within 600 s: 300 s from now
    struck_at = s.clock.now
    err = await refused(mm, claims("ann"), "ann-3")
    assert err.code == grpc.StatusCode.FAILED_PRECONDITION
    assert "may queue for toy again in 300 s" in err.reason, err.reason
    assert "2 proposed matches fell through" in err.reason
    assert mm.app.find("ann-3") is None  # nothing stored
    s.clock.now = struck_at + 299.5
    mm2 = await s.open()  # a restart keeps it
    err = await refused(mm2, claims("ann"), "ann-3")
    assert "again in 1 s" in err.reason, err.reason
    # bob, who accepted, is not cooled down (his ticket still waits: a new one of his own)
    await mm2.cancel_ticket(claims("bob"), "bob")
    assert (await queue(mm2, claims("bob"), "bob-2"))["status"] == "waiting"
    s.clock.now = struck_at + 300
    assert (await queue(mm2, claims("ann"), "ann-3"))["status"] == "waiting"


async def test_cancelling_while_proposed_counts_and_an_invitee_lapsing_counts_for_the_creator(
        store: Stores) -> None:
    s = store(decline_limit=1, decline_cooldown=120)
    mm = await s.open()
    # dan is only invited to ann's party: its match lapsing for want of his accept is not his
    await queue(mm, claims("ann"), "party", "ann", "dan")
    await mm.cycle()
    (match_id,) = mm.proposals
    await mm.accept_match(claims("ann"), "party", match_id)
    s.clock.now += 31
    await mm.cycle()
    assert mm.app.find("party").status == "expired"  # type: ignore[union-attr]
    assert (await queue(mm, claims("dan"), "dan-1"))["status"] == "waiting"
    # it counts against ann, who queued the party with him (else a second account of hers,
    # invited, would let every match she did not want lapse without a strike)
    err = await refused(mm, claims("ann"), "ann-0")
    assert err.code == grpc.StatusCode.FAILED_PRECONDITION and "in 120 s" in err.reason
    s.clock.now += 120
    assert (await queue(mm, claims("ann"), "ann-1"))["status"] == "waiting"
    # ann cancels while her match with dan is proposed: one fall-through, limit 1
    await mm.cycle()
    (match_id,) = mm.proposals
    await mm.cancel_ticket(claims("ann"), "ann-1")
    err = await refused(mm, claims("ann"), "ann-2")
    assert err.code == grpc.StatusCode.FAILED_PRECONDITION and "in 120 s" in err.reason
    # dan's ticket went back to the queue: he is not cooled down, and cancelling a waiting
    # ticket is no fall-through
    await mm.cancel_ticket(claims("dan"), "dan-1")
    assert (await queue(mm, claims("dan"), "dan-2"))["status"] == "waiting"
    # an organiser queues ann regardless (tournaments, simulations)
    assert (await queue(mm, ORGANISER, "org-ann", "ann"))["status"] == "waiting"


async def test_queueing_and_cancelling_in_a_loop_is_refused_past_the_limit(
        store: Stores) -> None:
    s = store(join_limit=3, join_window=60)
    mm = await s.open()
    for n in range(3):
        await queue(mm, claims("cy"), f"cy-{n}")
        await mm.cancel_ticket(claims("cy"), f"cy-{n}")
        s.clock.now += 10
    # a repeat of a ticket already queued queues nothing, and is answered as ever
    assert (await queue(mm, claims("cy"), "cy-2"))["status"] == "cancelled"
    err = await refused(mm, claims("cy"), "cy-3")
    assert err.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "queued 3 tickets for toy within 60 s (at most 3)" in err.reason, err.reason
    assert "again in 30 s (at 2027-01-15T08:01:00Z)" in err.reason, err.reason
    assert mm.app.find("cy-3") is None
    mm2 = await s.open()  # a restart keeps it
    err = await refused(mm2, claims("cy"), "cy-3")
    assert err.code == grpc.StatusCode.RESOURCE_EXHAUSTED and "again in 30 s" in err.reason
    for n in range(5):  # organisers are not limited
        await queue(mm2, ORGANISER, f"org-{n}", "cy")
        await mm2.cancel_ticket(ORGANISER, f"org-{n}")
    s.clock.now += 30
    assert (await queue(mm2, claims("cy"), "cy-3"))["status"] == "waiting"


def test_the_cooldown_ends_after_the_last_strike_that_completes_the_limit() -> None:
    assert cooldown_until([], 3, 600, 300) == float("-inf")
    assert cooldown_until([0, 100], 3, 600, 300) == float("-inf")
    assert cooldown_until([0, 100, 200], 3, 600, 300) == 500
    assert cooldown_until([0, 100, 700], 3, 600, 300) == float("-inf")  # not within 600 s
    # a later strike that completes no limit does not end an earlier cooldown
    assert cooldown_until([0, 100, 200, 450], 3, 250, 1000) == 1200
    assert cooldown_until([0, 100, 200], 0, 600, 300) == float("-inf")  # off


def test_limits_from_the_environment() -> None:
    c = config_from_env({"NEON_MATCHMAKING_DECLINE_LIMIT": "0",
                         "NEON_MATCHMAKING_JOIN_LIMIT": "5",
                         "NEON_MATCHMAKING_JOIN_WINDOW": "30"})
    assert (c.decline_limit, c.join_limit, c.join_window) == (0, 5, 30.0)
    d = config_from_env({})
    assert (d.decline_limit, d.decline_window, d.decline_cooldown) == (3, 600.0, 300.0)
    assert (d.join_limit, d.join_window) == (20, 60.0)
    for bad in ({"NEON_MATCHMAKING_JOIN_LIMIT": "-1"}, {"NEON_MATCHMAKING_JOIN_LIMIT": "x"},
                {"NEON_MATCHMAKING_DECLINE_COOLDOWN": "0"},
                {"NEON_MATCHMAKING_DECLINE_WINDOW": "1e9"}):
        with pytest.raises(ValueError, match="NEON_MATCHMAKING_"):
            config_from_env(bad)


async def test_a_lapse_is_stored_even_when_the_players_standing_cannot_be_read(
        store: Stores) -> None:
    """After a restart the standings are read from the store when a lapse counts: a read that
    fails leaves the lapse uncounted, and the proposal's end is stored as ever (the cycle went
    on with expiries in memory that the store never had)."""
    s = store(decline_limit=1)
    mm = await s.open()
    await queue(mm, claims("ann"), "ann-1")
    await queue(mm, claims("bob"), "bob")
    await mm.cycle()
    (match_id,) = mm.proposals
    await mm.accept_match(claims("bob"), "bob", match_id)
    mm2 = await s.open()
    assert not mm2.standings

    def down(player: str, game: str) -> None:
        raise OSError("store down")

    mm2.app.find_standing = down  # type: ignore[method-assign]
    s.clock.now += 31
    await mm2.cycle()
    assert mm2.app.find("ann-1").status == "expired"  # type: ignore[union-attr]
    assert mm2.app.find("bob").status == "waiting"  # type: ignore[union-attr]
    del mm2.app.find_standing
    assert (await queue(mm2, claims("ann"), "ann-2"))["status"] == "waiting"  # not counted


async def test_a_long_standing_is_snapshotted_and_reads_back_the_same(store: Stores) -> None:
    """Every ticket a player queues is an event of their Standing: it is snapshotted every 50
    (eventsourcing), and a restart reads it back from the snapshot and the events after it,
    old times dropped as they were applied."""
    s = store(join_limit=30, join_window=60)
    mm = await s.open()
    for n in range(61):
        await queue(mm, claims("cy"), f"cy-{n}")
        await mm.cancel_ticket(claims("cy"), f"cy-{n}")
        s.clock.now += 3
    before = mm.standings[("cy", "toy")]
    assert before.version == 62 and len(before.joins) == 20  # the last 60 s
    mm2 = await s.open()
    app = mm2.app
    snapshots = list(app.snapshots.get(before.id)) if app.snapshots is not None else []
    assert [snap.originator_version for snap in snapshots] == [50]
    after = app.find_standing("cy", "toy")
    assert after is not None and (after.version, after.joins) == (62, before.joins)
