"""Audit export: JSON Lines of a match's records, closed by a signed checkpoint."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from services.platform.canonical import canonical_json
from services.platform.signing import public_key_hex, sign

CHECKPOINT = "Checkpoint"


def checkpoint_message(match_id: str, game: str, event_count: int, final_hash: str) -> bytes:
    return canonical_json({
        "domain": "neon-arena/checkpoint/v1", "match_id": match_id, "game": game,
        "event_count": event_count, "final_hash": final_hash,
    })


def build_export(match_id: str, game: str, records: list[dict[str, Any]], key: Any) -> bytes:
    final = records[-1]["hash"] if records else ""
    lines = [canonical_json(r) for r in records]
    checkpoint = {
        "type": CHECKPOINT, "match_id": match_id, "game": game, "event_count": len(records),
        "final_hash": final, "public_key": public_key_hex(key),
        "signature": sign(key, checkpoint_message(match_id, game, len(records), final)),
    }
    lines.append(canonical_json(checkpoint))
    return b"\n".join(lines) + b"\n"


def parse_export(data: bytes, loads: Callable[[bytes], Any] = json.loads
                 ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Split an export into records and checkpoint; ValueError names the bad line.

    ``loads`` parses one line (verify passes a decoder that notes any float it meets)."""
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = loads(line)
        except ValueError as err:
            raise ValueError(f"line {number} is not JSON: {err}") from None
        except RecursionError:  # the json module's parser recurses per level
            raise ValueError(f"line {number} is not JSON: nested too deeply") from None
        if not isinstance(row, dict):
            raise ValueError(f"line {number} is not a JSON object")
        rows.append(row)
    if not rows or rows[-1].get("type") != CHECKPOINT:
        raise ValueError("the export does not end with a checkpoint line")
    return rows[:-1], rows[-1]
