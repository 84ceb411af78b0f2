"""Signed messages between services: the envelope that rules signs and consumers open.

A signed message wraps a JSON object ``body`` under a domain tag::

    {"type": "<kind>", "version": 1, "<field>": {...}, "key": "<public key hex>",
     "signature": "<hex>"}

The signature is Ed25519 over the RFC 8785 canonical JSON of ``[domain, body]``: the
domain tag keeps a signature made for one purpose (a match result) from ever standing
for another (an export checkpoint, signed with the same key). A consumer acts on the
body only when ``key`` is one it trusts and the signature holds over the body it
received (:func:`open_signed`). Pure code: no I/O.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.platform.canonical import canonical_json
from services.platform.signing import public_key_hex, sign, verify


class Untrusted(ValueError):
    """A signed message that must not be acted on; the message says why."""


def signed_bytes(domain: str, body: Mapping[str, Any]) -> bytes:
    return canonical_json([domain, body])


def seal(kind: str, field: str, domain: str, body: Mapping[str, Any],
         key: Ed25519PrivateKey) -> dict[str, Any]:
    copy = dict(body)
    return {"type": kind, "version": 1, field: copy, "key": public_key_hex(key),
            "signature": sign(key, signed_bytes(domain, copy))}


def open_signed(message: Mapping[str, Any], kind: str, field: str, domain: str,
                trusted_keys: Collection[str]) -> dict[str, Any]:
    """The body of a signed message, or :class:`Untrusted` with the reason."""
    if message.get("type") != kind or message.get("version") != 1:
        raise Untrusted(f"not a signed {kind} message: {message.get('type')!r}")
    body, key, signature = message.get(field), message.get("key"), message.get("signature")
    if not isinstance(body, dict) or not isinstance(key, str) or not isinstance(signature, str):
        raise Untrusted(f"a signed {kind} needs {field}, key and signature")
    if key.lower() not in {k.lower() for k in trusted_keys}:
        raise Untrusted(f"signed by key {key[:16]}..., which is not trusted")
    try:
        data = signed_bytes(domain, body)
    except Exception as err:  # rfc8785 refuses NaN, integers beyond 2**53 and the like
        raise Untrusted(f"{field} cannot be canonicalised: {err}") from err
    if not verify(key, data, signature):
        raise Untrusted("bad signature: the message was altered or signed with another key")
    return body


# Match results (rules -> scoring, tournaments)
SIGNED_RESULT = "SignedResult"
RESULT_DOMAIN = "neon-arena/result/v1"


def open_result(message: Mapping[str, Any], trusted_keys: Collection[str]) -> dict[str, Any]:
    """The public MatchEnded record inside a signed result message, or :class:`Untrusted`."""
    if message.get("type") == "MatchEnded":
        raise Untrusted("an unsigned result")
    result = open_signed(message, SIGNED_RESULT, "result", RESULT_DOMAIN, trusted_keys)
    if result.get("type") != "MatchEnded":
        raise Untrusted(f"a signed result must hold a MatchEnded record, not {result.get('type')!r}")
    return result
