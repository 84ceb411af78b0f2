"""Exports of abandoned matches (AbandonMatch): a MatchEnded whose outcome says abandoned,
with no result, on a state that is not over, then the seal. Verify and ``neon replay`` take
them with every check up to the end; tampered ones still fail, and a normal outcome on a
state that is not over fails as it always did."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from rich.console import Console
from typer.testing import CliRunner

from services.cli.errors import CliError
from services.cli.replaying import replay_export
from services.rules import records as rec
from services.rules.export import build_export, parse_export
from services.rules.games import load_engine
from services.rules.selfplay import export_game, setups
from services.rules.verify import verify_export

KEY = Ed25519PrivateKey.generate()
REASON = "a broken table"


@pytest.fixture(scope="module")
def played() -> bytes:
    """A whole self-play match of Neon Reign (keyed state hashes, as deployments write)."""
    return export_game("neon-reign", "single", setups(load_engine("neon-reign"), "single")[0], 5, KEY)


def _chain(match_id: str, game: str, bodies: list[dict[str, Any]]) -> bytes:
    chained: list[dict[str, Any]] = []
    for body in bodies:
        body = {k: v for k, v in body.items() if k not in ("hash", "n", "prev", "match_id")}
        chained.append(rec.seal_record(match_id, len(chained) + 1, rec.head(chained), body))
    return build_export(match_id, game, chained, KEY)


def _abandoned(data: bytes, keep: int, outcome: dict[str, Any] | None = None,
               after: list[dict[str, Any]] | None = None) -> bytes:
    """The first ``keep`` records of ``data``, then an abandon's end records (as the rules
    host writes them), re-chained and signed: what a match abandoned there exports."""
    records, checkpoint = parse_export(data)
    ended = next(r for r in records if r["type"] == "MatchEnded")
    sealed = records[-1]
    abandon = {"type": "MatchEnded", "outcome": outcome or rec.abandoned_outcome(REASON, "org"),
               "players": ended["players"], "game": ended["game"], "mode": ended["mode"]}
    return _chain(checkpoint["match_id"], checkpoint["game"],
                  [*records[:keep], abandon, *(after or []), sealed])


def test_an_abandoned_export_verifies_every_step_and_says_abandoned(played: bytes) -> None:
    report = verify_export(_abandoned(played, 6))
    assert report.ok, report.failure
    assert report.abandoned == {"reason": REASON, "by": "org"}
    assert "rules replay: 5 state hashes match" in report.checks  # MatchStarted + 4 actions
    assert any("abandoned" in c and REASON in c for c in report.checks)
    assert not any("outcome matches" in c for c in report.checks)
    assert report.outcome is not None and report.outcome["abandoned"] is True


def test_a_match_abandoned_before_it_started_verifies(played: bytes) -> None:
    report = verify_export(_abandoned(played, 1))
    assert report.ok, report.failure
    assert report.abandoned == {"reason": REASON, "by": "org"}


def test_a_normal_export_is_not_abandoned(played: bytes) -> None:
    report = verify_export(played)
    assert report.ok and report.abandoned is None


def test_an_altered_abandon_record_fails_the_chain(played: bytes) -> None:
    lines = _abandoned(played, 6).splitlines()
    row = json.loads(lines[-3])
    assert row["type"] == "MatchEnded"
    row["outcome"]["reason"] = "nothing happened"
    bad = b"\n".join([*lines[:-3], json.dumps(row).encode(), *lines[-2:]])
    report = verify_export(bad)
    assert not report.ok and report.failure.startswith("event 7: hash does not match")


@pytest.mark.parametrize("change", [
    {"placements": [1, 2]},          # an abandon that names a winner
    {"scores": [3, 0]},
    {"draw": True},
    {"draw": 0},                     # equal to False in Python, not in the canonical bytes
    {"teams": [[0], [1]]},
    {"reason": ""},                  # no reason
    {"reason": 7},
    {"by": 3},
    {"abandoned": "yes"},            # not exactly true: a normal outcome, which fails below
    {"carry": {"table": 1}},
])
def test_a_resigned_abandon_of_another_shape_fails(played: bytes, change: dict[str, Any]) -> None:
    outcome = {**rec.abandoned_outcome(REASON, "org"), **change}
    report = verify_export(_abandoned(played, 6, outcome))
    assert not report.ok
    assert report.failure.startswith("event 7:"), report.failure


def test_a_normal_outcome_on_a_state_that_is_not_over_still_fails(played: bytes) -> None:
    records, _ = parse_export(played)
    normal = next(r for r in records if r["type"] == "MatchEnded")["outcome"]
    report = verify_export(_abandoned(played, 6, normal))
    assert not report.ok
    assert report.failure == "event 7: MatchEnded but the replayed match is not over"


def test_an_abandon_of_a_match_that_was_over_fails(played: bytes) -> None:
    records, _ = parse_export(played)
    over = len(records) - 2  # every action kept: the engine's state is terminal
    report = verify_export(_abandoned(played, over))
    assert not report.ok and "was over" in report.failure


def test_nothing_but_the_seal_may_follow_an_abandon(played: bytes) -> None:
    records, _ = parse_export(played)
    action = records[6]  # the next action, legal at that state
    assert action["type"] == "ActionAccepted"
    report = verify_export(_abandoned(played, 6, after=[action]))
    assert not report.ok and "after the match ended" in report.failure
    again = {"type": "MatchEnded", "outcome": rec.abandoned_outcome("twice", "org"),
             "players": [], "game": "neon-reign", "mode": "single"}
    report = verify_export(_abandoned(played, 6, after=[again]))
    assert not report.ok and "after the match ended" in report.failure


def test_a_tampered_step_before_the_abandon_still_fails(played: bytes) -> None:
    records, checkpoint = parse_export(played)
    records[4] = {**records[4], "state_hash": "0" * 64}
    edited = build_export(checkpoint["match_id"], checkpoint["game"], records, KEY)
    report = verify_export(_abandoned(edited, 6))
    assert not report.ok and report.failure.startswith("event 5: replayed state hash differs")


def test_neon_replay_shows_the_abandon(played: bytes) -> None:
    out = io.StringIO()
    replay_export(Console(file=out, width=120), _abandoned(played, 6), None)
    text = out.getvalue()
    assert "abandoned" in text and REASON in text and "MatchSealed" in text
    with pytest.raises(CliError):  # and a normal outcome on a running state does not replay
        records, _ = parse_export(played)
        normal = next(r for r in records if r["type"] == "MatchEnded")["outcome"]
        replay_export(Console(file=io.StringIO()), _abandoned(played, 6, normal), None)


def test_neon_verify_says_abandoned(played: bytes, tmp_path: Any) -> None:
    from services.cli.main import app

    path = tmp_path / "abandoned.jsonl"
    path.write_bytes(_abandoned(played, 6))
    result = CliRunner().invoke(app, ["verify", str(path), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert "abandoned" in result.output and REASON in result.output


def test_the_gateways_replay_shows_the_abandon(played: bytes) -> None:
    from services.gateway.replays import replay_report

    report = replay_report(_abandoned(played, 6))
    assert report["verification"]["ok"], report["verification"]["failure"]
    assert not report["stopped"]
    ended = report["frames"][-2]
    assert ended["type"] == "MatchEnded"
    assert ended["outcome"] == rec.abandoned_outcome(REASON, "org")
    assert ended["view"] is not None  # the spectator view where the match stopped
