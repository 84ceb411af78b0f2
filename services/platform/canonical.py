"""Canonical JSON (RFC 8785) and the per-match hash chain."""

from __future__ import annotations

import hashlib
import hmac
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


STATE_KEY_DOMAIN = b"neon-arena/state-key/v1"
KEYED_SCHEME = "hmac-sha256/state-key/v1"
"""MatchCreated.state_hash_scheme of matches whose state hashes are keyed."""


def state_key(seed: bytes, stream_id: str) -> bytes:
    """The per-match key of hiding state hashes, derived from the dice seed.

    The seed's SHA-256 commitment, published at creation, commits to it; it is revealed
    with the seed at the seal, so anyone can then recheck every state hash.
    """
    return hmac.new(seed, STATE_KEY_DOMAIN + stream_id.encode(), hashlib.sha256).digest()


def keyed_state_hash(key: bytes, encoded_state: Any) -> str:
    """HMAC-SHA256 of the canonical state: reveals nothing of hidden parts without the key."""
    return hmac.new(key, canonical_json(encoded_state), hashlib.sha256).hexdigest()
