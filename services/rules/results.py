"""Signed match results: what the rules service publishes on ``neon.events.results.>``.

The public MatchEnded record (records.project for the public, plus ``game``, plus the
record's ``created_by`` when it has one: who created the match, ``{"role", "name"}``; results
of matches created before it was recorded have none) goes out wrapped in a signed message (platform/signed.py) made with the rules service's signing
key, so that scoring and tournaments act only on results a rules service produced::

    {"type": "SignedResult", "version": 1, "result": {...public MatchEnded...},
     "key": "<public key hex>", "signature": "<hex of Ed25519 over
      RFC 8785 canonical JSON of ["neon-arena/result/v1", result]>"}

Pure code: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.platform.signed import RESULT_DOMAIN, SIGNED_RESULT, seal


def sign_result(result: Mapping[str, Any], key: Ed25519PrivateKey) -> dict[str, Any]:
    """The signed result message of a public MatchEnded record (with its ``game``)."""
    if result.get("type") != "MatchEnded":
        raise ValueError(f"only a MatchEnded record is a result, not {result.get('type')!r}")
    return seal(SIGNED_RESULT, "result", RESULT_DOMAIN, result, key)
