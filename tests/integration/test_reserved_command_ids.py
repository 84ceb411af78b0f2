"""Command ids of the service's own actions are not the clients' to use.

A clock's timeout, a forfeit and a bot's move are recorded with the command ids
``timeout:N``, ``forfeit:N`` and ``bot:N`` (N: the version they make). A seat that had sent
``timeout:4`` itself got, on retrying it after seat 1's timeout made version 4,
ALREADY_EXISTS "already used for another action" for an action that was applied, and the
export held two actions with that id. Such ids are refused up front now.
"""

from __future__ import annotations

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient


@pytest.fixture
def backend(toy_backend: Backend) -> Backend:
    return toy_backend


async def test_the_services_own_command_ids_are_refused(backend: Backend) -> None:
    client = RulesClient(backend.address("rules-toy"))
    created = await client.create(backend.organiser_token(), mode="race", seats=2)
    token = {t.seat: t.token for t in created.seat_tokens}
    for command_id in ("timeout:4", "forfeit:3", "bot:3"):
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await client.submit(token[0], created.match_id, command_id, {"type": "pick", "step": 1})
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "reserved" in (info.value.details() or "")
    answer = await client.submit(token[0], created.match_id, "timeouts:4", {"type": "pick", "step": 1})
    assert answer.version == 3
    await client.close()
