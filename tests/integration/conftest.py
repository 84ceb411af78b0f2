from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from bench import longgame
from services.cli.backend import Backend, start_backend
from services.platform.settings import DEFAULT_PORTS, Settings, load
from tests.support import toy

ZERO_PORTS = {name: 0 for name in DEFAULT_PORTS}


def make_settings(tmp_path: Path, nats_url: str, persistence: str = "sqlite", **kw: object) -> Settings:
    """A backend's settings for a test: free ports, its own var dir, and the run's namespace
    (NEON_NAMESPACE: each pytest-xdist worker's own, tests/conftest.py) unless given.

    No call rate limits unless given: a test's client acts at the machine's speed, one seat
    at a time, and on a quiet machine passes the deployments' default rate (200 calls a
    second per seat: measured, a whole match's legal texts at every position), which is a
    policy of public deployments, tested with its own small rates in test_call_limits.py;
    the clients of the repo that meet it wait and resend (services/platform/playing.py)."""
    kw.setdefault("namespace", load().namespace)
    kw.setdefault("max_calls_per_second", 0)
    kw.setdefault("max_anonymous_calls_per_second", 0)
    return dataclasses.replace(
        Settings(), var_dir=tmp_path / "var", persistence=persistence, nats_url=nats_url,
        ports=dict(ZERO_PORTS), log_level="warning", **kw,
    )


async def start_tournament_backend(tmp_path: Path, nats_url: str, game: str) -> Backend:
    """A backend with one game's rules service and the tournament service (free ports, as
    every port of :func:`make_settings`)."""
    return await start_backend(make_settings(tmp_path, nats_url), games=[game],
                               embedded_nats=False, tournament=True)


async def started_swiss(c: Any, org: str, tokens: Mapping[str, str], tid: str,
                        next_round: bool = True, rounds: int = 1) -> Any:
    """A Swiss tournament ``tid`` of Neon Reign singles of ``rounds`` rounds on the
    tournament service's client ``c``: created and opened by the organiser token ``org``,
    each player token of ``tokens`` registered, started and (``next_round``) its first round
    paired: NextRound's answer (else None)."""
    from services.cli.tournament_commands import format_json

    await c.call("CreateTournament", org, tournament_id=tid, game="neon-reign",
                 mode="single", format_json=format_json("swiss", rounds))
    await c.call("OpenRegistration", org, tournament_id=tid)
    for token in tokens.values():
        await c.call("Register", token, tournament_id=tid)
    await c.call("StartTournament", org, tournament_id=tid)
    if next_round:
        return await c.call("NextRound", org, tournament_id=tid, round=1)
    return None


async def registered_swiss(c: Any, org: str, tid: str, players: Sequence[str], rounds: int,
                           **settings: Any) -> None:
    """A Swiss tournament ``tid`` of Neon Reign singles of ``rounds`` rounds on the
    tournament service's client ``c``: created and opened by the organiser token ``org``,
    which registers each of ``players`` itself (at the desk) and starts it; ``settings``:
    CreateTournament's other fields."""
    from services.cli.tournament_commands import format_json

    await c.call("CreateTournament", org, tournament_id=tid, game="neon-reign", mode="single",
                 format_json=format_json("swiss", rounds), **settings)
    await c.call("OpenRegistration", org, tournament_id=tid)
    for player in players:
        await c.call("Register", org, tournament_id=tid, player_id=player)
    await c.call("StartTournament", org, tournament_id=tid)


@pytest.fixture
async def reign_tournament_backend(tmp_path: Path, nats_url: str) -> AsyncIterator[Backend]:
    """Dice, Neon Reign's rules service and the tournament service."""
    b = await start_tournament_backend(tmp_path, nats_url, "neon-reign")
    yield b
    await b.stop(1)


@pytest.fixture
async def backend(tmp_path: Path, nats_url: str) -> AsyncIterator[Backend]:
    b = await start_backend(make_settings(tmp_path, nats_url), games=["neon-reign"] if _has("neon-reign") else [],
                            embedded_nats=False, engines={"toy": toy.ENGINE})
    yield b
    await b.stop(1)


@pytest.fixture
async def toy_backend(tmp_path: Path, nats_url: str) -> AsyncIterator[Backend]:
    """Dice, scoring and the Hidden Race toy's rules service only (no built-in game)."""
    b = await start_backend(make_settings(tmp_path, nats_url), games=[], embedded_nats=False,
                            engines={"toy": toy.ENGINE})
    yield b
    await b.stop(1)


@pytest.fixture
async def games_backend(tmp_path: Path, nats_url: str) -> AsyncIterator[Backend]:
    """Every game's rules service, and the Hidden Race toy's (no present module)."""
    from services.rules.games import available

    b = await start_backend(make_settings(tmp_path, nats_url), games=available(),
                            embedded_nats=False, engines={"toy": toy.ENGINE})
    yield b
    await b.stop(1)


@pytest.fixture
async def duel_backend(tmp_path: Path, nats_url: str) -> AsyncIterator[Backend]:
    """Dice and the Counter Duel toy (contract v2: any-time actions, counters, campaigns)."""
    from tests.support import duel

    b = await start_backend(make_settings(tmp_path, nats_url), games=[], embedded_nats=False,
                            engines={"duel": duel.ENGINE})
    yield b
    await b.stop(1)


def _has(game: str) -> bool:
    from services.rules.games import available

    return game in available()


@pytest.fixture
async def long_backend(tmp_path: Path, nats_url: str) -> AsyncIterator[Backend]:
    """Shared by the rules tests that need a long match: dice and the Counter Race bench engine's rules service (bench/longgame.py)."""
    b = await start_backend(make_settings(tmp_path, nats_url), games=[], embedded_nats=False,
                            engines={"longgame": longgame.ENGINE})
    yield b
    await b.stop(1)
