"""The matchmaker's kept columns (a row per open ticket, between cycles) and the batch's
fast JSON: what they change must not show."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest
from eventsourcing.persistence import JSONTranscoder

from services.matchmaking import matchmaker
from services.matchmaking.app import MatchmakingApplication
from services.matchmaking.catalogue import Catalogue, GameSpec, ModeSpec
from services.matchmaking.config import Config
from services.matchmaking.domain import ProposalBatch, Queue
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


def test_a_batch_is_written_as_the_json_transcoder_writes_it_compressed(tmp_path: Path) -> None:
    """The batch's Created event is the JSON eventsourcing's transcoder writes, zlib-compressed;
    other events are as ever, and batches stored uncompressed (before) still load."""
    app = MatchmakingApplication(env=MEMORY)
    plain = JSONTranscoder()
    app.register_transcodings(plain)
    batch = ProposalBatch("mm-x", "toy", 1764800000.25, False, ["race", "é"], [0, 1], [2, 1],
                          ["t-a", "t-b", "t-c"], [2, 2], ["a", "b", "c", "bot-random-1"],
                          ["t-a", "t-b", "t-c", ""], [0, 0, 1, 2])
    [created] = batch.collect_events()
    state = {k: v for k, v in vars(created).items() if k not in ("originator_id", "originator_version")}
    stored = app.mapper.transcoder.encode(state)
    assert stored[:1] == b"x" and zlib.decompress(stored) == plain.encode(state)
    assert app.mapper.transcoder.decode(stored) == plain.decode(plain.encode(state))
    queue = Queue("toy")
    [queued] = queue.collect_events()
    queue_state = {k: v for k, v in vars(queued).items() if k not in ("originator_id", "originator_version")}
    assert app.mapper.transcoder.encode(queue_state) == plain.encode(queue_state)
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "mm.db")}
    store = MatchmakingApplication(env=env)
    again = ProposalBatch("mm-y", "toy", 2.5, True, ["race"], [0], [1], ["t"], [1], ["p"], ["t"], [0])
    store.save(again)
    [row] = store.recorder.select_events(again.id)
    assert row.state[:1] == b"x"
    old = ProposalBatch("mm-z", "toy", 3.5, False, ["race"], [0], [1], ["t"], [1], ["q"], ["t"], [0])
    [old_created] = old.collect_events()
    as_before = store.mapper.to_stored_event(old_created)
    as_before = type(as_before)(as_before.originator_id, as_before.originator_version,
                                as_before.topic, zlib.decompress(as_before.state))
    store.recorder.insert_events([as_before])  # as stored before compression
    restarted = MatchmakingApplication(env=env)
    for b, players, deadline in ((again, ["p"], 2.5), (old, ["q"], 3.5)):
        loaded = restarted.repository.get(b.id)
        assert (loaded.players, loaded.deadline, loaded.proposals()[0]["ticket_ids"]) == (
            players, deadline, ["t"])
    restarted.close()
    store.close()


async def test_the_batch_seats_teams_and_bots_as_the_groups_do() -> None:
    """Team groups are seated (grouping.Seating) and spelled into the batch's columns without
    a Seat per player: each proposal's seats, read back from the batch, are the group's."""
    import random

    from tests.support.mm_games import NEON

    rng = random.Random(3)
    parties = [tuple(f"p{i}-{k}" for k in range(rng.choice((1, 1, 1, 2, 3)))) for i in range(120)]
    ratings = {p: rng.gauss(10, 8) for party in parties for p in party}
    ratings.update({f"q{i}": 10.0 + i for i in range(3)})
    ratings.update({f"d{i}-{k}": 500.0 + i + k for i in range(3) for k in range(2)})
    catalogue = Catalogue()
    catalogue.register(NEON)
    mm = matchmaker.Matchmaker(MatchmakingApplication(env=MEMORY), NoRules(),  # type: ignore[arg-type]
                               StaticRatings(ratings),
                               Config(policy=Policy(base_window=30, partial_after=0, backfill_after=0)),
                               catalogue)
    await mm.recover()
    for i, party in enumerate(parties):
        modes = rng.choice((("coalition",), ("rebirth", "coalition"), ("rebirth",)))
        await mm.create_ticket(ORGANISER, TicketRequest(
            f"t-{i}", "neon", modes=modes, players=party, allow_bots=rng.random() < 0.5))
    groups = list(await mm.cycle())
    for i in range(3):  # then three lone players (a coalition of four with a bot) and three duos
        await mm.create_ticket(ORGANISER, TicketRequest(
            f"u-{i}", "neon", modes=("coalition",), players=(f"q{i}",), allow_bots=True))
        await mm.create_ticket(ORGANISER, TicketRequest(
            f"d-{i}", "neon", modes=("coalition",), players=(f"d{i}-0", f"d{i}-1")))
    groups += await mm.cycle()
    assert {g.mode for g in groups} >= {"coalition", "rebirth"}
    assert any(g.bots for g in groups if g.mode == "coalition") and any(
        len({s.team for s in g.seats}) == 3 for g in groups)
    for g in groups:
        proposal = mm.proposals[mm.tickets[g.ticket_ids[0]].proposal["match_id"]]  # type: ignore[index]
        assert proposal.seats == [
            {"seat": n, "player": s.player, "bot": s.bot, "team": s.team, "ticket_id": s.ticket_id}
            for n, s in enumerate(g.seats)]
        assert tuple(proposal.ticket_ids) == g.ticket_ids and proposal.mode == g.mode
        assert all(s.player in mm.tickets[s.ticket_id].players and s.rating == ratings[s.player]
                   for s in g.seats if not s.bot)
        if g.mode == "coalition":
            assert all(s.team for s in g.seats) and all(
                len({s.team for s in g.seats if s.ticket_id == i}) == 1 for i in g.ticket_ids)


async def test_tickets_are_rated_once_when_the_columns_are_built_anew_during_the_lookup(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The ratings lookup is a network call outside the lock: tickets cancelled meanwhile can
    have the columns built anew, and the rows of the new ones are rated from that answer."""
    monkeypatch.setattr(matchmaker._Rows, "COMPACT_AFTER", 2)
    catalogue = Catalogue()
    catalogue.register(GameSpec("toy", (ModeSpec("race", 2, 2),)))
    asked: list[str] = []
    mm: matchmaker.Matchmaker

    class Cancelling:
        async def ratings(self, game: str, players: list[str]) -> dict[str, float]:
            asked.extend(players)
            for i in (0, 2, 4, 6, 7):
                await mm.cancel_ticket(ORGANISER, f"t-{i}")
            return {p: float(p[1:]) for p in players}

    mm = matchmaker.Matchmaker(MatchmakingApplication(env=MEMORY), NoRules(),  # type: ignore[arg-type]
                               Cancelling(), Config(policy=Policy()), catalogue)
    await mm.recover()
    for i in range(8):
        await mm.create_ticket(claims(f"p{i}"), TicketRequest(f"t-{i}", "toy", players=(f"p{i}",)))
    first = mm._rows["toy"]
    joined = await mm.cycle()
    assert mm._rows["toy"] is not first and not mm._rows["toy"].unrated
    assert sorted(asked) == [f"p{i}" for i in range(8)]  # each player asked for once
    assert [set(g.ticket_ids) for g in joined] == [{"t-1", "t-3"}]
    assert joined[-1] == joined[0] == list(joined)[0] and len(joined[:5]) == 1
    with pytest.raises(IndexError):
        joined[1]


def test_both_ways_of_writing_a_batch_read_back_the_groups_seats() -> None:
    """A batch written in party order with party sizes (and the team groups' seat order) reads
    back, proposal by proposal, the seats the grouping formed, as one written seat by seat
    does (stores keep batches of both kinds)."""
    import random
    import types

    from services.matchmaking import grouping
    from services.matchmaking.domain import proposals_of
    from tests.support.mm_games import NEON

    rng = random.Random(5)
    modes = (*NEON.modes, ModeSpec("big", 4, 8, team_layouts=((4, 2), (6, 3), (6, 2), (8, 2))))
    names = [m.name for m in modes]
    owner = types.SimpleNamespace(config=Config(), _spelled=matchmaker.Matchmaker._spelled,
                                  _batch_head=matchmaker.Matchmaker._batch_head)
    seen = {"bots": 0, "teams": 0, "team bots": 0}
    for _ in range(300):
        entries = []
        for i in range(rng.randint(1, 50)):
            size = rng.choice((1, 1, 1, 2, 2, 3, 4))
            lo = rng.randint(1, 6)
            entries.append(grouping.Entry(
                f"t{i}", tuple(f"p{i}-{k}" for k in range(size)),
                tuple(rng.gauss(10, 8) for _ in range(size)),
                tuple(rng.sample(names, rng.randint(1, len(names)))), lo, rng.randint(lo, 8),
                rng.uniform(0, 60), 0.0, rng.random() < 0.6))
        groups = grouping.group_tickets(
            modes, grouping.Tickets.of(entries), range(len(entries)), [e.waited for e in entries],
            Policy(base_window=rng.choice((5.0, 30.0)), partial_after=0,
                   backfill_after=rng.choice((0.0, 30.0))))
        compact = matchmaker.Matchmaker._batch(owner, "x", groups, 1.0)  # type: ignore[arg-type]
        by_seat = matchmaker.Matchmaker._batch_seat_by_seat(owner, "x", groups, 1.0)  # type: ignore[arg-type]
        assert compact.seat_tickets == [] and by_seat.party_sizes is None
        for a, b, g in zip(proposals_of(compact), proposals_of(by_seat), groups, strict=True):
            assert a["seats"] == [{"seat": n, "player": s.player, "bot": s.bot, "team": s.team,
                                   "ticket_id": s.ticket_id} for n, s in enumerate(g.seats)]
            assert {**a, "match_id": ""} == {**b, "match_id": ""}
            assert list(a["ticket_ids"]) == list(g.ticket_ids) and a["mode"] == g.mode
            seen["bots"] += g.bots > 0
            seen["teams"] += g.teams is not None
            seen["team bots"] += g.bots > 0 and g.teams is not None
    assert min(seen.values()) > 20, seen
