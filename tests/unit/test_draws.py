"""Verifiable draws: uniformity, determinism, and recomputation from the seed."""

from __future__ import annotations

import hashlib
import hmac
import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.platform.draws import (
    DrawStream,
    ReplayMismatch,
    ReplayRandomness,
    SeededRandomness,
    block,
    perform,
    replay_draw,
)

# Chi-square critical values at p = 0.001.
CRITICAL = {5: 20.515, 23: 49.728}


def chi_square(counts: Counter, categories: list, total: int) -> float:
    expected = total / len(categories)
    return sum((counts.get(c, 0) - expected) ** 2 / expected for c in categories)


def test_d6_rolls_are_uniform() -> None:
    stream = DrawStream(b"\x01" * 32, "chi-d6")
    rolls = [stream.randbelow(6) for _ in range(60_000)]
    assert chi_square(Counter(rolls), list(range(6)), 60_000) < CRITICAL[5]


def test_shuffles_are_uniform_over_all_permutations() -> None:
    stream = DrawStream(b"\x02" * 32, "chi-shuffle")
    perms = Counter(tuple(stream.permutation(4)) for _ in range(24_000))
    assert len(perms) == 24
    assert chi_square(perms, list(itertools.permutations(range(4))), 24_000) < CRITICAL[23]


def test_the_uniformity_check_catches_modulo_bias() -> None:
    """A sampler taking three bits modulo 6 favours 0 and 1; the same test must reject it."""
    biased = [block(b"\x03" * 32, "bias", (), n)[0] % 8 % 6 for n in range(60_000)]
    assert chi_square(Counter(biased), list(range(6)), 60_000) > CRITICAL[5]


def test_randbelow_is_the_documented_rejection_sampling() -> None:
    """Recompute by hand: first 8 bytes big-endian, reject at or above the largest multiple."""
    seed, k = b"\x04" * 32, 3
    limit = (1 << 64) - ((1 << 64) % k)
    stream = DrawStream(seed, "reject")
    n = 0
    for _ in range(200):
        while True:
            value = int.from_bytes(block(seed, "reject", (), n)[:8], "big")
            n += 1
            if value < limit:
                break
        assert stream.randbelow(k) == value % k
        assert stream.counter == n


def test_draws_depend_on_seed_match_and_client_seeds() -> None:
    a = DrawStream(b"\x05" * 32, "m1").permutation(20)
    assert a == DrawStream(b"\x05" * 32, "m1").permutation(20)
    assert a != DrawStream(b"\x06" * 32, "m1").permutation(20)
    assert a != DrawStream(b"\x05" * 32, "m2").permutation(20)
    assert a != DrawStream(b"\x05" * 32, "m1", [(0, "alice")]).permutation(20)


def test_a_recorded_draw_is_recomputed_from_the_revealed_seed() -> None:
    seed = hashlib.sha256(b"seed").digest()
    stream = DrawStream(seed, "m", [(1, "bob"), (0, "amy")])
    perform(stream, "roll", 6, 3)
    record = perform(stream, "shuffle", 44)
    assert replay_draw(seed, "m", [(0, "amy"), (1, "bob")], record) == record
    assert replay_draw(b"\x00" * 32, "m", [(0, "amy"), (1, "bob")], record) != record


def test_replay_randomness_refuses_a_draw_the_log_does_not_hold() -> None:
    live = SeededRandomness(1)
    live.shuffle(range(5))
    replay = ReplayRandomness(live.records)
    with pytest.raises(ReplayMismatch):
        replay.roll("abc")
    replay = ReplayRandomness(live.records)
    assert replay.shuffle(range(5)) == SeededRandomness(1).shuffle(range(5))
    assert replay.exhausted
    with pytest.raises(ReplayMismatch):
        replay.randbelow(3)


@pytest.mark.parametrize("bad", [0, -1, (1 << 32) + 1])
def test_bounds_are_checked(bad: int) -> None:
    with pytest.raises(ValueError):
        DrawStream(b"\x07" * 32, "m").randbelow(bad)


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=1, max_size=40), st.text(max_size=12),
       st.lists(st.tuples(st.integers(0, 9), st.text(max_size=6)), max_size=3),
       st.integers(0, 10**12))
def test_a_streams_words_are_the_blocks_of_the_spec(seed, match_id, client_seeds, counter):
    from services.platform.draws import keyed_state_hash, word

    stream = DrawStream(seed, match_id, client_seeds, counter=counter)
    ordered = sorted((int(s), str(c)) for s, c in client_seeds)
    assert [stream._next_u64() for _ in range(3)] == [
        word(seed, match_id, ordered, n) for n in range(counter, counter + 3)]
    assert keyed_state_hash(seed, match_id.encode()) == hmac.new(seed, match_id.encode(), "sha256").hexdigest()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.binary(max_size=150), st.binary(max_size=80), st.binary(max_size=300))
def test_the_hmac_with_its_key_set_up_once_is_hmac_sha256(key, prefix, message) -> None:
    """``HmacSha256`` (draw blocks, keyed state hashes) gives ``hmac.digest``'s bytes, for
    keys shorter and longer than a SHA-256 block, with and without a message prefix."""
    from services.platform.draws import HmacSha256, keyed_state_hash

    hasher = HmacSha256(key, prefix)
    assert hasher.digest(message) == hmac.digest(key, prefix + message, "sha256")
    assert HmacSha256(key, prefix, short=True).digest(message) == hasher.digest(message)
    assert hasher.digest(message) == hasher.digest(message)  # the set-up states are not used up
    assert keyed_state_hash(key, message) == hmac.new(key, message, hashlib.sha256).hexdigest()


def test_draw_stream_words_are_the_documented_blocks() -> None:
    seed = hashlib.sha256(b"words").digest()
    seeds = [(1, "b"), (0, "a")]
    stream = DrawStream(seed, "m-words", seeds)
    for n in (0, 1, 9, 10, 99, 100, 12345):
        stream.counter = n
        assert stream._next_u64() == int.from_bytes(block(seed, "m-words", sorted(seeds), n)[:8], "big")


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.binary(min_size=1, max_size=40), st.integers(0, 300), st.integers(0, 10**6),
       st.lists(st.tuples(st.integers(0, 5), st.text(max_size=4)), max_size=3))
def test_draw_stream_shuffles_as_the_generic_sampler_does(seed, n, counter, client_seeds) -> None:
    """DrawStream's own permutation (blocks hashed in its loop) makes the swaps of
    ``_Sampler.permutation`` from the same blocks and ends at the same counter."""
    from services.platform.draws import _Sampler

    fast = DrawStream(seed, "m-perm", client_seeds, counter=counter)
    generic = DrawStream(seed, "m-perm", client_seeds, counter=counter)
    assert fast.permutation(n) == _Sampler.permutation(generic, n)
    assert fast.counter == generic.counter
    assert perform(fast, "shuffle", n) == perform(generic, "shuffle", n)


def test_draw_stream_refuses_the_shuffle_sizes_the_sampler_refuses() -> None:
    for n in (-1, 10_001):
        with pytest.raises(ValueError, match="shuffle size"):
            DrawStream(b"\x01" * 32, "m").permutation(n)


def test_draw_stream_shuffles_reject_words_as_the_sampler_does() -> None:
    """Words at or above the largest multiple of the bound are rejected by both (forced
    here: a real block does that about once in 2**50 draws)."""
    from services.platform.draws import _Sampler

    class Words:
        def digest(self, message: bytes) -> bytes:
            n = int(message[:-1])
            top = (1 << 64) - 1 - (n % 3)  # at or above every limit for bounds 3..30
            return (top if n % 4 == 1 else n * 7919).to_bytes(8, "big") + b"\0" * 24

    fast, generic = DrawStream(b"s", "m"), DrawStream(b"s", "m")
    fast._hmac = generic._hmac = Words()  # type: ignore[assignment]
    assert fast.permutation(30) == _Sampler.permutation(generic, 30)
    assert fast.counter == generic.counter > 29 + 5


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.binary(min_size=1, max_size=40), st.integers(0, 10**6),
       st.lists(st.tuples(st.sampled_from(["randbelow", "roll", "shuffle"]),
                          st.integers(1, 40), st.integers(1, 6)), max_size=12))
def test_seeded_randomness_draws_as_the_generic_path_does(seed, counter, ops) -> None:
    """DrawStream's own randbelow and rolls, and SeededRandomness's draws without
    ``perform``, give the values, records (equal, type for type) and counters of
    ``_Sampler`` through ``perform``."""
    from services.platform.draws import DrawRecord, RecordingRandomness, _Sampler

    fast, generic = DrawStream(seed, "m-draw", counter=counter), DrawStream(seed, "m-draw", counter=counter)
    assert fast.randbelow(7) == _Sampler.randbelow(generic, 7)
    assert fast.rolls(6, 3) == _Sampler.rolls(generic, 6, 3)
    assert fast.counter == generic.counter
    seeded = SeededRandomness(seed)
    plain = RecordingRandomness(lambda op, n, count, s=DrawStream(seed, "local"): perform(s, op, n, count))
    faces = tuple(range(100))
    for op, n, count in ops:
        if op == "randbelow":
            assert seeded.randbelow(n) == plain.randbelow(n)
        elif op == "roll":
            assert seeded.roll(faces[:n], count) == plain.roll(faces[:n], count)
        else:
            assert seeded.shuffle(faces[:n]) == plain.shuffle(faces[:n])
    assert seeded.records == plain.records
    assert all(type(r) is DrawRecord for r in seeded.records)
    assert [r.to_json() for r in seeded.records] == [r.to_json() for r in plain.records]
    assert len({hash(r) for r in seeded.records}) == len(set(plain.records))


def test_seeded_randomness_refuses_bad_draws_and_keeps_its_counter() -> None:
    seeded = SeededRandomness("bad draws")
    seeded.randbelow(5)
    at = seeded.stream.counter
    for bad in (lambda: seeded.randbelow(0), lambda: seeded.randbelow((1 << 32) + 1),
                lambda: seeded.roll((), 1), lambda: seeded.roll((1, 2), 0),
                lambda: seeded.roll((1, 2), 101)):
        with pytest.raises(ValueError):
            bad()
        assert seeded.stream.counter == at
    assert len(seeded.records) == 1
    with pytest.raises(ValueError):
        DrawStream(b"\x07" * 32, "m").rolls(0, 2)


def test_draw_stream_randbelow_rejects_words_as_the_sampler_does() -> None:
    from services.platform.draws import _Sampler

    class Words:
        def digest(self, message: bytes) -> bytes:
            n = int(message[:-1])
            top = (1 << 64) - 1 - (n % 3)
            return (top if n % 4 == 1 else n * 7919).to_bytes(8, "big") + b"\0" * 24

    fast, generic = DrawStream(b"s", "m"), DrawStream(b"s", "m")
    fast._hmac = generic._hmac = Words()  # type: ignore[assignment]
    for k in range(3, 30):
        assert fast.randbelow(k) == _Sampler.randbelow(generic, k)
        assert fast.rolls(k, 3) == _Sampler.rolls(generic, k, 3)
        assert fast.counter == generic.counter


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.binary(min_size=1, max_size=40), st.integers(0, 10**6),
       st.sampled_from(["randbelow", "roll", "shuffle"]), st.integers(1, 60), st.integers(1, 6),
       st.sampled_from(["as drawn", "result", "count", "next", "first", "n", "op"]))
def test_redraw_is_none_exactly_when_perform_makes_the_record(seed, counter, op, n, count,
                                                              change) -> None:
    """verify's ``redraw(stream, record)``: None when ``perform`` from the record's first
    block makes an equal record, else the record ``perform`` makes; on records as drawn and
    with one field changed (the count of a randbelow or a shuffle too, which perform writes
    as 1)."""
    import dataclasses

    from services.platform.draws import DrawRecord, redraw

    made = perform(DrawStream(seed, "m-redraw", counter=counter), op, n, count)
    if change == "result":
        record = dataclasses.replace(made, result=(*made.result[:-1], made.result[-1] + 1))
    elif change == "count":
        record = dataclasses.replace(made, count=made.count + 1)
    elif change in ("next", "first", "n"):
        record = dataclasses.replace(made, **{change: getattr(made, change) + 1})
    elif change == "op":
        record = dataclasses.replace(made, op="shuffle" if op != "shuffle" else "randbelow")
    else:
        record = made
    record = DrawRecord.from_json(record.to_json())
    expected = perform(DrawStream(seed, "m-redraw", counter=record.first), record.op, record.n,
                       record.count)
    again = redraw(DrawStream(seed, "m-redraw"), record)
    if expected == record:
        assert again is None
    else:
        assert again == expected and type(again) is DrawRecord
    if change == "as drawn":
        assert again is None


def test_redraw_refuses_what_perform_refuses() -> None:
    from services.platform.draws import _record, redraw

    stream = DrawStream(b"\x02" * 32, "m")
    for op, n, count in (("randbelow", 0, 1), ("roll", 6, 0), ("roll", 6, 101),
                         ("shuffle", 10_001, 1), ("deal", 3, 1)):
        with pytest.raises(ValueError):
            perform(DrawStream(b"\x02" * 32, "m"), op, n, count)
        with pytest.raises(ValueError):
            redraw(stream, _record(op, n, count, (0,), 0, 1))
