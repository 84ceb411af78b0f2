"""Reserved blocks draw exactly what the seed draws; the keyed state hash hides the state."""

from __future__ import annotations

import hashlib
import hmac

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.platform.draws import (
    BlockStream,
    DrawStream,
    NeedBlocks,
    commitment,
    keyed_state_hash,
    perform,
    state_key,
    word,
)

SEEDS = st.binary(min_size=32, max_size=32)
CLIENT_SEEDS = st.lists(st.tuples(st.integers(0, 5), st.text(min_size=1, max_size=8)),
                        max_size=2, unique_by=lambda c: c[0])
OPS = st.one_of(
    st.tuples(st.just("randbelow"), st.integers(1, 1 << 32), st.just(1)),
    st.tuples(st.just("shuffle"), st.integers(0, 60), st.just(1)),
    st.tuples(st.just("roll"), st.integers(1, 20), st.integers(1, 8)),
)


def words(seed: bytes, stream_id: str, client_seeds: list[tuple[int, str]], first: int, count: int) -> list[int]:
    seeds = sorted(client_seeds)
    return [word(seed, stream_id, seeds, n) for n in range(first, first + count)]


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, client_seeds=CLIENT_SEEDS, ops=st.lists(OPS, min_size=1, max_size=12),
       start=st.integers(0, 50))
def test_block_stream_gives_draw_streams_records(seed, client_seeds, ops, start) -> None:
    expected_stream = DrawStream(seed, "g/m", client_seeds, counter=start)
    expected = [perform(expected_stream, op, n, c) for op, n, c in ops]
    used = expected_stream.counter - start
    blocks = BlockStream(start, words(seed, "g/m", client_seeds, start, used))
    assert [perform(blocks, op, n, c) for op, n, c in ops] == expected
    assert blocks.counter == expected_stream.counter


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, ops=st.lists(OPS, min_size=1, max_size=8), data=st.data())
def test_need_blocks_fires_at_the_first_missing_counter_and_the_draw_resumes(seed, ops, data) -> None:
    reference = DrawStream(seed, "m")
    expected = [perform(reference, op, n, c) for op, n, c in ops]
    total = reference.counter
    held = data.draw(st.integers(0, max(0, total - 1)))
    stream = BlockStream(0, words(seed, "m", [], 0, held))
    got = []
    for (op, n, c), record in zip(ops, expected, strict=True):
        while True:
            before = stream.counter
            try:
                got.append(perform(stream, op, n, c))
                break
            except NeedBlocks as need:
                assert need.counter == stream.end  # exactly the first block it lacks
                assert record.first <= need.counter < record.next
                assert stream.counter == before  # a failed draw moves nothing
                stream.add(stream.end, words(seed, "m", [], stream.end, 3))
    assert got == expected


def test_block_stream_refuses_gaps_and_forgets_used_blocks() -> None:
    stream = BlockStream(10, [1, 2, 3])
    with pytest.raises(ValueError, match="continue at 13"):
        stream.add(14, [4])
    stream.discard_before(12)
    assert (stream.first, stream.end) == (12, 13)
    with pytest.raises(NeedBlocks) as caught:
        BlockStream(5, []).randbelow(6)
    assert caught.value.counter == 5


def test_the_state_key_is_the_documented_hmac_and_depends_on_seed_and_stream() -> None:
    seed = hashlib.sha256(b"s").digest()
    key = state_key(seed, "neon/m1")
    assert key == hmac.new(seed, b"neon-arena/state-key/v1neon/m1", hashlib.sha256).digest()
    assert key != state_key(seed, "neon/m2") and key != state_key(b"\0" * 32, "neon/m1")
    assert len(commitment(seed)) == 64


def test_a_keyed_state_hash_cannot_be_recomputed_without_the_key() -> None:
    state = b'{"hand":[3,1,2]}'
    key = state_key(b"\1" * 32, "m")
    keyed = keyed_state_hash(key, state)
    assert keyed == hmac.new(key, state, hashlib.sha256).hexdigest()
    assert keyed != hashlib.sha256(state).hexdigest()
    assert keyed != keyed_state_hash(state_key(b"\2" * 32, "m"), state)
