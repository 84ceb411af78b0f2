"""``neon replay`` on exports as deployments write them (keyed state hashes) and on bad ones.

Every export of a deployment whose dice service hands out state keys has keyed state hashes:
the replay needs the key from the revealed seed, as verify and the gateway's replays use it,
or it stops at event 2. A bad export is a one-line usage error with the reason.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from rich.console import Console

from services.cli.errors import CliError
from services.cli.replaying import replay_export
from services.rules.games import load_engine
from services.rules.selfplay import export_game, setups

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "exports"


@pytest.fixture(scope="module")
def export() -> bytes:
    engine = load_engine("neon-reign")
    return export_game("neon-reign", "single", setups(engine, "single")[0], 3, Ed25519PrivateKey.generate())


def _replay(data: bytes) -> str:
    out = io.StringIO()
    replay_export(Console(file=out, width=120), data, None)
    return out.getvalue()


def _lines(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.splitlines()]


def _join(rows: list[dict]) -> bytes:
    return b"\n".join(json.dumps(r).encode() for r in rows)


def test_a_keyed_export_replays_to_its_end(export: bytes) -> None:
    assert _lines(export)[0]["state_hash_scheme"]
    assert "MatchSealed" in _replay(export)


def test_a_bad_export_is_a_usage_error_with_the_reason(export: bytes) -> None:
    rows = _lines(export)
    tampered = [dict(r) for r in rows]
    tampered[3]["action"] = {"type": "bogus"}
    unsealed = rows[:-3] + rows[-1:]
    nameless = [{k: v for k, v in rows[0].items() if k != "game"}] + rows[1:]
    for data, reason in ((tampered, "event 4"), (unsealed, "not sealed"), (nameless, "game")):
        with pytest.raises(CliError) as info:
            _replay(_join(data))
        assert reason in str(info.value), str(info.value)


@pytest.mark.parametrize("events", [7, [0], [{"data": {}}]])
def test_events_of_the_wrong_shape_are_a_usage_error_naming_the_event(export: bytes, events: object) -> None:
    # the chain of this export is broken by the edit, but replay does not check chains
    # (verify does): the step-through must still stop with a reason, not a traceback
    rows = _lines(export)
    n = next(i for i, r in enumerate(rows) if r["type"] == "ActionAccepted")
    rows[n] = {**rows[n], "events": events}
    with pytest.raises(CliError) as info:
        _replay(_join(rows))
    assert str(info.value).startswith(f"event {rows[n]['n']}: cannot be shown"), str(info.value)


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.jsonl")))
def test_exports_made_before_an_engine_moved_on_replay_with_their_version(name: str) -> None:
    # as verify and the gateway's replays do: the engine's kept ruleset of that version
    data = (FIXTURES / name).read_bytes()
    assert "MatchSealed" in _replay(data)
