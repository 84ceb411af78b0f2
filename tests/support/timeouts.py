"""Match logs in which seats run out of time: what ``neon verify`` checks a timeout against.

A turn clock answers a seat that runs out of time with its decision's ``default`` and the
rules host records the action marked as a timeout; the replay (``replay._check_timeout``)
checks that the action is the default of the seat's owed decision in the replayed state. A
default drawn by the engine (kept in its hidden state) must so come out the same on replay.
``timed_out_log`` plays a seeded game in-process, offline, and writes the records the host
would: every decision of the kinds given is answered by its default and marked as a timeout.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from services.platform.canonical import sha256_hex
from services.platform.draws import SeededRandomness
from services.rules import records as rec
from services.rules.games.contract import MatchConfig, canonical_state, setup_transition


def timed_out_log(engine: Any, game: str, config: MatchConfig, seed: str,
                  timed_out: Callable[[Any], bool],
                  choose: Callable[[Any, Any], Any] | None = None,
                  late: Callable[[Any, Any], Any] | None = None,
                  limit: int = 4000) -> tuple[list[dict[str, Any]], int]:
    """The records of one game (plain state hashes, no seal) and how many timeouts it has:
    each owed decision for which ``timed_out(decision)`` holds is answered by its default
    with ``"timeout": true`` (or by ``late(state, decision)``: a log whose timeouts applied
    something else, which verify must refuse); the others by ``choose(state, decision)``
    (default: the first legal answer)."""
    def rng() -> SeededRandomness:  # the draws of one step, recorded as the host does
        return SeededRandomness(f"timeouts:{seed}:{len(records)}")

    match_id = f"timeouts-{game}-{seed}"
    records: list[dict[str, Any]] = []

    def add(body: dict[str, Any]) -> None:
        records.append(rec.seal_record(match_id, len(records) + 1, rec.head(records), body))

    add({"type": "MatchCreated", "match_id": match_id, "game": game, "mode": config.mode,
         "seats": config.seats, "options": dict(config.options),
         "engine_version": engine.engine_version})
    r = rng()
    state = setup_transition(engine, config, r).state
    add({"type": "MatchStarted", "draws": [d.to_json() for d in r.records],
         "state_hash": sha256_hex(canonical_state(engine, state))})
    timeouts = 0
    for _ in range(limit):
        pending = engine.pending(state)
        if not pending:
            break
        decision = pending[0]
        expired = timed_out(decision)
        if expired:
            action = decision.default if late is None else late(state, decision)
            timeouts += 1
        else:
            action = choose(state, decision) if choose is not None else decision.legal[0]
        action = json.loads(json.dumps(action))
        r = rng()
        transition = engine.apply(state, decision.seat, action, r)
        state = transition.state
        body: dict[str, Any] = {
            "type": "ActionAccepted", "seat": decision.seat, "command_id": f"c{len(records)}",
            "action": action, "decision": decision.kind, "hidden": decision.hidden,
            "draws": [d.to_json() for d in r.records],
            "state_hash": sha256_hex(canonical_state(engine, state))}
        if expired:
            body["timeout"] = True
        add(body)
    return records, timeouts
