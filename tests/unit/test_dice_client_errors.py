"""The rules service's dice client turns a dice service that does not answer into
UNAVAILABLE whose reason names the code, not gRPC's own words (which name the dice service's
internal address): that reason reaches seats."""

from __future__ import annotations

import pytest

from services.platform.errors import Unavailable
from services.rules.dice_client import DiceClient


async def test_an_unreachable_dice_service_is_unavailable_without_its_address(
        dead_port: int) -> None:
    port = dead_port
    client = DiceClient(f"127.0.0.1:{port}", "token", timeout=2.0)
    try:
        with pytest.raises(Unavailable) as refused:
            await client.open("m1")
    finally:
        await client.close()
    reason = str(refused.value)
    assert "dice service is unavailable (UNAVAILABLE)" in reason
    assert str(port) not in reason and "127.0.0.1" not in reason
