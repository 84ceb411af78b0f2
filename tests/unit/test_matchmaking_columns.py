"""The matchmaker's kept columns (a row per open ticket, between cycles) and the batch's
fast JSON: what they change must not show."""

from __future__ import annotations

import pytest
from eventsourcing.persistence import JSONTranscoder

from services.matchmaking import matchmaker
from services.matchmaking.app import MatchmakingApplication
from services.matchmaking.catalogue import Catalogue, GameSpec, ModeSpec
from services.matchmaking.config import Config
from services.matchmaking.domain import ProposalBatch
from services.matchmaking.grouping import Policy
from services.matchmaking.ratings import StaticRatings
from services.matchmaking.requests import TicketRequest
from tests.unit.test_matchmaking_restart import ORGANISER, NoRules, claims

MEMORY = {"PERSISTENCE_MODULE": "eventsourcing.popo"}


async def test_rows_of_closed_tickets_are_dropped_and_the_others_still_grouped(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(matchmaker._Rows, "COMPACT_AFTER", 8)
    catalogue = Catalogue()
    catalogue.register(GameSpec("toy", (ModeSpec("race", 2, 2),)))
    ratings = {f"p{i}": float(i) for i in range(30)}
    mm = matchmaker.Matchmaker(MatchmakingApplication(env=MEMORY), NoRules(),  # type: ignore[arg-type]
                               StaticRatings(ratings), Config(policy=Policy()), catalogue)
    await mm.recover()
    for i in range(30):
        await mm.create_ticket(claims(f"p{i}"), TicketRequest(f"t-{i}", "toy", players=(f"p{i}",)))
    first = mm._rows["toy"]
    for i in range(30):
        if i % 3:
            await mm.cancel_ticket(ORGANISER, f"t-{i}")
    rows = mm._rows["toy"]
    assert rows is not first, "built anew once the closed were half of the rows"
    assert [t.ticket_id for t in rows.holder if t is not matchmaker._GONE][:3] == ["t-0", "t-3", "t-6"]
    groups = await mm.cycle()
    assert [set(g.ticket_ids) for g in groups] == [{f"t-{i}", f"t-{i + 3}"} for i in range(0, 30, 6)]
    assert all(mm.tickets[f"t-{i}"].status == "proposed" for i in range(0, 30, 3))
    assert [s.player for s in groups[0].seats] == ["p0", "p3"] and groups[0].spread == 3


def test_a_batch_is_written_as_the_json_transcoder_writes_it() -> None:
    app = MatchmakingApplication(env=MEMORY)
    plain = JSONTranscoder()
    app.register_transcodings(plain)
    batch = ProposalBatch("mm-x", "toy", 1764800000.25, False, ["race", "é"], [0, 1], [2, 1],
                          ["t-a", "t-b", "t-c"], [2, 2], ["a", "b", "c", "bot-random-1"],
                          ["t-a", "t-b", "t-c", ""], [0, 0, 1, 2])
    [created] = batch.collect_events()
    state = {k: v for k, v in vars(created).items() if k not in ("originator_id", "originator_version")}
    assert app.mapper.transcoder.encode(state) == plain.encode(state)
    again = ProposalBatch("mm-y", "toy", 2.5, True, ["race"], [0], [1], ["t"], [1], ["p"], ["t"], [0])
    app.save(again)
    loaded = app.repository.get(again.id)
    assert (loaded.players, loaded.deadline, loaded.accepted) == (["p"], 2.5, True)
