"""Seat, organiser and service tokens: HMAC-SHA256 signed, bound to match and seat, expiring.

Format: ``v1.<base64url(canonical JSON claims)>.<base64url(HMAC-SHA256(secret, body))>``.
Claims: ``role`` ("seat", "player", "organiser" or "service"), ``match`` (a match id or "*"),
``seat`` (int, seats only), ``player`` and ``exp`` (unix seconds).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from dataclasses import dataclass

from services.platform.canonical import canonical_json
from services.platform.errors import PermissionDenied, Unauthenticated

ROLES = ("seat", "player", "organiser", "service")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


BOT_PREFIX = "bot-"
"""Player ids starting with this are bots: tickets may not use it, scoring never rates them."""


def is_bot(player: str) -> bool:
    return player.startswith(BOT_PREFIX)


@dataclass(frozen=True)
class Claims:
    role: str
    match: str
    seat: int = -1
    player: str = ""
    exp: int = 0

    def require_match(self, match_id: str) -> None:
        if self.match not in ("*", match_id):
            raise PermissionDenied("token is for another match")


class TokenIssuer:
    def __init__(self, secret: bytes, clock: object = time.time) -> None:
        if len(secret) < 16:
            raise ValueError("token secret must be at least 16 bytes")
        self._secret = secret
        self._clock = clock

    def _now(self) -> int:
        return int(self._clock())  # type: ignore[operator]

    def issue(self, role: str, match: str, seat: int = -1, player: str = "", ttl: int = 86400) -> str:
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r}")
        claims = {"role": role, "match": match, "seat": seat, "player": player, "exp": self._now() + ttl}
        body = _b64(canonical_json(claims))
        sig = hmac.new(self._secret, body.encode(), hashlib.sha256).digest()
        return f"v1.{body}.{_b64(sig)}"

    def verify(self, token: str) -> Claims:
        try:
            version, body, sig = token.split(".")
        except ValueError:
            raise Unauthenticated("malformed token") from None
        if version != "v1":
            raise Unauthenticated("unknown token version")
        expected = hmac.new(self._secret, body.encode(), hashlib.sha256).digest()
        try:
            given = _unb64(sig)
        except (ValueError, TypeError):
            raise Unauthenticated("malformed token signature") from None
        if not hmac.compare_digest(expected, given):
            raise Unauthenticated("token signature is invalid")
        try:
            raw = json.loads(_unb64(body))
            claims = Claims(
                role=str(raw["role"]), match=str(raw["match"]), seat=int(raw["seat"]),
                player=str(raw.get("player", "")), exp=int(raw["exp"]),
            )
        except (ValueError, KeyError, TypeError):
            raise Unauthenticated("malformed token claims") from None
        if claims.exp < self._now():
            raise Unauthenticated("token has expired")
        return claims


def bearer(metadata: object) -> str | None:
    """The bearer token from gRPC invocation metadata, if any."""
    for key, value in metadata or ():  # type: ignore[attr-defined]
        if key == "authorization":
            if isinstance(value, bytes):
                value = value.decode(errors="replace")
            if value.lower().startswith("bearer "):
                return value[7:].strip()
            raise Unauthenticated("authorization metadata must be 'Bearer <token>'")
    return None
