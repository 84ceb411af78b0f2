"""`neon verify` against a server that holds the signing key and the seed (review of
verifiable randomness, branch revdice): every field of the randomness altered and re-signed
fails, and no record the replay does not draw in may hold draws.

Exports come from self-play, offline; "re-signed" exports are rebuilt with the key (records
re-chained, checkpoint signed again), so only the seed, draw and replay checks stand between
them and a verified report."""

from __future__ import annotations

import copy
import hashlib
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.platform import draws
from services.platform.draws import DrawStream, perform
from services.rules import records as rec
from services.rules.export import build_export, parse_export
from services.rules.games import load_engine
from services.rules.selfplay import export_game, setups
from services.rules.verify import verify_export

KEY = Ed25519PrivateKey.generate()
Records = list[dict[str, Any]]


def _export(seed: int = 3, game: str = "neon-reign", mode: str = "single") -> bytes:
    return export_game(game, mode, setups(load_engine(game), mode)[0], seed, KEY, keyed=True)


@pytest.fixture(scope="module")
def export() -> bytes:
    """A NEON match: draws in the set-up and in many actions."""
    return _export(game="neon", mode="rebirth")


def _resigned(data: bytes, change: Any) -> bytes:
    records, checkpoint = parse_export(data)
    records = copy.deepcopy(records)
    change(records)
    match_id = checkpoint["match_id"]
    chained: Records = []
    for record in records:
        body = {k: v for k, v in record.items() if k not in ("hash", "n", "prev", "match_id")}
        chained.append(rec.seal_record(match_id, len(chained) + 1, rec.head(chained), body))
    return build_export(match_id, checkpoint["game"], chained, KEY)


def _seed_of(records: Records) -> tuple[bytes, str]:
    return bytes.fromhex(records[-1]["seed"]), records[0]["dice"]["stream_id"]


def _filler(records: Records, first: int, blocks: int) -> list[dict[str, Any]]:
    """Draws that verify against the seed and consume blocks [first, first + blocks): each a
    randbelow(1), which takes one block and always answers 0."""
    seed, stream_id = _seed_of(records)
    stream = DrawStream(seed, stream_id, counter=first)
    return [perform(stream, "randbelow", 1).to_json() for _ in range(blocks)]


def _drawing(records: Records) -> Records:
    return [r for r in records if r.get("draws")]


def test_the_export_verifies(export: bytes) -> None:
    report = verify_export(export)
    assert report.ok, report.failure


def test_blocks_skipped_behind_draws_in_match_created_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server knows the seed, so skipping blocks until the set-up shuffle is the one it
    wants is choosing it; verify refuses a draw that does not start where the one before it
    ended. The skipped blocks were accounted for by draws put in MatchCreated, a record the
    replay draws nothing in: contiguous, each one the seed's, so verify passed the chosen
    set-up. Only MatchStarted and actions draw (the rules host writes draws nowhere else)."""
    real, calls = draws.perform, []

    def skipping(stream: Any, op: str, n: int, count: int) -> Any:
        calls.append(op)
        if len(calls) == 1:
            stream.counter += 8  # the set-up starts 8 blocks on: the deck the server chose
        return real(stream, op, n, count)

    monkeypatch.setattr(draws, "perform", skipping)
    forged = _export(seed=4)
    monkeypatch.setattr(draws, "perform", real)
    plain = verify_export(forged)
    assert not plain.ok and "blocks skipped" in plain.failure, plain.failure

    def cover(records: Records) -> None:
        records[0]["draws"] = _filler(records, 0, 8)

    report = verify_export(_resigned(forged, cover))
    assert not report.ok, "blocks skipped behind draws in MatchCreated were verified"
    assert "MatchCreated" in report.failure and "draws" in report.failure, report.failure


@pytest.mark.parametrize("kind", ["MatchEnded", "MatchSealed"])
def test_draws_in_a_record_that_draws_nothing_fail(export: bytes, kind: str) -> None:
    """A draw the engine never asked for is refused in an action ("the log holds draws the
    engine did not ask for"); in the end or the seal it was taken."""
    def extra(records: Records) -> None:
        last = max(d["next"] for r in _drawing(records) for d in r["draws"])
        next(r for r in records if r["type"] == kind)["draws"] = _filler(records, last, 1)

    report = verify_export(_resigned(export, extra))
    assert not report.ok and kind in report.failure, report.failure


def _other_seed(records: Records) -> None:
    """The seal reveals another seed, both commitments rewritten to it."""
    seed = hashlib.sha256(b"another").digest()
    records[-1]["seed"] = seed.hex()
    records[-1]["commitment"] = records[0]["dice"]["commitment"] = hashlib.sha256(seed).hexdigest()


def _swap_draws_in_record(records: Records) -> None:
    row = next(r for r in records if len(r.get("draws", [])) >= 2)
    row["draws"][0], row["draws"][1] = row["draws"][1], row["draws"][0]


def _swap_draw_lists(records: Records) -> None:
    a, b = [r for r in records if r["type"] == "ActionAccepted" and r.get("draws")][:2]
    a["draws"], b["draws"] = b["draws"], a["draws"]


def _move_draw_to_next_record(records: Records) -> None:
    """The last draw of one action moved to the next action that draws: counters stay
    contiguous, the results stay the seed's."""
    a, b = [r for r in records if r["type"] == "ActionAccepted" and r.get("draws")][:2]
    b["draws"].insert(0, a["draws"].pop())


def _drop_last_draw(records: Records) -> None:
    _drawing(records)[-1]["draws"].pop()


def _drop_first_draw(records: Records) -> None:
    _drawing(records)[0]["draws"].pop(0)


def _field(field: str, value: Any) -> Any:
    def change(records: Records) -> None:
        _drawing(records)[1]["draws"][0][field] = value(_drawing(records)[1]["draws"][0][field])
    return change


ALTERATIONS = {
    "commitment in MatchCreated": lambda r: r[0]["dice"].update(commitment="0" * 64),
    "commitment in the seal": lambda r: r[-1].update(commitment="0" * 64),
    "revealed seed": lambda r: r[-1].update(seed="00" * 32),
    "another seed, commitments rewritten": _other_seed,
    "stream id": lambda r: r[0]["dice"].update(stream_id=r[0]["dice"]["stream_id"] + "x"),
    "client seed added": lambda r: next(x for x in r if x["type"] == "MatchStarted").update(
        client_seeds=[[0, "late"]]),
    "two draws of a record swapped": _swap_draws_in_record,
    "the draws of two actions swapped": _swap_draw_lists,
    "a draw moved to the next action": _move_draw_to_next_record,
    "the last draw dropped": _drop_last_draw,
    "the first draw dropped": _drop_first_draw,
    "a draw's result": _field("result", lambda v: [x + 1 for x in v]),
    "a draw's first block": _field("first", lambda v: v + 1),
    "a draw's next block": _field("next", lambda v: v + 1),
    "a draw's bound": _field("n", lambda v: v + 1),
    "a draw's op": _field("op", lambda v: "roll" if v != "roll" else "randbelow"),
    "a draw's count": _field("count", lambda v: v + 1),
}


@pytest.mark.parametrize("what", list(ALTERATIONS))
def test_each_field_of_the_randomness_altered_and_resigned_fails(export: bytes, what: str) -> None:
    report = verify_export(_resigned(export, ALTERATIONS[what]))
    assert not report.ok, f"{what}: verified"
