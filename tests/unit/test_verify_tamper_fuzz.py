"""Tampering with real signed exports: what ``neon verify`` must catch, by what it means.

The inputs are the exports published in tests/fixtures/exports (every game, every engine
version the engines keep, and today's host format with ``created_by``). Each example applies
one to three changes of what an export says, each named with whether verify must refuse it:

- flip a byte, cut the file, garbage bytes, a line deeply nested, a line dropped, doubled or
  swapped (the text as it is, its checkpoint unchanged);
- change a number or put a value of the wrong type (huge numbers, floats, booleans, text,
  nesting) in what is checked: an action, a seat, a draw, a state hash, the outcome, the
  match's seats, options, mode, engine version, dice, seed; drop, duplicate or reorder an
  event; cut the log short and seal it there; change the result or whom MatchEnded names;
  change ``created_by`` in one of the two records that carry it;
- change what verify takes as written (descriptions for people: an engine event's data, a
  command id, a blind, ``created_by`` and the players' names changed alike everywhere, an
  unknown key): accepted or refused, both are right, but an accepted export reports the
  original outcome. (Verify checks the engine events, decisions and hidden flags of a match
  of the engine's current version against the replay: there they are in ``CHECKED`` and
  the test's own replay, ``_legal``, checks them too. A command id is checked for its
  shape and once per seat, and may be changed to another.)

Two ways: **as is** (the records changed, the original checkpoint kept: with the organiser's
key pinned, any change of a record or of a signed checkpoint field must fail) and
**re-signed** (re-chained and signed again with a key the test holds, which is pinned:
anyone can do this; then the seed, the draws and the replay alone stand in the way, and every
change of the first list must still fail). Verify must never raise, never take longer than
``TIME_LIMIT``, and a refusal names its reason.

The default run draws ``FAST`` examples and checks a dozen published exports untampered;
``-m slow`` (or NEON_SLOW=1) runs ``LONG`` and every published export.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.platform.canonical import canonical_json, sha256_hex
from services.platform.draws import DrawRecord, ReplayRandomness, keyed_state_hash, state_key
from services.platform.signing import public_key_hex
from services.rules import records as rec
from services.rules.export import build_export, parse_export
from services.rules.games import load_engine
from services.rules.games.contract import MatchConfig, setup_transition, standing_options
from services.rules.verify import Report, verify_export
from tests.unit.test_verify_fuzz import LONG, _within

FIXTURES = sorted((Path(__file__).parent.parent / "fixtures" / "exports").glob("*.jsonl"))
KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(7, 39)))
PINNED = public_key_hex(KEY)
TIME_LIMIT = 30  # seconds one verification may take before it counts as a hang


@dataclass(frozen=True)
class Export:
    name: str
    data: bytes
    records: list[dict[str, Any]]
    checkpoint: dict[str, Any]
    outcome: Any


def _load(path: Path) -> Export:
    data = path.read_bytes()
    records, checkpoint = parse_export(data)
    ended = next(r for r in records if r["type"] == "MatchEnded")
    return Export(path.stem, data, records, checkpoint, ended["outcome"])


EXPORTS = {e.name: e for e in map(_load, FIXTURES)}


def _version(export: Export) -> tuple[str, tuple[int, ...]]:
    created = export.records[0]
    return str(created["game"]), tuple(int(p) for p in str(created["engine_version"]).split("."))


def _oldest_and_newest() -> list[str]:
    """The first export of the oldest and of the newest engine version of each game, and
    the ``*-created-by`` one of each game (the newest host's records)."""
    versions = {e.name: _version(e) for e in EXPORTS.values()}
    chosen = {name for name in EXPORTS if name.endswith("-created-by")}
    for game in {g for g, _ in versions.values()}:
        kept = sorted(v for g, v in versions.values() if g == game)
        for version in (kept[0], kept[-1]):
            chosen.add(min(n for n, v in versions.items() if v == (game, version)))
    return sorted(chosen)


def _published_verify(names: list[str]) -> None:
    for name in names:
        export = EXPORTS[name]
        assert _legal(export.records), export.name  # the test's own replay takes them
        report = verify_export(export.data, str(export.checkpoint["public_key"]))
        assert report.ok, (export.name, report.failure)
        report = verify_export(_signed(export, export.records), PINNED)
        assert report.ok, (export.name, report.failure)


def test_the_published_exports_verify_as_they_are_and_re_signed() -> None:
    """The oldest and newest version of each game and the ``created-by`` exports (every
    published export verifies as it is in test_old_exports.py; ``-m slow`` or NEON_SLOW=1
    takes every one here too)."""
    names = _oldest_and_newest()
    assert {_version(EXPORTS[n])[0] for n in names} == {"barbaric", "neon", "neon-knights-2086",
                                                        "neon-reign"}
    assert set(ONE_OF_EACH_GAME) <= set(names)
    _published_verify(names)


@pytest.mark.slow
def test_every_published_export_verifies_as_it_is_and_re_signed() -> None:
    """The long run (-m slow): every export in tests/fixtures/exports."""
    _published_verify(sorted(EXPORTS))


# -- changes of what an export says --------------------------------------------------


def _nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


WRONG = st.sampled_from([
    None, True, False, 0, 1, -1, 7, 2**31, 2**53 + 1, 2**63, 2**64, -(2**63) - 1, 10**30,
    -(10**30), 1.0, 0.5, -0.0, 1e300, "", "0", "1", "x", "\u00e9", "\U0001f600", "a" * 3000,
    [], [0], [[0]], {}, {"type": "resign"}, _nested(50), _nested(400),
]) | st.integers() | st.text(max_size=6)
"""Values put where something else was: huge numbers, wrong types, deep nesting."""

CHECKED = {
    "MatchCreated": ("game", "mode", "seats", "options", "engine_version", "dice",
                     "state_hash_scheme"),
    "MatchStarted": ("client_seeds", "draws", "state_hash"),
    "ActionAccepted": ("seat", "action", "draws", "state_hash"),
    "MatchEnded": ("outcome",),
    "MatchSealed": ("seed", "commitment"),
}
"""What verify checks of each record against the seed and the replay. MatchEnded's players,
game, mode and ``created_by`` are checked against MatchCreated's (``_checked_changed``)."""
DESCRIBED = {"MatchStarted": ("events",), "ActionAccepted": ("events", "decision", "hidden")}
"""What verify checks too, against the replay, in a match of the engine's current version."""


def _current(records: list[dict[str, Any]]) -> bool:
    """Whether ``records`` are of a match of its engine's current version."""
    created = records[0] if records else {}
    try:
        return created.get("engine_version") == load_engine(str(created.get("game"))).engine_version
    except (KeyError, ModuleNotFoundError, AttributeError):
        return False

Change = Callable[[st.DataObject, list[dict[str, Any]]], bool]
"""Changes the records in place; returns whether verify must refuse them (re-signed)."""


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*path, i))


def _set(value: Any, path: tuple[Any, ...], new: Any) -> None:
    for step in path[:-1]:
        value = value[step]
    value[path[-1]] = new


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def _same(a: Any, b: Any) -> bool:
    """The same JSON (1 and 1.0 and True are not)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _record(data: st.DataObject, records: list[dict[str, Any]], kinds: tuple[str, ...] = (),
            having: str = "") -> dict[str, Any] | None:
    """A record of one of ``kinds`` (any, when empty) that holds ``having``: first its type,
    so that the few MatchCreated, MatchEnded and seal records are picked as often as actions."""
    among = [r for r in records if (not kinds or r["type"] in kinds)
             and (not having or having in r)]
    if not among:
        return None
    kind = data.draw(st.sampled_from(sorted({r["type"] for r in among})), label="record type")
    return data.draw(st.sampled_from([r for r in among if r["type"] == kind]), label="record")


def change_checked_value(data: st.DataObject, records: list[dict[str, Any]]) -> bool:
    """A number changed, or a value of another type, anywhere in what verify checks."""
    record = _record(data, records)
    if record is None:
        return False
    fields = [f for f in CHECKED[record["type"]] if f in record]
    if not fields:
        return False
    field = data.draw(st.sampled_from(fields), label="field")
    path = data.draw(st.sampled_from(list(_paths(record[field], (field,)))), label="path")
    old = _get(record, path)
    if isinstance(old, int) and not isinstance(old, bool) and data.draw(st.booleans()):
        new: Any = old + data.draw(st.sampled_from([1, -1, 2, 100, -(2**40), 2**64]))
    else:
        new = data.draw(WRONG, label="value")
    if _same(old, new) or path[-1] == "dev" or path[:2] == ("dice", "session"):
        return False  # the same value; a dev match's flag and dice session are descriptions
    _set(record, path, new)
    return True


def change_seat(data: st.DataObject, records: list[dict[str, Any]]) -> bool:
    record = _record(data, records, ("ActionAccepted",))
    if record is None:
        return False
    created = _created(records)
    seats = created.get("seats") if created else None
    seats = seats if isinstance(seats, int) and 0 < seats < 10 else 2
    record["seat"] = data.draw(st.sampled_from([s for s in range(-1, seats + 1)
                                                if s != record["seat"]]), label="seat")
    return True


def change_draw(data: st.DataObject, records: list[dict[str, Any]]) -> bool:
    record = _record(data, records, ("MatchStarted", "ActionAccepted"))
    draws = record and record.get("draws")
    if not draws:
        return False
    draw = data.draw(st.sampled_from(draws), label="draw")
    key = data.draw(st.sampled_from(sorted(draw)), label="draw field")
    if isinstance(draw[key], list) and draw[key] and data.draw(st.booleans()):
        i = data.draw(st.integers(0, len(draw[key]) - 1), label="index")
        old = draw[key][i]
        draw[key][i] = old + 1 if isinstance(old, int) else 0
    elif isinstance(draw[key], int):
        draw[key] += data.draw(st.sampled_from([1, -1, 5]), label="by")
    else:
        new = data.draw(WRONG, label="value")
        if _same(new, draw[key]):
            return False
        draw[key] = new
    return True


def drop_event(data: st.DataObject, records: list[dict[str, Any]]) -> bool:
    if not records:
        return False
    del records[data.draw(st.integers(0, len(records) - 1), label="dropped")]
    return True


def duplicate_event(data: st.DataObject, records: list[dict[str, Any]]) -> bool:
    if not records:
        return False
    i = data.draw(st.integers(0, len(records) - 1), label="doubled")
    records.insert(data.draw(st.integers(0, len(records)), label="at"), copy.deepcopy(records[i]))
    return True


def reorder_events(data: st.DataObject, records: list[dict[str, Any]]) -> bool:
    if len(records) < 2:
        return False
    i, j = data.draw(st.lists(st.integers(0, len(records) - 1), min_size=2, max_size=2,
                              unique=True), label="swapped")
    if _same(records[i], records[j]):
        return False
    records[i], records[j] = records[j], records[i]
    return True


def _ended(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    return next((r for r in records if r["type"] == "MatchEnded"), None)


def _created(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    return next((r for r in records if r["type"] == "MatchCreated"), None)


def truncate_and_seal(data: st.DataObject, records: list[dict[str, Any]]) -> bool:
    """The log cut short before its end and sealed there (the seed revealed as at the end)."""
    ended = next((i for i, r in enumerate(records) if r["type"] == "MatchEnded"), 0)
    if ended < 1 or records[-1]["type"] != "MatchSealed":
        return False
    keep = data.draw(st.integers(1, ended), label="kept")
    records[keep:-1] = []
    return True


def change_result(data: st.DataObject, records: list[dict[str, Any]]) -> bool:
    ended = _ended(records)
    if ended is None or not isinstance(ended.get("outcome"), dict) or not ended["outcome"]:
        return False
    outcome = ended["outcome"]
    key = data.draw(st.sampled_from(sorted(outcome)), label="outcome field")
    value = outcome[key]
    if key in ("placements", "scores") and isinstance(value, list) and len(value) > 1 \
            and data.draw(st.booleans()):
        new: Any = list(reversed(value))
    elif key == "draw":
        new = not value
    else:
        new = data.draw(WRONG, label="value")
    if _same(new, value):
        return False
    outcome[key] = new
    return True


def change_whom_the_end_names(data: st.DataObject, records: list[dict[str, Any]]) -> bool:
    """MatchEnded (what a signed result is made of) names other players, game or mode than
    the match was created with."""
    ended = _ended(records)
    if ended is None or not isinstance(ended.get("players"), list):
        return False
    key = data.draw(st.sampled_from(["players", "game", "mode"]), label="field")
    if key == "players" and len(ended["players"]) > 1 and data.draw(st.booleans()):
        new: Any = list(reversed(ended["players"]))
    else:
        new = data.draw(st.sampled_from([["mallory"] * len(ended["players"]), "neon",
                                         "barbaric", "solo", "other"]) | WRONG, label="value")
    if _same(new, ended.get(key)):
        return False
    ended[key] = new
    return True


def change_engine_version(data: st.DataObject, records: list[dict[str, Any]]) -> bool:
    new = data.draw(st.sampled_from(["1", "2", "3", "4", "5", "6", "7", "0.1.0", "0.2.0", "0.3.0",
                                     "0.4.0", "0.5.0", "0.6.0", "0.7.0", "1.1.0", "1.2.0",
                                     "1.3.0", "1.4.0", "1.5.0", ""]) | WRONG, label="version")
    created = _created(records)
    if created is None or _same(new, created.get("engine_version")):
        return False
    created["engine_version"] = new
    return True


def change_created_by_once(data: st.DataObject, records: list[dict[str, Any]]) -> bool:
    """``created_by`` changed in MatchCreated or in MatchEnded, not in both."""
    among = [r for r in (_created(records), _ended(records)) if r is not None]
    if not among:
        return False
    record = data.draw(st.sampled_from(among), label="record")
    new = data.draw(st.sampled_from([{"role": "organiser", "name": "mallory"},
                                     {"role": "service", "name": "neon-cli"}, None]) | WRONG,
                    label="creator")
    if _same(new, record.get("created_by")):
        return False
    record["created_by"] = new
    return True


def change_description(data: st.DataObject, records: list[dict[str, Any]]) -> bool:
    """What verify takes as written: never must fail, re-signed."""
    kind = data.draw(st.sampled_from(["event data", "command id", "blind", "names",
                                      "creator", "unknown key"]), label="description")
    ended, created = _ended(records), _created(records)
    if ended is None or created is None or not isinstance(created.get("players"), list):
        return False
    if kind == "event data":
        record = _record(data, records, ("MatchStarted", "ActionAccepted"))
        events = record and record.get("events")
        if events:
            data.draw(st.sampled_from(events), label="event")["data"] = {"told": "otherwise"}
    elif kind == "command id":
        record = _record(data, records, ("ActionAccepted",))
        if record is not None:
            record["command_id"] = data.draw(st.text(max_size=10), label="command id")
    elif kind == "blind":
        record = _record(data, records, having="blind")
        if record is not None:
            record["blind"] = "00" * 16
    elif kind == "names":
        players = [f"someone-{i}" for i in range(len(created["players"]))]
        created["players"] = players
        ended["players"] = list(players)
    elif kind == "creator":
        creator = {"role": "organiser", "name": data.draw(st.text(max_size=8), label="name")}
        created["created_by"] = creator
        ended["created_by"] = dict(creator)
    else:
        record = _record(data, records)
        if record is not None:
            record["zz_note"] = data.draw(WRONG, label="value")
    return False


MUST_FAIL: dict[str, Change] = {
    "change a checked value": change_checked_value, "change a seat": change_seat,
    "change a draw": change_draw, "drop an event": drop_event,
    "duplicate an event": duplicate_event, "reorder events": reorder_events,
    "truncate and seal": truncate_and_seal, "change the result": change_result,
    "change whom the end names": change_whom_the_end_names,
    "change the engine version": change_engine_version,
    "change created_by once": change_created_by_once,
}
CHANGES: dict[str, Change] = {**MUST_FAIL, "change a description": change_description}


def _bytes_changed(data: st.DataObject, text: bytes) -> bytes:
    """A change of the text: a byte flipped, garbage, the file cut, a line dropped, doubled,
    swapped or replaced by deeply nested JSON."""
    kind = data.draw(st.sampled_from(["flip", "garbage", "truncate", "drop line",
                                      "double line", "swap lines", "nested line"]), label="text")
    lines = text.split(b"\n")
    if not text:
        return data.draw(st.binary(max_size=40), label="bytes")
    if kind == "flip":
        at = data.draw(st.integers(0, len(text) - 1), label="at")
        bit = data.draw(st.integers(0, 7), label="bit")
        return text[:at] + bytes([text[at] ^ (1 << bit)]) + text[at + 1:]
    if kind == "garbage":
        at = data.draw(st.integers(0, len(text)), label="at")
        return text[:at] + data.draw(st.binary(min_size=1, max_size=40), label="bytes") + text[at:]
    if kind == "truncate":
        return text[:data.draw(st.integers(0, len(text) - 1), label="length")]
    i = data.draw(st.integers(0, len(lines) - 1), label="line")
    if kind == "drop line":
        del lines[i]
    elif kind == "double line":
        lines.insert(i, lines[i])
    elif kind == "swap lines":
        j = data.draw(st.integers(0, len(lines) - 1), label="other line")
        lines[i], lines[j] = lines[j], lines[i]
    else:
        depth = data.draw(st.sampled_from([100, 1000, 5000, 100_000]), label="depth")
        lines[i] = b'{"type":"ActionAccepted","a":' + b"[" * depth + b"]" * depth + b"}"
    return b"\n".join(lines)


# -- re-chaining and re-signing ------------------------------------------------------


def _signed(export: Export, records: list[dict[str, Any]]) -> bytes:
    """``records`` re-chained (positions, previous hashes, hashes) and signed with ``KEY``; a
    record canonical JSON cannot encode keeps its old hash (and fails the chain)."""
    match_id = str(export.checkpoint["match_id"])
    chained: list[dict[str, Any]] = []
    for record in records:
        body = {k: v for k, v in record.items() if k not in ("hash", "n", "prev", "match_id")}
        try:
            chained.append(rec.seal_record(match_id, len(chained) + 1, rec.head(chained), body))
        except (ValueError, TypeError, RecursionError):
            chained.append(record)
    try:
        return build_export(match_id, str(export.checkpoint["game"]), chained, KEY)
    except (ValueError, TypeError, RecursionError):
        return _written([*chained, export.checkpoint])


def _written(rows: list[Any]) -> bytes:
    return b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in rows)


def _as_is(export: Export, records: list[dict[str, Any]]) -> bytes:
    """The changed records with their old hashes, and the original checkpoint."""
    return _written([*records, export.checkpoint])


def _meaning(text: bytes) -> Any:
    """What an export says that verify must hold to: its records and the checkpoint's signed
    fields, key and signature (the signature's hex in lowercase, as it is decoded); None when
    it does not parse."""
    try:
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
        if not rows or not all(isinstance(r, dict) for r in rows):
            return None
        *records, checkpoint = rows
        signed = {k: checkpoint.get(k) for k in ("type", "match_id", "game", "event_count",
                                                  "final_hash", "public_key", "signature")}
        for k in ("public_key", "signature"):
            if isinstance(signed[k], str):
                signed[k] = signed[k].lower()
        return canonical_json([records, signed])
    except (ValueError, TypeError, RecursionError):
        return None


_ABSENT = "(absent)"


def _checked(records: list[dict[str, Any]]) -> bytes | None:
    """What verify checks of ``records``: each record's type and checked fields, in order."""
    described = DESCRIBED if _current(records) else {}
    try:
        return canonical_json([[r.get("type"), {f: r.get(f, _ABSENT)
                                                for f in (*CHECKED.get(r.get("type"), ()),
                                                          *described.get(r.get("type"), ()))}]
                               for r in records])
    except (ValueError, TypeError, RecursionError):
        return None


def _checked_changed(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> bool:
    """Whether verify must refuse ``after``, re-signed: what it checks changed (other than
    the actions alone, see ``_only_actions_changed``), or MatchEnded names another creator,
    players, game or mode than MatchCreated."""
    if _checked(after) is None:
        return True
    if _checked(before) != _checked(after) and not _only_actions_changed(before, after):
        return True
    created, ended = _created(after) or {}, _ended(after)
    return ended is not None and any(
        key in ended and not _same(ended[key], created.get(key))
        for key in ("created_by", "players", "game", "mode"))


def _only_actions_changed(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> bool:
    """Whether only ActionAccepted records were changed, dropped, doubled or moved (every
    other record the same, in the same order)."""
    def others(records: list[dict[str, Any]]) -> bytes | None:
        return _checked([r for r in records if r.get("type") != "ActionAccepted"])

    return others(before) is not None and others(before) == others(after)


def _legal(records: list[dict[str, Any]]) -> bool:
    """The test's own replay, written from the engine contract: every action valid where it
    stands, each step taking exactly its recorded draws to its stored state hash, and the
    stored outcome the engine's. A log whose actions alone were changed and which is still
    legal is a match the organiser could have recorded: re-signed, verify cannot tell it from
    the one played (only the organiser's pinned key can), and may accept it. In a match of
    the engine's current version, each step's engine events must be the engine's as the host
    writes them, and each action's decision and hidden flag one the engine offered its seat."""
    try:
        created = records[0]
        engine = load_engine(created["game"]).for_version(created["engine_version"])
        described = _current(records)
        seal = records[-1]
        key = state_key(bytes.fromhex(seal["seed"]), created["dice"]["stream_id"]) \
            if created.get("state_hash_scheme") else None
        state = None
        for record in records[1:-1]:
            rng = ReplayRandomness([DrawRecord.from_json(d) for d in record.get("draws", [])])
            if record["type"] == "MatchStarted":
                config = MatchConfig(created["mode"], created["seats"], created["options"],
                                     (created.get("campaign") or {}).get("carried"))
                step = setup_transition(engine, config, rng)
            elif record["type"] == "ActionAccepted":
                seat = record["seat"]
                if engine.validate(state, seat, record["action"]) is not None:
                    return False
                offered = [*engine.pending(state), *standing_options(engine, state)]
                if described and not any(
                        d.seat == seat and _same([d.kind, bool(d.hidden)],
                                                 [record.get("decision"), record.get("hidden")])
                        for d in offered):
                    return False
                step = engine.apply(state, seat, record["action"], rng)
            else:
                return record["outcome"] == json.loads(json.dumps(_outcome(engine, state)))
            state = step.state
            if described and canonical_json(rec.engine_events_json(step.events)) \
                    != canonical_json(record.get("events")):
                return False
            data = canonical_json(engine.encode(state))
            digest = keyed_state_hash(key, data) if key else sha256_hex(data)
            if not rng.exhausted or digest != record["state_hash"]:
                return False
    except Exception:
        return False
    return False


def _outcome(engine: Any, state: Any) -> dict[str, Any]:
    from services.rules.replay import outcome_json

    return outcome_json(engine.outcome(state))


def _diff(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> str:
    """Where the records first differ, in words (for a failure's message)."""
    for i, (a, b) in enumerate(zip(before, after)):
        if not _same(a, b):
            keys = sorted(k for k in {*a, *b} if not _same(a.get(k), b.get(k)))
            return (f"record {i + 1} {a.get('type')} -> {b.get('type')}: "
                    + "; ".join(f"{k}: {str(a.get(k))[:150]} -> {str(b.get(k))[:150]}"
                                for k in keys if k not in ("hash", "prev", "n")))
    return f"{len(before)} records -> {len(after)}"


# -- the property ----------------------------------------------------------------------



def _verified(text: bytes, key: str) -> Report:
    with _within(TIME_LIMIT):
        report = verify_export(text, key)
    assert isinstance(report, Report)
    assert report.ok or report.failure.strip(), "refused without a reason"
    return report


def _case(data: st.DataObject) -> None:
    export = EXPORTS[data.draw(st.sampled_from(sorted(EXPORTS)), label="export")]
    way = data.draw(st.sampled_from(["as is", "re-signed", "text"]), label="way")
    if way == "text":  # the bytes changed, the checkpoint signed by the organiser
        text = export.data
        for _ in range(data.draw(st.integers(1, 3), label="changes")):
            text = _bytes_changed(data, text)
        report = _verified(text, str(export.checkpoint["public_key"]))
        if _meaning(text) != _meaning(export.data):
            assert not report.ok, "changed text verified under the organiser's signature"
        else:
            assert report.ok, report.failure  # nothing changed that is signed
        return
    records = copy.deepcopy(export.records)
    names = []
    for _ in range(data.draw(st.integers(1, 3), label="changes")):
        name = data.draw(st.sampled_from(sorted(CHANGES)), label="change")
        names.append(name)
        CHANGES[name](data, records)
    must_fail = _checked_changed(export.records, records)  # two changes may undo each other
    if way == "as is":
        text, key = _as_is(export, records), str(export.checkpoint["public_key"])
        must_fail = _meaning(text) != _meaning(export.data)
    else:
        text, key = _signed(export, records), PINNED
    report = _verified(text, key)
    if must_fail:
        assert not report.ok, f"{way}: {names} verified ({_diff(export.records, records)})"
    if report.ok and way == "re-signed" and _checked(records) != _checked(export.records):
        assert _legal(records), f"{names}: an illegal log verified ({_diff(export.records, records)})"
    if report.ok:  # only descriptions changed: the report is the original match's
        assert _same(report.outcome, export.outcome), f"{way}: {names} changed the outcome"
        assert report.events == len(export.records)
        assert report.match_id == export.checkpoint["match_id"]


FAST = settings(LONG, max_examples=150)  # the verify fuzz's long settings, 150 examples


@FAST
@given(st.data())
def test_a_tampered_export_is_refused_with_a_reason(data: st.DataObject) -> None:
    _case(data)


@pytest.mark.slow
@LONG
@given(st.data())
def test_many_tampered_exports(data: st.DataObject) -> None:
    _case(data)


ONE_OF_EACH_GAME = ("neon-6-rebirth-created-by", "neon-reign-1.4.0-hero-match-created-by",
                    "neon-knights-2086-0.6.0-normal-created-by",
                    "barbaric-0.5.0-competitive-created-by")


@pytest.mark.parametrize("game", ONE_OF_EACH_GAME)
@pytest.mark.parametrize("name", sorted(MUST_FAIL))
@settings(max_examples=8, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_each_change_that_must_fail_fails_re_signed_on_every_game(name: str, game: str,
                                                                  data: st.DataObject) -> None:
    """Each change of the first list, on one export of each game, re-signed: refused, or
    (actions alone changed) a legal log (a fixed few of each, whatever the property above
    draws)."""
    export = EXPORTS[game]
    records = copy.deepcopy(export.records)
    if MUST_FAIL[name](data, records):
        report = _verified(_signed(export, records), PINNED)
        assert not report.ok or (_only_actions_changed(export.records, records)
                                 and _legal(records)), f"{game}: {name} verified"
