"""Ticket requests against the games' seat limits, and the NEON_MATCHMAKING_* settings."""

from __future__ import annotations

import pytest

from services.matchmaking.config import config_from_env
from services.matchmaking.requests import TicketRequest, check_shape, resolve
from services.platform.errors import InvalidArgument
from tests.support.mm_games import GAMES


def req(game: str, *players: str, **kw: object) -> TicketRequest:
    return TicketRequest(ticket_id="t1", game=game, players=players or ("ann",), **kw)  # type: ignore[arg-type]


def ok(game: str, *players: str, **kw: object) -> dict[str, object]:
    r = req(game, *players, **kw)
    return resolve(GAMES[game], r, check_shape(r))


def refused(game: str, *players: str, **kw: object) -> str:
    r = req(game, *players, **kw)
    with pytest.raises(InvalidArgument) as info:
        resolve(GAMES[game], r, check_shape(r))
    return info.value.reason


def test_the_issues_seat_limits_per_game() -> None:
    assert ok("neon", min_seats=2, max_seats=6)["modes"] == ["rebirth"]
    assert ok("neon-knights-2086", min_seats=6)["min_seats"] == 6
    assert ok("barbaric", modes=("solo",), max_seats=1)["modes"] == ["solo"]
    assert ok("neon-reign")["modes"] == ["single"]
    assert "seats" in refused("neon-reign", min_seats=3)
    assert "seats" in refused("neon", min_seats=7)


def test_a_party_larger_than_the_game_allows() -> None:
    assert "larger than neon-reign allows" in refused("neon-reign", "a", "b", "c")
    assert "party of 3" in refused("neon", "a", "b", "c", modes=("rebirth",), max_seats=2)


def test_coalition_takes_parties_up_to_a_team_only() -> None:
    assert ok("neon", "a", "b", "c", modes=("coalition",))["modes"] == ["coalition"]
    reason = refused("neon", "a", "b", "c", "d", modes=("coalition",))
    assert "teams of 2/3/2" in reason
    # of several allowed modes only those that can seat the party are kept
    assert ok("neon", "a", "b", "c", "d", modes=("coalition", "rebirth"))["modes"] == ["rebirth"]


def test_malformed_requests() -> None:
    for bad in (dict(ticket_id="bad id"), dict(players=()), dict(players=("a", "a")),
                dict(players=("bot-random-1",)), dict(players=("bot-smart",)), dict(min_seats=-1), dict(min_seats=3, max_seats=2),
                dict(rating_window=float("nan")), dict(region="x" * 40), dict(game="g" * 65),
                dict(modes=("rebirth",) * 17), dict(modes=("x" * 65,)), dict(modes=("",))):
        r = TicketRequest(**{"ticket_id": "t", "game": "neon", "players": ("ann",), **bad})  # type: ignore[arg-type]
        with pytest.raises(InvalidArgument):
            check_shape(r)
    assert "no mode" in refused("neon", modes=("chess",))
    assert ok("neon", modes=("rebirth",) * 16)["modes"] == ["rebirth"]  # repeats up to the cap


def test_config_from_environment() -> None:
    c = config_from_env({"NEON_MATCHMAKING_BACKFILL_AFTER": "7", "NEON_MATCHMAKING_BOTS": "off",
                         "NEON_MATCHMAKING_ACCEPT_TIMEOUT": "12", "NEON_MATCHMAKING_AUTO_ACCEPT": "1"})
    assert c.policy.backfill_after == 7 and not c.policy.bots
    assert c.accept_timeout == 12 and c.auto_accept
    assert config_from_env({}).policy.bots


def test_a_bot_id_is_refused_in_the_words_every_service_uses() -> None:
    r = TicketRequest(ticket_id="t", game="neon", players=("ann", "bot-smart"))
    with pytest.raises(InvalidArgument) as info:
        check_shape(r)
    assert info.value.reason == "player ids starting with 'bot-' are reserved for bots"
