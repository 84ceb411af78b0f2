"""Players' identities on the matchmaking service: organisers mint player tokens.

``MintPlayerToken`` is the organiser's call; the matchmaking servicer gains it by being
registered through :func:`register`. Deployments that use an external identity provider
instead configure ``NEON_JWT_*`` (see services/platform/tokens.py) and need no minting.
A minted token names its organiser (``minted_by``): what is done with it in matchmaking is the
organiser's doing (matchmaker.py, "Organisers") unless NEON_MATCHMAKING_TRUST_MINTED_TOKENS.
"""

from __future__ import annotations

from typing import Any

import grpc

from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as pb
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc
from services.matchmaking.service import MatchmakingServicer
from services.platform.errors import InvalidArgument
from services.platform.grpc_kit import require_claims
from services.platform.logs import get_logger
from services.platform.players import player_id_refused
from services.platform.tokens import BOT_RESERVED, TokenIssuer, is_bot

DEFAULT_TTL = 24 * 3600
MAX_TTL = 30 * 24 * 3600
log = get_logger("matchmaking")


def mint_player_token(issuer: TokenIssuer, player_id: str, ttl_seconds: int,
                      organiser: str, not_after: int | None = None) -> tuple[str, int]:
    """A player token naming the ``organiser`` who minted it (``minted_by``: what it does in
    matchmaking counts as that organiser's unless NEON_MATCHMAKING_TRUST_MINTED_TOKENS), and
    its expiry (unix seconds); INVALID_ARGUMENT for a bad id or lifetime. ``not_after``: the
    organiser token's own expiry, which the minted token never outlives (it acts as the
    organiser's: an organiser whose token has ended acts no more through it)."""
    if ttl_seconds < 0 or ttl_seconds > MAX_TTL:
        raise InvalidArgument(f"ttl_seconds must be between 0 and {MAX_TTL} (30 days)")
    if is_bot(player_id):
        raise InvalidArgument(BOT_RESERVED)
    if (why := player_id_refused(player_id)) is not None:
        # a token for an id no ticket and no tournament takes could never queue nor register
        raise InvalidArgument(f"{why} (the ids tickets and tournaments take)")
    ttl = ttl_seconds or DEFAULT_TTL
    try:
        token = issuer.issue_player(player_id, ttl=ttl, minted_by=organiser, not_after=not_after)
    except ValueError as err:
        raise InvalidArgument(str(err)) from None
    return token, issuer.verify(token).exp


class IdentityServicer(MatchmakingServicer):
    """The matchmaking servicer plus the organiser's MintPlayerToken."""

    def __init__(self, matchmaker: Any, issuer: TokenIssuer) -> None:
        super().__init__(matchmaker)
        self.issuer = issuer

    async def MintPlayerToken(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        organiser = require_claims("organiser")
        token, expires = mint_player_token(self.issuer, request.player_id, request.ttl_seconds,
                                           organiser.player, not_after=organiser.exp)
        log.info("player token minted", player=request.player_id, by=organiser.player,
                 expires_at=expires)
        return pb.MintPlayerTokenResponse(token=token, player_id=request.player_id,
                                          expires_at=expires)


def register(server: grpc.aio.Server, matchmaker: Any, issuer: TokenIssuer) -> None:
    """Register the matchmaking service with MintPlayerToken (instead of service.register)."""
    pb_grpc.add_MatchmakingServiceServicer_to_server(IdentityServicer(matchmaker, issuer), server)
