"""``neon replay``: an exported match told in words, with the table after each action."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from services.cli.errors import USAGE, CliError
from services.cli.screen import load_presentation, narrate
from services.cli.terminal import describe_outcome

SHOWN_MATCHES = 8
"""A bundle's matches named when it is given to ``neon replay`` (then "and N more")."""


def _bundle_said(data: bytes) -> str | None:
    """What ``neon replay`` says of a tournament bundle (None for any other file): what it
    is, and how to replay one of its matches (from the match's own export), naming them."""
    from services.tournament.bundle import is_bundle

    if not is_bundle(data):
        return None
    lines = data.split(b"\n")
    header = json.loads(lines[0])
    matches = []
    for line in lines[1:]:
        if b'"MatchExport"' not in line:
            continue
        try:
            row = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(row, dict) and row.get("type") == "MatchExport":
            matches.append(f"{_plain(row.get('match_id'))} (round {_plain(row.get('round'))}, "
                           f"table {_plain(row.get('table'))})")
    named = ", ".join(matches[:SHOWN_MATCHES])
    if len(matches) > SHOWN_MATCHES:
        named += f" and {len(matches) - SHOWN_MATCHES} more"
    return (f"a tournament bundle (tournament {_plain(header.get('tournament_id'))}, "
            f"{_plain(header.get('game'))}, {len(matches)} match"
            f"{'' if len(matches) == 1 else 'es'}), not a match export: replay one of its "
            "matches from that match's own export: neon export MATCH_ID -o match.jsonl (as an "
            "organiser, with its rules service up), then neon replay match.jsonl"
            + (f"; its matches: {named}" if matches else "")
            + "; neon verify checks the whole bundle")


def _plain(value: object) -> str:
    """A value from the file, on one line and with nothing a terminal would act on."""
    return "".join(c if c.isprintable() else "?" for c in str(value))


def replay_export(console: Console, data: bytes, viewer: int | None, pause: bool = False) -> int:
    """Step through ``data`` (an export) as ``viewer`` (a seat, or None for a spectator)."""
    from services.rules import records as rec
    from services.rules.export import parse_export
    from services.rules.games import load_engine
    from services.rules.replay import Replayed, ReplayError, step
    from services.rules.verify import engine_at, replay_key

    try:
        records, _ = parse_export(data)
    except Exception as err:  # a file that is not an export: say so in one line
        raise CliError(_bundle_said(data) or f"not a match export: {err}", USAGE) from None
    if not records:
        raise CliError("the export holds no events", USAGE)
    game = str(records[0].get("game", ""))
    try:
        engine = engine_at(load_engine(game), str(records[0].get("engine_version")))
    except KeyError as err:
        raise CliError(f"cannot replay: {err.args[0]}", USAGE) from None
    try:  # keyed state hashes (a deployment's): the key comes from the revealed seed
        key = replay_key(records)
    except ValueError as err:
        raise CliError(f"cannot replay: {err}", USAGE) from None
    players = records[0].get("players") or []
    seats = records[0].get("seats", len(players))
    if viewer is not None and isinstance(seats, int) and not 0 <= viewer < seats:
        raise CliError(f"--seat {viewer}: the match has seats 0-{seats - 1} (leave out --seat "
                       "for the spectator's view)", USAGE)
    presenter = load_presentation(game)
    names = {i: str(p) for i, p in enumerate(players)}
    if viewer is not None:
        names[viewer] = "you"
    replayed = Replayed(key=key)
    view: Any = {}
    for record in records:
        try:
            step(engine, replayed, record)
        except ReplayError as err:
            raise CliError(f"the export does not replay: {err}", USAGE) from None
        try:  # events are descriptions for people (verify does not read them): they must fit
            public = rec.project(record, viewer)
            if replayed.state is not None:
                view = engine.view(replayed.state, viewer)
            lines = narrate(presenter, [public], None, view, names)  # every seat's action told
        except (KeyError, TypeError, AttributeError, ValueError) as err:
            raise CliError(f"event {record.get('n')}: cannot be shown ({type(err).__name__}: "
                           f"{err})", USAGE) from None
        # the file's words (an abandon's reason, the players' names): not markup
        console.rule(Text(f"event {record['n']}: {record['type']}", style="rule.text"))
        if lines:
            console.print(Text("\n".join(lines)))
        if replayed.state is not None and record["type"] in ("MatchStarted", "ActionAccepted"):
            console.print(presenter.render(view, viewer))
        if record["type"] == "MatchEnded":
            console.print(Panel(Text(describe_outcome(record.get("outcome"), viewer, presenter)),
                                title="result"))
        if pause:
            input("Enter for the next event...")
    return 0
