"""A finished match for the browser: the export's verification and a public step-through.

The verification is the project's own (``rules.verify.verify_export``: chain, signature,
seed, draws, rules replay). The step-through folds the records with ``rules.replay.step`` and
keeps, per event, only what a spectator may see: the record as ``records.project`` shows it to
nobody in particular, its words, and the engine's spectator view after it. The export itself
(hands, deck orders, draws) never goes back to the browser.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from services.rules import records as rec
from services.rules.export import parse_export
from services.rules.games import load_engine, load_presentation
from services.rules.replay import Replayed, ReplayError, step
from services.rules.verify import SIGNATURE_CHECK, engine_at, replay_key, verify_export

MAX_EXPORT_BYTES = 32 * 1024 * 1024
MAX_FOREIGN_EVENTS = 3000
"""The most events of an export this deployment did not sign that are stepped through. A
step and a spectator view per event cost far more than reading the upload (the answer holds
a view per frame), and anyone can make and sign a long export of their own; real matches are
a few hundred events (the longest fixtures, Neon Knights races, about 540)."""


HIDDEN_REASON = ("does not verify here, and the reason may name hidden values (draws, hands), "
                 "so it is not shown; an organiser sees it with neon export and neon verify")
"""What a replay fetched from the services says in place of a reason that may carry hidden
values."""

_SHOWN = re.compile(
    r"(the match is not sealed: .*"
    r"|checkpoint: .*"
    r"|not stepped through: .*"
    r"|the export does not start with MatchCreated"
    r"|cannot replay this game here: .*"
    r"|exported with engine \S+, replayed with \S+"
    r"|signature checked with the key in the file; pass --public-key to pin it"
    r"|dev seed: the draws come from a seed shared by every match .*"
    r"|event \d+: (replayed state hash differs from the stored one"
    r"|stored outcome differs from the replayed outcome"
    r"|MatchEnded but the replayed match is not over"
    r"|MatchSealed is not the last record"
    r"|the seal reveals no seed"
    r"|the revealed seed does not match the commitment"
    r"|hash does not match its content"
    r"|previous hash does not match event \d+"
    r"|the export does not start with MatchCreated))",
    re.DOTALL,
)
"""Reasons (verify's and the step-through's) that hold no value of the match's records: shown
as they are. Every other one may quote one (a draw mismatch lists up to 8 draw results, the
deck order of a shuffle; an engine's reason for an illegal action names cards; an exception's
text holds the value it choked on)."""

_EARLIER_ENGINE = re.compile(
    r"(event \d+): .*: (engine events and decisions of engine \S+ as an earlier release "
    r"wrote them, not checked \(only those of the current engine, \S+, are\))", re.DOTALL)
"""verify's warning for a match of an earlier engine version: the event, the difference the
replay found there (the kinds and count of engine events, hidden ones included), and what
was not checked."""


def public_reason(text: str) -> str:
    """``text`` (a verification failure or warning, or why a step-through stopped) as anyone
    may read it: as it is when it holds no value of the records (:data:`_SHOWN`), else its
    event (``event N``) and :data:`HIDDEN_REASON`. For a replay fetched from the services
    (anyone may ask for any finished match's), never for an upload (whoever sent it holds
    the export)."""
    if not text or _SHOWN.fullmatch(text):
        return text
    earlier = _EARLIER_ENGINE.fullmatch(text)
    if earlier:
        return f"{earlier.group(1)}: {earlier.group(2)}"
    event = re.match(r"event \d+(?=: )", text)
    return f"{event.group(0)}: {HIDDEN_REASON}" if event else HIDDEN_REASON


def _texts(present: Any, record: dict[str, Any]) -> list[str]:
    out = []
    for event in record.get("events", []):
        try:
            out.append(str(present.describe_event(event, None)) if present else event["kind"])
        except Exception:  # words are a courtesy: never fail a replay for them
            out.append(str(event.get("kind", "")))
    return out


def public_frames(
    data: bytes, step_through: bool = True
) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    """(match facts, one frame per event as a spectator sees it, the error that stopped the
    step-through or ""). Without ``step_through``, the facts only."""
    try:
        records, _ = parse_export(data)
    except Exception as err:  # not an export at all: say so, do not fail the request
        return {}, [], f"not a match export: {err}"
    if not records or records[0].get("type") != "MatchCreated":
        return {}, [], "the export does not start with MatchCreated"
    created = records[0]
    players = created.get("players")
    facts = {
        "match_id": str(created.get("match_id", "")),
        "game_id": str(created.get("game", "")),
        "mode": str(created.get("mode", "")),
        "seats": created.get("seats"),
        "players": [str(p) for p in players] if isinstance(players, list) else [],
    }
    if not step_through:
        return facts, [], ""
    try:
        engine = engine_at(load_engine(facts["game_id"]), str(created.get("engine_version")))
    except (KeyError, ModuleNotFoundError) as err:
        return facts, [], f"cannot replay this game here: {err}"
    present = load_presentation(facts["game_id"])
    try:
        key = replay_key(records)  # keyed state hashes: the key comes from the revealed seed
    except ValueError as err:
        return facts, [], str(err)
    replayed = Replayed(key=key)
    frames: list[dict[str, Any]] = []
    for record in records:
        try:
            step(engine, replayed, record)
        except ReplayError as err:
            return facts, frames, str(err)
        try:  # verify does not read events (descriptions for people); shown, they must fit
            public = rec.project(record, None)
        except (KeyError, TypeError, AttributeError) as err:
            return facts, frames, f"event {record.get('n')}: cannot be shown ({type(err).__name__}: {err})"
        view = engine.view(replayed.state, None) if replayed.state is not None else None
        frames.append(
            {
                "n": record.get("n"),
                "type": record.get("type"),
                "seat": record.get("seat", -1),
                "text": _texts(present, public),
                "view": view,
                # as the public sees it (no campaign carry); an abandon's says abandoned
                "outcome": public.get("outcome") if record.get("type") == "MatchEnded" else None,
            }
        )
    return facts, frames, ""


def replay_report(data: bytes, public_key: str | Collection[str] | None = None,
                  foreign_events: int | None = None, fetched: bool = False) -> dict[str, Any]:
    """What the viewer shows for an export: verification, then the public frames.

    An export whose chain and checkpoint this deployment signed (``public_key``, when given:
    its key, or its keys across a rotation)
    is stepped through whole: a match of its own. Any other (another deployment's, a
    player's copy, or a self-made one) is stepped through too, as far as its records let a
    replay go, but only up to ``foreign_events`` (:data:`MAX_FOREIGN_EVENTS`) events: a
    step and a spectator view per event would otherwise let an anonymous upload of up to
    MAX_EXPORT_BYTES buy minutes of CPU and a huge answer. Its verification says what does
    not hold (a foreign signature stops it at once, before any rules replay).

    ``fetched``: the export came from the services, not from the caller (who then does not
    hold it): the failure, the warnings and why the step-through stopped are
    :func:`public_reason`'s, never a hidden value they may quote."""
    report = verify_export(data, public_key=public_key)
    limit = MAX_FOREIGN_EVENTS if foreign_events is None else foreign_events
    step_through, why = True, ""
    if SIGNATURE_CHECK not in report.checks:
        events = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
        if events > limit:
            step_through = False
            why = (f"not stepped through: an export this deployment did not sign is stepped "
                   f"through up to {limit:,} events, and this one has {events:,} lines; check "
                   "it with neon verify")
    facts, frames, stopped = public_frames(data, step_through=step_through)
    stopped = why or stopped
    failure, warnings = report.failure, report.warnings
    if fetched:
        failure, stopped = public_reason(failure), public_reason(stopped)
        warnings = [public_reason(w) for w in warnings]
    return {
        **facts,
        "verification": {
            "ok": report.ok,
            "checks": report.checks,
            "failure": failure,
            "warnings": warnings,
            "events": report.events,
            "public_key_pinned": bool(public_key),
        },
        "frames": frames,
        "stopped": stopped,
    }
