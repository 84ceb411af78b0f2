"""The matchmaker on an in-memory store and fakes of its ports: a store that refuses a save."""

from __future__ import annotations

from typing import Any

import pytest

from services.matchmaking.app import MatchmakingApplication
from services.matchmaking.catalogue import Catalogue, GameSpec, ModeSpec
from services.matchmaking.config import Config
from services.matchmaking.grouping import Policy
from services.matchmaking.matchmaker import Matchmaker
from services.matchmaking.ratings import StaticRatings
from services.matchmaking.requests import TicketRequest
from services.platform.errors import Unavailable
from services.platform.tokens import Claims


class NoRules:
    def address(self, game: str) -> str:
        return ""


class FlakyApp(MatchmakingApplication):
    fail_next = 0

    def save(self, *objs: Any, **kw: Any) -> Any:
        if self.fail_next:
            self.fail_next -= 1
            raise OSError("disk full")
        return super().save(*objs, **kw)


def claims(player: str) -> Claims:
    return Claims(role="player", match="*", player=player, exp=2**40)


def matchmaker(app: MatchmakingApplication) -> Matchmaker:
    catalogue = Catalogue()
    catalogue.register(GameSpec("toy", (ModeSpec("race", 2, 2),)))
    config = Config(policy=Policy(partial_after=0, backfill_after=1e9))
    return Matchmaker(app, NoRules(), StaticRatings(), config, catalogue)  # type: ignore[arg-type]


async def test_a_refused_save_is_unavailable_and_the_queue_reloads_from_the_store() -> None:
    app = FlakyApp(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    mm = matchmaker(app)
    await mm.recover()
    await mm.create_ticket(claims("ann"), TicketRequest("ta", "toy", players=("ann",)))
    app.fail_next = 1
    with pytest.raises(Unavailable):
        await mm.create_ticket(claims("bob"), TicketRequest("tb", "toy", players=("bob",)))
    assert set(mm.tickets) == {"ta"} and not mm.stale
    # the proposal's save fails: nothing is proposed in memory either
    await mm.create_ticket(claims("bob"), TicketRequest("tb", "toy", players=("bob",)))
    app.fail_next = 1
    with pytest.raises(Unavailable):
        await mm.cycle()
    assert {t.status for t in mm.tickets.values()} == {"waiting"} and not mm.proposals
    [group] = await mm.cycle()
    assert set(group.ticket_ids) == {"ta", "tb"}
    assert {t.status for t in mm.tickets.values()} == {"proposed"}
    # a fresh matchmaker on the same store sees the same
    again = matchmaker(app)
    await again.recover()
    assert set(again.proposals) == set(mm.proposals)


async def test_two_matchmakers_on_one_store_never_propose_a_ticket_twice(tmp_path: Any) -> None:
    """The safety net behind one owner per queue (k8s/README.md): a second matchmaker that
    proposes tickets another already proposed is refused by the store's version check on the
    game's Queue, answers UNAVAILABLE and reloads the queue as the store has it."""
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "mm.db")}
    first_app, second_app = MatchmakingApplication(env=env), MatchmakingApplication(env=env)
    first, second = matchmaker(first_app), matchmaker(second_app)
    await first.recover()
    for name in ("ann", "bob"):
        await first.create_ticket(claims(name), TicketRequest(f"t-{name}", "toy", players=(name,)))
    assert await second.recover() == 2
    [group] = await first.cycle()
    [proposed] = first.proposals
    with pytest.raises(Unavailable):
        await second.cycle()
    assert not second.stale and set(second.proposals) == {proposed}
    assert {t.status for t in second.tickets.values()} == {"proposed"}
    third_app = MatchmakingApplication(env=env)
    third = matchmaker(third_app)
    await third.recover()
    assert set(third.proposals) == {proposed}
    assert [t.proposal["match_id"] for t in third.tickets.values() if t.proposal] == [proposed] * 2
    for app in (first_app, second_app, third_app):
        app.close()
