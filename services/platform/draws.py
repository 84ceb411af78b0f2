"""Verifiable random draws: the one algorithm the dice service, replay and verify share.

Block ``n`` of a match is ``HMAC-SHA256(server_seed, canonical_json([DOMAIN, match_id,
client_seeds, n]))`` where ``client_seeds`` is the list of ``[seat, seed]`` pairs
sorted by seat. A uniform integer below ``k`` takes the first 8 bytes of a block as
a big-endian unsigned integer and rejects values at or above the largest multiple of
``k`` (no modulo bias), moving to the next block on a rejection. A shuffle is
Fisher-Yates from the end, each swap index such an integer. A custom die is a face
list; a roll is a uniform index into it.

Anyone holding the revealed seed recomputes every draw with :func:`replay_draw`.
:class:`DrawStream` computes blocks from the seed (dice service, verify);
:class:`BlockStream` runs the same algorithm over words reserved from the dice service, so
a rules service draws locally. The seed also keys the match's hiding state hashes
(:func:`state_key`, :func:`keyed_state_hash`).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from services.platform.canonical import canonical_json

DOMAIN = "neon-arena/draw/v1"
STATE_KEY_DOMAIN = b"neon-arena/state-key/v1"
DEV_STREAM_ID = "dev"
"""The dice stream id of every dev-seeded session (the dice service writes it, verify reads
it); older sessions and self-play exports have ``dev:<seed>``."""
MAX_BOUND = 1 << 32
_TWO_64 = 1 << 64
T = TypeVar("T")


def commitment(seed: bytes) -> str:
    """The SHA-256 commitment published for a server seed (hex)."""
    return hashlib.sha256(seed).hexdigest()


def block(seed: bytes, match_id: str, client_seeds: Sequence[tuple[int, str]], n: int) -> bytes:
    message = canonical_json([DOMAIN, match_id, [[s, c] for s, c in client_seeds], n])
    return hmac.new(seed, message, hashlib.sha256).digest()


def word(seed: bytes, match_id: str, client_seeds: Sequence[tuple[int, str]], n: int) -> int:
    """The part of block ``n`` a draw uses: its first 8 bytes as a big-endian integer."""
    return int.from_bytes(block(seed, match_id, client_seeds, n)[:8], "big")


def state_key(seed: bytes, stream_id: str) -> bytes:
    """The per-match key of hiding state hashes: HMAC-SHA256(seed, domain + stream id).

    ARCHITECTURE.md: "state hashes are keyed with a per-match secret committed at creation
    and revealed at the seal". The key is derived from the dice seed, so the seed's
    published commitment commits to the key as well, and anyone recomputes the key from
    the revealed seed; before the seal a seat cannot test guesses of hidden state (hands,
    deck orders) against a hash it was given.
    """
    return hmac.new(seed, STATE_KEY_DOMAIN + stream_id.encode(), hashlib.sha256).digest()


def keyed_state_hash(key: bytes, canonical_state: bytes) -> str:
    """The hiding state hash (hex): HMAC-SHA256(state key, canonical state bytes)."""
    hasher = _KEYED.get(key)
    if hasher is None:
        if len(_KEYED) >= 256:
            _KEYED.clear()
        hasher = _KEYED[key] = HmacSha256(key)
    return hasher.digest(canonical_state).hex()


class HmacSha256:
    """HMAC-SHA256 (RFC 2104) under one key, optionally of messages that all start with
    ``prefix``: the hash states after the padded key (and the prefix) are computed once and
    copied for each message.

    ``hmac.digest`` sets the key up again at every call, which with OpenSSL 3 costs more
    than hashing a block message; copying two SHA-256 states does not. The digests are
    HMAC's (tests/unit/test_draws.py compares them with ``hmac.digest``).
    """

    __slots__ = ("_inner", "_outer")

    def __init__(self, key: bytes, prefix: bytes = b"", short: bool = False) -> None:
        """``short``: for messages of a few bytes (draw blocks), hashed with CPython's own
        SHA-256, whose states copy faster than OpenSSL's (OpenSSL hashes long messages
        faster)."""
        sha256 = _short_sha256 if short else hashlib.sha256
        if len(key) > _SHA256_BLOCK:
            key = hashlib.sha256(key).digest()
        key = key.ljust(_SHA256_BLOCK, b"\0")
        self._inner = sha256(key.translate(hmac.trans_36))
        self._inner.update(prefix)
        self._outer = sha256(key.translate(hmac.trans_5C))

    def digest(self, message: bytes = b"") -> bytes:
        """HMAC-SHA256(key, prefix + message)."""
        inner = self._inner.copy()
        inner.update(message)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()


_SHA256_BLOCK = 64
try:  # CPython's own SHA-256 (3.12+: _sha2; 3.11: _sha256); else OpenSSL's
    from _sha2 import sha256 as _short_sha256  # type: ignore[import-not-found]
except ImportError:
    try:
        from _sha256 import sha256 as _short_sha256  # type: ignore[import-not-found,no-redef]
    except ImportError:
        _short_sha256 = hashlib.sha256  # type: ignore[assignment]
_KEYED: dict[bytes, HmacSha256] = {}
"""The HMAC of each state key met (a few per process; emptied past 256)."""


class NeedBlocks(Exception):  # noqa: N818 - a request for more blocks, not a failure
    """A :class:`BlockStream` was asked for block ``counter``, which it does not hold."""

    def __init__(self, counter: int) -> None:
        super().__init__(f"block {counter} is not reserved yet")
        self.counter = counter


class WordStream(Protocol):
    """What :func:`perform` draws from (a :class:`DrawStream` or a :class:`BlockStream`)."""

    counter: int

    def randbelow(self, k: int) -> int: ...

    def permutation(self, n: int) -> list[int]: ...

    def rolls(self, sides: int, count: int) -> list[int]: ...


class _Sampler:
    """The one draw algorithm over 64-bit words: rejection sampling and Fisher-Yates."""

    counter: int

    def _next_u64(self) -> int:
        raise NotImplementedError

    def randbelow(self, k: int) -> int:
        if not 1 <= k <= MAX_BOUND:
            raise ValueError(f"bound must be in 1..{MAX_BOUND}, got {k}")
        limit = (1 << 64) - ((1 << 64) % k)
        while True:
            value = self._next_u64()
            if value < limit:
                return value % k

    def permutation(self, n: int) -> list[int]:
        if not 0 <= n <= 10_000:
            raise ValueError(f"shuffle size must be in 0..10000, got {n}")
        order = list(range(n))
        for i in range(n - 1, 0, -1):
            j = self.randbelow(i + 1)
            order[i], order[j] = order[j], order[i]
        return order

    def rolls(self, sides: int, count: int) -> list[int]:
        if not 1 <= count <= 100:
            raise ValueError(f"dice count must be in 1..100, got {count}")
        return [self.randbelow(sides) for _ in range(count)]


class DrawStream(_Sampler):
    """Sequential draws over the block counter of one match, computed from the seed."""

    def __init__(
        self,
        seed: bytes,
        match_id: str,
        client_seeds: Sequence[tuple[int, str]] = (),
        counter: int = 0,
    ) -> None:
        self._seed = seed
        self._match_id = match_id
        self._client_seeds = tuple(sorted((int(s), str(c)) for s, c in client_seeds))
        self.counter = counter
        self._prefix = _block_prefix(match_id, self._client_seeds)
        self._hmac = HmacSha256(seed, self._prefix, short=True)  # HMAC(seed, prefix + b"<n>]")

    def _next_u64(self) -> int:
        counter = self.counter
        digest = self._hmac.digest(b"%d]" % counter)
        self.counter = counter + 1
        return int.from_bytes(digest[:8], "big")

    def randbelow(self, k: int) -> int:
        """:meth:`_Sampler.randbelow` with the block hashed in the loop (the same value
        from the same blocks; tests/unit/test_draws.py compares both)."""
        if not 1 <= k <= MAX_BOUND:
            return super().randbelow(k)  # raises
        limit = _TWO_64 - (_TWO_64 % k)
        digest = self._hmac.digest
        counter = self.counter
        while True:
            value = int.from_bytes(digest(b"%d]" % counter)[:8], "big")
            counter += 1
            if value < limit:
                self.counter = counter
                return value % k

    def rolls(self, sides: int, count: int) -> list[int]:
        """:meth:`_Sampler.rolls` with the blocks hashed in the loop, as :meth:`randbelow`
        hashes them: the same faces from the same blocks (tests/unit/test_draws.py compares
        both), without a call of ``randbelow`` per die."""
        if not 1 <= count <= 100 or not 1 <= sides <= MAX_BOUND:
            return super().rolls(sides, count)  # raises
        limit = _TWO_64 - (_TWO_64 % sides)
        digest = self._hmac.digest
        from_bytes = int.from_bytes
        counter = self.counter
        faces = []
        for _ in range(count):
            while True:
                value = from_bytes(digest(b"%d]" % counter)[:8], "big")
                counter += 1
                if value < limit:
                    break
            faces.append(value % sides)
        self.counter = counter
        return faces

    def permutation(self, n: int) -> list[int]:
        """:meth:`_Sampler.permutation` with the blocks hashed in the loop: the same swaps
        from the same blocks (tests/unit/test_draws.py compares both), without three calls
        per block (a deck shuffle is one block per card)."""
        if not 0 <= n <= 10_000:
            return super().permutation(n)  # raises
        order = list(range(n))
        digest = self._hmac.digest
        from_bytes = int.from_bytes
        counter = self.counter
        for i in range(n - 1, 0, -1):
            k = i + 1
            limit = _TWO_64 - (_TWO_64 % k)
            while True:
                value = from_bytes(digest(b"%d]" % counter)[:8], "big")
                counter += 1
                if value < limit:
                    break
            j = value % k
            order[i], order[j] = order[j], order[i]
        self.counter = counter
        return order


@functools.lru_cache(maxsize=256)
def _block_prefix(match_id: str, client_seeds: tuple[tuple[int, str], ...]) -> bytes:
    """block()'s message is canonical JSON of [DOMAIN, match id, client seeds, n]: the same
    bytes up to n, so they are encoded once and n is appended (an int's canonical form is
    its decimal digits). tests/unit/test_draws.py checks word(). Remembered per stream id
    and client seeds: bots and self-play make a stream per game, most of them "local"."""
    message = canonical_json([DOMAIN, match_id, [[s, c] for s, c in client_seeds], 0])
    if not message.endswith(b",0]"):
        raise AssertionError("unexpected canonical form of a block message")
    return message[:-2]


class BlockStream(_Sampler):
    """The same draws as :class:`DrawStream`, from words reserved in advance.

    Holds the words of blocks ``first, first + 1, ...`` (as the dice service's
    ReserveBlocks returns them); :meth:`add` appends more. Asking for a block it does not
    hold raises :class:`NeedBlocks` instead of waiting on the network: the caller reserves
    more and runs the draw again. :func:`perform` moves no counter when a draw fails; an
    action that made earlier draws before the missing block must put ``counter`` back to
    where the action started and run the (pure) action again, so its records stay whole.
    """

    def __init__(self, first: int = 0, words: Sequence[int] = (), counter: int | None = None) -> None:
        self.first = first
        self._words = list(words)
        self.counter = first if counter is None else counter

    @property
    def end(self) -> int:
        """One past the last block held."""
        return self.first + len(self._words)

    def add(self, first: int, words: Sequence[int]) -> None:
        """Append the words of blocks ``first ...``; they must continue the buffer."""
        if first != self.end:
            raise ValueError(f"blocks must continue at {self.end}, got {first}")
        self._words.extend(words)

    def discard_before(self, counter: int) -> None:
        """Forget the blocks below ``counter`` (already used)."""
        drop = max(0, min(counter, self.end) - self.first)
        del self._words[:drop]
        self.first += drop

    def _next_u64(self) -> int:
        index = self.counter - self.first
        if not 0 <= index < len(self._words):
            raise NeedBlocks(self.counter)
        self.counter += 1
        return self._words[index]


@dataclass(frozen=True)
class DrawRecord:
    """One recorded draw, as stored in events and exports.

    ``op`` is ``randbelow`` (``n`` the bound), ``shuffle`` (``n`` items) or ``roll``
    (``n`` faces, ``count`` dice). ``result`` holds integers: the value, the
    permutation (``result[i]`` is the original index placed at position ``i``), or the
    face indices. ``first`` and ``next`` are the block counters it consumed.
    """

    op: str
    n: int
    count: int
    result: tuple[int, ...]
    first: int
    next: int

    def to_json(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "n": self.n,
            "count": self.count,
            "result": list(self.result),
            "first": self.first,
            "next": self.next,
        }

    @classmethod
    def from_json(cls, data: Any) -> DrawRecord:
        """The record of a stored draw, which must have exactly the types :meth:`to_json`
        writes: an object with ``op`` one of :data:`OPS`, ``n``, ``count``, ``first`` and
        ``next`` integers, ``result`` a list of integers (an integer is a JSON integer: not
        true, 1.0 or "1", which ``int()`` read as 1, so a draw so spelled was taken for the
        seed's). Raises :class:`MalformedDraw` (a ``ValueError``) saying what is wrong.
        Every reader of stored draws parses them here: verify, replay, the rules host
        replaying its own records, the dice service's remembered draws."""
        if type(data) is not dict:
            raise MalformedDraw(f"a draw is a JSON object, not {_json_type(data)}")
        try:
            op, n, count, result = data["op"], data["n"], data["count"], data["result"]
            first, next_ = data["first"], data["next"]
        except KeyError as err:
            raise MalformedDraw(f"a draw has no {err.args[0]!r}") from None
        if type(op) is not str or op not in OPS:
            raise MalformedDraw(f"op must be one of {', '.join(OPS)}, not {_clip(op)}")
        if type(n) is not int or type(count) is not int or type(first) is not int \
                or type(next_) is not int:  # the first of them that is not, named
            for key, value in (("n", n), ("count", count), ("first", first), ("next", next_)):
                if type(value) is not int:
                    raise MalformedDraw(f"{key} must be an integer, not {_clip(value)}")
        if type(result) is not list:
            raise MalformedDraw(f"result must be a list of integers, not {_json_type(result)}")
        if not _INTS.issuperset(map(type, result)):
            bad = next(x for x in result if type(x) is not int)
            raise MalformedDraw(f"result must be a list of integers; it holds {_clip(bad)}")
        if cls is DrawRecord:  # the record built in one step (_record)
            return _record(op, n, count, tuple(result), first, next_)
        return cls(op, n, count, tuple(result), first, next_)  # a subclass: its own __init__


OPS = ("randbelow", "shuffle", "roll")


class MalformedDraw(ValueError):
    """A stored draw without the keys or types :meth:`DrawRecord.to_json` writes."""


_INTS = frozenset({int})


def _json_type(value: Any) -> str:
    """What a parsed JSON value is, in words (for a malformed draw's reason)."""
    names = {dict: "an object", list: "a list", str: "a text", bool: "a boolean",
             int: "an integer", float: "a number with a fraction", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _clip(value: Any) -> str:
    """A value a draw holds where another was expected, as JSON, cut short."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (ValueError, TypeError, RecursionError):  # nested too deeply
        return _json_type(value)
    return text if len(text) <= 40 else text[:37] + "..."


def perform(stream: WordStream, op: str, n: int, count: int = 1) -> DrawRecord:
    """Make one draw on ``stream`` and describe it.

    If the stream raises (:class:`NeedBlocks`, a bad bound), its counter is put back, so
    the same draw can be made again once more blocks are held.
    """
    first = stream.counter
    try:
        return _perform(stream, op, n, count, first)
    except BaseException:
        stream.counter = first
        raise


def _perform(stream: WordStream, op: str, n: int, count: int, first: int) -> DrawRecord:
    if op == "randbelow":
        result: list[int] = [stream.randbelow(n)]
        count = 1
    elif op == "shuffle":
        result = stream.permutation(n)
        count = 1
    elif op == "roll":
        result = stream.rolls(n, count)
    else:
        raise ValueError(f"unknown draw op {op!r}; expected one of {', '.join(OPS)}")
    return _record(op, n, count, tuple(result), first, stream.counter)


def redraw(stream: DrawStream, record: DrawRecord) -> DrawRecord | None:
    """``None`` when ``stream``, from the record's first block, makes exactly ``record``
    (``perform(stream, record.op, record.n, record.count) == record`` with the counter at
    ``record.first``), else the record it makes: verify's check of every stored draw,
    without the record made for a draw that matches. Raises ``ValueError`` as ``perform``
    does (a bound it refuses, an unknown op); the counter is then anywhere."""
    stream.counter = first = record.first
    op, n = record.op, record.n
    if op == "randbelow":
        result: tuple[int, ...] = (stream.randbelow(n),)
        count = 1
    elif op == "shuffle":
        result = tuple(stream.permutation(n))
        count = 1
    elif op == "roll":
        count = record.count
        result = tuple(stream.rolls(n, count))
    else:
        raise ValueError(f"unknown draw op {op!r}; expected one of {', '.join(OPS)}")
    if result == record.result and stream.counter == record.next and count == record.count:
        return None
    return _record(op, n, count, result, first, stream.counter)


def replay_draw(
    seed: bytes, match_id: str, client_seeds: Sequence[tuple[int, str]], record: DrawRecord
) -> DrawRecord:
    """Recompute ``record`` from the revealed seed (for verify)."""
    stream = DrawStream(seed, match_id, client_seeds, counter=record.first)
    return perform(stream, record.op, record.n, record.count)


class _Drawing:
    """The engine ``Randomness`` protocol over ``_take(op, n, count)``, which gives the
    :class:`DrawRecord` of each draw: the answers read from it."""

    __slots__ = ()

    def _take(self, op: str, n: int, count: int = 1) -> DrawRecord:
        raise NotImplementedError

    def randbelow(self, n: int) -> int:
        return self._take("randbelow", n).result[0]

    def shuffle(self, items: Sequence[T]) -> tuple[T, ...]:
        items = tuple(items)
        if len(items) <= 1:
            return items
        return tuple(map(items.__getitem__, self._take("shuffle", len(items)).result))

    def roll(self, faces: Sequence[T], count: int = 1) -> tuple[T, ...]:
        faces = tuple(faces)
        return tuple(map(faces.__getitem__, self._take("roll", len(faces), count).result))


class RecordingRandomness(_Drawing):
    """Adapts a draw function to the engine ``Randomness`` protocol, keeping records.

    ``draw(op, n, count)`` returns a :class:`DrawRecord`; live it calls the dice
    service, locally a :class:`DrawStream`.
    """

    def __init__(self, draw: Any) -> None:
        self._draw = draw
        self.records: list[DrawRecord] = []

    def _take(self, op: str, n: int, count: int = 1) -> DrawRecord:
        record = self._draw(op, n, count)
        self.records.append(record)
        return record


class SeededRandomness(RecordingRandomness):
    """Local deterministic randomness from a seed: for tests, bots and simulations."""

    def __init__(self, seed: bytes | int | str, match_id: str = "local") -> None:
        if isinstance(seed, int):
            seed = seed.to_bytes(32, "big", signed=False)
        elif isinstance(seed, str):
            seed = hashlib.sha256(seed.encode()).digest()
        self.stream = DrawStream(seed, match_id)
        super().__init__(lambda op, n, count: perform(self.stream, op, n, count))

    # What the draw function above does, without its calls per draw (perform, _perform,
    # the record's frozen __init__): the same values, the same records, the same counter
    # (put back when a draw raises). tests/unit/test_draws.py compares both ways.

    def randbelow(self, n: int) -> int:
        stream = self.stream
        first = stream.counter
        try:
            value = stream.randbelow(n)
        except BaseException:
            stream.counter = first
            raise
        self.records.append(_record("randbelow", n, 1, (value,), first, stream.counter))
        return value

    def roll(self, faces: Sequence[T], count: int = 1) -> tuple[T, ...]:
        faces = tuple(faces)
        stream = self.stream
        first = stream.counter
        try:
            result = tuple(stream.rolls(len(faces), count))
        except BaseException:
            stream.counter = first
            raise
        self.records.append(_record("roll", len(faces), count, result, first, stream.counter))
        return tuple(map(faces.__getitem__, result))


def _record(op: str, n: int, count: int, result: tuple[int, ...], first: int,
            next_: int) -> DrawRecord:
    """``DrawRecord(op, n, count, result, first, next_)``, its fields set in one step (the
    frozen ``__init__`` sets each through ``object.__setattr__``): an equal record."""
    record = _NEW(DrawRecord)
    _SET(record, "__dict__", {"op": op, "n": n, "count": count, "result": result,
                              "first": first, "next": next_})
    return record


_NEW = object.__new__
_SET = object.__setattr__


class ReplayMismatch(Exception):
    """A replay asked for a draw that the log does not hold."""


class ReplayRandomness(_Drawing):
    """Hands back recorded draws in order, checking each request matches: the engine's
    randomness in every replay (the host's rebuild of a match, the step-throughs, ``neon
    verify``). ``records`` is read, never changed nor copied. It holds no reference to
    itself (a recorder built on its own bound method did, one cycle per step, which verify,
    with the cyclic collector paused, left behind), so each step's object is freed by its
    reference count when the step is done."""

    __slots__ = ("_queue", "_pos")

    def __init__(self, records: Sequence[DrawRecord]) -> None:
        self._queue = records
        self._pos = 0

    def _take(self, op: str, n: int, count: int = 1) -> DrawRecord:
        pos, queue = self._pos, self._queue
        if pos >= len(queue):
            raise ReplayMismatch(f"engine asked for draw #{pos} ({op} {n}) beyond the log")
        record = queue[pos]
        if record.op != op or record.n != n or (op == "roll" and record.count != count):
            raise ReplayMismatch(
                f"draw #{pos}: engine asked for {op} {n}x{count}, "
                f"log holds {record.op} {record.n}x{record.count}"
            )
        self._pos = pos + 1
        return record

    @property
    def exhausted(self) -> bool:
        return self._pos == len(self._queue)
