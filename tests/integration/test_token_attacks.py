"""Tokens as an attacker sends them, over real gRPC: an identity provider's JWTs with the
wrong algorithm, key, claims or shape; our own tokens outliving what made them; an empty
bearer. Each refusal is UNAUTHENTICATED (or PERMISSION_DENIED) with a reason that does not
echo the token, never INTERNAL or UNKNOWN, and never an acceptance."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp
import grpc
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from grpc_health.v1 import health_pb2

from services.cli.backend import start_backend
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as pb
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc
from services.platform.grpc_kit import call_metadata, channel, start_server
from services.platform.tokens import ExternalIdentity, TokenIssuer, VerifyingKey
from tests.integration.conftest import make_settings
from tests.support.gateway import gateway_for

AUDIENCE, ISSUER = "neon-arena", "https://id.example"
OK = "ok"


def _jwk(key: Any, kid: str, alg: str | None) -> dict[str, Any]:
    public = key.public_key()
    if isinstance(key, rsa.RSAPrivateKey):
        data = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(public))
    elif isinstance(key, ec.EllipticCurvePrivateKey):
        data = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(public))
    else:
        data = json.loads(jwt.algorithms.OKPAlgorithm.to_jwk(public))
    data.update({"kid": kid, "use": "sig"})
    if alg:
        data["alg"] = alg
    return data


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


async def _ask(stub: Any, token: str | None) -> tuple[str, str]:
    """GetTicket of a ticket nobody queued: NOT_FOUND ("ok") once the token is taken."""
    try:
        await stub.GetTicket(pb.GetTicketRequest(ticket_id=f"none-{uuid.uuid4().hex[:6]}"),
                             metadata=call_metadata(token), timeout=10)
    except grpc.aio.AioRpcError as err:
        if err.code() == grpc.StatusCode.NOT_FOUND:
            return OK, ""
        return err.code().name, err.details() or ""
    return "answered", ""


HTTP_STATUS = {OK: 404, "UNAUTHENTICATED": 401, "PERMISSION_DENIED": 403}


async def _ask_gateway(url: str, token: str) -> tuple[int, str]:
    """GetTicket through the gateway (Connect, JSON): the HTTP status and the reason."""
    async with aiohttp.ClientSession() as http, http.post(
            url + "/neon.matchmaking.v1.MatchmakingService/GetTicket",
            data=json.dumps({"ticketId": "none"}).encode(),
            headers={"Content-Type": "application/json",
                     "Authorization": f"Bearer {token}"}) as r:
        body = json.loads(await r.read())
        return r.status, "" if r.status == 404 else body.get("message", "")


async def test_identity_provider_jwts_are_refused_clearly_by_key_algorithm_and_claims(
        tmp_path: Path, nats_url: str) -> None:
    """A JWKS of an RSA key (RS256, the old one), a P-256 key (ES256, the new one) and an
    Ed25519 key without ``alg``: each token verifies only with the algorithms its key
    takes; a key of another type than the algorithm is UNAUTHENTICATED, not a crash."""
    old = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    new = ec.generate_private_key(ec.SECP256R1())
    okp = Ed25519PrivateKey.generate()
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps({"keys": [_jwk(old, "old", "RS256"), _jwk(new, "new", "ES256"),
                                         _jwk(okp, "okp", None)]}))
    now = int(time.time())
    claims = {"sub": "pia", "aud": AUDIENCE, "iss": ISSUER, "iat": now, "exp": now + 600}

    def signed(key: Any, alg: str, kid: str | None, **changes: Any) -> str:
        payload = {k: v for k, v in {**claims, **changes}.items() if v is not None}
        return jwt.encode(payload, key, algorithm=alg, headers={"kid": kid} if kid else None)

    def raw(header: dict[str, Any], payload: dict[str, Any], sig: bytes = b"x" * 64) -> str:
        return ".".join([_b64(json.dumps(header).encode()), _b64(json.dumps(payload).encode()),
                         _b64(sig)])

    def hs256(secret: bytes) -> str:
        body = ".".join([_b64(json.dumps({"alg": "HS256", "kid": "old"}).encode()),
                         _b64(json.dumps(claims).encode())])
        return f"{body}.{_b64(hmac.new(secret, body.encode(), hashlib.sha256).digest())}"

    cases: dict[str, tuple[str, str, str]] = {
        # (token, expected code, words of the reason)
        "RS256 by the old key": (signed(old, "RS256", "old"), OK, ""),
        "ES256 by the new key": (signed(new, "ES256", "new"), OK, ""),
        "EdDSA by a key without alg": (signed(okp, "EdDSA", "okp"), OK, ""),
        # rotation: a token without kid is tried on every key that takes its algorithm
        "ES256 by the new key, no kid": (signed(new, "ES256", None), OK, ""),
        "RS256 by the old key, no kid": (signed(old, "RS256", None), OK, ""),
        # key confusion: an algorithm of another key type than the key kid names
        "RS256 naming the EC key": (signed(old, "RS256", "new"), "UNAUTHENTICATED", "algorithm"),
        "ES256 naming the RSA key": (signed(new, "ES256", "old"), "UNAUTHENTICATED", "algorithm"),
        "EdDSA naming the RSA key": (signed(okp, "EdDSA", "old"), "UNAUTHENTICATED", "algorithm"),
        "ES384 naming the P-256 key": (
            raw({"alg": "ES384", "kid": "new"}, claims,
                base64.urlsafe_b64decode(signed(new, "ES256", "new").split(".")[2] + "==")),
            "UNAUTHENTICATED", "algorithm"),
        # an algorithm the JWKS did not allow for that key (its "alg" says RS256)
        "PS256 by the old RSA key": (signed(old, "PS256", "old"), "UNAUTHENTICATED", "algorithm"),
        "HS256 with the public JWK as secret": (
            hs256(json.dumps(_jwk(old, "old", "RS256")).encode()), "UNAUTHENTICATED", "algorithm"),
        "HS256 with the public key's PEM as secret": (
            hs256(old.public_key().public_bytes(serialization.Encoding.PEM,
                                                serialization.PublicFormat.SubjectPublicKeyInfo)),
            "UNAUTHENTICATED", "algorithm"),
        "alg none": (jwt.encode(claims, None, algorithm="none"), "UNAUTHENTICATED", "algorithm"),
        "alg a list": (raw({"alg": ["RS256"], "kid": "old"}, claims), "UNAUTHENTICATED",
                       "algorithm"),
        "unknown kid": (signed(old, "RS256", "gone"), "UNAUTHENTICATED", "unknown key"),
        "no kid, no key takes it": (signed(rsa.generate_private_key(65537, 2048), "RS256", None),
                                    "UNAUTHENTICATED", "JWT"),
        "forged with a kid": (signed(ec.generate_private_key(ec.SECP256R1()), "ES256", "new"),
                              "UNAUTHENTICATED", "JWT"),
        # claims
        "expired": (signed(new, "ES256", "new", exp=now - 3600), "UNAUTHENTICATED", "expired"),
        "expired within the leeway (clock skew)": (signed(new, "ES256", "new", exp=now - 5), OK, ""),
        "no exp": (signed(new, "ES256", "new", exp=None), "UNAUTHENTICATED", "exp"),
        "not yet valid (nbf)": (signed(new, "ES256", "new", nbf=now + 3600),
                                "UNAUTHENTICATED", "not yet valid"),
        "issued in the future (iat)": (signed(new, "ES256", "new", iat=now + 3600),
                                       "UNAUTHENTICATED", "not yet valid"),
        "nbf within the leeway": (signed(new, "ES256", "new", nbf=now + 5), OK, ""),
        "no aud": (signed(new, "ES256", "new", aud=None), "UNAUTHENTICATED", "aud"),
        "another aud": (signed(new, "ES256", "new", aud="other"), "UNAUTHENTICATED", "audience"),
        "no iss": (signed(new, "ES256", "new", iss=None), "UNAUTHENTICATED", "iss"),
        "another iss": (signed(new, "ES256", "new", iss="https://evil.example"),
                        "UNAUTHENTICATED", "issuer"),
        "no sub": (signed(new, "ES256", "new", sub=None), "UNAUTHENTICATED", "sub"),
        "sub not a string": (signed(new, "ES256", "new", sub=7), "UNAUTHENTICATED", "ubject"),
        "sub with a line break": (signed(new, "ES256", "new", sub="pia\nadmin"),
                                  "UNAUTHENTICATED", "player id"),
        "sub of 129 characters": (signed(new, "ES256", "new", sub="p" * 129),
                                  "UNAUTHENTICATED", "player id"),
        "a bot's sub": (signed(new, "ES256", "new", sub="bot-x"), "PERMISSION_DENIED", "bot-"),
        # shapes
        "garbage of three parts": ("a.b.c", "UNAUTHENTICATED", "JWT"),
        "big garbage": ("x" * 3000 + "." + "y" * 3000 + ".z", "UNAUTHENTICATED", "JWT"),
        "header not an object": (raw([1], claims), "UNAUTHENTICATED", "JWT"),  # type: ignore[arg-type]
        "kid not a string": (raw({"alg": "ES256", "kid": 5}, claims), "UNAUTHENTICATED", "JWT"),
    }
    settings = make_settings(tmp_path, nats_url, jwt_jwks_file=str(jwks),
                             jwt_audience=AUDIENCE, jwt_issuer=ISSUER)
    backend = await start_backend(settings, games=[], embedded_nats=False, matchmaking=True)
    ch = channel(backend.address("matchmaking"))
    stub = pb_grpc.MatchmakingServiceStub(ch)
    wrong = []
    try:
        async with gateway_for(backend) as gateway:
            for name, (token, code, words) in cases.items():
                got, details = await _ask(stub, token)
                if got != code or words not in details:
                    wrong.append(f"{name}: {got} {details!r}")
                # a reason never echoes the token, nor its signature
                if token[-20:] in details or (len(token) > 40 and token[:40] in details):
                    wrong.append(f"{name}: the reason echoes the token: {details!r}")
                # the gateway over HTTP: the same status, as Connect has it
                http = await _ask_gateway(gateway.url, token)
                if http != (HTTP_STATUS[got], details):
                    wrong.append(f"{name} through the gateway: {http}, gRPC {got} {details!r}")
    finally:
        await ch.close()
        await backend.stop(1)
    assert wrong == []


async def test_an_empty_bearer_is_unauthenticated_not_anonymous(tmp_path: Path,
                                                                nats_url: str) -> None:
    """``authorization: Bearer`` with no token is no token: UNAUTHENTICATED on a call that
    takes none as on one that needs one (it must not pass as an anonymous caller)."""
    backend = await start_backend(make_settings(tmp_path, nats_url), games=[],
                                  embedded_nats=False, matchmaking=True)
    ch = channel(backend.address("matchmaking"))
    stub = pb_grpc.MatchmakingServiceStub(ch)
    try:
        for value in ("Bearer ", "Bearer    ", "bearer "):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.GetTicket(pb.GetTicketRequest(ticket_id="t"),
                                     metadata=(("authorization", value),), timeout=10)
            assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED, value
            assert "Bearer <token>" in (refused.value.details() or ""), value
    finally:
        await ch.close()
        await backend.stop(1)


async def test_a_verifier_that_fails_answers_unauthenticated_with_the_request_id() -> None:
    """A verifier's own failure (here a key listed with an algorithm of another key type,
    which PyJWT meets with a TypeError) takes no token: UNAUTHENTICATED with the request id
    (the traceback logged), not grpc's UNKNOWN quoting the exception."""
    broken = ExternalIdentity(
        (VerifyingKey(ec.generate_private_key(ec.SECP256R1()).public_key(), None,
                      frozenset({"RS256"})),), AUDIENCE)
    issuer = TokenIssuer(b"s" * 32, external=broken)
    handle = await start_server("127.0.0.1:0", lambda server: None, [], issuer, metrics=False)
    now = int(time.time())
    token = jwt.encode({"sub": "pia", "aud": AUDIENCE, "exp": now + 600},
                       rsa.generate_private_key(65537, 2048), algorithm="RS256")
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{handle.port}") as ch:
            check = ch.unary_unary("/grpc.health.v1.Health/Check",
                                   request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
                                   response_deserializer=health_pb2.HealthCheckResponse.FromString)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await check(health_pb2.HealthCheckRequest(),
                            metadata=call_metadata(token, request_id="req-broken-1"), timeout=10)
    finally:
        await handle.stop(0)
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED, refused.value.details()
    assert refused.value.details() == "the token could not be verified (request id req-broken-1)"


async def test_a_minted_player_token_does_not_outlive_the_organiser_token_that_minted_it(
        tmp_path: Path, nats_url: str) -> None:
    """An organiser token of a minute mints no player token of a month: what the minted token
    does counts as the organiser's (``minted_by``), so it ends when the organiser's does."""
    backend = await start_backend(make_settings(tmp_path, nats_url), games=[],
                                  embedded_nats=False, matchmaking=True)
    ch = channel(backend.address("matchmaking"))
    stub = pb_grpc.MatchmakingServiceStub(ch)
    try:
        short = backend.issuer.issue("organiser", "*", player="olga", ttl=60)
        until = backend.issuer.verify(short).exp
        for ttl in (0, 3600, 30 * 24 * 3600):  # 0: the default day
            reply = await stub.MintPlayerToken(
                pb.MintPlayerTokenRequest(player_id="ana", ttl_seconds=ttl),
                metadata=call_metadata(short), timeout=10)
            minted = backend.issuer.verify(reply.token)
            assert minted.exp <= until and reply.expires_at == minted.exp, (ttl, minted, until)
            assert minted.minted_by == "olga"
        # a shorter lifetime than the organiser's is kept as asked
        long = backend.issuer.issue("organiser", "*", player="olga", ttl=7200)
        reply = await stub.MintPlayerToken(
            pb.MintPlayerTokenRequest(player_id="ana", ttl_seconds=600),
            metadata=call_metadata(long), timeout=10)
        assert 590 <= reply.expires_at - time.time() <= 601
    finally:
        await ch.close()
        await backend.stop(1)
