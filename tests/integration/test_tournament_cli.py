"""``neon tournament ...`` and ``neon verify BUNDLE`` as an organiser runs them, against a
running backend (the commands run as their own processes)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from services.cli.backend import start_backend
from services.cli.client import RulesClient
from services.cli.tournament_commands import (
    TournamentClient,
    format_json,
    play_round_as,
    wait_round_complete,
)
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
from tests.integration.conftest import make_settings

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(180)


def neon(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "services.cli.main", *args], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


async def tournament_backend(tmp_path: Path, nats_url: str) -> tuple[Any, dict[str, str]]:
    """A backend with the tournament service and neon-reign, and the environment of a
    ``neon`` command run as its own process against it (the deployment's keys and namespace,
    no other NEON_ setting of the test's environment)."""
    settings = make_settings(tmp_path, nats_url)
    settings = dataclasses.replace(settings, ports={**settings.ports, "tournament": 0})
    b = await start_backend(settings, games=["neon-reign"], embedded_nats=False, tournament=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEON_")}
    env.update(PYTHONPATH=str(ROOT), NEON_VAR_DIR=str(settings.var_dir),
               NEON_NAMESPACE=settings.namespace,  # its keys are in var/<namespace>/
               NEON_TOURNAMENT_ADDR=b.address("tournament"),
               NEON_RULES_NEON_REIGN_ADDR=b.address("rules-neon-reign"), COLUMNS="200")
    return b, env


async def organiser_cli(tmp_path: Path, nats_url: str) -> tuple[Any, Any]:
    """:func:`tournament_backend` and ``run(*args)``: a ``neon`` command as its own process
    against it."""
    b, env = await tournament_backend(tmp_path, nats_url)
    return b, lambda *a: asyncio.to_thread(neon, env, *a)


async def test_an_organiser_runs_an_event_from_the_command_line(tmp_path: Path, nats_url: str) -> None:
    b, run = await organiser_cli(tmp_path, nats_url)
    names = ["ann", "ben", "cat", "dan"]
    rules: dict[str, RulesClient] = {}
    client = TournamentClient(b.address("tournament"))
    try:
        out = await run("tournament", "create", "cli_cup", "--game", "neon-reign", "--mode", "single",
                        "--format", "swiss", "--rounds", "2")
        assert out.returncode == 0, out.stderr
        assert "registration open" in out.stdout
        registered = await run("tournament", "register", "cli_cup", *names)
        assert registered.returncode == 0, registered.stderr
        assert registered.stdout.strip() == "4 newly registered", registered.stdout
        again = await run("tournament", "register", "cli_cup", "ann", "ben")
        assert again.returncode == 0, again.stderr
        assert again.stdout.strip() == "0 newly registered; already registered: ann, ben"
        assert (await run("tournament", "start", "cli_cup")).returncode == 0
        for number in (1, 2):
            paired = await run("tournament", "next-round", "cli_cup")
            assert paired.returncode == 0, paired.stderr
            assert f"round {number}" in paired.stdout and "cli_cup-r" in paired.stdout
            tokens = {n: b.issuer.issue("player", "*", player=n, ttl=600) for n in names}
            await asyncio.gather(*(play_round_as(client, rules, tokens[n], "cli_cup", n) for n in names))
            for _ in range(200):
                r = await client.call("GetRound", tournament_id="cli_cup", round=number)
                if r.round.complete:
                    break
                await asyncio.sleep(0.1)
        shown = await run("tournament", "round", "cli_cup", "1")
        assert shown.returncode == 0 and "checkpoint: Merkle root" in shown.stdout
        early = await run("tournament", "next-round", "cli_cup")
        assert early.returncode == 1 and "finish" in early.stderr
        finished = await run("tournament", "finish", "cli_cup")
        assert finished.returncode == 0 and "final standings" in finished.stdout
        assert all(n in finished.stdout for n in names)
        # ForceEnd leaves a finished tournament as it is: said so, its final standings shown
        late = await run("tournament", "finish", "cli_cup", "--force", "too late")
        assert late.returncode == 0, late.stdout + late.stderr
        assert late.stdout.splitlines()[0] == "cli_cup already finished: nothing was force-ended"
        assert "final standings" in late.stdout and "(force-ended)" not in late.stdout
        assert _rows(late.stdout) == _rows(finished.stdout) and all(n in late.stdout for n in names)
        t = (await client.call("GetTournament", tournament_id="cli_cup")).tournament
        assert (t.status, t.reason) == (pb.TOURNAMENT_STATUS_FINISHED, "")
        bundle = tmp_path / "cup.jsonl"
        exported = await run("tournament", "export", "cli_cup", "-o", str(bundle))
        assert exported.returncode == 0 and "4 matches and 2 round checkpoints" in exported.stdout
        key = json.loads(bundle.read_bytes().splitlines()[0])["public_key"]
        verified = await run("verify", str(bundle), "--public-key", key)
        assert verified.returncode == 0, verified.stderr
        assert "verified: tournament cli_cup, 4 matches" in verified.stdout
        lines = bundle.read_text().splitlines()
        cut = [x for x in lines if not (json.loads(x)["type"] == "InclusionProof"
                                        and json.loads(x)["round"] == 2 and json.loads(x)["table"] == 1)]
        (tmp_path / "cut.jsonl").write_text("\n".join(cut) + "\n")
        failed = await run("verify", str(tmp_path / "cut.jsonl"))
        assert failed.returncode == 1 and "inclusion proofs: 3 hold, 4 expected" in failed.stderr
        # --unrated: the tournament says so, and the command says so; the rated one does not
        friendly = await run("tournament", "create", "cli_fun", "--game", "neon-reign",
                             "--mode", "single", "--rounds", "1", "--unrated")
        assert friendly.returncode == 0, friendly.stderr
        assert "created (neon-reign single, unrated); registration open" in friendly.stdout
        assert (await client.call("GetTournament", tournament_id="cli_fun")).tournament.unrated
        assert not t.unrated and "unrated" not in out.stdout
        # --seed-from-ratings: stored in the tournament's settings (its log's Created
        # record), read from scoring at the start; without it, not
        seeded = await run("tournament", "create", "cli_seeded", "--game", "neon-reign",
                           "--mode", "single", "--format", "single-elimination",
                           "--seed-from-ratings")
        assert seeded.returncode == 0, seeded.stderr
        org = b.issuer.issue("organiser", "*", player="org", ttl=600)
        for tid, seeds in (("cli_seeded", True), ("cli_fun", False), ("cli_cup", False)):
            bundle_of = (await client.call("ExportTournament", org, tournament_id=tid)).bundle_jsonl
            created = next(json.loads(x)["record"] for x in bundle_of.splitlines()
                           if json.loads(x)["type"] == "LogRecord"
                           and json.loads(x)["record"]["type"] == "Created")
            assert created["settings"]["seed_from_ratings"] is seeds, (tid, created)
    finally:
        await client.close()
        for rc in rules.values():
            await rc.close()
        await b.stop(1)


def _rows(text: str) -> list[list[str]]:
    """The cells of each row of the rich tables in ``text``."""
    return [[c.strip() for c in line.split("│")[1:-1]] for line in text.splitlines()
            if line.startswith("│")]


async def test_an_organiser_mends_an_event_from_the_command_line(tmp_path: Path, nats_url: str) -> None:
    """A table's match abandoned (`neon abandon`), shown as such by `neon tournament round`,
    played again (`rematch`), then set by hand (`correct`); a player dropped and another entered late: the next round
    pairs them accordingly."""
    b, run = await organiser_cli(tmp_path, nats_url)
    client = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    try:
        await client.call("CreateTournament", org, tournament_id="mend", game="neon-reign",
                          mode="single",
                          format_json=format_json("swiss", 2, extra='{"late_entry_until": 2}'))
        await client.call("OpenRegistration", org, tournament_id="mend")
        for n in ("ann", "ben", "cat", "dan"):
            await client.call("Register", org, tournament_id="mend", player_id=n)
        await client.call("StartTournament", org, tournament_id="mend")
        tables = (await client.call("NextRound", org, tournament_id="mend")).round.tables
        gone = await run("abandon", tables[0].match_id, "--reason", "power cut")
        assert gone.returncode == 0, gone.stderr
        # without --token, recorded as the dev organiser, as the tournament commands are
        again = await run("abandon", tables[0].match_id, "--reason", "twice")
        assert again.returncode == 0, again.stderr
        assert (f"match {tables[0].match_id} was already abandoned by organiser: power cut "
                "(nothing changed)") in " ".join(again.stdout.split()), again.stdout
        for _ in range(100):  # the signed end reaches the tournament over NATS
            shown = (await client.call("GetRound", tournament_id="mend", round=1)).round
            if shown.tables[0].abandoned_reason:
                break
            await asyncio.sleep(0.1)
        listed = await run("tournament", "round", "mend", "1")
        assert listed.returncode == 0, listed.stderr
        assert f"table {tables[0].number}  abandoned: power cut" in listed.stdout, listed.stdout
        for _ in range(50):  # a rematch waits for the abandoned match's seal
            again = await run("tournament", "rematch", "mend", "1", str(tables[0].number),
                              "--reason", "a spare table")
            if again.returncode == 0 or "not sealed yet" not in again.stderr:
                break
            await asyncio.sleep(0.1)
        assert again.returncode == 0, again.stderr
        assert (f"rematch of {tables[0].match_id} (abandoned: power cut; again: a spare "
                "table)") in again.stdout
        assert f"{tables[0].match_id}-g2" in again.stdout
        bad = await run("tournament", "correct", "mend", "1", "1", "--placements", "first",
                        "--reason", "x")
        assert bad.returncode == 2 and "--placements" in bad.stderr
        for t in tables:
            fixed = await run("tournament", "correct", "mend", "1", str(t.number),
                              "--placements", "2,1", "--reason", "replayed on paper")
            assert fixed.returncode == 0, fixed.stderr
        assert all(f"{t.seats[1]} wins" in fixed.stdout for t in tables), fixed.stdout
        assert all(f"table {t.number}  set by hand: replayed on paper" in fixed.stdout
                   for t in tables), fixed.stdout
        dropped = await run("tournament", "drop", "mend", "dan", "--reason", "went home")
        assert dropped.returncode == 0 and "dan dropped from mend after round 1" in dropped.stdout
        late = await run("tournament", "late-entry", "mend", "eve")
        assert late.returncode == 0 and "eve enters mend from the next round" in late.stdout
        shown = await run("tournament", "show", "mend")
        assert shown.returncode == 0, shown.stderr
        assert "mend: neon-reign single, swiss, running; round 1 of 2" in shown.stdout
        players = {row[0]: row[1] for row in _rows(shown.stdout)}
        assert players == {"ann": "playing", "ben": "playing", "cat": "playing",
                           "dan": "dropped", "eve (late)": "playing"}
        listed = await run("tournament", "list")
        assert listed.returncode == 0, listed.stderr
        assert ["mend", "", "neon-reign single", "swiss", "running", "5", "1"] in \
            _rows(listed.stdout)
        await wait_round_complete(client, "mend", 1, timeout=20)
        second = await run("tournament", "next-round", "mend")
        assert second.returncode == 0, second.stderr
        assert "eve" in second.stdout and "dan" not in second.stdout
    finally:
        await client.close()
        await b.stop(1)
