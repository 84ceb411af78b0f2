"""One gRPC channel per rules service address, shared by every game served there: the part
of a rules client that the tournament and matchmaking services have in common."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc

from services.genproto.neon.rules.v1 import rules_pb2_grpc
from services.platform.grpc_kit import channel
from services.platform.settings import Settings


class RulesChannels:
    """The RulesService stub of each game, one channel per address, opened on first use."""

    def __init__(self, address_of: Callable[[str], str | None], token: str, timeout: float) -> None:
        self.address_of, self.token, self.timeout = address_of, token, timeout
        self._stubs: dict[str, tuple[grpc.aio.Channel, Any]] = {}

    def address(self, game: str) -> str:
        return self.address_of(game) or ""

    def stub(self, game: str) -> Any:
        """The RulesService stub of ``game`` (LookupError when it has no address)."""
        address = self.address(game)
        if not address:
            raise LookupError(f"no rules service address for game {game!r}")
        if address not in self._stubs:
            ch = channel(address)
            self._stubs[address] = (ch, rules_pb2_grpc.RulesServiceStub(ch))
        return self._stubs[address][1]

    async def close(self) -> None:
        for ch, _ in self._stubs.values():
            await ch.close()
        self._stubs.clear()


def rules_address(settings: Settings) -> Callable[[str], str | None]:
    """The address of a game's rules service (``rules-<game>``) in ``settings``; None for a
    game the settings name no address or port for."""

    def address(game: str) -> str | None:
        name = f"rules-{game}"
        if name in settings.addresses or name in settings.ports:
            return settings.address(name)
        return None

    return address
