"""RFC 9162 Merkle trees against the published certificate-transparency test vectors.

Vectors: google/certificate-transparency-go, merkle/log_verifier_test.go (the RFC 6962
reference leaves d0..d7, the roots of the trees of their first 1..8 leaves, and the
inclusion proofs for leaves 1 and 6 of 8, 3 of 3 and 2 of 5, numbered from 1 there).
RFC 9162 keeps RFC 6962's hashing, so the same vectors hold.
"""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.tournament.core.merkle import inclusion_proof, root, verify_inclusion

LEAVES = [
    bytes.fromhex(h)
    for h in (
        "",
        "00",
        "10",
        "2021",
        "3031",
        "40414243",
        "5051525354555657",
        "606162636465666768696a6b6c6d6e6f",
    )
]
ROOTS = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
# (0-based leaf index, tree size, proof)
PROOFS = [
    (
        0,
        8,
        [
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ],
    ),
    (
        5,
        8,
        [
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
    (2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
    (
        1,
        5,
        [
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        ],
    ),
]


def test_empty_tree_is_the_hash_of_nothing() -> None:
    assert root([]) == hashlib.sha256(b"").digest()


@pytest.mark.parametrize("size", range(1, 9))
def test_roots_match_the_published_vectors(size: int) -> None:
    assert root(LEAVES[:size]).hex() == ROOTS[size - 1]


@pytest.mark.parametrize(("index", "size", "proof"), PROOFS)
def test_inclusion_proofs_match_the_published_vectors(index, size, proof) -> None:
    assert [h.hex() for h in inclusion_proof(LEAVES[:size], index)] == proof
    path = [bytes.fromhex(h) for h in proof]
    expected = bytes.fromhex(ROOTS[size - 1])
    assert verify_inclusion(LEAVES[index], index, size, path, expected)
    # the checks certificate-transparency-go runs on every vector
    assert not verify_inclusion(LEAVES[index], index + 1, size, path, expected)
    assert not verify_inclusion(LEAVES[index], index ^ 2, size, path, expected)
    assert not verify_inclusion(LEAVES[index], index, size * 2, path, expected)
    assert not verify_inclusion(LEAVES[index], index, size // 2, path, expected)
    assert not verify_inclusion(b"WrongLeaf", index, size, path, expected)
    assert not verify_inclusion(LEAVES[index], index, size, path, hashlib.sha256().digest())
    assert not verify_inclusion(LEAVES[index], index, size, [*path, expected], expected)
    assert not verify_inclusion(LEAVES[index], index, size, path[:-1], expected)
    assert not verify_inclusion(LEAVES[index], index, size, [expected, *path], expected)


def test_out_of_range_indices_never_verify() -> None:
    r = root(LEAVES[:1])
    assert verify_inclusion(LEAVES[0], 0, 1, [], r)
    assert not verify_inclusion(LEAVES[0], 1, 1, [], r)
    assert not verify_inclusion(LEAVES[0], -1, 1, [], r)
    assert not verify_inclusion(LEAVES[0], 0, 0, [], r)
    with pytest.raises(ValueError):
        inclusion_proof(LEAVES[:3], 3)


def _sides(index: int, size: int) -> list[bool]:
    """For each step of the audit path (leaf side first): is the sibling on the left?
    Straight from RFC 9162 section 2.1.3.1's recursive definition."""
    if size == 1:
        return []
    k = 1 << ((size - 1).bit_length() - 1)
    if index < k:
        return [*_sides(index, k), False]
    return [*_sides(index - k, size - k), True]


def _leaves(size: int) -> list[bytes]:
    return [hashlib.sha256(i.to_bytes(4, "big")).digest() for i in range(size)]


def test_every_leaf_of_every_tree_up_to_70_verifies() -> None:
    for size in range(1, 71):
        leaves = _leaves(size)
        r = root(leaves)
        for index in range(size):
            proof = inclusion_proof(leaves, index)
            assert verify_inclusion(leaves[index], index, size, proof, r), (size, index)


@settings(max_examples=200, deadline=None)
@given(
    size=st.integers(1, 70),
    data=st.data(),
)
def test_any_change_fails(size: int, data: st.DataObject) -> None:
    leaves = _leaves(size)
    index = data.draw(st.integers(0, size - 1))
    r = root(leaves)
    proof = inclusion_proof(leaves, index)
    leaf = bytearray(leaves[index])
    byte = data.draw(st.integers(0, len(leaf) - 1))
    leaf[byte] ^= data.draw(st.integers(1, 255))
    assert not verify_inclusion(bytes(leaf), index, size, proof, r)
    other = data.draw(st.integers(0, size - 1).filter(lambda i: i != index)) if size > 1 else None
    if other is not None:
        assert not verify_inclusion(leaves[index], other, size, proof, r)
    # The root alone does not fix the tree size (the checkpoint signs both): another size
    # verifies exactly when its audit path has the same shape, and fails otherwise.
    wrong_size = data.draw(st.integers(1, 140).filter(lambda s: s != size))
    same_shape = index < wrong_size and _sides(index, wrong_size) == _sides(index, size)
    assert verify_inclusion(leaves[index], index, wrong_size, proof, r) == same_shape
    if proof:
        k = data.draw(st.integers(0, len(proof) - 1))
        bent = bytearray(proof[k])
        bent[data.draw(st.integers(0, 31))] ^= 1
        changed = [*proof[:k], bytes(bent), *proof[k + 1 :]]
        assert not verify_inclusion(leaves[index], index, size, changed, r)
    bad_root = bytearray(r)
    bad_root[0] ^= 0x80
    assert not verify_inclusion(leaves[index], index, size, proof, bytes(bad_root))
