"""Who may do what on a rules service: seat, organiser and service tokens."""

from __future__ import annotations

from typing import Any

from services.platform.errors import InvalidArgument, PermissionDenied, Unauthenticated
from services.platform.tokens import Claims


def seat_of(claims: Claims | None, match_id: str, game: str) -> int:
    """The seat a seat token of ``game``'s match ``match_id`` acts for; anything else is
    refused (match ids are per game)."""
    if claims is None:
        raise Unauthenticated("this call needs a seat token")
    if claims.role != "seat":
        raise PermissionDenied(f"this call needs a seat token, not {_a(claims.role)} token")
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
        raise PermissionDenied(f"this call needs an organiser token, not {_a(claims.role)} token")


MAX_ON_BEHALF = 4096
"""The longest ``on_behalf_of_organiser``: the names of a match's organisers, one a line."""


def creator_of(claims: Claims, on_behalf_of_organiser: str | None = None) -> dict[str, Any]:
    """Who creates a match, as MatchCreated (and MatchEnded, and so the signed result)
    records it: the token's role ("organiser" or "service") and its name (the player claim:
    an organiser's name, "matchmaking", "tournament", "neon-cli"; may be empty). Never the
    token itself.

    ``on_behalf_of_organiser`` (CreateMatchRequest, when set): a service (matchmaking, the
    tournament service for an unrated tournament) makes the match for organisers (who
    queued its tickets or accepted it for their players; who run the tournament), so it is
    recorded as theirs, ``{"role": "organiser", "name": ..., "via": <the service>}``, and
    rated as an organiser's match. Only a service may say so: anyone else is
    PERMISSION_DENIED (an organiser naming another would pass its own match off as someone
    else's). Several organisers come one a line (names are printable, so a line break is no
    part of one): the record then holds them sorted in ``names``, and ``name`` joins them
    with ", " for the readers of one name (a name may hold ", " itself: ``names`` is exact).
    One name given with ", " in it (matchmaking's way before) is recorded as one name."""
    if on_behalf_of_organiser is None:
        return {"role": claims.role, "name": claims.player}
    if claims.role != "service":
        raise PermissionDenied("on_behalf_of_organiser is set only by a service (matchmaking), "
                               f"not with {_a(claims.role)} token: an organiser's own matches "
                               "are recorded as theirs by its token")
    names = on_behalf_of_organiser.split("\n")
    if len(on_behalf_of_organiser) > MAX_ON_BEHALF or not all(n.isprintable() for n in names):
        raise InvalidArgument(f"on_behalf_of_organiser is at most {MAX_ON_BEHALF} characters: "
                              "an organiser's name, or several one a line, each printable")
    names = sorted(set(names))
    if len(names) == 1:
        return {"role": "organiser", "name": names[0], "via": claims.player}
    return {"role": "organiser", "name": ", ".join(names), "names": names, "via": claims.player}


def may_repeat(caller: dict[str, str], recorded: Any) -> bool:
    """Whether a CreateMatch by ``caller`` that repeats an existing match is answered with
    it (and so with its seat tokens): a service may (matchmaking and tournaments retry, and
    services are trusted with every match); anyone else only when they created it. A match
    created before creators were recorded is answered to services only: an organiser who
    could ask for a running match of matchmaking again would hold its seats.

    A service is answered a match a service created, or one made on an organiser's behalf
    through it (``via``), never one an organiser created with its own token: match ids of
    tournaments are predictable (``T-r2-t1``), and an organiser who created one first would
    hold the seats of the match the tournament then adopted. The service gets
    ALREADY_EXISTS naming that organiser instead."""
    if not isinstance(recorded, dict):
        return caller.get("role") == "service"
    if caller.get("role") == "service":
        return recorded.get("role") == "service" or (
            "via" in recorded and recorded.get("via") == caller.get("name"))
    return caller == recorded


def describe_creator(created_by: Any) -> str:
    """``created_by`` in words: "the organiser alice", "the service matchmaking"."""
    if not isinstance(created_by, dict):
        return "a caller this rules service did not record (before creators were recorded)"
    role, name = str(created_by.get("role", "")), str(created_by.get("name", ""))
    who = f"the {role}" if role in ("organiser", "service") else f"{_a(role)} token"
    names = created_by.get("names")
    if role == "organiser" and isinstance(names, list) and len(names) > 1:
        who = "the organisers"
    said = f"{who} {name}" if name else f"{who} (no name)"
    via = created_by.get("via")
    return f"{said} (through the service {via})" if via else said


def _a(word: str) -> str:
    """``word`` with its indefinite article, as a reason reads it: "an organiser", "a seat"."""
    return f"{'an' if word[:1].lower() in 'aeiou' and word else 'a'} {word}"
