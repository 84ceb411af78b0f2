"""Seat, player, organiser and service tokens: HMAC-SHA256 signed, bound to match and seat,
expiring; and, where a deployment configures one, player JWTs of an external identity provider.

Format: ``v1.<base64url(canonical JSON claims)>.<base64url(HMAC-SHA256(secret, body))>``.
Claims: ``role`` ("seat", "player", "organiser" or "service"), ``match`` (a match id or "*"),
``seat`` (int, seats only), ``player``, ``exp`` (unix seconds) and, on seat tokens, ``game``
(match ids are per game: a seat of one game's match "final" is no seat of another game's) and,
on a player token an organiser minted (MintPlayerToken), ``minted_by``. Only the canonical unpadded
base64url encoding is accepted, so one token has exactly one spelling.

External JWTs (``NEON_JWT_PUBLIC_KEY`` or ``NEON_JWT_JWKS_FILE``, with ``NEON_JWT_AUDIENCE`` and
``NEON_JWT_ISSUER``) are verified with PyJWT and become player tokens: ``sub`` is the player id.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt

from services.platform.canonical import canonical_json
from services.platform.errors import PermissionDenied, Unauthenticated
from services.platform.logs import get_logger

ROLES = ("seat", "player", "organiser", "service")
log = get_logger("tokens")
_B64URL = re.compile(r"^[A-Za-z0-9_-]*\Z")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    """Decode unpadded base64url, refusing every non-canonical spelling (padding, other
    alphabets, and non-zero unused low bits in the last character)."""
    if not _B64URL.match(text) or len(text) % 4 == 1:
        raise ValueError("not canonical base64url")
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except binascii.Error as err:
        raise ValueError(str(err)) from None
    if _b64(data) != text:
        raise ValueError("not canonical base64url")
    return data


VERIFIED_CACHE = 50_000
BOT_PREFIX = "bot-"
"""Player ids starting with this are bots: tickets may not use it, scoring never rates them,
and only a service token (the bot driver) may seat one."""


BOT_RESERVED = f"player ids starting with {BOT_PREFIX!r} are reserved for bots"
"""Why a player id that :func:`is_bot` may not be a person's: every refusal of one says this."""


def is_bot(player: str) -> bool:
    return player.startswith(BOT_PREFIX)


def require_may_seat(claims: Claims | None, players: Iterable[str]) -> None:
    """Refuse ``bot-`` player ids unless the caller holds a service token (the bot driver)."""
    bots = [p for p in players if is_bot(p)]
    if bots and (claims is None or claims.role != "service"):
        raise PermissionDenied(f"player ids starting with {BOT_PREFIX!r} are reserved for the "
                               f"bot driver: {', '.join(bots)}")


@dataclass(frozen=True)
class Claims:
    role: str
    match: str
    seat: int = -1
    player: str = ""
    exp: int = 0
    game: str = ""
    """The game of a seat token's match ("": a token from before seat tokens named it)."""
    minted_by: str | None = None
    """On a player token an organiser minted (MintPlayerToken): that organiser's name (may
    be empty); ``None`` on every other token (minted with the deployment's keys, a JWT)."""
    leeway: int | None = None
    """An identity provider's JWT: the seconds past ``exp`` it is still taken (clock skew,
    ``ExternalIdentity.leeway``); ``None`` for the deployment's own tokens, which have none."""

    @property
    def refused_from(self) -> int:
        """The first unix second at which :meth:`TokenIssuer.verify` refuses the token: where
        an open stream taken with it ends (every stream: WatchMatch, Play, WatchMyMatches,
        WatchMyInvitations, WatchTicket). The deployment's own token is taken through its
        ``exp`` second; a JWT until ``exp`` + its leeway (PyJWT refuses it from then), so a
        stream opened with one inside its leeway is not ended as soon as it is opened."""
        if self.leeway is not None:
            return self.exp + self.leeway
        return self.exp + 1

    def require_match(self, match_id: str) -> None:
        if self.match not in ("*", match_id):
            raise PermissionDenied("token is for another match")

    def require_game(self, game: str) -> None:
        """Match ids are per game: a seat token for another game's match of the same id is
        refused (one without a game, from an earlier release, is taken as it was)."""
        if self.game and self.game != game:
            raise PermissionDenied("token is for a match of another game")


JWT_ALGORITHMS = ("RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512",
                  "EdDSA")
"""The algorithms an identity provider's JWT may be signed with: asymmetric only (an HMAC
algorithm would take a public key as its secret)."""
_EC_ALGORITHM = {"secp256r1": "ES256", "secp384r1": "ES384", "secp521r1": "ES512"}


def _fitting_algorithms(key: Any) -> frozenset[str]:
    """The algorithms that verify with ``key`` (a public key of ``cryptography``): RS/PS for
    RSA, the one ES of an EC key's curve, EdDSA for Ed25519/Ed448; none for anything else."""
    from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa

    if isinstance(key, rsa.RSAPublicKey):
        return frozenset(a for a in JWT_ALGORITHMS if a[:2] in ("RS", "PS"))
    if isinstance(key, ec.EllipticCurvePublicKey):
        alg = _EC_ALGORITHM.get(key.curve.name)
        return frozenset((alg,)) if alg else frozenset()
    if isinstance(key, (ed25519.Ed25519PublicKey, ed448.Ed448PublicKey)):
        return frozenset(("EdDSA",))
    return frozenset()


def _public(key: Any) -> Any:
    """A public key for ``key`` (a JWKS may carry a private key's fields too)."""
    from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa

    private = (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey, ed25519.Ed25519PrivateKey,
               ed448.Ed448PrivateKey)
    return key.public_key() if isinstance(key, private) else key


@dataclass(frozen=True)
class VerifyingKey:
    """One key of an identity provider, with its key id (``None``: a PEM key, or a JWK
    without ``kid``) and the algorithms it verifies: those that fit its type (an EC key: its
    curve's), narrowed to its JWK's ``alg`` when that is given."""

    key: Any
    kid: str | None
    algorithms: frozenset[str]


def _shown(value: Any) -> str:
    """A header value an attacker chose, as a reason quotes it: short."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:40]}..."


def valid_player_id(player: str) -> bool:
    """1-128 printable characters (minted tokens and JWT subjects alike)."""
    return 0 < len(player) <= 128 and player.isprintable()


@dataclass(frozen=True)
class ExternalIdentity:
    """Verifies JWTs of an external identity provider (RS/ES/PS/EdDSA, a PEM key or a JWKS
    file). A token is checked only with the keys its ``kid`` names (every key when it names
    none: a provider rotating its keys) and only with an algorithm its key takes: an
    algorithm of another key type, another curve, or one a JWK's ``alg`` does not name is
    UNAUTHENTICATED, as is ``none`` or an HMAC algorithm."""

    keys: tuple[VerifyingKey, ...]
    audience: str
    issuer: str = ""
    leeway: int = 30

    @classmethod
    def from_pem(cls, pem: str, audience: str, issuer: str = "") -> ExternalIdentity:
        from cryptography.hazmat.primitives.serialization import load_pem_public_key

        key = load_pem_public_key(pem.encode())
        algorithms = _fitting_algorithms(key)
        if not algorithms:
            raise ValueError("the JWT public key is not an RSA, EC (P-256, P-384, P-521), "
                             "Ed25519 or Ed448 key")
        return cls((VerifyingKey(key, None, algorithms),), audience, issuer)

    @classmethod
    def from_jwks(cls, jwks: str | dict[str, Any], audience: str,
                  issuer: str = "") -> ExternalIdentity:
        data = json.loads(jwks) if isinstance(jwks, str) else jwks
        keys = []
        for entry in data.get("keys", []) if isinstance(data, dict) else []:
            if not isinstance(entry, dict) or entry.get("use", "sig") != "sig":
                continue
            try:
                key = _public(jwt.PyJWK(entry).key)
            except jwt.PyJWTError:
                continue  # a key of a type PyJWT does not know: not one to verify with
            algorithms = _fitting_algorithms(key)
            if entry.get("alg") is not None:
                algorithms &= {entry["alg"]}
            if algorithms:
                kid = entry.get("kid")
                keys.append(VerifyingKey(key, kid if isinstance(kid, str) else None, algorithms))
        if not keys:
            raise ValueError("the JWKS holds no signing key (RSA, EC P-256/384/521, Ed25519 or "
                             "Ed448, with an asymmetric alg if it names one)")
        return cls(tuple(keys), audience, issuer)

    @property
    def algorithms(self) -> tuple[str, ...]:
        return tuple(a for a in JWT_ALGORITHMS if any(a in k.algorithms for k in self.keys))

    def _keys_for(self, token: str) -> tuple[str, list[Any]]:
        """The token's algorithm and the keys that may have signed it."""
        header = jwt.get_unverified_header(token)
        alg = header.get("alg")
        if not isinstance(alg, str) or alg not in JWT_ALGORITHMS:
            raise Unauthenticated(f"JWT algorithm {_shown(alg)} is not accepted")
        kid = header.get("kid")
        named = [k for k in self.keys if kid is None or k.kid is None or k.kid == kid]
        if not named:
            raise Unauthenticated("JWT signed with an unknown key")
        fitting = [k.key for k in named if alg in k.algorithms]
        if not fitting:
            raise Unauthenticated(f"JWT algorithm {alg!r} is not accepted for its key")
        return alg, fitting

    def verify(self, token: str) -> Claims:
        try:
            alg, keys = self._keys_for(token)
            for index, key in enumerate(keys):
                try:
                    payload = jwt.decode(
                        token, key, algorithms=[alg], audience=self.audience or None,
                        issuer=self.issuer or None, leeway=self.leeway,
                        options={"require": ["exp", "sub"], "verify_aud": bool(self.audience)},
                    )
                    break
                except jwt.InvalidSignatureError:  # another key of a rotation may take it
                    if index == len(keys) - 1:
                        raise
        except jwt.ExpiredSignatureError:
            raise Unauthenticated("JWT has expired") from None
        except jwt.InvalidAudienceError:
            raise Unauthenticated("JWT is for another audience") from None
        except jwt.InvalidIssuerError:
            raise Unauthenticated("JWT is from another issuer") from None
        except jwt.PyJWTError as err:
            raise Unauthenticated(f"JWT refused: {err}") from None
        player = payload["sub"]
        if not isinstance(player, str) or not valid_player_id(player):
            raise Unauthenticated("JWT subject is not a player id (1-128 printable characters)")
        if is_bot(player):
            raise PermissionDenied(BOT_RESERVED)
        return Claims(role="player", match="*", player=player, exp=int(payload["exp"]),
                      leeway=self.leeway)


_warned_any_issuer = False
"""Whether this process said that its JWTs are taken from any issuer (once, at start-up)."""


def _warn_any_issuer(settings: Any) -> None:
    """Keys without NEON_JWT_ISSUER: JWTs of any issuer the keys verify are taken (the
    audience is checked). Deployments rely on it, so it stays; the process says so once
    (each service builds its issuer, some more than once). Settings' names only: never the
    key, never a token."""
    global _warned_any_issuer
    if _warned_any_issuer:
        return
    _warned_any_issuer = True
    log.warning("JWT keys are configured without an issuer: identity-provider JWTs of any "
                "issuer are taken (their audience is checked); set the setting to the "
                "provider's issuer to take only its tokens",
                setting="NEON_JWT_ISSUER", audience=settings.jwt_audience,
                keys="NEON_JWT_JWKS_FILE" if settings.jwt_jwks_file else "NEON_JWT_PUBLIC_KEY")


def external_identity(settings: Any) -> ExternalIdentity | None:
    """The deployment's external identity provider, from ``NEON_JWT_*`` settings, if any
    (without ``NEON_JWT_ISSUER``: any issuer, with a warning at start-up)."""
    pem, jwks_file = settings.jwt_public_key, settings.jwt_jwks_file
    if not pem and not jwks_file:
        return None
    if not settings.jwt_audience:
        raise ValueError("NEON_JWT_AUDIENCE must be set with NEON_JWT_PUBLIC_KEY/_JWKS_FILE")
    if jwks_file:
        identity = ExternalIdentity.from_jwks(Path(jwks_file).read_text(), settings.jwt_audience,
                                              settings.jwt_issuer)
    else:
        if not pem.lstrip().startswith("-----BEGIN"):
            pem = Path(pem).read_text()  # a path to the PEM file
        identity = ExternalIdentity.from_pem(pem, settings.jwt_audience, settings.jwt_issuer)
    if not settings.jwt_issuer:
        _warn_any_issuer(settings)
    return identity


_FROM_SETTINGS: Any = object()


class TokenIssuer:
    """Issues and verifies the deployment's own tokens; verifies external JWTs when
    ``external`` is given (by default: as the ``NEON_JWT_*`` settings configure).

    ``previous``: token secrets of before a rotation, by which tokens are still taken (never
    minted: :meth:`issue` signs with ``secret`` alone); by default NEON_TOKEN_SECRET_PREVIOUS
    (every service verifies tokens, whoever builds its issuer). A token is taken when its
    signature checks under any of them, refused otherwise, as one of an unnamed secret."""

    def __init__(self, secret: bytes, clock: object = time.time,
                 external: ExternalIdentity | None = _FROM_SETTINGS,
                 previous: Iterable[bytes] = _FROM_SETTINGS) -> None:
        from services.platform.keys import previous_token_secret

        if len(secret) < 16:
            raise ValueError("token secret must be at least 16 bytes")
        if previous is _FROM_SETTINGS:
            from services.platform.settings import load

            previous = previous_token_secret(load().token_secret_previous)
        previous = tuple(previous)
        if any(len(p) < 16 for p in previous):
            raise ValueError("NEON_TOKEN_SECRET_PREVIOUS: a token secret is at least 16 bytes")
        self._secret = secret
        self._previous = tuple(p for p in previous if p != secret)
        self._clock = clock
        self._verified: dict[str, Claims] = {}
        """Tokens whose signature and claims were checked already (expiry is checked on
        every use); bounded by VERIFIED_CACHE."""
        if external is _FROM_SETTINGS:
            from services.platform.settings import load

            external = external_identity(load())
        self.external = external

    def _now(self) -> int:
        return int(self._clock())  # type: ignore[operator]

    def issue(self, role: str, match: str, seat: int = -1, player: str = "", ttl: int = 86400,
              game: str = "", minted_by: str | None = None, not_after: int | None = None) -> str:
        """A signed token; ``game`` names the game of a seat token's match, ``minted_by`` the
        organiser who minted a player token (Claims.minted_by); ``not_after``: the last unix
        second it may be taken, whatever ``ttl`` says (a token minted with another token
        expires with it)."""
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r}")
        exp = self._now() + ttl
        if not_after is not None:
            exp = min(exp, not_after)
        claims: dict[str, Any] = {"role": role, "match": match, "seat": seat, "player": player,
                                  "exp": exp}
        if game:
            claims["game"] = game
        if minted_by is not None:
            claims["minted_by"] = minted_by
        body = _b64(canonical_json(claims))
        sig = hmac.new(self._secret, body.encode(), hashlib.sha256).digest()
        return f"v1.{body}.{_b64(sig)}"

    def issue_player(self, player: str, ttl: int = 86400, minted_by: str | None = None,
                     not_after: int | None = None) -> str:
        """A player token (tickets, parties): refuses empty and ``bot-`` ids. ``minted_by``:
        the organiser minting it for someone else (MintPlayerToken), named in the token;
        ``not_after``: as :meth:`issue`."""
        if not valid_player_id(player):
            raise ValueError("a player id is 1-128 printable characters")
        if is_bot(player):
            raise ValueError(BOT_RESERVED)
        return self.issue("player", "*", player=player, ttl=ttl, minted_by=minted_by,
                          not_after=not_after)

    def verify(self, token: str) -> Claims:
        if not token.startswith("v1.") and self.external is not None and token.count(".") == 2:
            return self.external.verify(token)
        try:
            version, body, sig = token.split(".")
        except ValueError:
            raise Unauthenticated("malformed token") from None
        if version != "v1":
            raise Unauthenticated("unknown token version")
        known = self._verified.get(token)
        if known is not None:
            if known.exp < self._now():
                raise Unauthenticated("token has expired")
            return known
        try:
            given = _unb64(sig)
        except (ValueError, TypeError):
            raise Unauthenticated("malformed token signature") from None
        # every secret is tried (no early exit): the time taken says nothing of which held
        held = [hmac.compare_digest(hmac.new(s, body.encode(), hashlib.sha256).digest(), given)
                for s in (self._secret, *self._previous)]
        if not any(held):
            raise Unauthenticated("token signature is invalid")
        try:
            raw = json.loads(_unb64(body))
            minted_by = raw.get("minted_by")
            claims = Claims(
                role=str(raw["role"]), match=str(raw["match"]), seat=int(raw["seat"]),
                player=str(raw.get("player", "")), exp=int(raw["exp"]),
                game=str(raw.get("game", "")),
                minted_by=str(minted_by) if minted_by is not None else None,
            )
        except (ValueError, KeyError, TypeError):
            raise Unauthenticated("malformed token claims") from None
        if claims.exp < self._now():
            raise Unauthenticated("token has expired")
        if len(self._verified) >= VERIFIED_CACHE:
            self._verified.clear()
        self._verified[token] = claims
        return claims


def bearer(metadata: object) -> str | None:
    """The bearer token from gRPC invocation metadata, if any."""
    for key, value in metadata or ():  # type: ignore[attr-defined]
        if key == "authorization":
            if isinstance(value, bytes):
                value = value.decode(errors="replace")
            if value.lower().startswith("bearer ") and value[7:].strip():
                return value[7:].strip()
            raise Unauthenticated("authorization metadata must be 'Bearer <token>'")
    return None


def claimed_player(token: str) -> str | None:
    """The player a player token says it is for, read WITHOUT checking its signature (a
    client's convenience: the services check the token when it is used): this deployment's
    player token's ``player``, an identity provider's JWT's ``sub``; None for anything else
    (another role's token, garbage)."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:  # both carry their claims as unpadded base64url JSON in the middle part
        claims = json.loads(_unb64(parts[1]))
    except ValueError:  # not base64url, not JSON
        return None
    if not isinstance(claims, dict):
        return None
    if parts[0] == "v1":
        player = claims.get("player") if claims.get("role") == "player" else None
    else:
        player = claims.get("sub")
    return player if isinstance(player, str) and player else None
