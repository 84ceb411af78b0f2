"""The rules replay compares what decides something exactly, on JSON types.

``replay.step`` compared the stored outcome with the replayed one with ``==``, to which true
is 1: a MatchEnded whose placements said ``[true, 2]`` replayed (the rules host rebuilding a
match, the step-throughs), and only verify's own second comparison refused it. MatchCreated's
seats were read with ``int()`` ("2", 2.0 and true were seat counts). Now the replay itself
compares in canonical JSON and takes only the types the host writes; verify relies on it.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.platform.draws import state_key
from services.rules import records as rec
from services.rules.export import build_export, parse_export
from services.rules.games import load_engine
from services.rules.replay import ReplayError, config_of, replay
from services.rules.selfplay import export_game, setups
from services.rules.verify import verify_export

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(40, 72)))
ENGINE = load_engine("neon-reign")


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    data = export_game("neon-reign", "single", setups(ENGINE, "single")[0], 5, KEY, keyed=True)
    return parse_export(data)[0]


def _key(records: list[dict[str, Any]]) -> bytes:
    return state_key(bytes.fromhex(records[-1]["seed"]), records[0]["dice"]["stream_id"])


def _ended(records: list[dict[str, Any]]) -> dict[str, Any]:
    return next(r for r in records if r["type"] == "MatchEnded")


def _signed(records: list[dict[str, Any]]) -> bytes:
    match_id = records[0]["match_id"]
    chained: list[dict[str, Any]] = []
    for record in records:
        body = {k: v for k, v in record.items() if k not in ("hash", "n", "prev", "match_id")}
        chained.append(rec.seal_record(match_id, len(chained) + 1, rec.head(chained), body))
    return build_export(match_id, records[0]["game"], chained, KEY)


def test_the_match_replays_as_recorded(records):
    assert replay(ENGINE, records, _key(records)).outcome is not None
    assert verify_export(_signed(records)).ok


@pytest.mark.parametrize("spelled", [True, 1.5, "1"])
def test_a_placement_spelled_otherwise_is_another_outcome(records, spelled):
    changed = copy.deepcopy(records)
    placements = _ended(changed)["outcome"]["placements"]
    placements[placements.index(1)] = spelled  # the winner's 1
    ended_n = _ended(changed)["n"]
    with pytest.raises(ReplayError, match=f"event {ended_n}: stored outcome differs"):
        replay(ENGINE, changed, _key(changed))
    report = verify_export(_signed(changed))
    assert not report.ok
    assert report.failure == f"event {ended_n}: stored outcome differs from the replayed outcome"


def test_an_outcome_the_same_in_canonical_json_is_the_same(records):
    """A score of 7.0 is written 7 in the export's canonical JSON: the same outcome."""
    changed = copy.deepcopy(records)
    scores = _ended(changed)["outcome"]["scores"]
    scores[0] = float(scores[0])
    assert replay(ENGINE, changed, _key(changed)).outcome is not None


@pytest.mark.parametrize("seats", ["2", 2.0, True, None])
def test_seats_that_are_not_an_integer_do_not_replay(records, seats):
    changed = copy.deepcopy(records)
    changed[0]["seats"] = seats
    with pytest.raises(ReplayError, match="event 1: does not replay .*seats must be an integer"):
        replay(ENGINE, changed, _key(changed))
    if isinstance(seats, float):
        return  # an export is canonical JSON, which writes 2.0 as 2: the same export
    report = verify_export(_signed(changed))
    assert not report.ok and report.failure.startswith("event "), report.failure


@pytest.mark.parametrize("field, value", [("mode", 1), ("options", []), ("options", "x")])
def test_a_mode_or_options_of_another_type_is_refused(records, field, value):
    created = {**records[0], field: value}
    with pytest.raises(ValueError, match="must be an integer, its mode a text and its options"):
        config_of(created)


def test_options_absent_or_null_are_none(records):
    for created in ({**records[0], "options": None},
                    {k: v for k, v in records[0].items() if k != "options"}):
        assert config_of(created).options == {}


def test_the_host_names_only_the_event_of_a_stored_match_that_does_not_replay(records):
    """A stored match that does not replay (a row changed by hand, a build's bug): whoever
    asked (any seat, a spectator) is told which event, not the replay's reason, which may
    quote an action's words or a state's contents; the log says why, its words hidden."""
    from services.platform.errors import FailedPrecondition
    from services.rules.host import replay_checked
    from tests.support.logcapture import captured_logs

    data = export_game("neon-reign", "single", setups(ENGINE, "single")[0], 5, KEY, keyed=False)
    changed = parse_export(data)[0]  # unkeyed state hashes: the host replays such a match
    acted = next(r for r in changed if r["type"] == "ActionAccepted" and r["seat"] == 0)
    acted["seat"] = 1  # the other seat's action: illegal, the engine says why
    with pytest.raises(ReplayError) as replayed:
        replay(ENGINE, changed)
    assert replayed.value.event == f"event {acted['n']}"
    told = str(replayed.value).split(": ", 1)[1]
    assert told  # the reason the replay gives, which the caller is not to be told
    with captured_logs() as logs, pytest.raises(FailedPrecondition) as refused:
        replay_checked(ENGINE, changed, "m-1")
    assert str(refused.value) == (f"the stored match does not replay (event {acted['n']}); "
                                  "the rules service's log says why")
    line = next(json.loads(t) for t in logs.getvalue().splitlines()
                if "the stored match does not replay" in t)
    assert line["match_id"] == "m-1" and f"event {acted['n']}" in line["reason"]
    assert told not in line["reason"], "the replay's reason logged"


def test_a_replay_error_without_an_event_names_none():
    assert ReplayError("event 12: stored outcome differs").event == "event 12"
    assert ReplayError("no records: the hand was x").event == "an event"
