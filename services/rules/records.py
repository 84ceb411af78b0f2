"""Match log records: the JSON documents stored in each event, chained and projected.

Every event of a match carries one record, a JSON object with ``type``, ``n`` (its
1-based position), ``prev`` (the previous chain hash) and ``hash``:
``hash = chain_hash(match_id, n, prev, record without "hash")``. Types:

MatchCreated
    game, mode, seats, options, players, engine and content versions, dice stream id
    and commitment; ``created_by``, who called CreateMatch: ``{"role": "organiser" or
    "service", "name": the token's player claim}`` (never a token; records written before
    it was recorded have none). Not projected: seats and spectators are not shown it.
MatchStarted
    client seeds, the set-up draws, the engine events of the set-up, state hash.
ActionAccepted
    seat, command id, action, decision kind, whether the decision was hidden, the
    draws it used, engine events, state hash.
MatchEnded
    outcome (placements, scores, breakdown), players. A match an organiser abandoned
    (AbandonMatch) ends with the outcome of :func:`abandoned_outcome`: ``abandoned: true``,
    the reason, who (the caller's player id), and no result (empty placements and scores);
    the engine's state is then not over. Scoring and tournaments take no result from it.
    ``created_by``, copied from MatchCreated when it has one (so the signed result, made
    from this record alone, carries it to scoring; verify checks that both say the same).
    ``no_move_seats`` (a played end's, none on an abandon's or on ends written before
    it): the seats that never made a move of their own (rules/noshow.py; public).
    ``dev_seed``: ``true`` when the match drew from a dev seed (MatchCreated's dice
    ``dev``: a seed shared by every match given that dev seed on the deployment), so that
    the signed result says so and scoring leaves it unrated; absent on every other match
    and on ends written before it (public: MatchCreated's dice show it anyway).
MatchSealed
    the revealed dice seed (checked against the commitment by verify).

A record that holds something ``project`` withholds from some viewer (a hidden action,
draws, private events, a campaign's carry) also holds ``blind``: 128 random bits, never
projected. Every viewer receives each record's chain hash; without the blind a seat could
recompute it for each guess of what was withheld (command ids are guessable) and learn a
face-down choice. Exports keep it, so verify recomputes the chain as before.
"""

from __future__ import annotations

import copy
import json
import secrets
from collections.abc import Callable, Mapping
from typing import Any

from services.platform.canonical import GENESIS, chain_hash

TYPES = ("MatchCreated", "MatchStarted", "ActionAccepted", "MatchEnded", "MatchSealed")
MAX_REASON = 500
"""Characters of an abandon's reason kept (as a tournament's ForceEnd keeps)."""


def abandoned_outcome(reason: str, by: str) -> dict[str, Any]:
    """The outcome of a MatchEnded that abandons a match: no placements, no scores, no
    winner; the keys of a normal outcome are all there (empty), so a reader that indexes
    ``placements`` finds a list, and a result reader that needs one finds none."""
    return {"abandoned": True, "reason": reason, "by": by, "placements": [], "scores": [],
            "draw": False, "breakdown": {}, "teams": []}


def is_abandoned(outcome: Any) -> bool:
    """Whether an outcome (a MatchEnded's, or a public one) is an abandon's."""
    return isinstance(outcome, Mapping) and outcome.get("abandoned") is True


def creator_field(created: Mapping[str, Any]) -> dict[str, Any]:
    """``{"created_by": ...}`` of a MatchCreated record that has one, else ``{}``: what a
    MatchEnded repeats of it."""
    return {"created_by": copy.deepcopy(created["created_by"])} if "created_by" in created else {}


DEV_SEED = "dev_seed"
"""MatchEnded's field saying the match drew from a dev seed (:func:`dev_seed_field`)."""


def dev_seed_field(created: Mapping[str, Any]) -> dict[str, Any]:
    """``{"dev_seed": True}`` when MatchCreated's dice say ``dev``, else ``{}``: what a
    MatchEnded says of it (the ends of other matches stay byte for byte as they were)."""
    dice = created.get("dice")
    return {DEV_SEED: True} if isinstance(dice, Mapping) and dice.get("dev") is True else {}


MAX_COMMAND_ID = 128
"""The longest command id the rules host takes (every release), and verify checks."""
SERVICE_COMMANDS = {"timeout:": ("timeout", True), "forfeit:": ("timeout", "forfeit"),
                    "bot:": ("by", "bot")}
"""The host's own actions: the prefix of the command id it gives one (``timeout:N``, N the
record's position) and the field that marks the record as one (``RulesHost._act``'s
``extra``). Clients may not take these prefixes (the host refuses them); verify checks them."""


def seal_record(match_id: str, n: int, prev: str, body: dict[str, Any]) -> dict[str, Any]:
    """Give a record its position and chain hash."""
    record = {**body, "match_id": match_id, "n": n, "prev": prev}
    record["hash"] = chain_hash(match_id, n, prev, record)
    return record


def check_chain(
    match_id: str,
    records: list[dict[str, Any]],
    hash_of: Callable[[str, int, str, dict[str, Any]], str] = chain_hash,
) -> str | None:
    """``None`` if the chain holds, else the first problem in words. ``hash_of`` is
    ``chain_hash`` or one that gives the same hashes faster for records known to hold no
    float (verify's)."""
    prev = GENESIS
    for index, record in enumerate(records, start=1):
        if record.get("match_id") != match_id:
            return f"event {index}: belongs to match {record.get('match_id')!r}, not {match_id!r}"
        n = record.get("n")
        if type(n) is not int or n != index:  # as written: true (== 1) or 2.0 is no position
            return f"event {index}: position is {json.dumps(n, default=str)}, expected {index}"
        if record.get("prev") != prev:
            return f"event {index}: previous hash does not match event {index - 1}"
        body = record.copy()  # the record without its hash, in the same order
        body.pop("hash", None)
        if hash_of(match_id, index, prev, body) != record.get("hash"):
            return f"event {index}: hash does not match its content"
        prev = record["hash"]
    return None


def head(records: list[dict[str, Any]]) -> str:
    return records[-1]["hash"] if records else GENESIS


def withholds(body: dict[str, Any]) -> bool:
    """Whether ``project`` withholds part of this record from some viewer (so its chain
    hash needs a blind)."""
    if body.get("hidden") or body.get("draws"):
        return True
    if any(e.get("visible_to") is not None for e in body.get("events", ())):
        return True
    if body.get("campaign"):  # MatchCreated: the table carried from the match before
        return True
    outcome = body.get("outcome")
    return isinstance(outcome, dict) and "carry" in outcome


def blinded(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with a fresh ``blind`` when it :func:`withholds` something, else as it is:
    what the rules service seals (never the records of tests or self-play, which stay
    reproducible)."""
    return {**body, "blind": secrets.token_hex(16)} if withholds(body) else body


def _visible(event: dict[str, Any], viewer: int | None) -> bool:
    seen = event.get("visible_to")
    return seen is None or (viewer is not None and viewer in seen)


def public_outcome(outcome: dict[str, Any] | None) -> dict[str, Any] | None:
    """An outcome as seats and the public get it: without ``carry``, which holds a campaign's
    whole table for its next match (hands and other hidden zones); only the export and the
    rules service creating the next match read it."""
    if outcome is None or "carry" not in outcome:
        return outcome
    return {k: v for k, v in outcome.items() if k != "carry"}


def project(record: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """The record as ``viewer`` may see it (a seat, or ``None`` for the public).

    Draws never leave (they would reveal deck orders); the action of a hidden
    decision reaches only its own seat; engine events only where visible; the state
    hash only to seats (it is an organiser's audit value, see RULES of hiding).
    """
    kind = record["type"]
    out: dict[str, Any] = {
        "type": kind, "match_id": record["match_id"], "n": record["n"], "hash": record["hash"],
    }
    if kind == "MatchCreated":
        for key in ("game", "mode", "seats", "options", "players", "engine_version",
                    "content_version", "dice"):
            out[key] = copy.deepcopy(record.get(key))
    elif kind in ("MatchStarted", "ActionAccepted"):
        out["events"] = [
            {"kind": e["kind"], "data": e["data"]}
            for e in record.get("events", []) if _visible(e, viewer)
        ]
        if kind == "ActionAccepted":
            out["seat"] = record["seat"]
            out["decision"] = record.get("decision", "")
            if not record.get("hidden") or viewer == record["seat"]:
                out["action"] = copy.deepcopy(record["action"])
            for field, _ in SERVICE_COMMANDS.values():  # the clock acted: public, as clocks are
                if field in record:
                    out[field] = record[field]
        if viewer is not None:
            out["state_hash"] = record.get("state_hash", "")
    elif kind == "MatchEnded":
        out["outcome"] = copy.deepcopy(public_outcome(record["outcome"]))
        out["players"] = list(record.get("players", []))
        out["mode"] = record.get("mode", "")
        if "no_move_seats" in record:  # public: the clocks show timeouts and bots anyway
            out["no_move_seats"] = copy.deepcopy(record["no_move_seats"])
        if DEV_SEED in record:  # public: MatchCreated's projected dice say it too
            out[DEV_SEED] = copy.deepcopy(record[DEV_SEED])
    elif kind == "MatchSealed":
        out["seed"] = record["seed"]
        out["commitment"] = record["commitment"]
    return out


def engine_events_json(events: Any) -> list[dict[str, Any]]:
    return [
        {
            "kind": e.kind,
            "data": copy.deepcopy(dict(e.data)),
            "visible_to": None if e.visible_to is None else sorted(e.visible_to),
        }
        for e in events
    ]
