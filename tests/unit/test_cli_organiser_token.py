"""``neon token organiser``, the organiser commands' shared ``--token`` option, and what they
say without keys or token (one line, no keys made). With a running backend:
tests/integration/test_tournament_cli_token.py."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.cli.main import app
from services.cli.organiser import ORGANISER_TTL, PLAYER_TTL, TOKEN_HELP
from services.platform.keys import load_keys
from services.platform.settings import load
from services.platform.tokens import TokenIssuer

runner = CliRunner()
ORGANISER_COMMANDS = [
    ["tournament", "create", "cup", "--game", "neon-reign"],
    ["tournament", "register", "cup", "ann"],
    ["tournament", "check-in", "cup", "ann"],
    ["tournament", "withdraw", "cup", "ann"],
    ["tournament", "start", "cup"],
    ["tournament", "next-round", "cup"],
    ["tournament", "correct", "cup", "1", "1", "--placements", "1,2", "--reason", "paper"],
    ["tournament", "rematch", "cup", "1", "1", "--reason", "again"],
    ["tournament", "drop", "cup", "ann"],
    ["tournament", "reinstate", "cup", "ann", "--reason", "client failed"],
    ["tournament", "late-entry", "cup", "erin"],
    ["tournament", "finish", "cup"],
    ["tournament", "export", "cup", "-o", "cup.jsonl"],
    ["abandon", "m1", "--reason", "power cut", "--game", "neon-reign"],
    ["export", "m1", "-o", "m1.jsonl", "--game", "neon-reign"],
]
EMBEDDED_INSTEAD = ("mints its tokens with the deployment's keys: run it on the server host or "
                    "where they are (NEON_VAR_DIR, NEON_NAMESPACE, NEON_TOKEN_SECRET), or add "
                    "--embedded to start a backend for the command")
CLIENT_COMMANDS = {
    # a client command talking to a running deployment: what it says without keys
    "play": (["play", "neon-reign", "--bots", "random,random"], "NEON_TOKEN_SECRET",
             f"`neon play` {EMBEDDED_INSTEAD}"),
    "queue": (["queue", "neon-reign", "--yes", "--timeout", "5"], "NEON_TOKEN_SECRET",
              f"`neon queue` {EMBEDDED_INSTEAD}"),
    "simulate": (["simulate", "--game", "neon-reign", "--players", "2", "--timeout", "5"],
                 "NEON_TOKEN_SECRET", f"`neon simulate` {EMBEDDED_INSTEAD}"),
    "tournament simulate": (["tournament", "simulate", "--game", "neon-reign", "--players", "2",
                             "--timeout", "5"], "NEON_TOKEN_SECRET",
                            f"`neon tournament simulate` {EMBEDDED_INSTEAD}"),
    "tournament play": (["tournament", "play", "cup", "--player", "ann", "--bot", "random"],
                        "NEON_TOKEN_SECRET",
                        "pass your player token with --token or NEON_TOKEN: the organiser mints "
                        "it on the server host with `neon token player ID`"),
    "public-key": (["public-key"], "NEON_SIGNING_KEY",
                   "run `neon public-key` on the server host, or point NEON_VAR_DIR (and "
                   "NEON_NAMESPACE) at the deployment's folder; it never makes keys"),
}
PUBLIC_COMMANDS = [["tournament", "list"], ["tournament", "show", "cup"],
                   ["tournament", "standings", "cup"], ["tournament", "round", "cup", "1"]]


@pytest.fixture
def env(tmp_path: Path, dead_port: int) -> dict[str, str]:
    """No keys in an empty var folder; every service's port with nobody listening."""
    dead = str(dead_port)
    return {"NEON_VAR_DIR": str(tmp_path / "var"), "NEON_NAMESPACE": "", "NEON_TOKEN": "",
            "NEON_TOKEN_SECRET": "", "NEON_SIGNING_KEY": "", "NEON_ENV": "dev",
            "NEON_TOURNAMENT_ADDR": "", "NEON_TOURNAMENT_PORT": dead,
            "NEON_RULES_NEON_REIGN_ADDR": "", "NEON_RULES_NEON_REIGN_PORT": dead,
            "NEON_MATCHMAKING_ADDR": "", "NEON_MATCHMAKING_PORT": dead,
            "NEON_SCORING_ADDR": "", "NEON_SCORING_PORT": dead,
            "NEON_JWT_PUBLIC_KEY": "", "NEON_JWT_JWKS_FILE": "", "NATS_URL": ""}


def with_keys(env: dict[str, str]) -> bytes:
    """Make the deployment's dev keys in ``env``'s var folder; its token secret."""
    settings = dataclasses.replace(load({}), var_dir=Path(env["NEON_VAR_DIR"]))
    return load_keys(settings).token_secret


def one_line(args: list[str], env: dict[str, str], code: int) -> str:
    result = runner.invoke(app, args, env=env)
    text = result.output.strip()
    assert result.exit_code == code, text
    assert "Traceback" not in text and len(text.splitlines()) == 1, text
    return text


def test_token_organiser_names_the_organiser_and_lasts_12_hours(env: dict[str, str]) -> None:
    secret = with_keys(env)
    issuer = TokenIssuer(secret, external=None)
    minted = one_line(["token", "organiser", "alice"], env, 0)
    claims = issuer.verify(minted)
    assert (claims.role, claims.player, claims.match) == ("organiser", "alice", "*")
    assert abs(claims.exp - time.time() - ORGANISER_TTL) < 60 and ORGANISER_TTL == 12 * 3600
    player = issuer.verify(one_line(["token", "player", "ann"], env, 0))
    assert (player.role, player.player) == ("player", "ann")
    assert abs(player.exp - time.time() - PLAYER_TTL) < 60
    short = issuer.verify(one_line(["token", "organiser", "bob", "--ttl", "600"], env, 0))
    assert abs(short.exp - time.time() - 600) < 60


def test_token_mints_with_the_current_secret_whatever_the_previous_one_is(
        env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """`neon token` mints with the token secret alone: NEON_TOKEN_SECRET_PREVIOUS (a rotation's
    earlier secret, the services' to check) plays no part, and a token of it is never minted.
    A malformed one is told in its own words (it was "unexpected error: ValueError" where
    the secret is NEON_TOKEN_SECRET, "the deployment keys in ... cannot be read" where the
    dev keys file holds it)."""
    secret = with_keys(env)
    monkeypatch.setenv("NEON_TOKEN_SECRET_PREVIOUS", "short")
    told = one_line(["token", "organiser", "alice"], env, 2)
    assert told.startswith("NEON_TOKEN_SECRET_PREVIOUS: give the token secret"), told
    for previous in ("short", "an-earlier-secret-of-32-bytes-x"):
        monkeypatch.setenv("NEON_TOKEN_SECRET_PREVIOUS", previous)
        minted = one_line(["token", "organiser", "alice"],
                          {**env, "NEON_TOKEN_SECRET": secret.decode()}, 0)
        assert TokenIssuer(secret, external=None, previous=()).verify(minted).player == "alice"
        with pytest.raises(Exception, match="signature is invalid"):
            TokenIssuer(previous.encode().ljust(16, b"x"), external=None,
                        previous=()).verify(minted)


def test_a_minted_organiser_token_names_the_dev_organiser(env: dict[str, str]) -> None:
    """Without --token every organiser command (`neon abandon` and `export` as the
    tournament commands) mints a token for "organiser", as `neon up`'s organiser.token: the
    name recorded as who acted."""
    from services.cli.organiser import organiser_token

    secret = with_keys(env)
    settings = dataclasses.replace(load({}), var_dir=Path(env["NEON_VAR_DIR"]))
    claims = TokenIssuer(secret, external=None).verify(organiser_token(settings))
    assert (claims.role, claims.player) == ("organiser", "organiser")


def test_token_refuses_other_roles_bad_names_and_ttls(env: dict[str, str]) -> None:
    with_keys(env)
    for role in ("admin", "service", "seat"):
        line = one_line(["token", role, "x"], env, 2)
        assert line == (f"unknown token role {role!r}: `neon token player ID` mints a player "
                        "token, `neon token organiser NAME` an organiser token")
    assert "1-128 printable" in one_line(["token", "organiser", "a\tb"], env, 2)
    assert "--ttl must be between 1 and 2592000" in one_line(
        ["token", "organiser", "x", "--ttl", "0"], env, 2)
    assert "reserved" in one_line(["token", "player", "bot-x"], env, 2)
    # an id no ticket nor tournament takes: the token could never play
    assert one_line(["token", "player", "ann lee"], env, 2) == (
        "player id 'ann lee' must be 1-64 letters, digits or _ . : @ | + -: a token for it "
        "could never queue nor register")
    # an organiser's name is no player id: recorded as who acted, any printable text
    assert TokenIssuer(with_keys(env), external=None).verify(
        one_line(["token", "organiser", "Ann Lee"], env, 0)).player == "Ann Lee"
    # an identity provider's kind of subject plays as it comes
    assert TokenIssuer(with_keys(env), external=None).verify(
        one_line(["token", "player", "auth0|5f7c8ec7"], env, 0)).player == "auth0|5f7c8ec7"


def test_token_help_says_the_roles_and_default_lifetimes() -> None:
    shown = " ".join(runner.invoke(app, ["token", "--help"], env={"COLUMNS": "200"})
                     .output.split())
    assert "player or organiser" in shown
    assert "default: 86400 (24 hours) for a player, 43200 (12 hours) for an organiser" in shown


def test_without_keys_token_mints_nothing_and_makes_no_keys(env: dict[str, str]) -> None:
    for role in ("organiser", "player"):
        line = one_line(["token", role, "alice"], env, 2)
        assert line == (f"no deployment keys on this machine (no NEON_TOKEN_SECRET and no "
                        f"{Path(env['NEON_VAR_DIR']) / 'keys.json'}): run `neon token` on the "
                        "server host, where the deployment's keys are")
    assert not list(Path(env["NEON_VAR_DIR"]).rglob("keys.json"))


@pytest.mark.parametrize("args", ORGANISER_COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_an_organiser_command_without_keys_or_token_says_how_to_get_one(
        args: list[str], env: dict[str, str], tmp_path: Path) -> None:
    """One line, exit 2, before any call; no keys are made. With a token it goes on to the
    call (here: no service answers, exit 3); with NEON_TOKEN_SECRET it mints."""
    line = one_line(args, env, 2)
    assert line == (f"no deployment keys on this machine (no NEON_TOKEN_SECRET and no "
                    f"{Path(env['NEON_VAR_DIR']) / 'keys.json'}): pass an organiser token with "
                    "--token or NEON_TOKEN (mint one on the server host with `neon token "
                    "organiser NAME`), or run this where the deployment's keys are "
                    "(NEON_VAR_DIR, NEON_NAMESPACE, NEON_TOKEN_SECRET)")
    assert not list(Path(env["NEON_VAR_DIR"]).rglob("keys.json"))
    assert "service answers" in one_line([*args, "--token", "v1.x.y"], env, 3)
    assert "service answers" in one_line(args, {**env, "NEON_TOKEN": "v1.x.y"}, 3)
    assert "service answers" in one_line(args, {**env, "NEON_TOKEN_SECRET": "s" * 32}, 3)
    assert not list(Path(env["NEON_VAR_DIR"]).rglob("keys.json"))


def test_tournament_mode_without_a_secret_says_so(env: dict[str, str]) -> None:
    line = one_line(["tournament", "start", "cup"], {**env, "NEON_ENV": "tournament"}, 2)
    assert line.startswith("no deployment keys on this machine (tournament mode and no "
                           "NEON_TOKEN_SECRET): pass an organiser token")


@pytest.mark.parametrize("args", PUBLIC_COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_the_public_commands_need_no_keys(args: list[str], env: dict[str, str]) -> None:
    assert "no tournament service answers" in one_line(args, env, 3)
    assert not list(Path(env["NEON_VAR_DIR"]).rglob("keys.json"))


def _options(args: list[str]) -> dict[str, object]:
    """The command's click parameters by name."""
    import typer.main

    group = typer.main.get_command(app)
    command = group
    for name in args:
        command = command.commands[name]  # type: ignore[attr-defined]
    return {p.name: p for p in command.params}


@pytest.mark.parametrize("args", ORGANISER_COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_every_organiser_command_takes_the_same_token_option(args: list[str]) -> None:
    path = args[:2] if args[0] == "tournament" else args[:1]
    option = _options(path)["token"]
    assert option.opts == ["--token"] and option.envvar == "NEON_TOKEN"  # type: ignore[attr-defined]
    assert option.help == TOKEN_HELP and option.default == ""  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", CLIENT_COMMANDS)
def test_a_client_command_without_keys_makes_none(name: str, env: dict[str, str]) -> None:
    """A client command that would mint a token (or read the signing key) with this machine's
    deployment keys, without --embedded: without keys one line saying what is missing and
    what to do, exit 2, before any call, and no keys.json appears (a token signed with keys
    made on the spot is one no running deployment accepts)."""
    args, setting, what = CLIENT_COMMANDS[name]
    var = Path(env["NEON_VAR_DIR"])
    line = one_line(args, env, 2)
    assert line == (f"no deployment keys on this machine (no {setting} and no "
                    f"{var / 'keys.json'}): {what}")
    assert not list(var.rglob("keys.json"))
    tournament = one_line(args, {**env, "NEON_ENV": "tournament"}, 2)
    assert tournament == (f"no deployment keys on this machine (tournament mode and no "
                          f"{setting}): {what}")
    assert not list(var.rglob("keys.json"))


@pytest.mark.parametrize("name", [n for n in CLIENT_COMMANDS if n != "public-key"])
def test_a_client_command_with_the_deployments_keys_goes_on_to_call(
        name: str, env: dict[str, str]) -> None:
    """With NEON_TOKEN_SECRET, or the deployment's keys.json, the command mints its token and
    goes on to its call (here: no service answers, exit 3); nothing more is made."""
    args = CLIENT_COMMANDS[name][0]
    var = Path(env["NEON_VAR_DIR"])

    def last_line(env: dict[str, str]) -> str:  # `tournament play` says whose token first
        result = runner.invoke(app, args, env=env)
        assert result.exit_code == 3 and "Traceback" not in result.output, result.output
        return result.output.strip().splitlines()[-1]

    assert "answers" in last_line({**env, "NEON_TOKEN_SECRET": "s" * 32})
    assert not list(var.rglob("keys.json"))
    with_keys(env)
    made = sorted(var.rglob("keys.json"))
    assert "answers" in last_line(env)
    assert sorted(var.rglob("keys.json")) == made


def test_tournament_play_with_a_token_needs_no_keys(env: dict[str, str]) -> None:
    args = CLIENT_COMMANDS["tournament play"][0]
    assert "answers" in one_line([*args, "--token", "v1.x.y"], env, 3)
    assert "answers" in one_line(args, {**env, "NEON_TOKEN": "v1.x.y"}, 3)
    assert not list(Path(env["NEON_VAR_DIR"]).rglob("keys.json"))
