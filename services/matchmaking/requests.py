"""A ticket request as the client sent it, and its checks against a game's modes and seats."""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from services.matchmaking.catalogue import GameSpec
from services.platform.errors import InvalidArgument
from services.platform.players import player_id_refused
from services.platform.tokens import BOT_RESERVED, is_bot

TICKET_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")
MAX_PARTY = 6
MAX_REGION = 32
MAX_SEATS = 24
MAX_MODES = 16
"""The most entries a ticket's ``modes`` may list (no game has nearly as many modes): the
request is stored as sent, for its idempotency, so an unbounded list was an unbounded event."""
MAX_NAME = 64
"""The longest game or mode name a request may give."""
UNPRINTABLE = frozenset({"Cc", "Cf", "Cs", "Co"})
"""Unicode categories a region may not hold: control, format (zero-width, bidi overrides),
surrogate and private-use characters. Regions are compared as sent, so "eu" with an invisible
character was a queue of its own that no "eu" ticket ever met."""


@dataclass(frozen=True)
class TicketRequest:
    ticket_id: str
    game: str
    modes: tuple[str, ...] = ()
    players: tuple[str, ...] = ()
    min_seats: int = 0
    max_seats: int = 0
    region: str = ""
    rating_window: float = 0.0
    allow_bots: bool = False

    def requested(self) -> dict[str, Any]:
        return {
            "game": self.game, "modes": list(self.modes), "players": list(self.players),
            "min_seats": self.min_seats, "max_seats": self.max_seats, "region": self.region,
            "rating_window": self.rating_window, "allow_bots": self.allow_bots,
        }


def check_shape(req: TicketRequest) -> list[str]:
    """Checks that need no game: ids, party, numbers. Returns the party's players."""
    if not TICKET_ID.match(req.ticket_id):
        raise InvalidArgument("ticket_id must be 1-64 letters, digits, '-' or '_'")
    if len(req.game) > MAX_NAME:
        raise InvalidArgument(f"game must be at most {MAX_NAME} characters")
    if len(req.modes) > MAX_MODES:
        raise InvalidArgument(f"a ticket lists at most {MAX_MODES} modes, not {len(req.modes)}")
    for m in req.modes:
        if not m or len(m) > MAX_NAME:
            raise InvalidArgument(f"a mode name must be 1-{MAX_NAME} characters")
    players = [str(p) for p in req.players]
    if not players:
        raise InvalidArgument("a ticket needs at least one player")
    if len(players) > MAX_PARTY:
        raise InvalidArgument(f"a party has at most {MAX_PARTY} players")
    if len(set(players)) != len(players):
        raise InvalidArgument("a party lists a player twice")
    for p in players:
        if (why := player_id_refused(p)) is not None:
            raise InvalidArgument(why)
        if is_bot(p):
            raise InvalidArgument(BOT_RESERVED)
    if req.min_seats < 0 or req.max_seats < 0:
        raise InvalidArgument("seat limits must not be negative")
    if req.min_seats and req.max_seats and req.min_seats > req.max_seats:
        raise InvalidArgument(f"min_seats {req.min_seats} is above max_seats {req.max_seats}")
    if not math.isfinite(req.rating_window) or req.rating_window < 0:
        raise InvalidArgument("rating_window must be a finite number >= 0")
    if len(req.region) > MAX_REGION:
        raise InvalidArgument(f"region must be at most {MAX_REGION} characters")
    if any(unicodedata.category(ch) in UNPRINTABLE for ch in req.region):
        raise InvalidArgument("region must be printable text: no control, invisible format or "
                              "private-use characters")
    return players


def resolve(spec: GameSpec, req: TicketRequest, players: list[str]) -> dict[str, Any]:
    """The ticket as matchmaking keeps it: modes that can seat the party, concrete limits."""
    modes = list(dict.fromkeys(req.modes)) or [spec.default_mode]
    for m in modes:
        if spec.mode(m) is None:
            names = ", ".join(x.name for x in spec.modes)
            raise InvalidArgument(f"{spec.game} has no mode {m!r}; modes: {names}")
    if len(players) > spec.max_seats:
        raise InvalidArgument(
            f"a party of {len(players)} is larger than {spec.game} allows ({spec.max_seats} seats)")
    lo, hi = req.min_seats or 1, req.max_seats or MAX_SEATS
    seatable = []
    for m in modes:
        mode = spec.mode(m)
        assert mode is not None
        counts = [s for s in mode.seat_counts() if max(lo, len(players)) <= s <= hi]
        team_ok = not mode.teams or any(len(players) <= mode.team_size_for(s) for s in counts)
        if counts and team_ok:
            seatable.append(m)
    if not seatable:
        limits = "; ".join(f"{m.name} {m.min_seats}-{m.max_seats}" + (
            f" in teams of {'/'.join(str(s) for _, s in m.team_layouts)}" if m.teams else "")
            for m in spec.modes if m.name in modes)
        raise InvalidArgument(
            f"no allowed mode of {spec.game} seats a party of {len(players)} with seats "
            f"{req.min_seats or 'any'}..{req.max_seats or 'any'} (limits: {limits})")
    return {
        "game": req.game, "modes": seatable, "players": players, "min_seats": lo,
        "max_seats": hi, "region": req.region, "rating_window": req.rating_window,
        "allow_bots": req.allow_bots,
    }
