"""The format-independent entry points: pair the next round, say when an event is over."""

from __future__ import annotations

import math
from typing import Any

from services.tournament.core.elimination import (
    champion,
    describe,
    elimination_rounds,
    pair_elimination,
)
from services.tournament.core.model import (
    REINSTATE_FORMATS,
    FormatConfig,
    History,
    Table,
    TournamentError,
)
from services.tournament.core.multiplayer import pair_multiplayer
from services.tournament.core.progress import next_round_number
from services.tournament.core.roundrobin import pair_round_robin, round_robin_rounds
from services.tournament.core.swiss import pair_swiss

DEFAULT_MULTIPLAYER_ROUNDS = 3


def planned_rounds(config: FormatConfig, n_entrants: int) -> int:
    """How many rounds the event plays. Elimination: the rounds of the winners' bracket
    (single) or an upper bound (double: the actual count depends on the results)."""
    n = max(n_entrants, 1)
    if config.format == "round-robin":
        return round_robin_rounds(config, n) if n >= 2 else 0
    if config.format == "swiss":
        return config.rounds or max(1, math.ceil(math.log2(n)))
    if config.format == "multiplayer":
        return config.rounds or DEFAULT_MULTIPLAYER_ROUNDS
    return elimination_rounds(config, n)


LATE_ENTRY_FORMATS = ("swiss", "multiplayer")
"""The formats whose pairing takes late entries (a round robin's schedule and an
elimination bracket are fixed at the start)."""


def late_entries_refused(config: FormatConfig) -> str | None:
    """Why ``config`` takes no late entries at all (None when its format does): checked when
    a tournament is created with ``late_entry_until`` and when a late entry is added, so a
    late entry never reaches a pairing that would refuse the round."""
    if config.format in LATE_ENTRY_FORMATS:
        return None
    kind = "an elimination bracket" if config.is_elimination else f"a {config.format}"
    return f"{kind} takes no late entries (they join a Swiss or a multiplayer format)"


def reinstatement_refused(config: FormatConfig) -> str | None:
    """Why ``config`` reinstates no dropped player (None when its format does): only the
    formats that pair round by round (:data:`REINSTATE_FORMATS`) can pair a player again."""
    if config.format in REINSTATE_FORMATS:
        return None
    kind = "an elimination bracket" if config.is_elimination else f"a {config.format}"
    return (f"{kind} reinstates no dropped player (its schedule is fixed; a Swiss or a "
            "multiplayer event pairs a reinstated player again)")


def too_many_rounds(config: FormatConfig, n_entrants: int) -> str | None:
    """Why ``n_entrants`` cannot play the planned rounds of a Swiss without a rematch (None
    when they may): an even field meets every other player in n - 1 rounds, an odd one (a
    bye each) in n. With late entries allowed the field may still grow: not checked."""
    if config.format != "swiss" or config.late_entry_until or n_entrants < 2:
        return None
    most = n_entrants - 1 if n_entrants % 2 == 0 else n_entrants
    rounds = planned_rounds(config, n_entrants)
    if rounds <= most:
        return None
    return (f"a Swiss of {n_entrants} players has at most {most} "
            f"round{'' if most == 1 else 's'} without a rematch, not {rounds}")


def _rounds_complete(history: History) -> bool:
    if not history.rounds:
        return False
    last = history.rounds[-1]
    done = {r.table for r in last.results}
    return all(t.bye or t.number in done for t in last.tables)


def is_finished(config: FormatConfig, history: History) -> bool:
    if config.is_elimination:
        return champion(config, history) is not None
    played = len(history.rounds)
    return played >= planned_rounds(config, len(history.entrants)) and _rounds_complete(history)


def pair_next_round(config: FormatConfig, history: History) -> tuple[Table, ...]:
    """The tables of the next round, or :class:`TournamentError` with the reason."""
    if is_finished(config, history):
        raise TournamentError("the event is finished")
    number = next_round_number(history)
    if config.format == "swiss":
        return pair_swiss(config, history)
    if config.format == "round-robin":
        return pair_round_robin(config, history)
    if config.format == "multiplayer":
        return pair_multiplayer(config, history)
    if config.is_elimination:
        return pair_elimination(config, history)
    raise TournamentError(f"round {number}: unknown format {config.format!r}")


def bracket(config: FormatConfig, history: History) -> dict[str, Any]:
    """A JSON-able description of an elimination bracket (see ``elimination.describe``)."""
    if not config.is_elimination:
        raise TournamentError(f"{config.format} has no bracket")
    return describe(config, history)
