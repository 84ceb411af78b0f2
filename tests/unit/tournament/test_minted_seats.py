"""Who may take a tournament seat (director.refuse_minted_seat, Options.from_env): a player
token an organiser minted takes no seat of a rated tournament's match unless the deployment
trusts such tokens (NEON_TOURNAMENT_TRUST_MINTED_TOKENS) or the tournament is unrated; the
player's own token always does. The calls over gRPC: tests/integration/
test_tournament_minted_tokens.py."""

from __future__ import annotations

from typing import Any

import pytest

from services.platform.errors import PermissionDenied
from services.platform.tokens import Claims
from services.tournament.director import Options, refuse_minted_seat
from services.tournament.domain import Tournament

SETTINGS: dict[str, Any] = {"name": "", "game": "toy", "mode": "race"}


def player(minted_by: str | None) -> Claims:
    return Claims(role="player", match="*", player="ann", exp=2**40, minted_by=minted_by)


def test_the_players_own_token_takes_its_seat() -> None:
    refuse_minted_seat(player(None), Tournament("cup", SETTINGS, "olga"), False)


@pytest.mark.parametrize("minted_by, named", [("olga", "the organiser 'olga'"),
                                              ("", "an organiser")])
def test_a_minted_token_is_refused_a_rated_tournaments_seat(minted_by: str, named: str) -> None:
    with pytest.raises(PermissionDenied) as refused:
        refuse_minted_seat(player(minted_by), Tournament("cup", SETTINGS, "olga"), False)
    assert f"minted by {named}, not handed to 'ann'" in str(refused.value)
    assert "tournament 'cup' is rated" in str(refused.value)


def test_trusted_or_unrated_a_minted_token_takes_its_seat() -> None:
    refuse_minted_seat(player("olga"), Tournament("cup", SETTINGS, "olga"), True)
    unrated = Tournament("casual", {**SETTINGS, "unrated": True}, "olga")
    assert unrated.unrated and not Tournament("cup", SETTINGS, "olga").unrated
    refuse_minted_seat(player("olga"), unrated, False)


def test_the_setting_comes_from_the_environment() -> None:
    assert Options.from_env({}).trust_minted_tokens is False
    for on in ("1", "true", "YES", "on"):
        assert Options.from_env({"NEON_TOURNAMENT_TRUST_MINTED_TOKENS": on}).trust_minted_tokens
    assert not Options.from_env({"NEON_TOURNAMENT_TRUST_MINTED_TOKENS": "off"}).trust_minted_tokens
    with pytest.raises(ValueError, match="NEON_TOURNAMENT_TRUST_MINTED_TOKENS"):
        Options.from_env({"NEON_TOURNAMENT_TRUST_MINTED_TOKENS": "maybe"})
