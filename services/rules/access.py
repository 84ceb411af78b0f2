"""Who may do what on a rules service: seat, organiser and service tokens."""

from __future__ import annotations

from services.platform.errors import PermissionDenied, Unauthenticated
from services.platform.tokens import Claims


def seat_of(claims: Claims | None, match_id: str, game: str) -> int:
    """The seat a seat token of ``game``'s match ``match_id`` acts for; anything else is
    refused (match ids are per game)."""
    if claims is None:
        raise Unauthenticated("this call needs a seat token")
    if claims.role != "seat":
        raise PermissionDenied(f"this call needs a seat token, not a {claims.role} token")
    claims.require_match(match_id)
    claims.require_game(game)
    return claims.seat


def viewer_of(claims: Claims | None, match_id: str, game: str) -> int | None:
    """A seat for a seat token of ``game``'s match ``match_id``, else ``None`` (the public
    view); a seat token of another match is refused."""
    if claims is None or claims.role != "seat":
        return None
    claims.require_match(match_id)
    claims.require_game(game)
    return claims.seat


def require_organiser(claims: Claims | None) -> None:
    """Organisers, and services acting for them (matchmaking), may create and audit."""
    if claims is None:
        raise Unauthenticated("this call needs an organiser token")
    if claims.role not in ("organiser", "service"):
        raise PermissionDenied(f"this call needs an organiser token, not a {claims.role} token")
