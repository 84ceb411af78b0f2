"""``neon tournament round``, ``standings``, ``list`` and ``show`` on an 80-column terminal (a
laptop at the venue, an ssh session): every player id, seat and match id whole, in its row and
in order, nothing cut to "…", no line wider than the terminal, and the long notes (why a result
was set by hand, why a match was abandoned or played again) in full under the table, named by
their table. Rendered into a rich Console of that width, as the commands print."""

from __future__ import annotations

import io
import re
from collections.abc import Callable

import pytest
from rich.console import Console

from services.cli import tournament_commands as tc
from services.cli.fit import Col, fitted_table, wrap_parts
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb

SCREEN = "the table's second screen froze during move 31 and both players agreed, with the " \
         "floor judge watching, on the position written on the score sheet at the time"
POWER = "power cut in the east wing of the hall; the organiser decides between a rematch " \
        "and a result set by hand once the lights are back on for everyone there"
NO_SHOW = "player-0121 did not come back from the break within the ten minutes the rules " \
          "allow; forfeit by the head judge's decision, announced at the table"
SIZES = (2, 3, 4, 6, 5, 2, 4, 3)


def a_round(tid: str = "spring26") -> pb.Round:
    """Round 3 of a multiplayer event: 8 tables of 2-6 seats (player-0100...), one table set
    by hand, one abandoned, one a forfeit set by hand, one played again after an abandon,
    one a no-show forfeit; and a bye."""
    tables, first = [], 100
    for number, size in enumerate(SIZES, 1):
        seats = [f"player-{first + k:04d}" for k in range(size)]
        first += size
        t = pb.TableInfo(number=number, seats=seats, match_id=f"{tid}-r3-t{number}",
                         status=pb.TABLE_STATUS_DONE)
        places = list(range(1, size + 1))
        if number == 3:
            t.result.CopyFrom(pb.Result(placements=places[::-1], kind="correction",
                                        reason=SCREEN))
        elif number == 5:
            t.status, t.abandoned_reason = pb.TABLE_STATUS_ABANDONED, POWER
        elif number == 6:
            t.result.CopyFrom(pb.Result(placements=[2, 1], kind="correction", forfeited=True,
                                        reason=NO_SHOW))
        elif number == 7:
            t.earlier.append(pb.EarlierMatch(match_id=t.match_id, abandoned_reason="a crash",
                                             rematch_reason="a spare table was free"))
            t.match_id += "-g2"
            t.result.CopyFrom(pb.Result(placements=[3, 1, 4, 2], kind="played"))
        elif number == 8:
            t.result.CopyFrom(pb.Result(placements=places, kind="forfeit", forfeited=True))
        else:
            t.result.CopyFrom(pb.Result(placements=places, kind="played"))
        tables.append(t)
    tables.append(pb.TableInfo(number=9, seats=["player-0199"], bye=True))
    r = pb.Round(tournament_id=tid, number=3, tables=tables)
    r.checkpoint.CopyFrom(pb.Checkpoint(round=3, merkle_root="ab" * 32, leaves=8))
    return r


def render(width: int, show: Callable[[], None], monkeypatch: pytest.MonkeyPatch) -> str:
    """What ``show`` prints on the commands' console, ``width`` columns wide."""
    screen = Console(record=True, width=width, file=io.StringIO(), color_system=None)
    monkeypatch.setattr(tc, "console", screen)
    show()
    text = screen.export_text()
    assert "…" not in text, text
    assert max(len(line) for line in text.splitlines()) <= width, text
    return text


def rows(text: str) -> list[list[str]]:
    """The rows of the (first) rich table in ``text``, each cell's lines joined with a space:
    a row starts at a line whose first cell is not blank."""
    found: list[list[list[str]]] = []
    for line in text.splitlines():
        if line.startswith("└"):
            break
        if not line.startswith("│"):
            continue
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if cells[0] or not found:
            found.append([[c] for c in cells])
        else:
            for parts, c in zip(found[-1], cells):
                parts.append(c)
    return [[" ".join(p for p in parts if p) for parts in row] for row in found]


def flat(text: str) -> str:
    return " ".join(text.split())


def seats_text(t: pb.TableInfo) -> str:
    return " v ".join(t.seats)


@pytest.mark.parametrize("width", [80, 60, 120])
def test_a_round_keeps_its_ids_whole_and_its_notes_in_full(
        width: int, monkeypatch: pytest.MonkeyPatch) -> None:
    r = a_round()
    text = render(width, lambda: tc.print_round(r), monkeypatch)
    shown = {row[0]: row for row in rows(text)}
    assert list(shown) == [str(t.number) for t in r.tables], text
    for t in r.tables:
        row = shown[str(t.number)]
        assert row[1] == seats_text(t), text  # every seat whole, in its row, in order
        if width >= 80:
            assert row[3] == t.match_id, text
    if width < 80:  # no room for the match ids beside the seats and results
        assert all(len(row) == 3 for row in shown.values()), text
        assert "match ids: spring26-r3-t<table> (not shown at 60 columns)" in flat(text), text
        assert "table 7 match spring26-r3-t7-g2" in flat(text), text
    results = {n: shown[str(n)][2] for n in range(1, 10)}
    assert results == {
        1: "player-0100 wins",
        2: "1 player-0102, 2 player-0103, 3 player-0104",
        3: "1 player-0108, 2 player-0107, 3 player-0106, 4 player-0105 (set by hand)",
        4: ", ".join(f"{k + 1} player-{109 + k:04d}" for k in range(6)),
        5: "abandoned",
        6: "player-0121 wins (set by hand, forfeit)",
        7: "1 player-0123, 2 player-0125, 3 player-0122, 4 player-0124 (rematch)",
        8: "1 player-0126, 2 player-0127, 3 player-0128 (forfeit)",
        9: "bye",
    }, text
    notes = flat(text.split("└", 1)[1])
    for note in (f"table 3 set by hand: {SCREEN}", f"table 5 abandoned: {POWER}",
                 f"table 6 set by hand, forfeit: {NO_SHOW}",
                 "table 7 rematch of spring26-r3-t7 (abandoned: a crash; again: a spare "
                 "table was free)",
                 "checkpoint: Merkle root abababababababab... over 8 matches, signed"):
        assert note in notes, text
    if width == 80:  # the notes' lines after the first indented past "table 3"
        assert "\n         players agreed" in text, text


def test_a_round_with_long_match_ids_says_how_they_are_made(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A 40-character tournament id: its match ids do not fit beside the seats and results
    at 80 columns, so a line says how they are made and a note names the one made otherwise
    (the rematch's); at 120 columns they are in their column again."""
    tid = "spring_open_2026_regional_qualifier_hall"
    r = a_round(tid)
    text = render(80, lambda: tc.print_round(r), monkeypatch)
    shown = rows(text)
    assert [row[1] for row in shown] == [seats_text(t) for t in r.tables], text
    assert all(len(row) == 3 for row in shown), text
    assert f"match ids: {tid}-r3-t<table> (not shown at 80 columns)" in flat(text), text
    assert f"table 7 match {tid}-r3-t7-g2" in flat(text), text
    assert f"{tid}-r3-t1 " not in text
    wide = rows(render(160, lambda: tc.print_round(r), monkeypatch))
    assert [row[3] for row in wide] == [t.match_id for t in r.tables]


def test_standings_keep_player_ids_and_headers_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    tiebreaks = [pb.TieBreak(name=n, value=v) for n, v in (
        ("buchholz", 21.5), ("median-buchholz", 14.0), ("sonneborn-berger", 30.25), ("wins", 4))]
    standing = [pb.StandingRow(rank=i + 1, player_id=f"player-{123 + i:04d}", points=9 - i / 2,
                               games=6, wins=4, dropped=i == 7, tiebreaks=tiebreaks)
                for i in range(10)]
    text = render(80, lambda: tc.print_standings(standing, out=tc.console), monkeypatch)
    assert re.search(r"┃ rank ┃ player +┃ points ┃ games ┃ wins ┃ +Bh ┃ mBh ┃ +SB ┃ W ┃", text), text
    assert [row[:3] for row in rows(text)] == [
        [str(s.rank), s.player_id + (" (dropped)" if s.dropped else ""), f"{s.points:g}"]
        for s in standing], text
    narrow = render(60, lambda: tc.print_standings(standing, out=tc.console), monkeypatch)
    assert [row[1] for row in rows(narrow)] == [row[1] for row in rows(text)], narrow
    assert "not shown at 60 columns: games, wins" in flat(narrow), narrow


LISTED = [("spring26", "Spring Open 2026, regional qualifier, hall B", "neon-reign single",
           "swiss", "running", "64", "3"),
          ("thursday_knockout_2026_03", "", "barbaric competitive", "single-elimination",
           "registration", "12", "0"),
          ("sim_4f2a9c81d0", "simulation sim_4f2a9c81d0", "neon battle-royale", "multiplayer",
           "finished", "16", "4")]


def test_the_list_keeps_its_ids_whole_and_says_what_it_left_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def listing() -> None:
        tc._print_table("tournaments", tc.LIST_COLUMNS, LISTED)

    text = render(80, listing, monkeypatch)
    assert rows(text) == [[t[0], t[1], t[2], t[4]] for t in LISTED], text
    assert "not shown at 80 columns: format, players, rounds (a wider terminal shows them)" \
        in text
    wider = render(110, listing, monkeypatch)
    assert rows(wider) == [list(t[:6]) for t in LISTED], wider
    assert "not shown at 110 columns: rounds (a wider terminal shows it)" in wider
    assert rows(render(160, listing, monkeypatch)) == [list(t) for t in LISTED]


def test_show_keeps_its_player_ids_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    players = [(f"player-{i:04d}@venue.example.org" + (" (late)" if i == 3 else ""),
                "playing", "1500") for i in range(4)]
    text = render(56, lambda: tc._print_table("players", (Col("player"), Col("status"),
                                                          Col("rating")), players), monkeypatch)
    # (rows() takes "(late)", wrapped under its id, for a row of its own)
    assert [row[0] for row in rows(text)] == [p[0].removesuffix(" (late)") for p in players] \
        + ["(late)"], text


def test_a_cell_wraps_between_its_parts_only() -> None:
    assert wrap_parts(["player-0100 v", "player-0101 v", "player-0102"], 27) == \
        ["player-0100 v player-0101 v", "player-0102"]
    assert wrap_parts(["player-0100 v", "player-0101"], 12) == ["player-0100 v", "player-0101"]
    assert wrap_parts([], 10) == [""]
    columns = [Col("id"), Col("note", drop=2), Col("more", drop=1)]
    row = ["abcdefghij", "a b c", "long-word-here"]
    table, left_out = fitted_table(24, "t", columns, [row])  # "more" left out first
    assert left_out == ["more"] and [c.width for c in table.columns] == [10, 5]
    table, left_out = fitted_table(21, "t", columns, [row])  # "a b c" wraps: 4 wide
    assert left_out == ["more"] and [c.width for c in table.columns] == [10, 4]
    table, left_out = fitted_table(14, "t", columns, [row])
    assert left_out == ["note", "more"] and [c.width for c in table.columns] == [10]


def test_a_note_prints_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reason is the organiser's text, not rich markup ("[/]" once stopped the command)."""
    reason = "seat [/] left; [bold]the judge[/bold] decided"
    r = pb.Round(tournament_id="cup", number=1, tables=[pb.TableInfo(
        number=1, seats=["ann", "ben"], match_id="cup-r1-t1",
        result=pb.Result(placements=[1, 2], kind="correction", reason=reason))])
    text = render(80, lambda: tc.print_round(r), monkeypatch)
    assert f"table 1  set by hand: {reason}" in text, text


def test_a_round_in_play_says_where_each_table_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """A table with no result yet: its match waits for its seats or is being played (its
    status), not a blank result; a rematch in play says both."""
    tables = [pb.TableInfo(number=n, seats=[f"player-{2 * n:04d}", f"player-{2 * n + 1:04d}"],
                           match_id=f"spring26-r4-t{n}", status=status)
              for n, status in enumerate((pb.TABLE_STATUS_AWAITING_SEATS, pb.TABLE_STATUS_RUNNING,
                                          pb.TABLE_STATUS_RUNNING, pb.TABLE_STATUS_PAIRED), 1)]
    tables[2].earlier.append(pb.EarlierMatch(match_id=tables[2].match_id,
                                             abandoned_reason="a crash", rematch_reason="spare"))
    tables[2].match_id += "-g2"
    r = pb.Round(tournament_id="spring26", number=4, tables=tables)
    for width in (80, 40):
        shown = {row[0]: row[2] for row in rows(render(width, lambda: tc.print_round(r),
                                                       monkeypatch))}
        assert shown == {"1": "waiting for seats", "2": "playing", "3": "playing (rematch)",
                         "4": ""}, shown


def test_a_round_of_one_match_says_match_in_its_checkpoint_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A round of one table (three players: a match and a bye) signs a checkpoint over one
    match: "over 1 match", not "over 1 matches"."""
    r = a_round()
    r.checkpoint.leaves = 1
    text = flat(render(80, lambda: tc.print_round(r), monkeypatch))
    assert "checkpoint: Merkle root abababababababab... over 1 match, signed" in text, text


@pytest.mark.parametrize("width", [80, 40])
def test_a_rematch_set_by_hand_reads_as_one_phrase(
        width: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table played again whose result the organiser then set by hand (or a forfeit of a
    rematch): one bracket, "(rematch, set by hand)", never "(set by hand) (rematch)"."""
    tables = []
    for n, result in enumerate((pb.Result(placements=[2, 1], kind="correction", reason="judge"),
                                pb.Result(placements=[2, 1], kind="correction", forfeited=True,
                                          reason="gone"),
                                pb.Result(placements=[1, 2], kind="forfeit", forfeited=True)), 1):
        t = pb.TableInfo(number=n, seats=[f"p{n}a", f"p{n}b"], match_id=f"cup-r2-t{n}-g2",
                         status=pb.TABLE_STATUS_DONE, result=result)
        t.earlier.append(pb.EarlierMatch(match_id=f"cup-r2-t{n}", abandoned_reason="a crash",
                                         rematch_reason="spare"))
        tables.append(t)
    r = pb.Round(tournament_id="cup", number=2, tables=tables)
    text = render(width, lambda: tc.print_round(r), monkeypatch)
    shown = {row[0]: row[2] for row in rows(text)}
    assert shown == {"1": "p1b wins (rematch, set by hand)",
                     "2": "p2b wins (rematch, set by hand, forfeit)",
                     "3": "p3a wins (rematch, forfeit)"}, text
    notes = flat(text.split("└", 1)[1])
    assert "table 1 set by hand: judge" in notes and "table 2 set by hand, forfeit: gone" in notes
    assert ") (" not in flat(text), text
