from __future__ import annotations

import pytest

from services.platform.errors import PermissionDenied, Unauthenticated
from services.platform.tokens import TokenIssuer
from services.rules import records as rec

SECRET = b"0123456789abcdef0123456789abcdef"


def test_a_seat_token_round_trips_and_is_bound_to_its_match() -> None:
    issuer = TokenIssuer(SECRET)
    claims = issuer.verify(issuer.issue("seat", "m1", 1, "ann"))
    assert (claims.role, claims.match, claims.seat, claims.player) == ("seat", "m1", 1, "ann")
    claims.require_match("m1")
    with pytest.raises(PermissionDenied):
        claims.require_match("m2")


def test_a_seat_token_names_the_game_of_its_match() -> None:
    """Match ids are per game: a seat of one game's "final" is no seat of another game's.
    A seat token from before tokens named the game keeps working where it did."""
    issuer = TokenIssuer(SECRET)
    claims = issuer.verify(issuer.issue("seat", "final", 0, "ann", game="neon"))
    assert claims.game == "neon"
    claims.require_game("neon")
    with pytest.raises(PermissionDenied, match="another game"):
        claims.require_game("barbaric")
    older = issuer.verify(issuer.issue("seat", "final", 0, "ann"))
    assert older.game == ""
    older.require_game("barbaric")
    assert issuer.verify(issuer.issue("organiser", "*")).game == ""


@pytest.mark.parametrize("mangle", [
    lambda t: t[:-2] + ("AA" if t[-2:] != "AA" else "BB"),
    lambda t: "v2" + t[2:],
    lambda t: "nonsense",
    lambda t: t.replace(".", "", 1),
])
def test_forged_or_malformed_tokens_are_unauthenticated(mangle: object) -> None:
    token = TokenIssuer(SECRET).issue("seat", "m1", 0)
    with pytest.raises(Unauthenticated):
        TokenIssuer(SECRET).verify(mangle(token))  # type: ignore[operator]


def test_a_token_signed_with_another_secret_or_expired_is_refused() -> None:
    other = TokenIssuer(b"another-secret-another-secret-xx").issue("organiser", "*")
    with pytest.raises(Unauthenticated, match="signature"):
        TokenIssuer(SECRET).verify(other)
    clock = [1000.0]
    issuer = TokenIssuer(SECRET, clock=lambda: clock[0])
    token = issuer.issue("seat", "m", 0, ttl=10)
    clock[0] += 11
    with pytest.raises(Unauthenticated, match="expired"):
        issuer.verify(token)


def test_the_hash_chain_detects_edits_drops_and_reorders() -> None:
    records = []
    for i in range(4):
        records.append(rec.seal_record("m", i + 1, rec.head(records), {"type": "X", "i": i}))
    assert rec.check_chain("m", records) is None
    edited = [dict(r) for r in records]
    edited[2]["i"] = 99
    assert "event 3" in (rec.check_chain("m", edited) or "")
    assert "event 3" in (rec.check_chain("m", records[:2] + records[3:]) or "")
    assert "event 2" in (rec.check_chain("m", [records[0], records[2], records[1], records[3]]) or "")
    assert rec.check_chain("other", records) is not None


def test_projection_hides_draws_hidden_actions_and_private_events() -> None:
    record = rec.seal_record("m", 2, "0" * 64, {
        "type": "ActionAccepted", "seat": 1, "command_id": "c", "action": {"type": "pick", "step": 2},
        "decision": "pick", "hidden": True, "draws": [{"op": "shuffle"}], "state_hash": "s",
        "events": [{"kind": "drew", "data": {"card": "X"}, "visible_to": [1]},
                   {"kind": "done", "data": {}, "visible_to": None}],
    })
    public = rec.project(record, None)
    assert "draws" not in public and "action" not in public and "state_hash" not in public
    assert public["events"] == [{"kind": "done", "data": {}}]
    other = rec.project(record, 0)
    assert "action" not in other and len(other["events"]) == 1
    own = rec.project(record, 1)
    assert own["action"] == {"type": "pick", "step": 2} and len(own["events"]) == 2
