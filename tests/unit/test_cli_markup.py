"""What the ``neon`` command line prints of text it did not write (an organiser's reason, a
tournament's or a player's name, a service's error message, what a file holds) comes out as
written: rich does not read it as markup. A ``[/]`` in it once stopped the command with
rich's MarkupError, and ``[red]``, ``[link=...]`` or ``:warning:`` changed what the reader saw
(a name could paint itself as "[green]ok[/]"). Rendered into a rich Console, as the commands
print (tests/unit/test_tournament_cli_narrow.py), or run with typer's CliRunner."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import grpc
import pytest
import typer
from rich.console import Console
from typer.testing import CliRunner

from services.cli import errors, main, tournament_play
from services.cli import tournament_commands as tc
from services.cli.main import app
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb

REASON = "seat [/] left; [red]x[/red] [link=https://example.org]ok[/link] :warning:"
"""A reason as an organiser may type it: a closing tag with nothing to close, colour, a link
and an emoji code, none of them to be read as such."""
NAME = "[green]ok[/]"
PLAYER = "[red]ann[/red]"
runner = CliRunner()


def flat(text: str) -> str:
    return " ".join(text.split())


def screen() -> Console:
    """A console like a terminal's (colours, markup, emoji, highlighting on), recorded."""
    return Console(record=True, width=200, file=io.StringIO(), color_system="truecolor",
                   force_terminal=True)


def shown(console: Console) -> str:
    text = console.export_text(clear=False)
    assert "⚠" not in text, text  # :warning: stays as typed
    return flat(text)


def links(console: Console) -> bool:
    """Whether a link was made of what was printed (``[link=...]`` read as markup)."""
    return 'href="https://example.org' in console.export_html(clear=False)


class FakeClient:
    """The tournament service's answers, by RPC."""

    def __init__(self, **replies: Any) -> None:
        self.replies = replies

    async def call(self, rpc: str, token: str | None = None, /, **kw: Any) -> Any:
        return self.replies[rpc]

    async def close(self) -> None:
        pass


def force_ended() -> pb.Tournament:
    return pb.Tournament(tournament_id="cup", name=NAME, game="neon-reign", mode="single",
                         format_json='{"format": "swiss"}',
                         status=pb.TOURNAMENT_STATUS_FORCE_ENDED, reason=REASON,
                         rounds_paired=1, planned_rounds=2,
                         players=[pb.Player(player_id=PLAYER, status="playing", rating=1500)])


def standing_rows() -> list[pb.StandingRow]:
    return [pb.StandingRow(rank=1, player_id=PLAYER, points=1, games=1, wins=1,
                           tiebreaks=[pb.TieBreak(name="[/]wins", value=1)]),
            pb.StandingRow(rank=2, player_id="ben[/]", points=0, games=1,
                           tiebreaks=[pb.TieBreak(name="[/]wins", value=0)])]


def test_show_prints_a_force_end_reason_and_a_name_as_written(
        monkeypatch: pytest.MonkeyPatch) -> None:
    out = screen()
    monkeypatch.setattr(tc, "console", out)
    client = FakeClient(GetTournament=pb.GetTournamentResponse(tournament=force_ended()))
    monkeypatch.setattr(tc, "_client_and_token", lambda token="", organiser=True: (client, ""))
    tc.show("cup", as_json=False)
    text = shown(out)
    assert f"cup ({NAME}): neon-reign single, swiss, force_ended ({REASON}); round 1 of 2" \
        in text, text
    assert PLAYER in text and not links(out)


def test_a_player_sees_the_end_and_the_standings_as_written() -> None:
    """``neon tournament play`` at the end of a force-ended tournament: its reason, the
    standings with the players' ids and the tie-breaks' names."""
    out = screen()
    client = FakeClient(GetTournament=pb.GetTournamentResponse(tournament=force_ended()),
                        GetStandings=pb.GetStandingsResponse(rows=standing_rows(), final=True))
    code = asyncio.run(tournament_play._final(client, "cup", PLAYER,  # type: ignore[arg-type]
                                              pb.TOURNAMENT_STATUS_FORCE_ENDED, out))
    assert code == 0
    text = shown(out)
    assert f"cup is force-ended ({REASON})" in text, text
    assert "tie-breaks: [/]wins [/]wins" in text, text
    assert f"│ 1 │ {PLAYER} │ 1 │" in text and "│ 2 │ ben[/] │ 0 │" in text, text
    assert f"{PLAYER}: final rank 1 of 2, 1 point (1 win in 1 game)" in text, text
    assert not links(out)


def test_a_round_and_a_players_tables_print_ids_and_reasons_as_written(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seats = [PLAYER, "ben[/]"]
    r = pb.Round(tournament_id="cup", number=1, tables=[pb.TableInfo(
        number=1, seats=seats, match_id="cup-r1-t1", status=pb.TABLE_STATUS_ABANDONED,
        abandoned_reason=REASON)])
    out = screen()
    monkeypatch.setattr(tc, "console", out)
    tc.print_round(r)
    tc.print_standings(standing_rows())
    text = shown(out)
    assert f"│ 1 │ {PLAYER} v ben[/] │ abandoned │ cup-r1-t1 │" in text, text
    assert f"table 1 abandoned: {REASON}" in text and "tie-breaks: [/]wins [/]wins" in text

    # the player's side (`neon tournament play`): the table as paired, then abandoned
    seat = tournament_play.TournamentSeat(
        FakeClient(GetRound=pb.GetRoundResponse(round=r)), "token",  # type: ignore[arg-type]
        pb.Tournament(tournament_id="cup", game="neon-reign"), PLAYER, screen=(mine := screen()))
    paired = pb.MatchAssignment(round=1, table=1, seats=seats, seat=0,
                           status=pb.TABLE_STATUS_PAIRED)
    asyncio.run(seat.on_assignment(paired))
    paired.status, paired.match_id = pb.TABLE_STATUS_ABANDONED, "cup-r1-t1"
    asyncio.run(seat.on_assignment(paired))
    text = shown(mine)
    assert f"round 1, table 1: {PLAYER} v ben[/]; its match is being created" in text, text
    assert f"round 1, table 1: match cup-r1-t1 was abandoned ({REASON}); waiting" in text, text
    assert not links(mine)


def test_abandon_prints_the_reason_and_who_gave_it_as_written(
        monkeypatch: pytest.MonkeyPatch) -> None:
    answers = [SimpleNamespace(already_abandoned=False, version=7,
                               outcome_json=json.dumps({"by": "org", "reason": REASON})),
               SimpleNamespace(already_abandoned=True, version=7,
                               outcome_json=json.dumps({"by": NAME, "reason": REASON}))]

    async def on_its_rules_service(*args: Any, **kw: Any) -> Any:
        return answers.pop(0)

    monkeypatch.setattr(main, "_settings", lambda **kw: None)
    monkeypatch.setattr(main, "_on_its_rules_service", on_its_rules_service)
    first = runner.invoke(app, ["abandon", "m-1", "--reason", REASON])
    assert first.exit_code == 0, first.output
    assert flat(first.stdout) == f"match m-1 abandoned at version 7: {REASON}"
    again = runner.invoke(app, ["abandon", "m-1", "--reason", "again"])
    assert again.exit_code == 0, again.output
    assert flat(again.stdout) == (f"match m-1 was already abandoned by {NAME}: {REASON} "
                                  "(nothing changed)")


def test_verify_prints_what_a_file_holds_and_its_name_as_written(tmp_path: Path) -> None:
    """A failure that quotes the file (its match id), and the file's name (no "/" in a
    file's name: no closing tag there, but a colour or a link)."""
    export = tmp_path / "[red]m.jsonl"
    export.write_text(json.dumps({"type": "MatchCreated", "match_id": REASON, "n": 1}) + "\n"
                      + json.dumps({"type": "Checkpoint", "match_id": "m"}) + "\n")
    other = tmp_path / "[link=https:example.org]b.jsonl"
    other.write_text("not an export\n")
    result = runner.invoke(app, ["verify", str(export)])
    assert result.exit_code == 1, result.output
    assert flat(result.stderr) == (f"FAILED: event 1: belongs to match {REASON!r}, not 'm' "
                                   "FAILED: 1 of 1 export: [red]m.jsonl"), result.stderr
    both = runner.invoke(app, ["verify", str(export), str(other)])
    assert both.exit_code == 1, both.output
    said = flat(both.stderr)
    assert f"[red]m.jsonl: FAILED: event 1: belongs to match {REASON!r}" in said, said
    assert "FAILED: 2 of 2 exports: [red]m.jsonl, [link=https:example.org]b.jsonl" in said, said
    assert "⚠" not in said


def test_a_bundles_report_prints_what_the_bundle_holds_as_written(
        monkeypatch: pytest.MonkeyPatch) -> None:
    out, err = screen(), screen()
    monkeypatch.setattr(tc, "console", out)
    monkeypatch.setattr(tc, "err_console", err)
    report = SimpleNamespace(checks=[f"round 1 table 1: abandoned, then played again ({REASON})"],
                             warnings=[f"round 1 table 2: result set by the organiser ({REASON})"],
                             failures=[f"the export is of match {REASON}"], ok=False,
                             tournament_id="cup", matches=2)
    tc.print_bundle_report(report, "b[/].jsonl: ")
    text = shown(out)
    assert f"b[/].jsonl: ok round 1 table 1: abandoned, then played again ({REASON})" in text
    assert f"b[/].jsonl: note round 1 table 2: result set by the organiser ({REASON})" in text
    assert shown(err) == f"b[/].jsonl: FAILED: the export is of match {REASON}"
    assert not links(out) and not links(err)
    report.ok, report.failures, report.tournament_id = True, [], NAME
    tc.print_bundle_report(report)
    assert f"verified: tournament {NAME}, 2 matches" in shown(out)


def test_a_services_error_message_is_printed_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """A failed call's details, and a usage error quoting what was given (``friendly``)."""
    given = runner.invoke(app, ["tournament", "create", "x", "--game", "g", "--format", REASON])
    assert given.exit_code == 2, given.output
    assert flat(given.stderr).startswith(f"unknown format {REASON!r}; formats: swiss"), \
        given.stderr
    err = screen()
    monkeypatch.setattr(errors, "err_console", err)

    @errors.friendly
    def refused() -> None:
        raise grpc.aio.AioRpcError(grpc.StatusCode.FAILED_PRECONDITION, grpc.aio.Metadata(),
                                   grpc.aio.Metadata(), details=f"no: {REASON}")

    @errors.friendly
    def broken() -> None:
        raise RuntimeError(REASON)

    for fn in (refused, broken):
        with pytest.raises(typer.Exit) as exited:
            fn()
        assert exited.value.exit_code == 1
    assert shown(err) == (f"FAILED_PRECONDITION: no: {REASON} unexpected error: RuntimeError: "
                          f"{REASON} (run with --debug for the traceback; logs in var/logs)")
    assert not links(err)
