"""Ed25519 signing of export checkpoints.

``cryptography``'s serialization module (with its SSH key formats, a third of this module's
import) is imported by the functions that read or write keys: checking a signature
(``neon verify``) does not need it."""

from __future__ import annotations

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey


def load_private_key(text: str) -> Ed25519PrivateKey:
    from cryptography.hazmat.primitives import serialization

    text = text.strip()
    if text.startswith("-----BEGIN"):
        key = serialization.load_pem_private_key(text.encode(), password=None)
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError("signing key is not an Ed25519 key")
        return key
    return Ed25519PrivateKey.from_private_bytes(bytes.fromhex(text))


def private_key_hex(key: Ed25519PrivateKey) -> str:
    from cryptography.hazmat.primitives import serialization

    return key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    ).hex()


def public_key_hex(key: Ed25519PrivateKey | Ed25519PublicKey) -> str:
    from cryptography.hazmat.primitives import serialization

    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


def sign(key: Ed25519PrivateKey, message: bytes) -> str:
    return key.sign(message).hex()


def verify(public_hex: str, message: bytes, signature_hex: str) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_hex)).verify(
            bytes.fromhex(signature_hex), message
        )
    except (InvalidSignature, ValueError):
        return False
    return True
