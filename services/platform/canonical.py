"""Canonical JSON (RFC 8785) and the per-match hash chain."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import orjson
import rfc8785

CHAIN_DOMAIN = "neon-arena/chain/v1"
GENESIS = "0" * 64


_compact = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"),
                            allow_nan=False).encode
_orjson_dumps = orjson.dumps
_SORTED = (orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
           | orjson.OPT_PASSTHROUGH_SUBCLASS)
"""Sorted keys; dataclasses, dates and subclasses of str, int, dict and list are handed to the
json module, which encodes (or refuses) them as it always did."""


def _compact_bytes(value: Any) -> bytes:
    """Compact JSON with sorted keys, as UTF-8: orjson (20-50 times faster than the json
    module), or the json module's C encoder for what orjson refuses (keys that are not
    strings, integers beyond 64 bits, tuple subclasses)."""
    try:
        return _orjson_dumps(value, option=_SORTED)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return _compact(value).encode()


def canonical_json(value: Any) -> bytes:
    """RFC 8785 canonical bytes of a JSON value.

    For JSON without floats whose text is ASCII (every engine state and match record in
    practice) RFC 8785 is exactly compact JSON with sorted keys: integers print as
    integers, ASCII keys sort the same by UTF-16 code units as by code points, and the
    escapes are the same. Those values take orjson (or the C json encoder); anything else
    (floats, non-ASCII text) takes the rfc8785 package. Property tests check they agree
    (tests/unit/test_canonical.py).
    """
    if _float_free(value):
        data = _compact_bytes(value)
        if data.isascii():
            return data
    return rfc8785.dumps(value)


def canonical_json_float_free(value: Any) -> bytes:
    """:func:`canonical_json` of a value its caller knows holds no float (nor NaN).

    For values parsed by a decoder that saw no float (``neon verify`` parses exports with
    one that notes any float it meets): skips the walk over the value that looks for
    floats. Non-ASCII text still takes the rfc8785 package.
    """
    data = _compact_bytes(value)
    if data.isascii():
        return data
    return rfc8785.dumps(value)


def _float_free(value: Any) -> bool:
    stack = [value]
    pop, push = stack.pop, stack.extend
    while stack:
        item = pop()
        kind = type(item)
        if kind is dict:
            push(item.values())
        elif kind is list or kind is tuple:
            push(item)
        elif kind is float:
            return False
    return True


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
