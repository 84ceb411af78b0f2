"""Round checkpoints: a Merkle root over a round's sealed match hashes, signed with the log.

A round's leaves are the final chain hashes of its matches (32 bytes each), in table
order. The checkpoint signs, with the organiser's Ed25519 key, the tournament id, the
round, the Merkle root (RFC 9162), the number of leaves and the match id of each leaf,
and the tournament log's length and head hash at that moment. An inclusion proof shows
that one match's final hash is leaf ``index`` of the round's tree.

Pure code: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.platform.canonical import canonical_json
from services.platform.signing import public_key_hex, sign, verify

try:
    from services.tournament.core import merkle
except ImportError:  # until the core has its own
    from services.tournament import _merkle as merkle  # type: ignore[no-redef]

CHECKPOINT_DOMAIN = "neon-arena/tournament-checkpoint/v1"
BUNDLE_DOMAIN = "neon-arena/tournament-bundle/v1"


def round_leaves(rnd: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(match id, final hash) of every sealed match of a stored round, by table number."""
    out = []
    for table in sorted(rnd["tables"], key=lambda k: k["number"]):
        key = str(table["number"])
        if table["bye"] or key not in rnd["sealed"]:
            continue
        out.append((rnd["matches"][key]["match_id"], rnd["sealed"][key]["final_hash"]))
    return out


def leaf_bytes(final_hash: str) -> bytes:
    return bytes.fromhex(final_hash)


def root_hex(final_hashes: Sequence[str]) -> str:
    return merkle.root([leaf_bytes(h) for h in final_hashes]).hex()


def inclusion(final_hashes: Sequence[str], index: int) -> list[str]:
    return [h.hex() for h in merkle.inclusion_proof([leaf_bytes(h) for h in final_hashes], index)]


def check_inclusion(
    final_hash: str, index: int, size: int, proof: Sequence[str], root: str
) -> bool:
    try:
        return merkle.verify_inclusion(
            leaf_bytes(final_hash),
            index,
            size,
            [bytes.fromhex(p) for p in proof],
            bytes.fromhex(root),
        )
    except (ValueError, IndexError):
        return False


def checkpoint_body(
    tournament_id: str,
    number: int,
    leaves: Sequence[tuple[str, str]],
    log_length: int,
    log_head: str,
) -> dict[str, Any]:
    return {
        "domain": CHECKPOINT_DOMAIN,
        "tournament_id": tournament_id,
        "round": number,
        "merkle_root": root_hex([h for _, h in leaves]) if leaves else "",
        "leaves": len(leaves),
        "matches": [m for m, _ in leaves],
        "log_length": log_length,
        "log_head": log_head,
    }


def round_checkpoint(
    tournament_id: str,
    number: int,
    leaves: Sequence[tuple[str, str]],
    log_length: int,
    log_head: str,
    key: Any,
) -> dict[str, Any]:
    body = checkpoint_body(tournament_id, number, leaves, log_length, log_head)
    return {**body, "public_key": public_key_hex(key), "signature": sign(key, canonical_json(body))}


def check_signature(checkpoint: Mapping[str, Any]) -> bool:
    body = {k: v for k, v in checkpoint.items() if k not in ("public_key", "signature")}
    return verify(
        str(checkpoint.get("public_key", "")),
        canonical_json(body),
        str(checkpoint.get("signature", "")),
    )


def sign_body(body: Mapping[str, Any], key: Any) -> dict[str, Any]:
    return {
        **body,
        "public_key": public_key_hex(key),
        "signature": sign(key, canonical_json(dict(body))),
    }
