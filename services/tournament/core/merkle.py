"""RFC 9162 (Certificate Transparency v2) Merkle trees: roots and inclusion proofs.

Section 2.1.1: the hash of an empty tree is SHA-256 of nothing; a leaf hashes as
SHA-256(0x00 || leaf); an inner node as SHA-256(0x01 || left || right); a tree of n > 1
leaves splits at k, the largest power of two smaller than n. Section 2.1.3.1 builds the
inclusion proof (the audit path) and section 2.1.3.2 verifies it; ``verify_inclusion``
follows its steps one by one.

A round checkpoint holds the root over the round's sealed match hashes (the leaves are
the raw hash bytes, in table order).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

LEAF_PREFIX = b"\x00"
NODE_PREFIX = b"\x01"


def leaf_hash(leaf: bytes) -> bytes:
    return hashlib.sha256(LEAF_PREFIX + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(NODE_PREFIX + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (n > 1)."""
    return 1 << ((n - 1).bit_length() - 1)


def _root_of_hashes(hashes: Sequence[bytes]) -> bytes:
    n = len(hashes)
    if n == 1:
        return hashes[0]
    k = _split(n)
    return node_hash(_root_of_hashes(hashes[:k]), _root_of_hashes(hashes[k:]))


def root(leaves: Sequence[bytes]) -> bytes:
    """MTH(D[n]) of RFC 9162 section 2.1.1."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    return _root_of_hashes([leaf_hash(x) for x in leaves])


def _path(index: int, hashes: Sequence[bytes]) -> list[bytes]:
    n = len(hashes)
    if n == 1:
        return []
    k = _split(n)
    if index < k:
        return _path(index, hashes[:k]) + [_root_of_hashes(hashes[k:])]
    return _path(index - k, hashes[k:]) + [_root_of_hashes(hashes[:k])]


def inclusion_proof(leaves: Sequence[bytes], index: int) -> list[bytes]:
    """PATH(m, D[n]) of RFC 9162 section 2.1.3.1: the hashes, leaf side first."""
    if not 0 <= index < len(leaves):
        raise ValueError(f"leaf index {index} is outside a tree of {len(leaves)} leaves")
    return _path(index, [leaf_hash(x) for x in leaves])


def verify_inclusion(
    leaf: bytes, index: int, tree_size: int, proof: Sequence[bytes], expected_root: bytes
) -> bool:
    """RFC 9162 section 2.1.3.2: does ``proof`` show ``leaf`` at ``index`` of the tree of
    ``tree_size`` leaves whose root is ``expected_root``?"""
    if index < 0 or index >= tree_size:  # step 1
        return False
    fn, sn = index, tree_size - 1  # step 2
    r = leaf_hash(leaf)  # step 3
    for p in proof:  # step 4
        if sn == 0:  # 4a
            return False
        if fn & 1 or fn == sn:  # 4b
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1  # 4c
        sn >>= 1
    return sn == 0 and r == expected_root  # step 5
