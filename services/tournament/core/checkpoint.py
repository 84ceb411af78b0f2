"""Round checkpoints: what the organiser signs after each round.

The body::

    {"tournament_id": str, "round": int, "tree_size": int, "root": hex,
     "log_version": int, "log_head": hex}

``root`` is the RFC 9162 Merkle root over the round's sealed match hashes (raw bytes of
each hex hash, in table order); ``tree_size`` their number; ``log_version`` the number of
events in the tournament's own log when the checkpoint was made and ``log_head`` the
head of that log's hash chain (:func:`log_head`). The body is signed with Ed25519 under
its own domain tag through ``services.platform.signed`` (so a checkpoint signature can
never pass for a match result or an export checkpoint made with the same key).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.platform.canonical import canonical_json
from services.platform.signed import Untrusted, open_signed, seal
from services.tournament.core import merkle

CHECKPOINT_KIND = "TournamentCheckpoint"
CHECKPOINT_FIELD = "checkpoint"
CHECKPOINT_DOMAIN = "neon-arena/tournament-checkpoint/v1"
LOG_DOMAIN = "neon-arena/tournament-log/v1"
GENESIS = "0" * 64
FIELDS = {
    "tournament_id": str,
    "round": int,
    "tree_size": int,
    "root": str,
    "log_version": int,
    "log_head": str,
}


def log_link(previous: str, index: int, event: Mapping[str, Any]) -> str:
    """hash_n = SHA-256(domain, n, hash_n-1, event) over RFC 8785 canonical JSON."""
    return hashlib.sha256(canonical_json([LOG_DOMAIN, index, previous, event])).hexdigest()


def log_head(events: Sequence[Mapping[str, Any]]) -> str:
    """The head of the hash chain over a tournament's events (GENESIS for none)."""
    head = GENESIS
    for index, event in enumerate(events):
        head = log_link(head, index, event)
    return head


def leaves_of(match_hashes: Sequence[str]) -> list[bytes]:
    return [bytes.fromhex(h) for h in match_hashes]


def checkpoint_body(
    tournament_id: str,
    round_number: int,
    match_hashes: Sequence[str],
    log_version: int,
    head: str,
) -> dict[str, Any]:
    return {
        "tournament_id": tournament_id,
        "round": round_number,
        "tree_size": len(match_hashes),
        "root": merkle.root(leaves_of(match_hashes)).hex(),
        "log_version": log_version,
        "log_head": head,
    }


def sign_checkpoint(body: Mapping[str, Any], key: Ed25519PrivateKey) -> dict[str, Any]:
    _check_shape(body)
    return seal(CHECKPOINT_KIND, CHECKPOINT_FIELD, CHECKPOINT_DOMAIN, body, key)


def _check_shape(body: Mapping[str, Any]) -> None:
    for name, kind in FIELDS.items():
        value = body.get(name)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise Untrusted(f"checkpoint field {name} must be {kind.__name__}, not {value!r}")
    extra = sorted(set(body) - set(FIELDS))
    if extra:
        raise Untrusted(f"checkpoint has unknown field(s): {', '.join(extra)}")


def open_checkpoint(message: Mapping[str, Any], trusted_keys: Collection[str]) -> dict[str, Any]:
    """The body of a signed checkpoint, or ``Untrusted`` with the reason."""
    body = open_signed(message, CHECKPOINT_KIND, CHECKPOINT_FIELD, CHECKPOINT_DOMAIN, trusted_keys)
    _check_shape(body)
    return body


def verify_checkpoint(
    message: Mapping[str, Any],
    trusted_keys: Collection[str],
    *,
    tournament_id: str | None = None,
    round_number: int | None = None,
    match_hashes: Sequence[str] | None = None,
    events: Sequence[Mapping[str, Any]] | None = None,
) -> list[str]:
    """Every problem with a checkpoint (an empty list when it holds): its signature, and
    each of the facts given that it must agree with. ``events`` is the tournament's whole
    log: its first ``log_version`` events must chain to ``log_head``."""
    try:
        body = open_checkpoint(message, trusted_keys)
    except Untrusted as err:
        return [f"checkpoint: {err}"]
    where = f"round {body['round']} checkpoint"
    problems = []
    if tournament_id is not None and body["tournament_id"] != tournament_id:
        problems.append(f"{where}: for tournament {body['tournament_id']}, not {tournament_id}")
    if round_number is not None and body["round"] != round_number:
        problems.append(f"{where}: expected the checkpoint of round {round_number}")
    if match_hashes is not None:
        if body["tree_size"] != len(match_hashes):
            problems.append(
                f"{where}: covers {body['tree_size']} matches, the round has {len(match_hashes)}"
            )
        expected = merkle.root(leaves_of(match_hashes)).hex()
        if body["root"] != expected:
            problems.append(
                f"{where}: Merkle root {body['root'][:16]}... is not {expected[:16]}..."
            )
    if events is not None:
        if body["log_version"] > len(events):
            problems.append(
                f"{where}: signs {body['log_version']} log events, the log has {len(events)}"
            )
        elif log_head(events[: body["log_version"]]) != body["log_head"]:
            problems.append(
                f"{where}: the tournament log up to event {body['log_version']} "
                "does not chain to the signed head"
            )
    return problems


def verify_match_inclusion(
    match_hash: str, index: int, proof: Sequence[str], body: Mapping[str, Any]
) -> bool:
    """Does ``proof`` place the sealed match hash at ``index`` under the checkpoint?"""
    try:
        leaf = bytes.fromhex(match_hash)
        path = [bytes.fromhex(p) for p in proof]
        root = bytes.fromhex(body["root"])
    except (ValueError, TypeError, KeyError):
        return False
    return merkle.verify_inclusion(leaf, index, int(body["tree_size"]), path, root)


def inclusion_proofs(match_hashes: Sequence[str]) -> list[list[str]]:
    """The audit path of every match of a round, hex, in table order."""
    leaves = leaves_of(match_hashes)
    return [[h.hex() for h in merkle.inclusion_proof(leaves, i)] for i in range(len(leaves))]
