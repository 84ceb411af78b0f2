"""The pure grouping: parties, rating windows widening with wait, teams, bots, seat limits."""

from __future__ import annotations

import random

from services.genproto.neon.rules.v1 import rules_pb2
from services.matchmaking.catalogue import Catalogue, GameSpec, ModeSpec
from services.matchmaking.grouping import (
    Entry,
    Policy,
    Tickets,
    balance_teams,
    form_groups,
    group_apart,
    team_gap,
    window,
)
from services.matchmaking.rules_port import modes_of
from tests.support.mm_games import NEON as NEON_GAME
from tests.support.mm_games import NEON_REIGN

REIGN = NEON_REIGN.modes
NEON = NEON_GAME.modes
STRICT = Policy(base_window=5, widen_per_second=1, partial_after=1e9, backfill_after=1e9)


def ticket(tid: str, *ratings: float, modes: tuple[str, ...] = ("single",), lo: int = 1,
           hi: int = 6, waited: float = 0.0, bots: bool = False, window: float = 0.0,
           region: str = "") -> Entry:
    players = tuple(f"{tid}-p{i}" for i in range(len(ratings)))
    return Entry(tid, players, tuple(ratings), modes, lo, hi, waited, window, bots, region)


def test_close_ratings_are_paired_and_far_ones_wait() -> None:
    groups = form_groups(REIGN, [ticket("a", 10), ticket("b", 30), ticket("c", 12),
                                 ticket("d", 31)], STRICT)
    pairs = sorted(sorted(g.ticket_ids) for g in groups)
    assert pairs == [["a", "c"], ["b", "d"]]
    assert form_groups(REIGN, [ticket("a", 10), ticket("b", 30)], STRICT) == []


def test_the_rating_window_widens_with_waiting_time() -> None:
    fresh = [ticket("a", 10), ticket("b", 25)]
    assert form_groups(REIGN, fresh, STRICT) == []
    assert window(ticket("a", 10, waited=20), STRICT) == 25
    waited = [ticket("a", 10, waited=20), ticket("b", 25, waited=20)]
    assert [g.ticket_ids for g in form_groups(REIGN, waited, STRICT)] == [("a", "b")]


def test_a_tickets_own_window_caps_the_widening() -> None:
    entries = [ticket("a", 10, waited=100, window=3), ticket("b", 25, waited=100)]
    assert form_groups(REIGN, entries, STRICT) == []
    entries = [ticket("a", 10, waited=100, window=20), ticket("b", 25, waited=100)]
    assert len(form_groups(REIGN, entries, STRICT)) == 1


def test_the_oldest_ticket_picks_its_closest_opponent() -> None:
    entries = [ticket("young", 11), ticket("old", 10, waited=3), ticket("far", 14)]
    [group] = form_groups(REIGN, entries, STRICT)
    assert set(group.ticket_ids) == {"old", "young"}


def test_parties_are_never_split() -> None:
    entries = [ticket("duo", 10, 10, modes=("rebirth",)), ticket("solo1", 10, modes=("rebirth",)),
               ticket("trio", 11, 11, 11, modes=("rebirth",))]
    policy = Policy(partial_after=0, backfill_after=1e9)
    groups = form_groups(NEON, entries, policy)
    for g in groups:
        for tid in g.ticket_ids:
            assert sum(1 for s in g.seats if s.ticket_id == tid) == len(
                next(e for e in entries if e.ticket_id == tid).players)
    assert sum(len(g.seats) for g in groups) == 6


def test_seat_limits_of_tickets_and_modes_are_kept() -> None:
    entries = [ticket(f"t{i}", 10, modes=("rebirth",), lo=3, hi=4) for i in range(7)]
    groups = form_groups(NEON, entries, Policy(partial_after=1e9, backfill_after=1e9))
    assert [len(g.seats) for g in groups] == [4]
    # A 2-seat-only ticket never sits at a 4-table.
    mixed = [ticket("two", 10, modes=("rebirth",), lo=2, hi=2)] + entries[:3]
    groups = form_groups(NEON, mixed, Policy(partial_after=1e9, backfill_after=1e9))
    assert all("two" not in g.ticket_ids for g in groups)


def test_smaller_tables_only_after_the_partial_wait() -> None:
    entries = [ticket(f"t{i}", 10, modes=("rebirth",)) for i in range(3)]
    assert form_groups(NEON, entries, Policy(partial_after=10, backfill_after=1e9)) == []
    old = [ticket(f"t{i}", 10, modes=("rebirth",), waited=11) for i in range(3)]
    [group] = form_groups(NEON, old, Policy(partial_after=10, backfill_after=1e9))
    assert len(group.seats) == 3


def test_bots_fill_empty_seats_after_the_backfill_wait_when_all_allow() -> None:
    policy = Policy(backfill_after=30, partial_after=1e9)
    alone = ticket("a", 10, waited=31, bots=True)
    [group] = form_groups(REIGN, [alone], policy)
    assert [s.player for s in group.seats] == ["a-p0", "bot-random-1"]
    assert group.seats[1].bot and group.bots == 1
    assert form_groups(REIGN, [ticket("a", 10, waited=29, bots=True)], policy) == []
    assert form_groups(REIGN, [ticket("a", 10, waited=31)], policy) == []
    assert form_groups(REIGN, [alone], Policy(backfill_after=30, bots=False)) == []


def test_backfill_keeps_the_humans_who_refuse_bots_out() -> None:
    policy = Policy(backfill_after=30, partial_after=1e9, base_window=100)
    entries = [ticket("a", 10, modes=("rebirth",), waited=40, bots=True),
               ticket("b", 11, modes=("rebirth",), waited=40, bots=False),
               ticket("c", 12, modes=("rebirth",), waited=40, bots=True)]
    [group] = form_groups(NEON, entries, policy)
    assert set(group.ticket_ids) == {"a", "c"}
    # the smallest table that seats everyone: NEON for two is a 2-seat match (the engine adds the Automa)
    assert len(group.seats) == 2 and group.bots == 0


def test_a_lone_neon_player_gets_a_two_seat_match_with_one_bot() -> None:
    policy = Policy(backfill_after=5)
    [group] = form_groups(NEON, [ticket("a", 0, modes=("rebirth",), waited=6, bots=True)], policy)
    assert len(group.seats) == 2 and group.bots == 1


def test_coalition_forms_balanced_teams_keeping_parties_together() -> None:
    entries = [ticket("duo", 40, 38, modes=("coalition",)),
               ticket("s1", 35, modes=("coalition",)), ticket("s2", 20, modes=("coalition",)),
               ticket("s3", 18, modes=("coalition",)), ticket("s4", 15, modes=("coalition",))]
    [group] = form_groups(NEON, entries, Policy(base_window=100, backfill_after=1e9))
    assert len(group.seats) == 6
    teams: dict[int, list[float]] = {}
    for s in group.seats:
        teams.setdefault(s.team, []).append(s.rating)
    assert sorted(len(t) for t in teams.values()) == [3, 3]
    duo = {s.team for s in group.seats if s.ticket_id == "duo"}
    assert len(duo) == 1
    totals = sorted(sum(t) for t in teams.values())
    assert totals[1] - totals[0] <= 25  # 40+38+15 vs 35+20+18 = 93 vs 73
    # seats alternate between teams, so that team mates do not act in a row
    assert [s.team for s in group.seats][:2] in ([1, 2], [2, 1])


def test_a_party_larger_than_a_team_stays_out_of_team_modes() -> None:
    entries = [ticket("trio", 10, 10, 10, modes=("coalition",), lo=4, hi=4),
               ticket("x", 10, modes=("coalition",))]
    assert form_groups(NEON, entries, Policy(backfill_after=1e9)) == []


def test_balance_teams_is_a_snake_draft_for_singles() -> None:
    teams = balance_teams([[50], [40], [30], [20]], 2, 2)
    assert teams is not None
    assert teams[0] == teams[3] and teams[1] == teams[2]
    assert balance_teams([[1, 1, 1], [1]], 2, 2) is None


def test_regions_do_not_mix_and_modes_are_respected() -> None:
    entries = [ticket("eu", 10, region="eu"), ticket("us", 10, region="us"),
               ticket("bo3", 10, modes=("best-of-three",))]
    assert form_groups(REIGN, entries, STRICT) == []


def test_each_ticket_is_used_at_most_once_in_a_large_pool() -> None:
    rng = random.Random(4)
    entries = [ticket(f"t{i}", *[rng.gauss(20, 8)] * rng.choice((1, 1, 1, 2)),
                      modes=rng.choice((("rebirth",), ("battle-royale",), ("rebirth", "coalition"))),
                      waited=rng.uniform(0, 60), bots=rng.random() < 0.5)
               for i in range(3000)]
    groups = form_groups(NEON, entries, Policy())
    seen = [t for g in groups for t in g.ticket_ids]
    assert len(seen) == len(set(seen)) and len(seen) > 2000
    for g in groups:
        assert 2 <= len(g.seats) <= 6


def test_the_catalogue_takes_registered_games_and_what_rules_services_say() -> None:
    catalogue = Catalogue()
    assert catalogue.games == {}, "matchmaking knows no game of its own"
    catalogue.register(GameSpec("toy", (ModeSpec("race", 2, 2),)))
    assert catalogue.get("toy").default_mode == "race"  # type: ignore[union-attr]
    info = rules_pb2.GetGameInfoResponse(game_id="teams-toy", modes=[
        rules_pb2.ModeInfo(name="pairs", min_seats=4, max_seats=6, team_layouts=[
            rules_pb2.TeamLayout(seats=4, team_size=2), rules_pb2.TeamLayout(seats=6, team_size=3),
            rules_pb2.TeamLayout(seats=6, team_size=2)]),
        rules_pb2.ModeInfo(name="duel", min_seats=2, max_seats=2, ai_participants=["referee"])])
    spec = catalogue.learn("teams-toy", modes_of(info))
    assert spec is not None and spec.source == "rules" and spec.default_mode == "pairs"
    pairs, duel = spec.modes
    assert pairs.seat_counts() == (4, 6) and pairs.team_sizes_for(6) == (3, 2)
    assert not duel.teams and duel.ai_participants == ("referee",)
    assert catalogue.learn("teams-toy", []) is spec, "an empty answer keeps what is known"


def test_a_ticket_without_a_region_plays_in_any_region() -> None:
    entries = [ticket("eu", 10, region="eu"), ticket("any", 11), ticket("us", 10, region="us")]
    [group] = form_groups(REIGN, entries, STRICT)
    assert set(group.ticket_ids) in ({"eu", "any"}, {"us", "any"})
    assert form_groups(REIGN, [ticket("a", 10), ticket("b", 11)], STRICT) != []


def test_coalition_of_six_takes_the_more_even_layout() -> None:
    # NEON, Coalition: six players split into 2 teams of 3 or 3 teams of 2.
    # Three duos can only be 3 teams of 2 (a duo can't be split, two duos don't make a 3).
    duos = [ticket(f"d{i}", 10 + i, 10 + i, modes=("coalition",)) for i in range(3)]
    [group] = form_groups(NEON, duos, Policy(base_window=100, backfill_after=1e9))
    teams = {s.team for s in group.seats}
    assert len(teams) == 3
    for t in teams:
        assert len({s.ticket_id for s in group.seats if s.team == t}) == 1
    # six singles: 2 teams of 3 (the first layout) unless 3 of 2 is more even
    singles = [ticket(f"s{i}", r, modes=("coalition",)) for i, r in enumerate((30, 29, 20, 19, 10, 9))]
    [group] = form_groups(NEON, singles, Policy(base_window=100, backfill_after=1e9))
    by_team: dict[int, list[float]] = {}
    for s in group.seats:
        by_team.setdefault(s.team, []).append(s.rating)
    means = [sum(v) / len(v) for v in by_team.values()]
    assert max(means) - min(means) <= 1.0


def test_team_gap_is_the_spread_of_team_averages() -> None:
    assert team_gap([[10], [20], [10], [20]], [0, 0, 1, 1], 2) == 0
    assert team_gap([[10], [20]], [0, 1], 2) == 10


def test_rows_that_share_a_player_are_never_in_one_group() -> None:
    """group_apart: a player in several tickets (their own, and parties naming them) is seated
    once a match. Their own ticket (``first``) is grouped as if the parties were not there;
    each party, one a round, from what is left; every round's team seating is kept."""
    trio = (ModeSpec("trio", 3, 3),)
    own = Entry("own", ("vic",), (10.0,), ("trio",), 1, 6, 9.0)
    party = Entry("party", ("mal", "vic"), (10.0, 10.0), ("trio",), 1, 6, 8.0)
    other = Entry("other", ("eve", "vic"), (10.0, 10.0), ("trio",), 1, 6, 7.0)
    rest = [ticket(t, 10, modes=("trio",), waited=5 - k) for k, t in enumerate("abcd")]
    entries = [own, party, other, *rest]
    columns = Tickets.of(entries)
    shared = {0: {"vic"}, 1: {"vic"}, 2: {"vic"}}
    formed = group_apart(trio, columns, range(len(entries)), [e.waited for e in entries],
                         Policy(partial_after=1e9, backfill_after=1e9), shared, {0})
    groups = [sorted(g.ticket_ids) for g in formed]
    assert groups == [["a", "b", "own"], ["c", "party"], ["d", "other"]]
    for g in formed:
        players = [s.player for s in g.seats]
        assert len(players) == len(set(players)) == 3
    # in teams: the second round's groups keep their seating
    duo = (ModeSpec("duo", 4, 4, ((4, 2),)),)
    more = [ticket(t, 10, waited=1 - k) for k, t in enumerate("ef")]
    teamed = [e._replace(modes=("duo",)) for e in entries + more]
    formed = group_apart(duo, Tickets.of(teamed), range(len(teamed)), [e.waited for e in teamed],
                         Policy(partial_after=1e9, backfill_after=1e9), shared, {0})
    assert [sorted(g.ticket_ids) for g in formed] == [["a", "b", "c", "own"],
                                                        ["d", "e", "party"]]
    for g in formed:
        teams = {s.player: s.team for s in g.seats}
        assert len(teams) == 4 and sorted(teams.values()) == [1, 1, 2, 2], teams
    assert teams["mal"] == teams["vic"], "a party plays in one team"
    # without the shared rows it is group_tickets itself
    plain = group_apart(trio, columns, [3, 4, 5], [e.waited for e in entries], STRICT, shared)
    assert [g.ticket_ids for g in plain] == [("a", "b", "c")]
