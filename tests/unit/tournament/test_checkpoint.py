"""Round checkpoints: signed with the organiser's Ed25519 key, every field checked."""

from __future__ import annotations

import hashlib

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.platform.signed import RESULT_DOMAIN, SIGNED_RESULT, Untrusted, open_signed
from services.platform.signing import public_key_hex
from services.tournament.core.checkpoint import (
    checkpoint_body,
    inclusion_proofs,
    log_head,
    open_checkpoint,
    sign_checkpoint,
    verify_checkpoint,
    verify_match_inclusion,
)

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
TRUSTED = [public_key_hex(KEY)]
HASHES = [hashlib.sha256(f"match-{i}".encode()).hexdigest() for i in range(5)]
EVENTS = [{"type": "TournamentCreated", "id": "t1"}, {"type": "RoundPaired", "round": 1}]


def _signed() -> dict:
    body = checkpoint_body("t1", 1, HASHES, len(EVENTS), log_head(EVENTS))
    return sign_checkpoint(body, KEY)


def test_a_checkpoint_verifies_against_its_round_and_log() -> None:
    message = _signed()
    assert open_checkpoint(message, TRUSTED)["tree_size"] == 5
    assert (
        verify_checkpoint(
            message, TRUSTED, tournament_id="t1", round_number=1, match_hashes=HASHES, events=EVENTS
        )
        == []
    )


def test_every_match_proves_its_place_under_the_signed_root() -> None:
    body = open_checkpoint(_signed(), TRUSTED)
    for i, (h, proof) in enumerate(zip(HASHES, inclusion_proofs(HASHES))):
        assert verify_match_inclusion(h, i, proof, body)
        assert not verify_match_inclusion(HASHES[(i + 1) % 5], i, proof, body)


@pytest.mark.parametrize(
    ("change", "expect"),
    [
        (lambda m: m["checkpoint"].__setitem__("root", "00" * 32), "bad signature"),
        (lambda m: m["checkpoint"].__setitem__("round", 2), "bad signature"),
        (lambda m: m.__setitem__("key", "11" * 32), "not trusted"),
        (lambda m: m.__setitem__("signature", "00" * 64), "bad signature"),
    ],
)
def test_a_tampered_checkpoint_fails(change, expect) -> None:
    message = _signed()
    change(message)
    problems = verify_checkpoint(message, TRUSTED)
    assert len(problems) == 1 and expect in problems[0]


def test_facts_that_disagree_are_named() -> None:
    message = _signed()
    dropped = verify_checkpoint(message, TRUSTED, match_hashes=HASHES[:4])
    assert any("covers 5 matches, the round has 4" in p for p in dropped)
    changed = [HASHES[0], HASHES[2], HASHES[1], *HASHES[3:]]
    assert any(
        "Merkle root" in p for p in verify_checkpoint(message, TRUSTED, match_hashes=changed)
    )
    edited = [EVENTS[0], {"type": "RoundPaired", "round": 2}]
    assert any("does not chain" in p for p in verify_checkpoint(message, TRUSTED, events=edited))
    assert verify_checkpoint(message, TRUSTED, tournament_id="t2")
    assert verify_checkpoint(message, TRUSTED, events=EVENTS[:1])


def test_the_domain_tag_keeps_a_checkpoint_from_passing_for_a_result() -> None:
    message = _signed()
    forged = {**message, "type": SIGNED_RESULT, "result": message["checkpoint"]}
    with pytest.raises(Untrusted, match="bad signature"):
        open_signed(forged, SIGNED_RESULT, "result", RESULT_DOMAIN, TRUSTED)


def test_the_log_head_chains_every_event() -> None:
    assert log_head([]) == "0" * 64
    assert log_head(EVENTS) != log_head(EVENTS[::-1])
    assert log_head(EVENTS) != log_head(EVENTS[:1])
