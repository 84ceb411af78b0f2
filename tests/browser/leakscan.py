"""Scan what the page received for hidden cards (tests/support/campaign/leaks.py).

From the match's export (after the end) the match is replayed; for every position the strings
of its hidden zones that the viewer (no one: a spectator; or the seat the page plays) may not
see yet are the secrets of that position. Every GetView, ListLegalActions and SubmitAction
answer and every WatchMatch frame the page received names its version, and must hold none of
that version's secrets (less what the viewer's events revealed by then, and a seat's own
actions, as in leaks.py); no message at all may hold a string that stayed hidden from the
first position to the last.
"""

from __future__ import annotations

import json
import struct
from typing import Any

from services.rules.export import parse_export
from services.rules.games import load_engine
from services.rules.records import project
from services.rules.replay import Replayed, step
from services.rules.verify import engine_at, state_key_of
from tests.support.campaign.leaks import found_in, secrets, strings


def secrets_by_version(export: bytes, viewer: int | None = None) -> tuple[dict[int, set[str]], set[str]]:
    records, _ = parse_export(export)
    game = str(records[0]["game"])
    engine = engine_at(load_engine(game), str(records[0].get("engine_version")))
    replayed = Replayed(key=state_key_of(records))
    by_version: dict[int, set[str]] = {}
    revealed: set[str] = set()
    for record in records:
        step(engine, replayed, record)
        revealed |= strings(project(record, viewer).get("events", []))
        if viewer is not None and record.get("seat") == viewer:
            revealed |= strings(record.get("action"))  # a seat knows what it did
        if replayed.state is not None:
            hidden = secrets(game, engine.encode(replayed.state), viewer)
            by_version[int(record["n"])] = hidden - revealed
        else:
            by_version[int(record["n"])] = set()
    started = [s for s in by_version.values() if s]
    always = set.intersection(*started) if started else set()
    return by_version, always


async def received_bodies(browser: Any) -> list[tuple[str, bytes]]:
    """(url, body) of every answer to a POST the page of ``browser`` (conftest.Browser) made."""
    out = []
    for response in browser.responses:
        if "/static/" in response.url or response.request.method != "POST":
            continue
        try:
            out.append((response.url, await response.body()))
        except Exception:  # a request the page aborted (a stream left for another match)
            continue
    return out


def stream_frames(body: bytes) -> list[dict[str, Any]]:
    frames, at = [], 0
    while at + 5 <= len(body):
        flags, length = struct.unpack_from(">BI", body, at)
        frames.append({"flags": flags, "message": json.loads(body[at + 5 : at + 5 + length])})
        at += 5 + length
    return frames


def _expanded(message: Any) -> Any:
    """The message with its *_json strings parsed, so their contents are scanned too."""
    if isinstance(message, dict):
        out = {}
        for key, value in message.items():
            if key.endswith("Json") and isinstance(value, str) and value:
                try:
                    value = json.loads(value)
                except ValueError:
                    pass
            out[key] = _expanded(value)
        return out
    if isinstance(message, list):
        return [_expanded(v) for v in message]
    return message


def scan(received: list[tuple[str, bytes]], export: bytes,
         viewer: int | None = None) -> tuple[list[str], int]:
    """(the leaks found, how many messages were checked) in (url, body) pairs the page got,
    as ``viewer`` (None: a spectator; else the seat whose token the page used) may see."""
    by_version, always = secrets_by_version(export, viewer)
    leaks: list[str] = []
    checked = 0

    def check(url: str, message: Any, version: int | None) -> None:
        nonlocal checked
        checked += 1
        message = _expanded(message)
        if version is not None and found_in(message, by_version.get(version, set())):
            leaks.append(f"{url} v{version}: {sorted(found_in(message, by_version[version]))}")
        if found_in(message, always):
            leaks.append(f"{url}: never-revealed {sorted(found_in(message, always))}")

    for url, body in received:
        if url.endswith("/WatchMatch"):
            for frame in stream_frames(body):
                event = frame["message"].get("event")
                check(url, frame["message"], int(event["version"]) if event else None)
        elif url.endswith(("/GetView", "/ListLegalActions", "/SubmitAction")) and body[:1] == b"{" \
                and "version" in json.loads(body):
            message = json.loads(body)
            version = int(message.get("version", 0))
            position = int(message.get("positionVersion", 0) or version)
            if url.endswith("/SubmitAction") and position != version:
                # a repeated command answered after the match moved on: its events are of
                # `version`, its view, decisions and clocks of `positionVersion`
                check(url, {"events": message.pop("events", [])}, version)
                version = position
            check(url, message, version)
        elif url.endswith("/replay"):
            for frame in json.loads(body).get("frames", []):
                check(url, frame, int(frame["n"]))
        elif body[:1] in (b"\x00", b"\x02"):  # another stream: WatchTicket, WatchMyMatches...
            for frame in stream_frames(body):
                check(url, frame["message"], None)
        elif not url.endswith("/GetGameInfo"):  # the content pack names every card there is
            try:
                check(url, json.loads(body), None)
            except ValueError:
                continue
    return leaks, checked
