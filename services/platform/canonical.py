"""Canonical JSON (RFC 8785) and the per-match hash chain."""

from __future__ import annotations

import gc
import hashlib
import json
from collections import deque
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


def canonical_fast(value: Any) -> bytes | None:
    """:func:`canonical_json` of ``value`` when it takes the fast path through orjson
    (float-free, encoded by orjson, ASCII), else ``None``: the caller then takes
    :func:`canonical_json` of the whole value it is part of.

    Bytes from here may be embedded in a larger value as an ``orjson.Fragment``
    (:class:`CanonicalMemo`): orjson writes every member of an object or array
    independently of what surrounds it, so a value whose parts are all on the fast path
    encodes, fragments spliced in, to the bytes orjson gives for the whole, which is
    :func:`canonical_json` of the whole (tests/unit/test_canonical_state.py checks states
    of real games against the reference path).
    """
    if not _float_free(value):
        return None
    try:
        data = _orjson_dumps(value, option=_SORTED)
    except TypeError:
        return None
    return data if data.isascii() else None


_SCALAR_TYPES = frozenset({str, int, bool, type(None)})


def plain_scalars(values: Any) -> bool:
    """Every one of ``values`` is exactly a str, int, bool or None (no float, no subclass),
    in one pass in C. A value built only of such scalars, of lists and dicts of them and of
    fragments from :class:`CanonicalMemo` holds no float: :func:`canonical_checked` of it
    is :func:`canonical_json` of it."""
    return set(map(type, values)) <= _SCALAR_TYPES


def canonical_checked(value: Any) -> bytes | None:
    """:func:`canonical_fast` of a value its caller has shown to hold no float (every leaf
    put into it passed :func:`plain_scalars`, every fragment came from a
    :class:`CanonicalMemo`): orjson's bytes when orjson encodes it and they are ASCII, else
    ``None``."""
    try:
        data = _orjson_dumps(value, option=_SORTED)
    except TypeError:
        return None
    return data if data.isascii() else None


class NotFast(Exception):  # noqa: N818 - a signal to take the reference path, not a failure
    """A part of a value is not on :func:`canonical_fast`'s path (a float, non-ASCII text,
    something orjson refuses): the caller encodes the whole value with :func:`canonical_json`."""


Fragment = orjson.Fragment


class IdentityMemo(dict[int, tuple[Any, Any]]):
    """Values remembered by the identity of the immutable objects they were made from, the
    newest ``limit`` kept and the oldest dropped first.

    An entry is ``id(obj) -> (obj, value)``: it holds the object, so an identity is never
    reused while it is remembered. Look up with ``memo.get(id(obj))`` (a plain dict lookup,
    for hot paths) and check ``hit[0] is obj``; add with :meth:`remember`. The keys are
    kept oldest first in a deque (a dict's oldest key would be found by scanning past the
    entries deleted before it). Small by default: the parts a step shares are those of the
    last few states, while thousands of dead states held cost more in memory traffic than
    the rare hit they give. Only for objects that are never mutated after they are shared.
    """

    __slots__ = ("limit", "_order")

    def __init__(self, limit: int = 64) -> None:
        super().__init__()
        self.limit = limit
        self._order: deque[int] = deque()  # the keys, oldest first

    def remember(self, obj: Any, value: Any) -> Any:
        """Remember ``value`` for ``obj`` (not remembered yet), dropping the oldest entry
        past the limit; returns ``value``."""
        order = self._order
        if len(order) >= self.limit:
            # gone already when two threads both remembered one object (its key is in the
            # deque twice): then a miss, not a KeyError
            self.pop(order.popleft(), None)
        key = id(obj)
        self[key] = (obj, value)
        order.append(key)
        return value

    def clear(self) -> None:
        super().clear()
        self._order.clear()


class CanonicalMemo:
    """Canonical bytes of immutable objects (frozen dataclasses, tuples), remembered by
    identity, as ``orjson.Fragment`` to splice into the encoding of what holds them.

    An engine's states share their unchanged parts between steps (a fighter, a side, a
    deck tuple that did not change is the same object), so each part is encoded once
    instead of at every step. ``encode`` turns the object into its JSON value (the
    engine's own encoder of that part); :meth:`__call__` raises :class:`NotFast` when that
    value is not on :func:`canonical_fast`'s path. The bytes are kept in an
    :class:`IdentityMemo` of ``limit`` entries.
    """

    __slots__ = ("_encode", "_memo")

    def __init__(self, encode: Any, limit: int = 64) -> None:
        self._encode = encode
        self._memo = IdentityMemo(limit)

    def __call__(self, obj: Any) -> Any:
        hit = self._memo.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        data = canonical_fast(self._encode(obj))
        if data is None:
            raise NotFast
        return self._memo.remember(obj, Fragment(data))


_PLAIN = frozenset({dict, list, tuple, str, int, bool, type(None), orjson.Fragment})
_referents = gc.get_referents


def float_free(value: Any) -> bool:
    """No float among the values of dicts and the items of lists and tuples, at any depth.

    Walks the value a level at a time in C: ``gc.get_referents`` of a level's containers
    gives their items (and a dict's values; a str-keyed dict only those, any other its keys
    too), strs, ints, bools and None give nothing. While every object met is of a plain
    JSON type (exactly: no subclass, no float) the value holds no float; the first level
    holding anything else (a float, a subclass, any other object) and values deeper than
    64 levels take :func:`_float_free_walk`, the walk in Python, which decides. So both
    always agree (tests/unit/test_canonical.py checks them on hypothesis values).
    """
    level = [value]
    for _ in range(64):
        if not set(map(type, level)) <= _PLAIN:
            return _float_free_walk(value)
        level = _referents(*level)
        if not level:
            return True
    return _float_free_walk(value)


_float_free = float_free


def _float_free_walk(value: Any) -> bool:
    """The definition of :func:`_float_free`: no float (exactly ``float``) among the values
    of dicts and the items of lists and tuples, at any depth."""
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
