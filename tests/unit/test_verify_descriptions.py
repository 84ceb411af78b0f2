"""What the records describe besides the rules' inputs: engine events, the decision answered,
whether it was hidden, command ids. Re-signed exports (re-chained and signed again by someone
holding the key, as tests/unit/test_verify_tamper.py does) with one of them changed must fail
with a reason naming the event; exports of an earlier engine version, whose descriptions
earlier releases wrote, verify with a warning instead (services/rules/verify.py's docstring).

The exports: self-play of today's engines (keyed hashes, as a deployment writes them), and the
recorded exports of each game's current engine version and of earlier ones
(tests/fixtures/exports).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.platform.draws import DrawRecord, ReplayRandomness
from services.platform.signing import public_key_hex
from services.rules import records as rec
from services.rules.export import build_export, parse_export
from services.rules.games import load_engine
from services.rules.games.contract import MatchConfig, json_key, setup_transition
from services.rules.selfplay import export_game, setups
from services.rules.verify import DEV_SEED_WARNING, engine_at, verify_export

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(90, 122)))
PINNED = public_key_hex(KEY)
FIXTURES = Path(__file__).parent.parent / "fixtures" / "exports"
CURRENT = ["barbaric-0.6.0-competitive", "neon-7-battle-royale", "neon-knights-2086-0.7.0-normal",
           "neon-reign-1.5.0-single"]
"""A recorded export of each game's current engine version (test_old_exports keeps one)."""

Records = list[dict[str, Any]]


def _selfplay(game: str, mode: str) -> bytes:
    engine = load_engine(game)
    return export_game(game, mode, setups(engine, mode)[0], 11, KEY, keyed=True)


@pytest.fixture(scope="module")
def exports() -> dict[str, Records]:
    out = {name: parse_export((FIXTURES / f"{name}.jsonl").read_bytes())[0] for name in CURRENT}
    out["selfplay-neon-reign"] = parse_export(_selfplay("neon-reign", "best-of-three"))[0]
    out["selfplay-neon"] = parse_export(_selfplay("neon", "rebirth"))[0]
    return out


def _signed(records: Records) -> bytes:
    match_id = records[0]["match_id"]
    chained: Records = []
    for record in records:
        body = {k: v for k, v in record.items() if k not in ("hash", "n", "prev", "match_id")}
        chained.append(rec.seal_record(match_id, len(chained) + 1, rec.head(chained), body))
    return build_export(match_id, records[0]["game"], chained, KEY)


def _verified(records: Records, change: Callable[[Records], Any]) -> tuple[Any, Any]:
    """The report of ``records`` changed by ``change`` (which returns what it changed, for
    the message), re-signed with the pinned key."""
    changed = copy.deepcopy(records)
    what = change(changed)
    return verify_export(_signed(changed), PINNED), what


def _actions(records: Records, test: Callable[[dict[str, Any]], bool] = lambda r: True) -> Records:
    return [r for r in records if r["type"] == "ActionAccepted" and test(r)]


def test_the_exports_verify_re_signed_with_their_descriptions_checked(exports):
    for name, records in exports.items():
        report = verify_export(_signed(records), PINNED)
        assert report.ok, (name, report.failure)
        assert "engine events and decisions match the replay" in report.checks, name
        # the fixtures were played on dev seeds: that one note, and no other
        assert report.dev_seed, name
        assert report.warnings == [DEV_SEED_WARNING], (name, report.warnings)


# -- engine events ---------------------------------------------------------------------


@pytest.mark.parametrize("name", [*CURRENT, "selfplay-neon-reign", "selfplay-neon"])
def test_an_altered_event_text_fails_naming_the_event(exports, name):
    def alter(records: Records) -> tuple[int, int]:
        record = _actions(records, lambda r: bool(r["events"]))[2]
        event = record["events"][-1]
        event["data"] = {**event["data"], "told": "otherwise"}
        return record["n"], len(record["events"])

    report, (n, index) = _verified(exports[name], alter)
    assert not report.ok
    assert report.failure.startswith(f"event {n}: engine event {index} differs from the replay's"), \
        report.failure


def test_an_event_of_another_kind_fails(exports):
    def rename(records: Records) -> int:
        record = _actions(records, lambda r: bool(r["events"]))[0]
        record["events"][0]["kind"] = "something_else"
        return record["n"]

    report, n = _verified(exports["selfplay-neon-reign"], rename)
    assert not report.ok
    assert report.failure.startswith(f'event {n}: engine event 1 differs from the replay\'s '
                                     '(stored "something_else", replayed "'), report.failure


def test_a_number_spelled_as_a_boolean_in_an_event_fails(exports):
    """true == 1 and false == 0 in Python: the comparison is on JSON types."""
    def spell(records: Records) -> int:
        for record in _actions(records):
            for event in record["events"]:
                for key, value in event["data"].items():
                    if type(value) is int and value in (0, 1):
                        event["data"][key] = bool(value)
                        return record["n"]
        raise AssertionError("no event holds 0 or 1")

    report, n = _verified(exports["selfplay-neon"], spell)
    assert not report.ok and report.failure.startswith(f"event {n}: engine event "), report.failure


def test_a_private_event_made_public_fails(exports):
    """``visible_to`` decides which seats the host shows an event: a hand dealt to one seat
    recorded as shown to everyone is not what the engine said."""
    def publish(records: Records) -> int:
        for record in records:
            for event in record.get("events", []):
                if event["visible_to"] is not None:
                    event["visible_to"] = None
                    return record["n"]
        raise AssertionError("no private event")

    for name in ("selfplay-neon-reign", "selfplay-neon"):
        report, n = _verified(exports[name], publish)
        assert not report.ok and report.failure.startswith(f"event {n}: engine event "), \
            (name, report.failure)


@pytest.mark.parametrize("how", ["dropped", "doubled", "emptied", "not a list"])
def test_events_dropped_doubled_or_emptied_fail(exports, how):
    def change(records: Records) -> int:
        record = next(r for r in records if r["type"] == "MatchStarted") if how == "emptied" \
            else _actions(records, lambda r: len(r["events"]) > 1)[0]
        events = record["events"]
        record["events"] = {"dropped": events[:-1], "doubled": events + events[-1:],
                            "emptied": [], "not a list": {"0": events[0]}}[how]
        return record["n"]

    report, n = _verified(exports["selfplay-neon"], change)
    assert not report.ok and report.failure.startswith(f"event {n}: "), report.failure
    if how != "not a list":
        assert "engine events, the replay" in report.failure or "engine event " in report.failure
    else:
        assert "engine events are not a list" in report.failure


# -- the decision answered --------------------------------------------------------------


def test_an_altered_decision_fails_naming_the_event(exports):
    def alter(records: Records) -> tuple[int, str, int]:
        record = _actions(records)[3]
        others = {r["decision"] for r in _actions(records)} - {record["decision"]}
        record["decision"] = sorted(others)[0]
        return record["n"], record["decision"], record["seat"]

    for name in exports:
        report, (n, kind, seat) = _verified(exports[name], alter)
        assert not report.ok, name
        assert report.failure.startswith(f'event {n}: decision "{kind}" (hidden: ') \
            and report.failure.endswith(f"is not one the engine offered seat {seat} there"), \
            (name, report.failure)


def test_a_decision_no_engine_offers_fails(exports):
    report, n = _verified(exports["selfplay-neon-reign"],
                          lambda rs: (_actions(rs)[0].update(decision="no_such_decision"),
                                      _actions(rs)[0]["n"])[1])
    assert not report.ok and report.failure.startswith(f'event {n}: decision "no_such_decision"')


def test_a_hidden_flag_flipped_fails(exports):
    """``hidden`` decides whether the host shows the action to the other seats."""
    flipped = 0
    for name, records in exports.items():
        for want in (True, False):
            found = _actions(records, lambda r, w=want: r["hidden"] is w)
            if not found:
                continue
            report, _ = _verified(records, lambda rs, n=found[0]["n"], w=want: rs[n - 1].update(
                hidden=not w))
            assert not report.ok, name
            assert report.failure.startswith(f"event {found[0]['n']}: decision "), report.failure
            assert f"(hidden: {json.dumps(not want)})" in report.failure
            flipped += 1
    assert flipped >= len(exports) + 2  # hidden decisions in some of them


@pytest.mark.parametrize("value", [1, 0, "true", None])
def test_a_hidden_flag_of_another_type_fails(exports, value):
    report, n = _verified(exports["selfplay-neon"],
                          lambda rs: (_actions(rs)[1].update(hidden=value), _actions(rs)[1]["n"])[1])
    assert not report.ok and report.failure.startswith(f"event {n}: decision "), report.failure


# -- command ids --------------------------------------------------------------------------


def test_a_duplicated_command_id_fails_naming_the_event(exports):
    def duplicate(records: Records) -> tuple[int, str, int]:
        first = _actions(records)[0]
        later = _actions(records, lambda r: r["seat"] == first["seat"] and r is not first)[0]
        later["command_id"] = first["command_id"]
        return later["n"], first["command_id"], first["seat"]

    for name in exports:
        report, (n, command, seat) = _verified(exports[name], duplicate)
        assert not report.ok, name
        assert report.failure == (f'event {n}: command id "{command}" of seat {seat} was taken '
                                  "before (the host writes a seat's command once)"), report.failure


def test_the_same_command_id_of_two_seats_verifies(exports):
    """Command ids are each seat's own (the host keys them by seat and id)."""
    def share(records: Records) -> None:
        first = _actions(records)[0]
        other = _actions(records, lambda r: r["seat"] != first["seat"])[0]
        other["command_id"] = first["command_id"]

    report, _ = _verified(exports["selfplay-neon-reign"], share)
    assert report.ok, report.failure


@pytest.mark.parametrize("command", ["", "x" * 129, 7, None, ["c1"]])
def test_a_command_id_the_host_does_not_take_fails(exports, command):
    report, n = _verified(exports["selfplay-neon"], lambda rs: (
        _actions(rs)[2].update(command_id=command), _actions(rs)[2]["n"])[1])
    assert not report.ok
    assert report.failure.startswith(f"event {n}: command id ") \
        and report.failure.endswith("is not 1-128 characters of text"), report.failure


def _a_default_action(records: Records) -> int:
    """The position of the first action that is its seat's owed decision's default (what a
    clock's timeout applies)."""
    created = records[0]
    engine = engine_at(load_engine(created["game"]), created["engine_version"])
    state = None
    for record in records:
        rng = ReplayRandomness([DrawRecord.from_json(d) for d in record.get("draws", [])])
        if record["type"] == "MatchStarted":
            state = setup_transition(engine, MatchConfig(created["mode"], created["seats"],
                                                         created["options"]), rng).state
        elif record["type"] == "ActionAccepted":
            defaults = [d.default for d in engine.pending(state)
                        if d.seat == record["seat"] and d.default is not None]
            if defaults and json_key(defaults[0]) == json_key(record["action"]):
                return int(record["n"])
            state = engine.apply(state, record["seat"], record["action"], rng).state
    raise AssertionError("no action is a default")


@pytest.mark.parametrize("mark, prefix", [({"timeout": True}, "timeout:"), ({"by": "bot"}, "bot:")])
def test_the_services_own_action_carries_its_own_command_id(exports, mark, prefix):
    records = exports["selfplay-neon-reign"]
    n = _a_default_action(records)

    report, _ = _verified(records, lambda rs: rs[n - 1].update(mark, command_id=f"{prefix}{n}"))
    assert report.ok, report.failure  # as the host writes a clock's or a bot's move

    for wrong in (rs_id for rs_id in (f"{prefix}{n + 1}", "c7", f"{prefix}{n}x")):
        report, _ = _verified(records, lambda rs, w=wrong: rs[n - 1].update(mark, command_id=w))
        assert not report.ok
        assert report.failure.startswith(f"event {n}: the service's own action (its "), \
            report.failure
        assert report.failure.endswith(f'has command id "{wrong}", not "{prefix}{n}"')


def test_a_seats_command_id_in_the_services_form_is_taken(exports):
    """Releases before the prefixes were reserved took them from clients."""
    report, _ = _verified(exports["selfplay-neon"],
                          lambda rs: _actions(rs)[0].update(command_id="timeout:99"))
    assert report.ok, report.failure


# -- earlier engine versions -------------------------------------------------------------


OLDER = {"neon-2-rebirth": 'event 2: holds 0 engine events, the replay 10',
         "neon-5-rebirth": 'event 9: decision "place_loot" (hidden: false) is not one the engine',
         "neon-reign-1.2.0-best-of-three": "event 27: engine event 10 differs from the replay's"}


@pytest.mark.parametrize("name", sorted(OLDER))
def test_an_earlier_versions_descriptions_are_a_warning(name):
    report = verify_export((FIXTURES / f"{name}.jsonl").read_bytes())
    assert report.ok, report.failure
    warned = [w for w in report.warnings if "not checked" in w]
    assert len(warned) == 1 and warned[0].startswith(OLDER[name]), report.warnings
    assert "engine events and decisions match the replay" not in report.checks


def test_an_earlier_version_that_matches_is_checked_and_its_command_ids_always():
    records = parse_export((FIXTURES / "neon-6-rebirth.jsonl").read_bytes())[0]
    report = verify_export(_signed(records), PINNED)
    assert report.ok and "engine events and decisions match the replay" in report.checks
    changed = copy.deepcopy(records)
    actions = _actions(changed, lambda r: r["seat"] == 0)
    actions[1]["command_id"] = actions[0]["command_id"]
    report = verify_export(_signed(changed), PINNED)
    assert not report.ok and f"event {actions[1]['n']}: command id " in report.failure


# -- the comparison itself ------------------------------------------------------------------


def test_events_compare_on_json_types_as_the_export_writes_them():
    from types import MappingProxyType

    from services.rules.games.contract import EngineEvent
    from services.rules.replay import _events_differ

    events = (EngineEvent("drew", MappingProxyType({"side": 1, "cards": ("a", "b")}),
                          frozenset({1})),
              EngineEvent("score", {"points": 1.0}))
    stored = [{"kind": "drew", "data": {"cards": ["a", "b"], "side": 1}, "visible_to": [1]},
              {"kind": "score", "data": {"points": 1}, "visible_to": None}]
    assert _events_differ(stored, events) is None  # 1.0 is written 1 in canonical JSON
    spelled = copy.deepcopy(stored)
    spelled[0]["data"]["side"] = True
    assert _events_differ(spelled, events) == \
        "engine event 1 differs from the replay's (stored \"drew\", replayed \"drew\")"
    shown = copy.deepcopy(stored)
    shown[0]["visible_to"] = [0, 1]
    assert _events_differ(shown, events).startswith("engine event 1 differs")
    assert _events_differ(stored[:1], events) == "holds 1 engine events, the replay 2"
    assert _events_differ(None, events) == "engine events are not a list but null"
