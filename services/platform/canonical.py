"""Canonical JSON (RFC 8785) and the per-match hash chain."""

from __future__ import annotations

import hashlib
from typing import Any

import rfc8785

CHAIN_DOMAIN = "neon-arena/chain/v1"
GENESIS = "0" * 64


def canonical_json(value: Any) -> bytes:
    """RFC 8785 canonical bytes of a JSON value."""
    return rfc8785.dumps(value)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def state_hash(encoded_state: Any) -> str:
    return sha256_hex(canonical_json(encoded_state))


def chain_hash(match_id: str, n: int, previous: str, event: Any) -> str:
    """hash_n = SHA-256(domain tag, match id, n, hash_n-1, event), over canonical JSON."""
    return sha256_hex(canonical_json([CHAIN_DOMAIN, match_id, n, previous, event]))


KEYED_SCHEME = "hmac-sha256/state-key/v1"
"""MatchCreated.state_hash_scheme of matches whose state hashes are keyed
(services.platform.draws.state_key and keyed_state_hash)."""
