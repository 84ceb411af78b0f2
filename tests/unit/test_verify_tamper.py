"""verify_export's shortcuts keep failing tampered exports, re-signed or not.

Exports come from self-play (``export_game``), offline; "re-signed" exports are rebuilt by
someone holding the signing key (records re-chained, checkpoint signed again), so only the
draw check and the rules replay stand between them and a verified report.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
import rfc8785
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.platform.canonical import canonical_json, canonical_json_float_free
from services.rules import records as rec
from services.rules.export import build_export, parse_export
from services.rules.games import load_engine
from services.rules.selfplay import export_game, setups
from services.rules.verify import verify_export

KEY = Ed25519PrivateKey.generate()


def _export(game: str, mode: str, seed: int = 3, keyed: bool = True) -> bytes:
    return export_game(game, mode, setups(load_engine(game), mode)[0], seed, KEY, keyed=keyed)


@pytest.fixture(scope="module")
def exports() -> dict[str, bytes]:
    return {
        "neon-reign": _export("neon-reign", "single"),
        "neon": _export("neon", "rebirth"),
        "neon-reign-plain": _export("neon-reign", "hero-match", keyed=False),
    }


def _resigned(data: bytes, change: Any) -> bytes:
    """The export with ``change(records)`` applied, re-chained and signed again."""
    records, checkpoint = parse_export(data)
    change(records)
    match_id = checkpoint["match_id"]
    chained: list[dict[str, Any]] = []
    for record in records:
        body = {k: v for k, v in record.items() if k not in ("hash", "n", "prev", "match_id")}
        chained.append(rec.seal_record(match_id, len(chained) + 1, rec.head(chained), body))
    return build_export(match_id, checkpoint["game"], chained, KEY)


def _first(records: list[dict[str, Any]], kind: str, test: Any = lambda r: True) -> dict[str, Any]:
    return next(r for r in records if r["type"] == kind and test(r))


def test_self_play_exports_verify(exports: dict[str, bytes]):
    for name, data in exports.items():
        report = verify_export(data)
        assert report.ok, (name, report.failure)
        assert any(c.startswith("rules replay") for c in report.checks)
        assert _resigned(data, lambda records: None) == data  # re-chaining alone changes nothing


@pytest.mark.parametrize("game", ["neon-reign", "neon"])
def test_an_edited_line_fails_the_chain(exports: dict[str, bytes], game: str):
    lines = exports[game].splitlines()
    row = json.loads(lines[3])
    row["seat"] = 1 - row["seat"] if row["seat"] in (0, 1) else 0
    bad = b"\n".join([*lines[:3], canonical_json(row), *lines[4:]])
    report = verify_export(bad)
    assert not report.ok and report.failure.startswith("event 4: hash does not match")


def test_a_resigned_illegal_action_fails_the_replay(exports: dict[str, bytes]):
    def illegal(records: list[dict[str, Any]]) -> None:
        attack = _first(records, "ActionAccepted", lambda r: r["action"]["type"] == "attack")
        attack["action"] = {"type": "attack", "cards": ["no-such-card"]}

    report = verify_export(_resigned(exports["neon-reign"], illegal))
    assert not report.ok and "is illegal" in report.failure


def test_a_resigned_action_with_an_extra_field_fails(exports: dict[str, bytes]):
    def extra(records: list[dict[str, Any]]) -> None:
        _first(records, "ActionAccepted")["action"]["sneaky"] = 1

    for game in ("neon-reign", "neon"):
        report = verify_export(_resigned(exports[game], extra))
        assert not report.ok, game


def test_a_resigned_other_seat_fails(exports: dict[str, bytes]):
    def other_seat(records: list[dict[str, Any]]) -> None:
        row = _first(records, "ActionAccepted", lambda r: r["decision"] != "pick_hero")
        row["seat"] = 1 - row["seat"]

    for game in ("neon-reign", "neon"):
        report = verify_export(_resigned(exports[game], other_seat))
        assert not report.ok, game


@pytest.mark.parametrize("game", ["neon-reign", "neon", "neon-reign-plain"])
def test_a_resigned_state_hash_fails(exports: dict[str, bytes], game: str):
    def wrong_hash(records: list[dict[str, Any]]) -> None:
        row = _first(records, "ActionAccepted")
        row["state_hash"] = "0" * 64

    report = verify_export(_resigned(exports[game], wrong_hash))
    assert not report.ok and "state hash differs" in report.failure


def test_a_resigned_draw_fails_against_the_seed(exports: dict[str, bytes]):
    def swap(records: list[dict[str, Any]]) -> None:
        draw = _first(records, "MatchStarted")["draws"][0]
        draw["result"][0], draw["result"][1] = draw["result"][1], draw["result"][0]

    for game in ("neon-reign", "neon"):
        report = verify_export(_resigned(exports[game], swap))
        assert not report.ok and "does not match the seed" in report.failure, game


def test_a_resigned_dropped_draw_fails(exports: dict[str, bytes]):
    def drop(records: list[dict[str, Any]]) -> None:
        row = _first(records, "ActionAccepted", lambda r: bool(r["draws"]))
        row["draws"] = row["draws"][:-1]

    report = verify_export(_resigned(exports["neon"], drop))
    assert not report.ok


def test_a_resigned_outcome_fails(exports: dict[str, bytes]):
    def flip(records: list[dict[str, Any]]) -> None:
        ended = _first(records, "MatchEnded")
        ended["outcome"]["placements"] = list(reversed(ended["outcome"]["placements"]))

    report = verify_export(_resigned(exports["neon-reign"], flip))
    assert not report.ok and "outcome" in report.failure


def test_an_export_with_floats_takes_the_rfc8785_path(exports: dict[str, bytes]):
    def note(records: list[dict[str, Any]]) -> None:
        _first(records, "MatchSealed")["note"] = 1e-7  # RFC 8785 spells it 1e-7, Python 1e-07

    good = _resigned(exports["neon-reign"], note)
    assert b'"note":1e-7' in good
    assert verify_export(good).ok
    # The last record hashed over Python's spelling instead, and signed: not canonical, fails.
    records, checkpoint = parse_export(good)
    sealed = records[-1]
    body = {k: v for k, v in sealed.items() if k != "hash"}
    text = json.dumps(
        ["neon-arena/chain/v1", sealed["match_id"], sealed["n"], sealed["prev"], body],
        sort_keys=True,
        separators=(",", ":"),
    )
    assert "1e-07" in text
    sealed["hash"] = hashlib.sha256(text.encode()).hexdigest()
    lines = [json.dumps(r, sort_keys=True, separators=(",", ":")).encode() for r in records]
    forged = build_export(checkpoint["match_id"], checkpoint["game"], records, KEY)
    assert forged.splitlines()[:-2] == lines[:-1]
    report = verify_export(forged)
    assert (
        not report.ok and report.failure == f"event {sealed['n']}: hash does not match its content"
    )


def test_the_float_free_encoder_is_rfc8785_on_export_records(exports: dict[str, bytes]):
    for data in exports.values():
        records, checkpoint = parse_export(data)
        for record in [*records, checkpoint]:
            assert canonical_json_float_free(record) == rfc8785.dumps(record)


def test_a_draw_that_skips_blocks_fails(monkeypatch: pytest.MonkeyPatch):
    """A server knows the seed, so skipping blocks until one gives the roll it wants would be
    choosing the roll: every draw starts where the one before it ended (the rules host draws
    block after block from 0). The export here is played through with the skip, states and
    hashes consistent, and signed: only the draw check can catch it."""
    from services.platform import draws

    real, calls = draws.perform, []

    def skipping(stream: Any, op: str, n: int, count: int) -> Any:
        calls.append(op)
        if len(calls) == 2:
            stream.counter += 8  # the second draw comes from 8 blocks further on
        return real(stream, op, n, count)

    monkeypatch.setattr(draws, "perform", skipping)
    forged = _export("neon-reign", "single", seed=4)
    monkeypatch.setattr(draws, "perform", real)
    assert len(calls) > 2
    report = verify_export(forged)
    assert not report.ok and "blocks skipped" in report.failure, report.failure


@pytest.mark.parametrize("seeds", [[[0, "a"], [0, "b"]], [[0, "a"], [2, "b"]], [[-1, "a"]]],
                         ids=["a seat twice", "no such seat", "a negative seat"])
def test_client_seeds_of_seats_the_match_does_not_have_fail(exports: dict[str, bytes],
                                                            seeds: list[list[Any]]):
    """A seed the server added for a seat nobody holds, chosen after it saw the players'
    seeds, would choose the draws as surely as its own seed: one seed per seat of the match."""
    def add(records: list[dict[str, Any]]) -> None:
        _first(records, "MatchStarted")["client_seeds"] = seeds

    report = verify_export(_resigned(exports["neon-reign"], add))
    assert not report.ok and "client seed" in report.failure, report.failure
