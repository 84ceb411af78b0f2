"""Exports whose records have the wrong shape fail verification with a reason, never a
traceback: ``neon verify`` goes on with other files, and the gateway's public
``POST /api/replay`` answers with its report instead of a 500.

The checkpoint's key is in the file unless ``--public-key`` pins one, so anyone can sign
such an export; the chain and the signature hold, and only the later checks see the shapes.
"""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.gateway.replays import replay_report
from services.rules import records as rec
from services.rules.export import build_export, parse_export
from services.rules.games import load_engine
from services.rules.selfplay import export_game, setups
from services.rules.verify import campaign_links, verify_export

KEY = Ed25519PrivateKey.generate()


@pytest.fixture(scope="module")
def export() -> bytes:
    return export_game("neon-reign", "single", setups(load_engine("neon-reign"), "single")[0], 3, KEY)


def _resigned(data: bytes, kind: str, change: Any) -> bytes:
    """The export with ``change(record)`` applied to the first record of ``kind``, re-chained
    and signed again."""
    records, checkpoint = parse_export(data)
    change(next(r for r in records if r["type"] == kind))
    chained: list[dict[str, Any]] = []
    for record in records:
        body = {k: v for k, v in record.items() if k not in ("hash", "n", "prev", "match_id")}
        chained.append(rec.seal_record(checkpoint["match_id"], len(chained) + 1, rec.head(chained), body))
    return build_export(checkpoint["match_id"], checkpoint["game"], chained, KEY)


def _set(key: str, value: Any) -> Any:
    return lambda record: record.__setitem__(key, value)


MALFORMED = {
    "no type": ("ActionAccepted", lambda record: record.pop("type")),
    "draws a number": ("ActionAccepted", _set("draws", 0)),
    "draws null": ("MatchStarted", _set("draws", None)),
    "a client seed not a pair": ("MatchStarted", _set("client_seeds", [0])),
    "client seeds a number": ("MatchStarted", _set("client_seeds", 5)),
    "a seal without its seed": ("MatchSealed", lambda record: record.pop("seed")),
    "dice true": ("MatchCreated", _set("dice", True)),
    "dice a list": ("MatchCreated", _set("dice", ["stream"])),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_a_record_of_the_wrong_shape_fails_verify_with_a_reason(export: bytes, name: str) -> None:
    kind, change = MALFORMED[name]
    report = verify_export(_resigned(export, kind, change))
    assert not report.ok and report.failure.startswith("event "), report.failure
    assert replay_report(_resigned(export, kind, change))["verification"]["ok"] is False


@pytest.mark.parametrize("events", [7, [0], [[1]], [{"data": {}}], {"a": 1}])
def test_events_of_the_wrong_shape_stop_the_public_replay_with_a_reason(export: bytes, events: Any) -> None:
    # verify does not read events (descriptions for people): the step-through does
    report = replay_report(_resigned(export, "ActionAccepted", _set("events", events)))
    assert report["stopped"].startswith("event "), report["stopped"]
    assert report["frames"] and all(f["type"] for f in report["frames"])


@pytest.mark.parametrize("seat", ["0", "1", True, False, 1.5, None])
def test_a_seat_that_is_not_an_integer_fails_verify(export: bytes, seat: Any) -> None:
    # the host writes seats as integers; int() would have read "1", true or 1.5 as a seat
    records, _ = parse_export(export)
    first = next(r for r in records if r["type"] == "ActionAccepted")
    assert type(first["seat"]) is int and verify_export(export).ok
    report = verify_export(_resigned(export, "ActionAccepted", _set("seat", seat)))
    assert not report.ok
    assert report.failure == f"event {first['n']}: seat {seat!r} is not an integer"


def _rechained(data: bytes, change: Any) -> bytes:
    """The export with ``change(records)`` applied to the list of records, re-chained and
    signed again."""
    records, checkpoint = parse_export(data)
    change(records)
    chained: list[dict[str, Any]] = []
    for record in records:
        body = {k: v for k, v in record.items() if k not in ("hash", "n", "prev", "match_id")}
        chained.append(rec.seal_record(checkpoint["match_id"], len(chained) + 1, rec.head(chained), body))
    return build_export(checkpoint["match_id"], checkpoint["game"], chained, KEY)


@pytest.mark.parametrize("seed", ["zz", None])
def test_a_second_seal_fails_verify(export: bytes, seed: Any) -> None:
    """The state key came from the first seal and the seed check read the last: a first
    seal whose seed was not hex (or missing) raised. The host seals once, last."""
    def two_seals(records: list[dict[str, Any]]) -> None:
        early = {**records[-1], "seed": seed}
        if seed is None:
            del early["seed"]
        records.insert(len(records) - 1, early)

    data = _rechained(export, two_seals)
    report = verify_export(data)
    n = len(parse_export(data)[0]) - 1
    assert not report.ok and report.failure == f"event {n}: MatchSealed is not the last record"


def test_a_seal_before_the_end_fails_verify(export: bytes) -> None:
    data = _rechained(export, lambda records: records.insert(1, dict(records[-1])))
    report = verify_export(data)
    assert not report.ok and report.failure == "event 2: MatchSealed is not the last record"


@pytest.mark.parametrize("data,problems", [
    (b'{"type":"MatchCreated","match_id":"a"}\n{"type":"MatchEnded","outcome":null}\n'
     b'{"type":"Checkpoint"}\n', []),
    (b'{"type":"MatchCreated","match_id":"b","campaign":5}\n{"type":"Checkpoint"}\n',
     ["b: its campaign link is not a JSON object"]),
], ids=["outcome null", "link a number"])
def test_campaign_links_of_the_wrong_shape_are_problems(data: bytes, problems: list[str]) -> None:
    # an outcome or a campaign link that was not an object raised AttributeError
    assert campaign_links([data]) == problems


def test_an_export_that_does_not_parse_is_named_and_the_other_links_still_checked() -> None:
    broken = b'{"type":"MatchCreated","match_id":"a"}\nnot json\n{"type":"Checkpoint"}\n'
    linked = b'{"type":"MatchCreated","match_id":"b","campaign":5}\n{"type":"Checkpoint"}\n'
    problems = campaign_links([broken, linked], ["x.jsonl", "y.jsonl"])
    assert [p.split(":")[0] for p in problems] == ["x.jsonl", "b"]
    assert problems[0].startswith("x.jsonl: line 2 is not JSON")


@pytest.mark.parametrize("name", ["a seal without its seed", "dice true"])
def test_the_public_replay_says_why_there_is_no_state_key(export: bytes, name: str) -> None:
    # it said "the match is not sealed" for a sealed match whose seal or dice are malformed
    kind, change = MALFORMED[name]
    stopped = replay_report(_resigned(export, kind, change))["stopped"]
    assert stopped.startswith("the seal and dice do not give the state key ("), stopped
    # signed without its seal (an ended match whose seal waits): the chain and the
    # checkpoint hold, so it is stepped through up to the state hashes it cannot check
    unsealed = _rechained(export, lambda records: records.pop())
    assert replay_report(unsealed)["stopped"] == \
        "the match is not sealed: its state hashes cannot be checked yet"
    # a line dropped from a signed export: the checkpoint no longer holds, so it is stepped
    # through only up to the limit for exports this deployment did not sign
    dropped = b"\n".join(line for line in export.splitlines() if b'"MatchSealed"' not in line)
    assert not replay_report(dropped)["stopped"].startswith("not stepped through")
    assert replay_report(dropped, foreign_events=3)["stopped"].startswith("not stepped through")


# -- found by tests/unit/test_verify_tamper_fuzz.py: each verified, re-signed -----------


def _first_draw(change: Any) -> Any:
    return lambda record: change(record["draws"][0])


def _placement(value: Any) -> Any:
    def change(record: dict[str, Any]) -> None:
        placements = record["outcome"]["placements"]
        placements[placements.index(1)] = value
    return change


FOUND = {
    "MatchEnded names other players": (
        "MatchEnded", lambda r: r.__setitem__("players", r["players"][::-1]),
        "MatchEnded names other players than MatchCreated"),
    "MatchEnded names another mode": (
        "MatchEnded", _set("mode", "hero-match"), "MatchEnded names other mode than MatchCreated"),
    "MatchEnded names another game": (
        "MatchEnded", _set("game", "neon"), "MatchEnded names other game than MatchCreated"),
    "a placement true for 1": ("MatchEnded", _placement(True), "stored outcome differs"),
    "client seeds empty text": ("MatchStarted", _set("client_seeds", ""), "malformed client seeds"),
    "a client seed's seat text": ("MatchStarted", _set("client_seeds", [["0", "ab"]]),
                                  "malformed client seeds"),
    "a draw's first block false for 0": ("MatchStarted", _first_draw(lambda d: d.__setitem__(
        "first", d["first"] == 1)), "malformed draw"),
    "a draw's result as text": ("MatchStarted", _first_draw(lambda d: d.__setitem__(
        "result", [str(x) for x in d["result"]])), "malformed draw"),
}


@pytest.mark.parametrize("name", FOUND)
def test_a_re_signed_record_that_verified_before_fails_with_its_reason(export: bytes,
                                                                       name: str) -> None:
    kind, change, reason = FOUND[name]
    report = verify_export(_resigned(export, kind, change))
    assert not report.ok and reason in report.failure, report.failure


@pytest.mark.parametrize("keep", [1, 2, 5])
def test_a_log_cut_short_and_sealed_fails(export: bytes, keep: int) -> None:
    """Its MatchEnded (the result) dropped: it verified, with no outcome."""
    data = _rechained(export, lambda records: records.__delitem__(slice(keep, -1)))
    report = verify_export(data)
    assert not report.ok and "MatchSealed with no MatchEnded before it" in report.failure


def test_a_doubled_match_created_record_fails(export: bytes) -> None:
    """A second MatchCreated after the first verified (the replay took it as a new config)."""
    report = verify_export(_rechained(export, lambda records: records.insert(1, records[0])))
    assert not report.ok and "event 2: a second MatchCreated" in report.failure, report.failure


def test_a_position_that_is_not_an_integer_fails_the_chain(export: bytes) -> None:
    # == takes true for 1: the first record at "n": true, re-chained over that spelling and
    # re-signed, verified before (1.0 is written 1 in canonical JSON: no other spelling)
    position = True
    records, checkpoint = parse_export(export)
    first = {k: v for k, v in records[0].items() if k not in ("hash", "prev", "match_id", "n")}
    body = {"n": position, **first}
    chained = [{**body, "match_id": checkpoint["match_id"], "prev": rec.GENESIS}]
    chained[0]["hash"] = rec.chain_hash(checkpoint["match_id"], 1, rec.GENESIS,
                                        {k: v for k, v in chained[0].items() if k != "hash"})
    for record in records[1:]:
        rest = {k: v for k, v in record.items() if k not in ("hash", "n", "prev", "match_id")}
        chained.append(rec.seal_record(checkpoint["match_id"], len(chained) + 1,
                                       rec.head(chained), rest))
    report = verify_export(build_export(checkpoint["match_id"], checkpoint["game"], chained, KEY))
    assert not report.ok
    assert report.failure == "event 1: position is true, expected 1"
