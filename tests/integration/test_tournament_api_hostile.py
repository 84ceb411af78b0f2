"""The tournament API against a hostile client, over real gRPC: settings and commands that
used to be stored and then break every later answer, or wedge a call, get a clear status."""

from __future__ import annotations

import json

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.tournament_commands import TournamentClient
from tests.integration.test_tournament_api import _code, b  # noqa: F401 (b: the fixture)

pytestmark = pytest.mark.timeout(120)


async def test_a_round_count_past_the_api_is_refused_at_creation(b: Backend) -> None:  # noqa: F811
    """``rounds`` is answered as ``Tournament.planned_rounds`` (int32) and written into each
    match id (ReadyForMatch reads at most 4 digits): a multiplayer event, or a Swiss taking
    late entries (not checked against its field), of 2**32 rounds was created, and once
    started every answer carrying the tournament (StartTournament's own, GetTournament,
    WatchTournament) was INTERNAL for good."""
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    S = grpc.StatusCode
    formats = {
        "huge_mp": {"format": "multiplayer", "table_sizes": [2], "rounds": 2**32},
        "huge_swiss": {"format": "swiss", "rounds": 2**32, "late_entry_until": 2},
        "past_ids": {"format": "multiplayer", "table_sizes": [2], "rounds": 10_000},
    }
    for tid, fmt in formats.items():
        code, why = await _code(c.call("CreateTournament", org, tournament_id=tid,
                                       game="neon-reign", mode="single",
                                       format_json=json.dumps(fmt)))
        assert code == S.INVALID_ARGUMENT and "rounds" in why, (tid, code, why)
    # the most still taken is served whole
    await c.call("CreateTournament", org, tournament_id="most", game="neon-reign",
                 mode="single", format_json=json.dumps(
                     {"format": "multiplayer", "table_sizes": [2], "rounds": 9999}))
    await c.call("OpenRegistration", org, tournament_id="most")
    for p in ("ann", "bob"):
        await c.call("Register", org, tournament_id="most", player_id=p)
    started = await c.call("StartTournament", org, tournament_id="most")
    assert started.tournament.planned_rounds == 9999
    assert (await c.call("GetTournament", None, tournament_id="most")).tournament.planned_rounds == 9999


async def test_match_options_the_rules_service_refuses_are_refused_at_creation(
        b: Backend) -> None:  # noqa: F811
    """``options_json`` goes to the rules service with every CreateMatch of the event. One
    it refuses (an option its game does not have, a NaN canonical JSON cannot hold, more
    than it takes) was stored, and round 1 was paired with no table ever getting its match:
    the round waited for ever, each driver pass asking the rules service again. Refused by
    CreateTournament now, naming the option, as a clock it would refuse is."""
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    S = grpc.StatusCode
    refused = {
        "unknown_opt": ('{"no_such_option": 1}', "no_such_option"),
        "nan_opt": ('{"decks": NaN}', "NaN"),
        "huge_opt": (json.dumps({"decks": ["x" * 70_000]}), "larger than"),
        "bad_deck": ('{"decks": ["no-such-deck"]}', "no-such-deck"),
        # allowed by the schema, refused by the engine's set-up for two seats
        "one_deck": ('{"decks": ["neon-pulse"]}', "one Action deck per seat"),
    }
    for tid, (options, named) in refused.items():
        code, why = await _code(c.call("CreateTournament", org, tournament_id=tid,
                                       game="neon-reign", mode="single",
                                       format_json=json.dumps({"format": "swiss",
                                                               "rounds": 1}),
                                       options_json=options))
        assert code == S.INVALID_ARGUMENT and "options_json" in why and named in why, \
            (tid, code, why)
    # options the rules service takes still make a tournament whose round gets its match
    await c.call("CreateTournament", org, tournament_id="fine_opt", game="neon-reign",
                 mode="single", format_json=json.dumps({"format": "swiss", "rounds": 1}),
                 options_json='{"decks": ["neon-pulse", "chrome-fury"]}')
    await c.call("OpenRegistration", org, tournament_id="fine_opt")
    for p in ("ann", "bob"):
        await c.call("Register", org, tournament_id="fine_opt", player_id=p)
    await c.call("StartTournament", org, tournament_id="fine_opt")
    paired = await c.call("NextRound", org, tournament_id="fine_opt")
    assert paired.round.tables[0].match_id == "fine_opt-r1-t1"


async def test_a_huge_correction_reason_is_cut_in_the_log_as_in_the_tournament(
        b: Backend, capfd: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    """A correction's reason is kept to 500 characters in the tournament's log and answers;
    the service's own log line used to carry the whole of it (a request's worth, megabytes,
    per call)."""
    from tests.integration.conftest import started_swiss

    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    tokens = {p: b.issuer.issue("player", "*", player=p, ttl=600) for p in ("ann", "bob")}
    await started_swiss(c, org, tokens, "long_why")
    reason = "because " * 100_000
    corrected = await c.call("CorrectResult", org, tournament_id="long_why", round=1, table=1,
                             placements=[1, 2], reason=reason)
    assert corrected.round.tables[0].result.reason == reason.strip()[:500]
    logged = [json.loads(line) for line in capfd.readouterr().err.splitlines()
              if '"result corrected"' in line]
    assert logged and all(len(e["reason"]) <= 500 for e in logged), [len(e["reason"]) for e in logged]


async def test_a_late_entry_round_past_canonical_json_is_refused_at_creation(
        b: Backend) -> None:  # noqa: F811
    """``late_entry_until`` is a round number. One past 2**53 (canonical JSON's integers,
    RFC 8785) was stored in the log's Created, which then could not be hashed: the log's
    chain, every checkpoint and the export bundle failed, so round 1 never completed."""
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    for tid, until in (("late_huge", 2**53 + 1), ("late_past", 10_000)):
        code, why = await _code(c.call("CreateTournament", org, tournament_id=tid,
                                       game="neon-reign", mode="single",
                                       format_json=json.dumps({"format": "swiss", "rounds": 1,
                                                               "late_entry_until": until})))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "late_entry_until" in why, \
            (tid, code, why)
    await c.call("CreateTournament", org, tournament_id="late_most", game="neon-reign",
                 mode="single", format_json=json.dumps(
                     {"format": "swiss", "rounds": 1, "late_entry_until": 9999}))
    exported = await c.call("ExportTournament", org, tournament_id="late_most")
    assert exported.bundle_jsonl
