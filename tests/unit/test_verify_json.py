"""`neon verify --json`: JSON Lines a script can read, one object per file as it is checked,
then a summary; nothing else on stdout, the exit codes of the text output, and nothing in
the objects that the text does not show of hidden information (a campaign's carry)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from services.rules.export import parse_export
from tests.unit.test_verify_fuzz import campaign_pair, tournament_bundle
from tests.unit.test_verify_many import _exports

ROOT = Path(__file__).resolve().parents[2]


def _verify(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NEON_VAR_DIR": str(tmp_path / "var"),
           "COLUMNS": "300"}
    return subprocess.run([sys.executable, "-m", "services.cli.main", "verify", *args],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)


def _lines(stdout: str) -> list[dict[str, Any]]:
    """Every line of stdout as JSON (a line that is not JSON fails the test)."""
    lines = stdout.splitlines()
    assert lines and all(line.strip() for line in lines), stdout
    return [json.loads(line) for line in lines]


def test_verify_json_reports_each_file_then_a_summary(tmp_path: Path) -> None:
    """Nine exports of three games (the fifth tampered with), in parallel workers, and a
    tournament bundle, in one folder."""
    folder = tmp_path / "event"
    folder.mkdir()
    files = _exports(folder)
    (folder / "cup.jsonl").write_bytes(tournament_bundle())
    done = _verify(tmp_path, "--json", "--jobs", "2", str(folder))
    assert done.returncode == 1, done.stdout + done.stderr
    out = _lines(done.stdout)
    *reports, last = out
    assert sorted(r["file"] for r in reports) == sorted([f.name for f in files] + ["cup.jsonl"])
    by_file = {r["file"]: r for r in reports}

    bundle = by_file.pop("cup.jsonl")
    assert bundle["kind"] == "bundle" and bundle["ok"] is True, bundle
    assert bundle["tournament_id"] == "fuzz" and bundle["matches"] == 3
    assert bundle["failures"] == [] and bundle["checks"]

    bad = by_file.pop(files[4].name)
    assert bad["kind"] == "match" and bad["ok"] is False
    assert bad["failure"].startswith("event 3: hash does not match"), bad
    assert bad["outcome"] is None
    for n, path in enumerate(files):
        if n == 4:
            continue
        r = by_file[path.name]
        records, checkpoint = parse_export(path.read_bytes())
        ended = next(x for x in records if x["type"] == "MatchEnded")["outcome"]
        assert r["kind"] == "match" and r["ok"] is True and r["failure"] is None, r
        assert r["match_id"] == checkpoint["match_id"] and r["events"] == len(records)
        assert r["outcome"]["placements"] == ended["placements"]
        assert r["abandoned"] is None and r["checks"] and isinstance(r["warnings"], list)

    events = sum(r["events"] for r in by_file.values())
    assert last == {"summary": {"files": 10, "verified": 9, "failed": [files[4].name],
                                "events": events, "ok": False}}
    # the failure is also said on stderr, as without --json
    assert f"{files[4].name}: FAILED: event 3: hash does not match" in done.stderr


def test_verify_json_of_one_good_export_exits_0(tmp_path: Path) -> None:
    good = _exports(tmp_path)[0]
    done = _verify(tmp_path, "--json", str(good))
    assert done.returncode == 0, done.stderr
    report, summary = _lines(done.stdout)
    assert report["file"] == good.name and report["ok"] is True
    assert summary["summary"]["failed"] == [] and summary["summary"]["ok"] is True
    assert done.stderr == ""


def test_verify_json_keeps_a_campaigns_carry_out(tmp_path: Path) -> None:
    """The carry of a campaign match's outcome holds the whole table for the next match
    (hands too): only the export has it; the report's outcome is the public one. The links
    between the campaign's matches are one more object."""
    first, second = campaign_pair()
    (tmp_path / "1.jsonl").write_bytes(first)
    (tmp_path / "2.jsonl").write_bytes(second)
    done = _verify(tmp_path, "--json", str(tmp_path / "1.jsonl"), str(tmp_path / "2.jsonl"))
    out = _lines(done.stdout)
    reports = [r for r in out if r.get("kind") == "match"]
    assert [r["file"] for r in reports] == ["1.jsonl", "2.jsonl"]
    assert reports[0]["ok"] and reports[0]["outcome"]["placements"]
    assert all("carry" not in (r["outcome"] or {}) for r in reports)
    assert '"piles"' not in done.stdout and "i-accel-1" not in done.stdout
    campaign = [r for r in out if r.get("kind") == "campaign"]
    assert len(campaign) == 1 and campaign[0]["failures"] == [], campaign
    assert "summary" in out[-1]


def test_verify_json_failures_before_any_report(tmp_path: Path) -> None:
    """A usage error: exit 2, the line on stderr, and the error as JSON on stdout."""
    missing = tmp_path / "gone.jsonl"
    done = _verify(tmp_path, "--json", str(missing))
    assert done.returncode == 2
    assert _lines(done.stdout) == [{"error": {"code": "USAGE",
                                              "message": f"file not found: {missing}"}}]
    assert f"file not found: {missing}" in done.stderr


FIXTURES = ROOT / "tests" / "fixtures" / "exports"


def test_a_file_that_is_not_an_export_fails_once_and_starts_no_campaign(tmp_path: Path) -> None:
    """It failed as itself and again as a "campaign link" (a campaign object in --json) when
    no file continued a match."""
    (tmp_path / "notes.jsonl").write_bytes(b"hello\n")
    good = FIXTURES / "neon-reign-1.3.0-solo-training.jsonl"
    done = _verify(tmp_path, "--json", "--jobs", "1", str(tmp_path / "notes.jsonl"), str(good))
    assert done.returncode == 1, done.stdout + done.stderr
    out = _lines(done.stdout)
    assert [o.get("kind") for o in out] == ["match", "match", None], out
    assert out[0]["ok"] is False and out[0]["failure"].startswith("line 1 is not JSON")
    assert out[1]["ok"] is True
    assert out[2]["summary"] == {"files": 2, "verified": 1, "failed": ["notes.jsonl"],
                                 "events": out[1]["events"], "ok": False}
    assert "campaign" not in done.stderr, done.stderr


def test_a_continuing_match_after_a_blank_line_still_has_its_link_checked(tmp_path: Path) -> None:
    """verify skips blank lines; the command found a campaign by the file's first line."""
    first, second = (FIXTURES / f"neon-knights-2086-0.5.0-epic-campaign-{i}.jsonl"
                     for i in (1, 2))
    (tmp_path / "second.jsonl").write_bytes(b"\n" + second.read_bytes())
    done = _verify(tmp_path, "--json", "--jobs", "1", str(tmp_path / "second.jsonl"))
    out = _lines(done.stdout)
    assert out[0]["ok"] is True, out[0]
    assert out[1] == {"kind": "campaign", "ok": False, "failures": [
        f"{out[0]['match_id']}: continues {_previous(second)}, whose export was not given"]}
    assert done.returncode == 1
    done = _verify(tmp_path, "--json", "--jobs", "1", str(first), str(tmp_path / "second.jsonl"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert {"kind": "campaign", "ok": True, "failures": []} in _lines(done.stdout)


def _previous(path: Path) -> str:
    records, _ = parse_export(path.read_bytes())
    return str(records[0]["campaign"]["previous_match_id"])
