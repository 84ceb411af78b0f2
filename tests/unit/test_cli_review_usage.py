"""What a tournament organiser or a script gives the ``neon`` commands wrongly is a usage error
(exit 2) in one line, said before any work: a format setting that is not a number or not a
JSON object, an output file in a folder that does not exist, a seat the match does not have.
None of them is an "unexpected error" (exit 1), none is said only once the match or the
tournament has been played, and none names the hidden ``.part`` file instead of the output."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from rich.console import Console
from typer.testing import CliRunner

from services.cli.errors import USAGE, CliError
from services.cli.files import refuse_folder, written_whole
from services.cli.main import app
from services.cli.replaying import replay_export
from services.cli.tournament_commands import format_json
from services.rules.games import load_engine
from services.rules.selfplay import export_game, setups

runner = CliRunner()


@pytest.mark.parametrize(("kw", "said"), [
    ({"table_sizes": "3,x"}, "--table-sizes"),
    ({"table_sizes": "3,,4"}, "--table-sizes"),
    ({"points": "4,two,1"}, "--points"),
    ({"extra": "[1]"}, "--format-json"),
    ({"extra": '"xy"'}, "--format-json"),
    ({"extra": "3"}, "--format-json"),
])
def test_format_settings_of_the_wrong_kind_are_usage_errors(kw: dict[str, str], said: str) -> None:
    with pytest.raises(CliError) as refused:
        format_json("multiplayer", 0, **kw)
    assert refused.value.code == USAGE
    assert refused.value.message.startswith(said), refused.value.message


def test_format_settings_of_the_right_kind_still_go_through() -> None:
    made = json.loads(format_json("multiplayer", 2, "3, 4", "4,2,1,0", "",
                                  '{"late_entry_until": 1}'))
    assert made["table_sizes"] == [3, 4] and made["placement_points"] == [4.0, 2.0, 1.0, 0.0]
    assert made["late_entry_until"] == 1 and made["rounds"] == 2


@pytest.mark.parametrize("args", [
    ["tournament", "create", "t1", "--game", "neon-reign", "--table-sizes", "a,b", "--json"],
    ["tournament", "create", "t1", "--game", "neon-reign", "--format-json", "[1]", "--json"],
    ["tournament", "simulate", "--game", "neon-reign", "--points", "x"],
])
def test_the_commands_say_a_bad_format_setting_in_one_line_exit_2(
        args: list[str], tmp_path: Path) -> None:
    result = runner.invoke(app, args, env={"NEON_VAR_DIR": str(tmp_path / "var"),
                                           "NEON_TOURNAMENT_ADDR": "127.0.0.1:1"})
    assert result.exit_code == USAGE, result.output
    assert "unexpected error" not in result.output and "Traceback" not in result.output
    if "--json" in args:  # stdout: the error object, nothing else
        [line] = [x for x in result.stdout.splitlines() if x.startswith("{")]
        assert json.loads(line)["error"]["code"] == "USAGE"


def test_an_output_in_a_folder_that_does_not_exist_is_refused_before_any_work(
        tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder" / "out.jsonl"
    with pytest.raises(CliError) as refused:
        refuse_folder(missing, "export")
    assert refused.value.code == USAGE
    assert str(missing.parent) in refused.value.message and ".part" not in refused.value.message
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    with pytest.raises(CliError):  # a file where the folder should be
        refuse_folder(a_file / "out.jsonl", "export")
    refuse_folder(tmp_path / "out.jsonl", "export")  # an existing folder: fine


def test_a_part_that_cannot_be_made_is_one_line_naming_the_output(tmp_path: Path) -> None:
    """The folder went away between the check and the write (or cannot take a new file):
    the line names the output, never the hidden ``.part``."""
    output = tmp_path / "gone" / "out.jsonl"
    with pytest.raises(CliError) as refused, written_whole(output) as f:
        f.write(b"never")
    assert str(output) in refused.value.message and ".part" not in refused.value.message


def test_play_refuses_an_export_in_a_missing_folder_before_the_match(tmp_path: Path,
                                                                     dead_port: int) -> None:
    """Said at once (exit 2), not after the whole match was played: here no rules service
    answers, so a command that went ahead would say that instead (exit 3)."""
    result = runner.invoke(app, ["play", "neon-reign", "--bots", "random,random", "--export",
                                 str(tmp_path / "missing" / "a.jsonl")],
                           env={"NEON_VAR_DIR": str(tmp_path / "var"),
                                "NEON_RULES_NEON_REIGN_PORT": str(dead_port),
                                "NEON_TOKEN_SECRET": "s" * 32})
    assert result.exit_code == USAGE, result.output
    assert "missing" in result.output and ".part" not in result.output


@pytest.fixture(scope="module")
def export() -> bytes:
    engine = load_engine("neon-reign")
    return export_game("neon-reign", "single", setups(engine, "single")[0], 3,
                       Ed25519PrivateKey.generate())


@pytest.mark.parametrize("seat", [2, 7])
def test_replay_refuses_a_seat_the_match_does_not_have(export: bytes, seat: int) -> None:
    """A seat past the match's seats was shown as the spectator's view, exit 0: the person
    asking for a seat's view was not told they got another."""
    with pytest.raises(CliError) as refused:
        replay_export(Console(file=io.StringIO(), width=120), export, seat)
    assert refused.value.code == USAGE
    assert "seats 0-1" in refused.value.message


def test_replay_shows_each_seat_of_the_match(export: bytes) -> None:
    for seat in (0, 1, None):
        out = io.StringIO()
        replay_export(Console(file=out, width=120), export, seat)
        assert "event 1: MatchCreated" in out.getvalue()
