"""The replay's randomness (``draws.ReplayRandomness``) answers as it did before it was
made cycle-free.

Every replay (the host's rebuild of a match, the step-throughs, ``neon verify``) hands each
step's recorded draws to the engine through ``ReplayRandomness``. It was once a recorder built
on its own bound method, a reference cycle per step (which verify, pausing the cyclic
collector, left behind). Checked here: the same answers and the same mismatches as that
implementation (kept below as ``_CyclicReplay``, the oracle) on random sequences of requests,
no cycle, and a re-signed export whose draws were moved to the step before theirs (the draws
still match the seed block for block, so only the replay's check of each step's draws
refuses it).
"""

from __future__ import annotations

import gc
import random
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.platform.draws import (
    DrawRecord,
    RecordingRandomness,
    ReplayMismatch,
    ReplayRandomness,
    SeededRandomness,
)
from services.rules import records as rec
from services.rules.export import build_export, parse_export
from services.rules.games import load_engine
from services.rules.selfplay import export_game, setups
from services.rules.verify import verify_export

KEY = Ed25519PrivateKey.generate()


class _CyclicReplay(RecordingRandomness):
    """``ReplayRandomness`` as it was (a recorder over its own bound method): the oracle."""

    def __init__(self, records: list[DrawRecord]) -> None:
        self._queue = list(records)
        self._pos = 0
        super().__init__(self._next)

    def _next(self, op: str, n: int, count: int) -> DrawRecord:
        if self._pos >= len(self._queue):
            raise ReplayMismatch(f"engine asked for draw #{self._pos} ({op} {n}) beyond the log")
        record = self._queue[self._pos]
        if (record.op, record.n) != (op, n) or (op == "roll" and record.count != count):
            raise ReplayMismatch(
                f"draw #{self._pos}: engine asked for {op} {n}x{count}, "
                f"log holds {record.op} {record.n}x{record.count}"
            )
        self._pos += 1
        return record

    @property
    def exhausted(self) -> bool:
        return self._pos == len(self._queue)


def _request(rng: Any, choice: tuple[str, int, int]) -> Any:
    op, n, count = choice
    if op == "randbelow":
        return rng.randbelow(n)
    if op == "shuffle":
        return rng.shuffle(list(range(100, 100 + n)))
    return rng.roll([f"face{i}" for i in range(n)], count)


def _outcome(rng: Any, requests: list[tuple[str, int, int]]) -> list[Any]:
    """What each request gives (or the mismatch it raises, which ends the list), and
    whether the draws are used up."""
    out: list[Any] = []
    for choice in requests:
        try:
            out.append(_request(rng, choice))
        except ReplayMismatch as err:
            out.append(("mismatch", str(err)))
            break
    out.append(("exhausted", rng.exhausted))
    return out


@pytest.mark.parametrize("seed", range(40))
def test_replay_randomness_answers_as_it_did(seed: int):
    chooser = random.Random(seed)
    ops = [("randbelow", chooser.randint(1, 9), 1), ("shuffle", chooser.randint(0, 7), 1),
           ("roll", chooser.randint(1, 6), chooser.randint(1, 4))]
    recorder = SeededRandomness(seed)
    asked = [chooser.choice(ops) for _ in range(chooser.randint(0, 6))]
    for choice in asked:
        _request(recorder, choice)
    records = recorder.records  # shuffles of 0 or 1 item draw nothing
    # the same requests, one changed, one more, or one fewer
    variants = [asked, asked + [chooser.choice(ops)], asked[:-1]]
    if asked:
        changed = list(asked)
        at = chooser.randrange(len(changed))
        op, n, count = changed[at]
        changed[at] = (op, n + 1, count) if chooser.random() < 0.5 else (op, n, count + 1)
        variants.append(changed)
        variants.append([(("roll" if op == "randbelow" else "randbelow"), n, 1)] + asked[1:])
    for requests in variants:
        assert _outcome(ReplayRandomness(records), requests) \
            == _outcome(_CyclicReplay(records), requests), requests


def test_replay_randomness_leaves_no_reference_cycle():
    recorder = SeededRandomness(7)
    recorder.shuffle(range(5))
    was = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        rng = ReplayRandomness(recorder.records)
        rng.shuffle(range(5))
        del rng
        assert gc.collect() == 0  # freed by its reference count: nothing left for the collector
    finally:
        if was:
            gc.enable()


def test_verify_leaves_no_replay_randomness_to_the_collector():
    """verify pauses the cyclic collector: a cycle per step was all the garbage it left."""
    data = export_game("neon-reign", "single", setups(load_engine("neon-reign"), "single")[0], 2, KEY)
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        assert verify_export(data).ok
        gc.collect()
        kinds = {type(o).__name__ for o in gc.garbage}
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert "ReplayRandomness" not in kinds, kinds


def _resigned(data: bytes, change: Any) -> bytes:
    records, checkpoint = parse_export(data)
    change(records)
    match_id = checkpoint["match_id"]
    chained: list[dict[str, Any]] = []
    for record in records:
        body = {k: v for k, v in record.items() if k not in ("hash", "n", "prev", "match_id")}
        chained.append(rec.seal_record(match_id, len(chained) + 1, rec.head(chained), body))
    return build_export(match_id, checkpoint["game"], chained, KEY)


@pytest.mark.parametrize(("game", "mode"), [("neon-reign", "single"), ("neon", "rebirth")])
def test_a_draw_moved_to_the_next_step_fails_the_replay(game: str, mode: str):
    """The draws of the whole match stay in order, block after block (so the seed check
    passes); a step missing a draw its engine asked for, or holding one it did not ask
    for, fails."""
    data = export_game(game, mode, setups(load_engine(game), mode)[0], 3, KEY)

    def move(records: list[dict[str, Any]]) -> None:
        steps = ("MatchStarted", "ActionAccepted")
        at = next(i for i, r in enumerate(records[:-1])
                  if r["type"] in steps and r["draws"] and records[i + 1]["type"] in steps)
        records[at + 1]["draws"] = records[at]["draws"][-1:] + records[at + 1]["draws"]
        records[at]["draws"] = records[at]["draws"][:-1]

    report = verify_export(_resigned(data, move))
    assert not report.ok
    assert "draw" in report.failure, report.failure
    assert "does not match the seed" not in report.failure and "block" not in report.failure
