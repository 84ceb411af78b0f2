"""Players' identities: canonical token spelling, external JWTs, reserved bot ids."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from services.platform.errors import PermissionDenied, Unauthenticated
from services.platform.settings import load
from services.platform.tokens import (
    Claims,
    ExternalIdentity,
    TokenIssuer,
    external_identity,
    require_may_seat,
)

SECRET = b"0123456789abcdef0123456789abcdef"
AUDIENCE = "neon-arena"
ISSUER = "https://id.example"


def _same_bytes_other_spelling(text: str) -> str:
    """``text`` with the unused low bits of its last base64url character flipped."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    unused = {2: 4, 3: 2}[len(text) % 4]  # 1 byte in the last group: 4 spare bits; 2 bytes: 2
    last = alphabet.index(text[-1])
    other = text[:-1] + alphabet[last ^ ((1 << unused) - 1)]

    def decode(t: str) -> bytes:
        return base64.urlsafe_b64decode(t + "=" * (-len(t) % 4))

    assert other != text and decode(other) == decode(text)  # the lenient decoder agrees
    return other


def test_a_token_whose_signature_has_flipped_unused_bits_is_refused() -> None:
    issuer = TokenIssuer(SECRET, external=None)
    token = issuer.issue("seat", "m1", seat=0, player="ana")
    version, body, sig = token.split(".")
    assert len(sig) % 4 in (2, 3)  # 32 bytes: 43 characters, two spare bits
    with pytest.raises(Unauthenticated, match="malformed token signature"):
        issuer.verify(f"{version}.{body}.{_same_bytes_other_spelling(sig)}")
    assert issuer.verify(token).player == "ana"


def test_a_token_whose_claims_are_spelled_otherwise_is_refused() -> None:
    issuer = TokenIssuer(SECRET, external=None)
    for player in ("a", "ab", "abc"):  # one of these leaves spare bits in the body
        version, body, sig = issuer.issue("player", "*", player=player).split(".")
        if len(body) % 4:
            other = _same_bytes_other_spelling(body)
            with pytest.raises(Unauthenticated):
                issuer.verify(f"{version}.{other}.{sig}")


@pytest.mark.parametrize("sig_suffix", ["=", "==", "+", "/"])
def test_padding_and_other_alphabets_are_refused(sig_suffix: str) -> None:
    issuer = TokenIssuer(SECRET, external=None)
    token = issuer.issue("seat", "m1", seat=0)
    with pytest.raises(Unauthenticated):
        issuer.verify(token + sig_suffix)


# ----------------------------------------------------------------------------- external JWTs


@pytest.fixture(scope="module")
def rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _pem(key: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey) -> str:
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def _jwt(key: object, alg: str = "RS256", **claims: object) -> str:
    now = int(time.time())
    payload = {"sub": "player-7", "aud": AUDIENCE, "iss": ISSUER, "iat": now, "exp": now + 600}
    payload.update(claims)
    return jwt.encode({k: v for k, v in payload.items() if v is not None}, key, algorithm=alg,
                      headers={"kid": "k1"})


def _issuer(rsa_key: rsa.RSAPrivateKey) -> TokenIssuer:
    return TokenIssuer(SECRET, external=ExternalIdentity.from_pem(_pem(rsa_key), AUDIENCE, ISSUER))


def test_an_identity_providers_jwt_is_a_player_token_for_its_subject(rsa_key: rsa.RSAPrivateKey) -> None:
    claims = _issuer(rsa_key).verify(_jwt(rsa_key))
    assert claims == Claims(role="player", match="*", player="player-7", exp=claims.exp,
                            leeway=30)
    # refused from exp + its leeway (clock skew), where a stream taken with it ends too
    assert claims.refused_from == claims.exp + 30


@pytest.mark.parametrize("case", ["forged", "expired", "audience", "issuer", "no-sub", "hs256",
                                  "bot", "garbage"])
def test_bad_jwts_are_unauthenticated(rsa_key: rsa.RSAPrivateKey, case: str) -> None:
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048) if case == "forged" else None
    token = {
        "forged": lambda: _jwt(other),
        "expired": lambda: _jwt(rsa_key, exp=int(time.time()) - 3600),
        "audience": lambda: _jwt(rsa_key, aud="another-app"),
        "issuer": lambda: _jwt(rsa_key, iss="https://evil.example"),
        "no-sub": lambda: _jwt(rsa_key, sub=None),
        # algorithm confusion: the public key used as an HMAC secret
        "hs256": lambda: jwt.encode({"sub": "x", "aud": AUDIENCE, "exp": 2**31},
                                    "not-the-public-key-but-long-enough-for-hs256!", "HS256"),
        "bot": lambda: _jwt(rsa_key, sub="bot-evil"),
        "garbage": lambda: "a.b.c",
    }[case]()
    expected = PermissionDenied if case == "bot" else Unauthenticated
    with pytest.raises(expected):
        _issuer(rsa_key).verify(token)


def test_without_an_identity_provider_a_jwt_is_refused(rsa_key: rsa.RSAPrivateKey) -> None:
    with pytest.raises(Unauthenticated):
        TokenIssuer(SECRET, external=None).verify(_jwt(rsa_key))


def test_a_jwks_file_from_settings_verifies_by_key_id(tmp_path: Path) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key.public_key()))
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps({"keys": [{**jwk, "kid": "k1", "alg": "ES256", "use": "sig"}]}))
    settings = load({"NEON_JWT_JWKS_FILE": str(jwks), "NEON_JWT_AUDIENCE": AUDIENCE,
                     "NEON_JWT_ISSUER": ISSUER})
    identity = external_identity(settings)
    assert identity is not None
    assert identity.verify(_jwt(key, "ES256")).player == "player-7"
    with pytest.raises(Unauthenticated):
        identity.verify(_jwt(ec.generate_private_key(ec.SECP256R1()), "ES256"))


def test_a_pem_from_settings_is_picked_up_by_every_token_issuer(
        rsa_key: rsa.RSAPrivateKey, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEON_JWT_PUBLIC_KEY", _pem(rsa_key))
    monkeypatch.setenv("NEON_JWT_AUDIENCE", AUDIENCE)
    assert TokenIssuer(SECRET).verify(_jwt(rsa_key)).player == "player-7"
    monkeypatch.delenv("NEON_JWT_AUDIENCE")
    with pytest.raises(ValueError, match="NEON_JWT_AUDIENCE"):
        TokenIssuer(SECRET)


# ----------------------------------------------------------------------------- bot ids


def test_only_a_service_token_may_seat_bot_player_ids() -> None:
    service = Claims(role="service", match="*", player="matchmaking")
    organiser = Claims(role="organiser", match="*", player="cli")
    require_may_seat(service, ["ana", "bot-random-1"])
    require_may_seat(organiser, ["ana", "ben"])
    for claims in (organiser, Claims(role="player", match="*", player="x"), None):
        with pytest.raises(PermissionDenied, match="bot-evil"):
            require_may_seat(claims, ["ana", "bot-evil"])


def test_player_tokens_are_not_minted_for_bot_ids() -> None:
    issuer = TokenIssuer(SECRET, external=None)
    with pytest.raises(ValueError, match="reserved"):
        issuer.issue_player("bot-evil")
    with pytest.raises(ValueError):
        issuer.issue_player("")
    assert issuer.verify(issuer.issue_player("ana")).role == "player"


def test_a_jwks_without_an_asymmetric_signing_key_is_refused_at_start() -> None:
    """A shared secret (``oct``), an encryption key or a JWK whose ``alg`` is HMAC verifies
    nothing: a JWKS of only those is a configuration error, not a provider whose tokens all
    fail (or, worse, one whose public key becomes an HMAC secret)."""
    rsa_jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(
        rsa.generate_private_key(public_exponent=65537, key_size=2048).public_key()))
    for keys in ([{"kty": "oct", "k": "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0", "kid": "h"}],
                 [{**rsa_jwk, "use": "enc", "kid": "e"}],
                 [{**rsa_jwk, "alg": "HS256", "kid": "r"}]):
        with pytest.raises(ValueError, match="no signing key"):
            ExternalIdentity.from_jwks({"keys": keys}, AUDIENCE, ISSUER)


def test_jwt_keys_without_an_issuer_warn_once_and_never_log_a_token(
        rsa_key: rsa.RSAPrivateKey, monkeypatch: pytest.MonkeyPatch) -> None:
    """With NEON_JWT_ISSUER unset, JWTs of any issuer are taken (the audience is required):
    deployments rely on it, so it stays, but the start-up says so once, naming the setting,
    in a structured warning that holds neither the key nor any token."""
    import structlog

    from services.platform import tokens

    monkeypatch.setattr(tokens, "_warned_any_issuer", False, raising=False)
    pem = _pem(rsa_key)
    token = _jwt(rsa_key, iss="https://anyone.example")
    env = {"NEON_JWT_PUBLIC_KEY": pem, "NEON_JWT_AUDIENCE": AUDIENCE}
    with structlog.testing.capture_logs() as logged:
        for _ in range(3):  # a process builds its issuer more than once (each service's)
            identity = external_identity(load(env))
            assert identity is not None and identity.issuer == ""
            issuer = TokenIssuer(SECRET, external=identity)
            assert issuer.verify(token).player == "player-7"  # any issuer: taken, as before
        with pytest.raises(Unauthenticated):
            issuer.verify(token + "x")
    warnings = [e for e in logged if e["log_level"] == "warning"]
    assert len(warnings) == 1, logged
    assert warnings[0]["setting"] == "NEON_JWT_ISSUER"
    assert "issuer" in warnings[0]["event"]
    shown = repr(logged)
    assert token not in shown and token.split(".")[1] not in shown
    assert "BEGIN PUBLIC KEY" not in shown and pem.splitlines()[1] not in shown
    # with an issuer, or without JWT keys at all: no warning
    monkeypatch.setattr(tokens, "_warned_any_issuer", False, raising=False)
    with structlog.testing.capture_logs() as logged:
        external_identity(load({**env, "NEON_JWT_ISSUER": ISSUER}))
        assert external_identity(load({})) is None
    assert [e for e in logged if e["log_level"] == "warning"] == []
