"""Writing a rules service's snapshot rows straight into its SQLite store, as an attacker or a
corrupt disk would (tests of what a rebuild does with them)."""

from __future__ import annotations

from typing import Any

from services.rules.matchlog import snapshot_uuid


def upsert_snapshot_row(app: Any, match_id: str, version: int, topic: str, state: bytes) -> None:
    """The snapshot row of ``version`` of the match (``topic`` and stored ``state``), replacing
    the service's own when there is one."""
    table = app.recorder.events_table_name
    row = (topic, state, snapshot_uuid(match_id).hex, version)
    with app.recorder.datastore.transaction(commit=True) as cursor:
        cursor.execute(f"UPDATE {table} SET topic = ?, state = ? WHERE originator_id = ?"
                       " AND originator_version = ?", row)
        if cursor.sqlite_cursor.rowcount == 0:
            cursor.execute(f"INSERT INTO {table} (topic, state, originator_id,"
                           " originator_version) VALUES (?, ?, ?, ?)", row)
