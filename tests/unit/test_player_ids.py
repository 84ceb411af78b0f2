"""One rule for a player id that plays (platform/players.py): tickets, tournaments, minted
tokens and `neon token player` take the same ids, an identity provider's subjects among them."""

from __future__ import annotations

import pytest

from services.platform.players import PLAYER_ID_RULE, player_id_refused


@pytest.mark.parametrize("player", ["ann", "auth0|5f7c8ec7d1", "google-oauth2|1098765432109",
                                    "ann+test@mail.example", "a" * 64,
                                    "0f8fad5b-d9cb-469f-a165-70867728950e", "team.red:7_x"])
def test_ids_that_play(player: str) -> None:
    assert player_id_refused(player) is None


@pytest.mark.parametrize("player", ["", "ann lee", "a" * 65, "José", "[red]x[/red]", "a\tb",
                                    "a\nb", "a/b", "a\u202eb", "x,y"])
def test_ids_that_do_not(player: str) -> None:
    assert player_id_refused(player) == f"player id {player[:70]!r} must be {PLAYER_ID_RULE}"


def test_a_long_id_is_quoted_cut() -> None:
    why = player_id_refused("x" * 5000)
    assert why is not None and len(why) < 140


def test_the_player_a_token_names_is_read_without_its_key() -> None:
    import jwt
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from services.platform.tokens import TokenIssuer, claimed_player

    issuer = TokenIssuer(b"s" * 32, external=None)
    assert claimed_player(issuer.issue("player", "*", player="ann")) == "ann"
    assert claimed_player(issuer.issue("organiser", "*", player="olga")) is None
    assert claimed_player(issuer.issue("seat", "m-1", seat=0, player="ann")) is None
    signed = jwt.encode({"sub": "auth0|5f7c", "exp": 2**31}, Ed25519PrivateKey.generate(),
                        algorithm="EdDSA")
    assert claimed_player(signed) == "auth0|5f7c"
    for junk in ("", "x", "v1.!!.x", "a.b.c", "v1.e30.x", "a.W10.c"):
        assert claimed_player(junk) is None, junk
