"""Broken answers of a rules service, for the tests of the readers of a match's export."""

from __future__ import annotations

from services.genproto.neon.rules.v1 import rules_pb2 as pb


def broken_answer(data: bytes, final: str, count: int, how: str) -> pb.ExportMatchResponse:
    """An ExportMatch answer of ``data`` naming ``final`` and ``count``, as ``how`` says:
    whole (any other word), or "cut" (the export stops halfway, its checkpoint gone),
    "cut to its records" (every record, no checkpoint), "empty", "another hash" or
    "another count" (the answer names another than its export's checkpoint)."""
    if how == "cut":
        data = data[:len(data) // 2]
    elif how == "cut to its records":
        data = data[:data.rstrip(b"\n").rfind(b"\n") + 1]
    elif how == "empty":
        data = b""
    elif how == "another hash":
        final = "0" * 64
    elif how == "another count":
        count += 1
    return pb.ExportMatchResponse(export_jsonl=data, final_hash=final, event_count=count)
