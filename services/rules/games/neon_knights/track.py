"""The race track: 8 tiles plus the finish line as one grid of rows of 3 lanes.

Rows are numbered from 0 at the first tile; the starting grid sits on rows -1, -2, -3
before it (spot 1 at the front). Entering the finish line's row is crossing it.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from .content import FINISH_TILE, LANES, TILES


def rows_of(tiles: list[str]) -> list[dict[str, Any]]:
    """The track's rows (shared and cached: read them, never change them)."""
    return _rows(tuple(tiles))


def rows_json(tiles: list[str]) -> str:
    return _rows_text(tuple(tiles))


@lru_cache(maxsize=256)
def _rows(tiles: tuple[str, ...]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for tile in [*tiles, FINISH_TILE["id"]]:
        data = FINISH_TILE if tile == FINISH_TILE["id"] else TILES[tile]
        rows.extend({**row, "tile": tile} for row in data["rows"])
    return rows


@lru_cache(maxsize=256)
def _rows_text(tiles: tuple[str, ...]) -> str:
    return json.dumps(_rows(tiles))


def finish_row(rows: list[dict[str, Any]]) -> int:
    return len(rows) - 1


def grid_spot(spot: int) -> tuple[int, int]:
    """Row and lane of a starting-grid spot (1-based): two cars a row, spot 1 in front."""
    return -((spot + 1) // 2), 0 if spot % 2 else 2


def step_legal(rows: list[dict[str, Any]], row: int, lane: int, direction: int) -> str | None:
    """None when a step forward (0) or diagonal (-1 left, +1 right) is legal, else why not."""
    if direction not in (-1, 0, 1):
        return "you can only move forward or diagonally forward"
    if not 0 <= lane + direction < LANES:
        return "that would leave the track"
    if direction and row >= 0 and row + 1 < len(rows):
        here, there = rows[row].get("corner", 0), rows[row + 1].get("corner", 0)
        if here and here == there and direction == here:
            return "you cannot cut the corner"
    return None


def line_at(rows: list[dict[str, Any]], row: int, lane: int) -> str | None:
    """The colour of the danger line a car touches on entering (row, lane), if any."""
    if not 0 <= row < len(rows):
        return None
    line = rows[row].get("line")
    if line and lane in line["lanes"]:
        return str(line["colour"])
    return None


def cell_at(rows: list[dict[str, Any]], row: int, lane: int) -> str:
    if not 0 <= row < len(rows):
        return "."
    return str(rows[row]["cells"][lane])


ACTIVATES = {"W": "weapon", "S": "shield", "P": "special"}
