"""``neon tournament ... --json`` against a running backend (the commands run as their own
processes, as in test_tournament_cli.py): stdout is the service's answer as proto3 JSON with
defaults, equal to what a direct gRPC call answers, and nothing else; a failed call is an
``{"error": ...}`` object and a non-zero exit."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format

from services.cli.client import RulesClient
from services.cli.tournament_commands import TournamentClient, play_round_as, wait_round_complete
from tests.integration.test_tournament_cli import organiser_cli

pytestmark = pytest.mark.timeout(180)


def proto_json(message: Any) -> Any:
    try:
        return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    except TypeError:  # protobuf before 5.26
        return json_format.MessageToDict(message, including_default_value_fields=True)


def parsed(out: Any) -> list[Any]:
    """Each line of a command's stdout as JSON; a line that is not JSON fails the test."""
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert lines, out.stderr
    return [json.loads(line) for line in lines]


async def test_tournament_commands_answer_json(tmp_path: Path, nats_url: str) -> None:
    b, run = await organiser_cli(tmp_path, nats_url)
    names = ["ann", "ben", "cat", "dan"]
    rules: dict[str, RulesClient] = {}
    client = TournamentClient(b.address("tournament"))
    try:
        [created] = parsed(await run("tournament", "create", "jcup", "--game", "neon-reign",
                                     "--mode", "single", "--format", "swiss", "--rounds", "1",
                                     "--json"))
        assert created["tournament"]["tournamentId"] == "jcup"
        assert created["tournament"]["status"] == "TOURNAMENT_STATUS_REGISTRATION"
        assert created["tournament"]["players"] == []  # defaults are printed
        assert (await run("tournament", "register", "jcup", *names)).returncode == 0
        assert (await run("tournament", "start", "jcup")).returncode == 0

        [paired] = parsed(await run("tournament", "next-round", "jcup", "--json"))
        direct = await client.call("GetRound", tournament_id="jcup", round=1)
        assert paired["round"]["number"] == 1
        assert [t["seats"] for t in paired["round"]["tables"]] == \
            [list(t.seats) for t in direct.round.tables]
        assert sorted(p for t in paired["round"]["tables"] for p in t["seats"]) == sorted(names)

        # --watch --json follows the round, one {"round": ...} line per change, to the end
        watching = asyncio.create_task(run("tournament", "round", "jcup", "1", "--watch",
                                           "--json"))
        await asyncio.sleep(1.0)
        tokens = {n: b.issuer.issue("player", "*", player=n, ttl=600) for n in names}
        await asyncio.gather(*(play_round_as(client, rules, tokens[n], "jcup", n) for n in names))
        done = await wait_round_complete(client, "jcup", 1, timeout=60)
        watched = parsed(await asyncio.wait_for(watching, 60))
        assert all(list(w) == ["round"] and w["round"]["number"] == 1 for w in watched)
        assert watched[-1]["round"]["complete"] is True
        assert watched[-1]["round"] == proto_json(done)

        [shown_round] = parsed(await run("tournament", "round", "jcup", "1", "--json"))
        assert shown_round == proto_json(await client.call("GetRound", tournament_id="jcup",
                                                           round=1))
        assert shown_round["round"]["checkpoint"]["merkleRoot"]
        assert all(t["result"]["placements"] for t in shown_round["round"]["tables"])

        [shown] = parsed(await run("tournament", "show", "jcup", "--json"))
        assert shown == proto_json(await client.call("GetTournament", tournament_id="jcup"))
        assert [p["playerId"] for p in shown["tournament"]["players"]] == names
        assert shown["tournament"]["status"] == "TOURNAMENT_STATUS_RUNNING"

        [table] = parsed(await run("tournament", "standings", "jcup", "--json"))
        direct_rows = await client.call("GetStandings", tournament_id="jcup")
        assert table == proto_json(direct_rows)
        assert [(r["rank"], r["playerId"], r["points"]) for r in table["rows"]] == \
            [(r.rank, r.player_id, r.points) for r in direct_rows.rows]

        [listed] = parsed(await run("tournament", "list", "--json"))
        assert listed == proto_json(await client.call("ListTournaments", limit=50))
        assert [t["tournamentId"] for t in listed["tournaments"]] == ["jcup"]

        [finished] = parsed(await run("tournament", "finish", "jcup", "--json"))
        assert finished["tournament"]["status"] == "TOURNAMENT_STATUS_FINISHED"
        final = await client.call("GetStandings", tournament_id="jcup")
        assert final.final and finished["rows"] == proto_json(final)["rows"]

        # a failed call: the error as JSON on stdout, the line on stderr, exit 1
        missing = await run("tournament", "show", "no_such_cup", "--json")
        assert missing.returncode == 1, missing.stdout + missing.stderr
        [error] = [json.loads(line) for line in missing.stdout.splitlines()]
        assert list(error) == ["error"] and error["error"]["code"] == "NOT_FOUND", error
        assert error["error"]["message"] and "no_such_cup" in error["error"]["message"]
        assert f"NOT_FOUND: {error['error']['message']}" in missing.stderr
        refused = await run("tournament", "round", "no_such_cup", "--json")
        assert refused.returncode == 1
        assert json.loads(refused.stdout)["error"]["code"] == "NOT_FOUND"
        # a game no rules service is configured for: a usage error (exit 2), as the README
        # says of an unknown game, and nothing created
        unknown = await run("tournament", "create", "xcup", "--game", "chess", "--json")
        assert unknown.returncode == 2, unknown.stdout + unknown.stderr
        [error] = [json.loads(line) for line in unknown.stdout.splitlines()]
        assert error["error"]["code"] == "INVALID_ARGUMENT", error
        assert "unknown game 'chess'" in error["error"]["message"]
        absent = await run("tournament", "show", "xcup", "--json")
        assert absent.returncode == 1 and "NOT_FOUND" in absent.stdout
    finally:
        await client.close()
        for rc in rules.values():
            await rc.close()
        await b.stop(1)
