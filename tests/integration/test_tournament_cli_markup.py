"""An organiser's reasons and a tournament's name with square brackets, as ``neon`` prints
them against a running backend (the commands as their own processes, as in
test_tournament_cli_desk.py): as written, never read as rich markup. A ``[/]`` in a reason
once stopped ``tournament show``, ``abandon``, ``verify`` and ``replay`` with a MarkupError,
and ``[red]`` or ``[link=...]`` changed what they showed (tests/unit/test_cli_markup.py has
the other print sites)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from services.cli.tournament_commands import format_json
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
from tests.integration.test_tournament_cli_desk import Desk, desk, said  # noqa: F401

pytestmark = pytest.mark.timeout(240)

REASON = "seat [/] left; [red]x[/red] [link=https://example.org]ok[/link] :warning:"
NAME = "[green]ok[/]"


def plain(out: object) -> str:
    """A command's stdout and stderr, its lines unwrapped; it must have ended by itself."""
    text = f"{out.stdout}\n{out.stderr}"  # type: ignore[attr-defined]
    assert "MarkupError" not in text and "Traceback" not in text, text
    assert "⚠" not in text, text
    return said(text)


async def test_reasons_and_a_name_in_brackets_print_as_written(desk: Desk,  # noqa: F811
                                                               tmp_path: Path) -> None:
    run, client, org = desk.run, desk.client, desk.org
    await client.call("CreateTournament", org, tournament_id="cup", name=NAME,
                      game="neon-reign", mode="single", format_json=format_json("swiss", 1))
    await client.call("OpenRegistration", org, tournament_id="cup")
    for player in ("ann", "ben"):
        await desk.register("cup", player)
    await client.call("StartTournament", org, tournament_id="cup")
    await client.call("NextRound", org, tournament_id="cup")
    [table] = (await client.call("GetRound", tournament_id="cup", round=1)).round.tables
    match_id = table.match_id

    gone = await run("abandon", match_id, "--reason", REASON, "--game", "neon-reign")
    assert gone.returncode == 0, plain(gone)
    assert said(gone.stdout).startswith(f"match {match_id} abandoned at version ")
    assert said(gone.stdout).endswith(f": {REASON}"), gone.stdout
    deadline = time.monotonic() + 30
    while (await client.call("GetRound", tournament_id="cup", round=1)).round.tables[0].status \
            != pb.TABLE_STATUS_ABANDONED:
        assert time.monotonic() < deadline, "the tournament never learned of the abandon"
        await asyncio.sleep(0.2)
    shown = await run("tournament", "round", "cup")
    assert shown.returncode == 0, plain(shown)
    assert f"table 1 abandoned: {REASON}" in plain(shown)

    export = tmp_path / "abandoned.jsonl"
    written = await run("export", match_id, "-o", str(export), "--game", "neon-reign")
    assert written.returncode == 0, plain(written)
    checked = await run("verify", str(export))
    assert checked.returncode == 0, plain(checked)
    assert f"ok abandoned by organiser before the end, with no result: {REASON}" in plain(checked)
    assert f"verified: match {match_id}, " in plain(checked)
    assert f"events, created by the service tournament, abandoned (no result): {REASON}" \
        in plain(checked)
    replayed = await run("replay", str(export))
    assert replayed.returncode == 0, plain(replayed)
    assert f"the match was abandoned: {REASON}" in plain(replayed)
    assert f"abandoned by organiser, no result: {REASON}" in plain(replayed)

    corrected = await run("tournament", "correct", "cup", "1", "1", "--placements", "1,2",
                          "--reason", REASON)
    assert corrected.returncode == 0, plain(corrected)
    assert f"table 1 set by hand: {REASON}" in plain(corrected)
    ended = await run("tournament", "finish", "cup", "--force", REASON)
    assert ended.returncode == 0, plain(ended)
    show = await run("tournament", "show", "cup")
    assert show.returncode == 0, plain(show)
    assert plain(show).startswith(f"cup ({NAME}): neon-reign single, swiss, force_ended "
                                  f"({REASON}); round 1 of 1, complete"), show.stdout

    bundle = tmp_path / "cup.jsonl"
    exported = await run("tournament", "export", "cup", "-o", str(bundle))
    assert exported.returncode == 0, plain(exported)
    audited = await run("verify", str(bundle))
    assert audited.returncode == 0, plain(audited)
    assert f"result set by the organiser ({REASON})" in plain(audited), audited.stdout
    assert "verified: tournament cup" in plain(audited)
