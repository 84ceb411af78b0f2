"""Single and double elimination (filled in below the first interface commit)."""

from __future__ import annotations

import math
from typing import Any

from services.tournament.core.model import FormatConfig, History, Table, TournamentError


def elimination_rounds(config: FormatConfig, n: int) -> int:
    k = max(1, math.ceil(math.log2(max(n, 2))))
    return k if config.format == "single-elimination" else 2 * k + 1


def champion(config: FormatConfig, history: History) -> str | None:
    return None


def pair_elimination(config: FormatConfig, history: History) -> tuple[Table, ...]:
    raise TournamentError("elimination pairing is not implemented yet")


def describe(config: FormatConfig, history: History) -> dict[str, Any]:
    raise TournamentError("elimination brackets are not implemented yet")
