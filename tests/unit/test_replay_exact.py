"""The rules replay compares what decides something exactly, on JSON types.

``replay.step`` compared the stored outcome with the replayed one with ``==``, to which true
is 1: a MatchEnded whose placements said ``[true, 2]`` replayed (the rules host rebuilding a
match, the step-throughs), and only verify's own second comparison refused it. MatchCreated's
seats were read with ``int()`` ("2", 2.0 and true were seat counts). Now the replay itself
compares in canonical JSON and takes only the types the host writes; verify relies on it.
"""

from __future__ import annotations

import copy
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
