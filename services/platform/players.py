"""The one rule for a player id that plays: what tickets, tournaments and minted tokens take.

Letters, digits and ``_ . : @ | + -``, 1-64 of them: an identity provider's subject as it
comes (Auth0's ``auth0|5f7c...`` and ``google-oauth2|1098...``, an e-mail address with a ``+``,
a UUID) plays as it is; spaces, brackets and other characters a table, a log line or a
command line would misread do not. A token may carry a wider id (1-128 printable characters,
``tokens.valid_player_id``: an identity provider's JWT is taken as it is signed); such a player
is told, naming this rule, when they queue or register."""

from __future__ import annotations

import re

PLAYER_ID = re.compile(r"^[A-Za-z0-9_.:@|+-]{1,64}\Z")
PLAYER_ID_RULE = "1-64 letters, digits or _ . : @ | + -"


def player_id_refused(player_id: str) -> str | None:
    """Why ``player_id`` cannot play (quoting at most 70 of its characters), or None."""
    if PLAYER_ID.match(player_id or ""):
        return None
    return f"player id {player_id[:70]!r} must be {PLAYER_ID_RULE}"
