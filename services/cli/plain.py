"""Lines that hold text the program did not write, printed as written.

A reason an organiser typed (an abandon, a force-end, a result set by hand), a tournament's or
a player's name, a service's error message, what ``neon verify`` found in a file: rich would
read such text as markup. A ``[/]`` in it stops the command (``MarkupError``), and ``[red]``,
``[link=...]`` or ``:warning:`` change what the reader sees (a player named
``[green]ok[/]`` would paint itself). :func:`print_plain` prints a line as it is; a line
that also has markup of the program's own escapes the other text with
``rich.markup.escape`` (not right before a tag of its own: a trailing backslash would
escape it) and prints with ``emoji=False``; a table's cells or a panel's body are
``rich.text.Text``.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console


def print_plain(out: Console, text: str, **kw: Any) -> None:
    """Print ``text`` on ``out`` literally: no markup, no emoji codes, no highlighting."""
    out.print(text, markup=False, emoji=False, highlight=False, **kw)
