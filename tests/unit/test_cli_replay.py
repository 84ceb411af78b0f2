"""``neon replay`` on exports as deployments write them (keyed state hashes) and on bad ones.

Every export of a deployment whose dice service hands out state keys has keyed state hashes:
the replay needs the key from the revealed seed, as verify and the gateway's replays use it,
or it stops at event 2. A bad export is a one-line usage error with the reason.

Exports made before an engine moved on replay with their version: every published export
replays, narrates and builds its table at every step in the default run; the table is laid
out at every step for the oldest and newest version of each game, and at the last step of
the others (laying out tables is 96% of a step-through: ``-m slow`` or NEON_SLOW=1 lays out
every step of every export).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from rich.console import Console
from rich.panel import Panel
from rich.rule import Rule
from rich.text import Text

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


class _LastTable(Console):
    """A console that lays out the words, rules and panels it is given as any console does,
    and of the tables (the presenter's renderables) only the last one, when asked: each is
    built by ``replay_export`` all the same, and counted."""

    def __init__(self, out: io.StringIO) -> None:
        super().__init__(file=out, width=120)
        self.held: object = None
        self.tables = 0

    def print(self, *objects: object, **kwargs: object) -> None:  # type: ignore[override]
        if len(objects) == 1 and not isinstance(objects[0], (str, Text, Rule, Panel)):
            self.held, self.tables = objects[0], self.tables + 1
            return
        super().print(*objects, **kwargs)  # type: ignore[arg-type]


def _replay_laying_out_the_last_table(data: bytes) -> tuple[str, str]:
    """The step-through's words, and the table of its last position laid out."""
    out = io.StringIO()
    console = _LastTable(out)
    replay_export(console, data, None)
    assert console.tables > 1 and console.held is not None
    table = io.StringIO()
    Console(file=table, width=120).print(console.held)
    return out.getvalue(), table.getvalue()


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


def _version(name: str) -> tuple[str, tuple[int, ...]]:
    created = json.loads((FIXTURES / name).read_bytes().split(b"\n", 1)[0])
    return str(created["game"]), tuple(int(p) for p in str(created["engine_version"]).split("."))


NAMES = sorted(p.name for p in FIXTURES.glob("*.jsonl"))
LAID_OUT = sorted({min(names) for names in (
    [n for n in NAMES if _version(n) == version]
    for game in {_version(n)[0] for n in NAMES}
    for version in (min(v for v in map(_version, NAMES) if v[0] == game),
                    max(v for v in map(_version, NAMES) if v[0] == game)))})
"""One export of the oldest and one of the newest engine version of each game: laid out at
every step in the default run."""


def test_the_exports_laid_out_at_every_step_are_the_oldest_and_newest_of_each_game() -> None:
    games = {_version(n)[0] for n in NAMES}
    assert games == {"barbaric", "neon", "neon-knights-2086", "neon-reign"}
    assert len(LAID_OUT) == 2 * len(games), LAID_OUT


@pytest.mark.parametrize("name", LAID_OUT)
def test_exports_of_the_oldest_and_newest_versions_replay_every_table_laid_out(name: str) -> None:
    # as verify and the gateway's replays do: the engine's kept ruleset of that version
    words = _replay((FIXTURES / name).read_bytes())
    assert "MatchSealed" in words and "result" in words


@pytest.mark.parametrize("name", [n for n in NAMES if n not in LAID_OUT])
def test_exports_made_before_an_engine_moved_on_replay_with_their_version(name: str) -> None:
    # every step replayed, told and its table built; the last position's table laid out
    words, table = _replay_laying_out_the_last_table((FIXTURES / name).read_bytes())
    assert "MatchSealed" in words and "result" in words
    assert table.strip()


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_exports_made_before_an_engine_moved_on_replay_every_table_laid_out(name: str) -> None:
    """The long run: every step of every published export laid out (-m slow)."""
    data = (FIXTURES / name).read_bytes()
    assert "MatchSealed" in _replay(data)
