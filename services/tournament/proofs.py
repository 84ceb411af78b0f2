"""Round checkpoints and inclusion proofs, as the service stores and the bundle carries them.

The pure pieces are the core's (core/merkle.py, core/checkpoint.py): a round's leaves are
the final chain hashes of its sealed matches in table order; the checkpoint body names
the tournament, the round, the Merkle root (RFC 9162) and tree size, and the tournament
log's length and head, and is signed with the organiser's Ed25519 key under its own
domain tag. This module picks a stored round's leaves and signs the bundle's seal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.platform.signed import Untrusted, open_signed, seal
from services.tournament.core import checkpoint

BUNDLE_SEAL = "TournamentBundleSeal"
BUNDLE_SEAL_DOMAIN = "neon-arena/tournament-bundle/v1"


def round_leaves(rnd: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(match id, final hash) of every sealed match of a stored round, by table number."""
    out = []
    for table in sorted(rnd["tables"], key=lambda k: k["number"]):
        key = str(table["number"])
        if table["bye"] or key not in rnd["sealed"]:
            continue
        out.append((rnd["matches"][key]["match_id"], rnd["sealed"][key]["final_hash"]))
    return out


def round_checkpoint(tournament_id: str, number: int, leaves: Sequence[tuple[str, str]],
                     log_length: int, log_head: str, key: Any) -> dict[str, Any]:
    """The signed checkpoint message (core/checkpoint.py ``sign_checkpoint``)."""
    body = checkpoint.checkpoint_body(tournament_id, number, [h for _, h in leaves],
                                      log_length, log_head)
    return checkpoint.sign_checkpoint(body, key)


def body(message: Mapping[str, Any]) -> dict[str, Any]:
    """The body of a stored checkpoint message (not checked: see the verifier)."""
    return dict(message.get(checkpoint.CHECKPOINT_FIELD) or {})


def inclusion(final_hashes: Sequence[str], index: int) -> list[str]:
    return checkpoint.inclusion_proofs(final_hashes)[index]


def seal_bundle(data: Mapping[str, Any], key: Any) -> dict[str, Any]:
    return seal(BUNDLE_SEAL, "seal", BUNDLE_SEAL_DOMAIN, data, key)


def open_bundle_seal(message: Mapping[str, Any], key: str) -> dict[str, Any]:
    """The seal's body, or :class:`Untrusted`."""
    return open_signed(message, BUNDLE_SEAL, "seal", BUNDLE_SEAL_DOMAIN, [key])


__all__ = ["Untrusted", "body", "inclusion", "open_bundle_seal", "round_checkpoint",
           "round_leaves", "seal_bundle"]
