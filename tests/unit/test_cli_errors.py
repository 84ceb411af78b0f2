"""Every ``neon`` command answers expected failures in one line with a documented exit code
(2 usage, 3 backend unreachable, 1 other) and no traceback unless --debug."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.cli.main import app
from services.rules.games import available

runner = CliRunner()


@pytest.fixture
def env(tmp_path: Path, dead_port: int) -> dict[str, str]:
    dead = str(dead_port)
    return {"NEON_VAR_DIR": str(tmp_path / "var"), "NEON_RULES_NEON_REIGN_PORT": dead,
            "NEON_RULES_NEON_PORT": dead, "NEON_MATCHMAKING_PORT": dead,
            "NEON_SCORING_PORT": dead, "NEON_DICE_PORT": dead, "NATS_URL": "",
            "NEON_NAMESPACE": "", "NEON_JWT_PUBLIC_KEY": "", "NEON_JWT_JWKS_FILE": ""}


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def run(args: list[str], env: dict[str, str], code: int) -> str:
    result = runner.invoke(app, args, env=env)
    text = result.output.strip()
    assert result.exit_code == code, text
    assert "Traceback" not in text
    assert len(text.splitlines()) == 1, text
    return text


SECRET = {"NEON_TOKEN_SECRET": "s" * 32}
"""The deployment's token secret: `neon play`, `queue` and `simulate` mint their tokens with it
(without keys they say so and make none: tests/unit/test_cli_organiser_token.py)."""


def test_play_without_a_backend_says_how_to_start_one(env: dict[str, str]) -> None:
    line = run(["play", "neon-reign"], {**env, **SECRET}, 3)
    assert line == (f"no rules service for neon-reign answers on 127.0.0.1:"
                    f"{env['NEON_RULES_NEON_REIGN_PORT']}; start one with ./dev up or pass --embedded")


def test_play_with_bad_options_or_game_is_a_usage_error(env: dict[str, str]) -> None:
    assert "JSON" in run(["play", "neon-reign", "--options", "{nope"], env, 2)
    assert "unknown game" in run(["play", "chess"], env, 2)


def test_queue_and_simulate_without_a_backend(env: dict[str, str]) -> None:
    env = {**env, **SECRET}
    line = run(["queue", "neon-reign", "--timeout", "2"], env, 3)
    assert "no matchmaking service answers" in line and line.endswith(" or pass --embedded")
    line = run(["simulate", "--game", "neon-reign", "--players", "2", "--timeout", "2"], env, 3)
    assert "no matchmaking service answers" in line and line.endswith(" or pass --embedded")


def test_only_a_command_with_embedded_says_to_pass_it(env: dict[str, str]) -> None:
    """The "does not answer" line offers --embedded only to the commands that take it
    (play, queue, simulate, tournament simulate); the tournament commands against a running
    backend say how to start one."""
    env = {**env, **SECRET, "NEON_TOURNAMENT_PORT": env["NEON_DICE_PORT"],
           "NEON_TOURNAMENT_ADDR": ""}
    unreachable = f"no tournament service answers on 127.0.0.1:{env['NEON_DICE_PORT']}"
    for args in (["tournament", "show", "cup"], ["tournament", "start", "cup"],
                 ["tournament", "play", "cup", "--player", "ann", "--token", "v1.x.y"]):
        assert run(args, env, 3) == f"{unreachable}; start one with ./dev up", args
    assert run(["tournament", "simulate", "--game", "neon-reign", "--players", "2",
                "--timeout", "2"], env, 3) == \
        f"{unreachable}; start one with ./dev up or pass --embedded"


def test_export_without_a_backend(env: dict[str, str]) -> None:
    line = run(["export", "m1", "-o", "x.jsonl", "--game", "neon-reign", "--token", "v1.x.y"],
               env, 3)
    assert line.startswith("no rules service answers")
    # without a token nor keys to mint one: what to do (tests/unit/test_cli_organiser_token.py)
    assert "neon token organiser NAME" in run(
        ["export", "m1", "-o", "x.jsonl", "--game", "neon-reign"],
        {**env, "NEON_TOKEN": "", "NEON_TOKEN_SECRET": ""}, 2)


@pytest.mark.parametrize("command", [["export", "m1", "-o", "x.jsonl"],
                                     ["abandon", "m1", "--reason", "power cut"]])
def test_a_match_command_for_a_game_not_served_is_a_usage_error(
        env: dict[str, str], command: list[str]) -> None:
    """``--game`` naming a game without a rules service was "unexpected error: KeyError:
    'rules-chess'" (exit 1); it is a usage error naming the games, as `neon play` says."""
    line = run([*command, "--game", "chess", "--token", "v1.x.y"], env, 2)
    assert line.startswith("unknown game 'chess'; games: ") and "neon-reign" in line, line


def test_verify_and_replay_of_a_missing_or_bad_file(env: dict[str, str], tmp_path: Path) -> None:
    assert run(["verify", str(tmp_path / "missing.jsonl")], env, 2) == \
        f"file not found: {tmp_path / 'missing.jsonl'}"
    assert run(["replay", str(tmp_path / "missing.jsonl")], env, 2).startswith("file not found")
    junk = tmp_path / "junk.jsonl"
    junk.write_text("not json\n")
    assert "--public-key is not hex" in run(["verify", str(junk), "--public-key", "nothex"], env, 2)
    assert "32" in run(["verify", str(junk), "--public-key", "abcd"], env, 2)
    # an empty pin pins nothing: a usage error, not a bundle "trusting keys besides" none
    assert run(["verify", str(junk), "--rules-key", ""], env, 2).startswith(
        "--rules-key is empty: give the 64 hex digits")
    assert run(["replay", str(junk)], env, 2).startswith("not a match export")


def test_replay_of_a_tournament_bundle_says_what_it_is_and_how_to_replay_a_match(
        env: dict[str, str]) -> None:
    """Before: "not a match export: the export does not end with a checkpoint line"."""
    bundle = Path(__file__).parents[1] / "fixtures" / "bundles" / "swiss-neon-reign-33f18b3.jsonl"
    said = run(["replay", str(bundle)], env, 2)
    assert said.startswith("a tournament bundle (tournament fuzz, neon-reign, 3 matches)"), said
    assert "checkpoint line" not in said
    # how: each match's own export, then replay it; the matches it holds are named
    assert "neon export MATCH_ID" in said and "neon replay" in said, said
    for match_id in ("fuzz-r1-t1", "fuzz-r1-t2", "fuzz-r2-t1"):
        assert match_id in said, said
    assert "neon verify" in said, said


def test_token_refuses_bot_ids_and_unknown_roles(env: dict[str, str]) -> None:
    assert "reserved" in run(["token", "player", "bot-evil"], env, 2)
    assert "unknown token role" in run(["token", "admin", "x"], env, 2)
    assert "no deployment keys" in run(["token", "player", "ana"],
                                       {**env, "NEON_TOKEN_SECRET": ""}, 2)
    minted = run(["token", "player", "ana"], {**env, "NEON_TOKEN_SECRET": "s" * 32}, 0)
    assert minted.startswith("v1.")


def test_serve_an_unknown_service_or_on_a_busy_port(env: dict[str, str], busy_port: int) -> None:
    assert "unknown service" in run(["serve", "nothing"], env, 2)
    line = run(["serve", "dice"], {**env, "NEON_DICE_PORT": str(busy_port)}, 1)
    assert line == (f"port busy: dice cannot listen on 127.0.0.1:{busy_port} (another `neon "
                    "up`?); set NEON_DICE_PORT to move it")


@pytest.mark.skipif("neon-reign" not in available(), reason="no Neon Reign engine")
@pytest.mark.serial  # the ports it does not set: their defaults, 9464
def test_up_on_a_busy_port(env: dict[str, str], busy_port: int) -> None:
    line = run(["up"], {**env, "NEON_DICE_PORT": str(busy_port)}, 1)
    assert line.startswith(f"port busy: dice cannot listen on 127.0.0.1:{busy_port}"), line
    assert "NEON_PORT_OFFSET=100 (or `neon up --port-offset 100`)" in line, line


@pytest.mark.skipif("neon-reign" not in available(), reason="no Neon Reign engine")
def test_a_busy_metrics_port_says_which_variable_moves_it(env: dict[str, str],
                                                          busy_port: int) -> None:
    """NEON_METRICS_PORT set to a port in use (say, the one a running `neon up` serves) is a
    busy port, not an "unexpected error: RuntimeError"."""
    line = run(["play", "neon-reign", "--bots", "random,random", "--embedded"],
               {**env, "NEON_METRICS_PORT": str(busy_port)}, 1)
    assert line == (f"port busy: cannot serve metrics on 127.0.0.1:{busy_port} (another "
                    "`neon up`?); set NEON_METRICS_PORT to move it (0: none)")


@pytest.mark.skipif("neon-reign" not in available(), reason="no Neon Reign engine")
def test_a_seat_whose_input_ends_at_the_prompt_says_so(env: dict[str, str]) -> None:
    """`neon play` at a seat fed from a pipe or file that ends before the match does: one
    line saying the input ended and what to do, exit 1, not "unexpected error: EOFError"."""
    result = runner.invoke(app, ["play", "neon-reign", "--embedded", "--seed", "1"],
                           env=env, input="1\n")
    lines = result.output.strip().splitlines()
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "EOFError" not in result.output
    assert lines[-1].endswith(
        "input ended at the prompt (end of file): nothing more to answer with; run it at a "
        "terminal, or give one answer a line for every prompt"), lines[-1]


def test_a_bad_namespace_is_a_usage_error(env: dict[str, str]) -> None:
    assert "NEON_NAMESPACE" in run(["token", "player", "ana"], {**env, "NEON_NAMESPACE": "A.B"}, 2)


def test_debug_shows_the_traceback(env: dict[str, str], tmp_path: Path) -> None:
    result = runner.invoke(app, ["--debug", "verify", str(tmp_path / "missing.jsonl")], env=env)
    assert result.exit_code != 0 and isinstance(result.exception, FileNotFoundError)


@pytest.mark.parametrize("raised", ["KeyboardInterrupt", "CancelledError", "GeneratorExit"])
def test_an_interrupted_command_exits_130_and_other_base_exceptions_pass(raised: str):
    """``friendly`` says "interrupted" for Ctrl-C and asyncio's CancelledError (asyncio is
    imported only by the commands that run a loop) and lets any other BaseException through."""
    import asyncio

    import typer

    from services.cli.errors import INTERRUPTED, friendly

    error = {"KeyboardInterrupt": KeyboardInterrupt, "CancelledError": asyncio.CancelledError,
             "GeneratorExit": GeneratorExit}[raised]

    @friendly
    def command() -> None:
        raise error()

    if raised == "GeneratorExit":
        with pytest.raises(GeneratorExit):
            command()
        return
    with pytest.raises(typer.Exit) as exited:
        command()
    assert exited.value.exit_code == INTERRUPTED


@pytest.mark.skipif("neon-reign" not in available(), reason="no Neon Reign engine")
def test_game_options_or_seats_the_rules_service_refuses_are_usage_errors(
        env: dict[str, str]) -> None:
    """The README's exit codes: 2 for a bad option, also when the rules service is the one
    that finds it wrong (INVALID_ARGUMENT), with its reason."""
    line = run(["play", "neon-reign", "--mode", "solo", "--bots", "random", "--embedded",
                "--options", '{"difficulty": "nope"}'], env, 2)
    assert line.startswith("INVALID_ARGUMENT: options:") and "'nope'" in line
    assert "takes 2-2 seats" in run(["play", "neon-reign", "--bots", "random", "--embedded"],
                                    env, 2)


def test_a_json_command_that_fails_says_so_in_json_on_stdout(env: dict[str, str]) -> None:
    """With --json the failure is also one {"error": ...} object on stdout (the gRPC status
    name, else the exit code's name); stderr and the exit code are as without --json."""
    import json

    env = {**env, "NEON_TOURNAMENT_PORT": env["NEON_DICE_PORT"], "NEON_TOURNAMENT_ADDR": ""}
    result = runner.invoke(app, ["tournament", "show", "cup", "--json"], env=env)
    assert result.exit_code == 3, result.output
    unreachable = f"no tournament service answers on 127.0.0.1:{env['NEON_DICE_PORT']}"
    assert json.loads(result.stdout) == {"error": {
        "code": "UNAVAILABLE",
        "message": f"{unreachable}; start one with ./dev up"}}
    assert unreachable in result.stderr
    plain = runner.invoke(app, ["tournament", "show", "cup"], env=env)
    assert plain.exit_code == 3 and plain.stdout == "" and unreachable in plain.stderr


@pytest.mark.parametrize("raised", ["KeyboardInterrupt", "RuntimeError"])
def test_a_json_command_interrupted_or_broken(raised: str, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch):
    import json

    import typer

    from services.cli import errors
    from services.cli.errors import friendly

    # without the app's callback nothing resets --debug: a command run with --debug earlier
    # in this process (another test, on the same xdist worker) left it on
    monkeypatch.setattr(errors.state, "debug", False)

    @friendly
    def command(as_json: bool = False) -> None:
        raise {"KeyboardInterrupt": KeyboardInterrupt, "RuntimeError": RuntimeError}[raised]("x")

    with pytest.raises(typer.Exit) as exited:
        command(as_json=True)
    out = json.loads(capsys.readouterr().out)
    assert out["error"]["code"] == {"KeyboardInterrupt": "INTERRUPTED",
                                    "RuntimeError": "UNEXPECTED"}[raised]
    assert exited.value.exit_code == {"KeyboardInterrupt": 130, "RuntimeError": 1}[raised]
    with pytest.raises(typer.Exit):
        command(as_json=False)
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("args", [
    ["tournament", "list", "--limit", "abc", "--json"],  # a value of the wrong kind
    ["tournament", "show", "--json"],  # a missing argument
    ["tournament", "standings", "cup", "--json", "--nope"],  # an unknown option
    ["verify", "--json", "--jobs", "x", "a.jsonl"],
])
def test_a_bad_argument_to_a_json_command_says_so_in_json_on_stdout(
        env: dict[str, str], args: list[str]) -> None:
    """The command-line parser's own refusals (a value of the wrong kind, a missing argument,
    an unknown option) are bad arguments too: with --json, stdout gets one {"error": ...}
    object with code USAGE and the parser's words; stderr and exit 2 as without --json."""
    import json

    result = runner.invoke(app, args, env=env)
    assert result.exit_code == 2, result.output
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "USAGE" and error["message"], error
    # the same words on stderr, in the parser's box (wrapped to the terminal's width)
    assert " ".join(error["message"].split()[:4]) in " ".join(result.stderr.split()), result.stderr
    plain = runner.invoke(app, [a for a in args if a != "--json"], env=env)
    assert plain.exit_code == 2 and plain.stdout == "", plain.output
