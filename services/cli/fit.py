"""Rich tables that fit the terminal without cutting what has to be read whole.

Rich, given a table wider than the terminal, squeezes its columns: an id wraps in its middle or
ends in "…", and a column may shrink to nothing. A tournament organiser reads these tables at a
venue on a laptop or over ssh, often 80 columns wide, so :func:`fitted_table` lays the columns
out itself: a cell wraps only between its parts (the words of a text, or parts given one by
one, e.g. "alice v", "bob"), never inside one, so a player or match id is always whole. When
even the narrowest such layout is wider than the terminal, the columns marked ``drop`` are left
out, the one with the lowest mark first, and the caller says which (:func:`print_fitted`).

The columns' widths assume rich's default table (a box with its edges, one space of padding
on each side of a cell): 3 characters per column and 1 more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import Console, JustifyMethod
from rich.table import Table
from rich.text import Text

from services.cli.plain import print_plain

Cell = str | Sequence[str]
"""A text (it may wrap between its words), or its parts (it may wrap between them only; on
one line they are joined with a space)."""


@dataclass(frozen=True)
class Col:
    header: str
    justify: JustifyMethod = "left"
    drop: int = 0
    """0: always shown; else left out when the table does not fit otherwise, 1 first."""


def parts_of(cell: Cell) -> list[str]:
    return cell.split() if isinstance(cell, str) else [p for p in cell if p]


def wrap_parts(parts: Sequence[str], width: int) -> list[str]:
    """``parts`` joined with spaces into lines of at most ``width`` cells, a line broken only
    between two parts (a part wider than ``width`` has a line of its own)."""
    lines: list[str] = []
    line = ""
    for part in parts:
        if line and cell_len(line) + 1 + cell_len(part) > width:
            lines.append(line)
            line = part
        else:
            line = f"{line} {part}" if line else part
    return [*lines, line]


def fitted_table(width: int, title: str, columns: Sequence[Col],
                 rows: Sequence[Sequence[Cell]]) -> tuple[Table, list[str]]:
    """A table of ``rows`` (a cell per column) at most ``width`` wide, and the headers of the
    columns left out to make it fit (in the columns' order).

    Each column is at least as wide as its widest part and at most as wide as its widest
    cell on one line; the room left is shared among the columns that can use it. The cells
    are wrapped here (rich wraps nothing), so nothing is cut. Only when the columns that
    cannot be left out do not fit even so does rich fold parts (the terminal is too narrow
    for any other layout)."""
    cells = [[parts_of(cell) for cell in row] for row in rows]
    heads = [parts_of(c.header) for c in columns]

    def span(i: int) -> tuple[int, int]:  # the narrowest and the widest column i can be
        texts = [heads[i], *(row[i] for row in cells)]
        return (max((cell_len(p) for t in texts for p in t), default=0),
                max(cell_len(" ".join(t)) for t in texts))

    spans = [span(i) for i in range(len(columns))]
    shown = list(range(len(columns)))
    for dropped in sorted((i for i, c in enumerate(columns) if c.drop),
                          key=lambda i: columns[i].drop):
        if sum(spans[i][0] for i in shown) + 3 * len(shown) + 1 <= width:
            break
        shown.remove(dropped)
    widths = {i: spans[i][0] for i in shown}
    room = width - sum(widths.values()) - 3 * len(shown) - 1
    wanting = [i for i in shown if widths[i] < spans[i][1]]
    while room > 0 and wanting:  # shared out evenly, none wider than its widest cell
        share = max(1, room // len(wanting))
        for i in list(wanting):
            more = min(share, spans[i][1] - widths[i], room)
            widths[i] += more
            room -= more
            if widths[i] == spans[i][1]:
                wanting.remove(i)
            if not room:
                break
    table = Table(title=title)
    for i in shown:
        table.add_column(Text("\n".join(wrap_parts(heads[i], widths[i]))),
                         justify=columns[i].justify,
                         width=widths[i], no_wrap=True, overflow="fold")
    for row in cells:
        table.add_row(*(Text("\n".join(wrap_parts(row[i], widths[i]))) for i in shown))
    return table, [columns[i].header for i in range(len(columns)) if i not in shown]


def left_out_text(left_out: Sequence[str], width: int) -> str:
    return f"not shown at {width} columns: {', '.join(left_out)} (a wider terminal shows " \
           f"{'it' if len(left_out) == 1 else 'them'})"


def print_notes(out: Console, notes: Sequence[tuple[str, str]]) -> None:
    """Notes under a table, a label each ("table 3"): the text wraps between its words at
    ``out``'s width, its lines after the first indented past the labels."""
    indent = max((cell_len(label) for label, _ in notes), default=0) + 2
    for label, text in notes:
        lines = wrap_parts(text.split(), max(20, out.width - indent))
        print_plain(out, "\n".join([label.ljust(indent) + lines[0],
                                    *(" " * indent + line for line in lines[1:])]),
                    crop=False, soft_wrap=True)


def print_fitted(out: Console, title: str, columns: Sequence[Col],
                 rows: Sequence[Sequence[Cell]]) -> None:
    """:func:`fitted_table` at ``out``'s width, printed, then a line naming the columns it
    left out, if any."""
    table, left_out = fitted_table(out.width, title, columns, rows)
    out.print(table)
    if left_out:
        print_plain(out, left_out_text(left_out, out.width))
