"""A bot whose action the rules service refuses stops; what matchmaking stores of it (the
BotMatch's Finished reason) is the refusal's code, never its words, which may quote the
bot's action (the cards of its hand)."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from services.matchmaking import bot_driver
from services.platform.playing import ActionRefused, SeatTurn


async def test_a_refused_bot_stops_and_stores_the_code_only(monkeypatch: pytest.MonkeyPatch) -> None:
    words = "illegal action: card 'k7' is not in your hand (k2, k9)"

    async def refused(*args: Any, **kwargs: Any) -> None:
        turn = SeatTurn("m-1", 1, 12, 0, {}, ())
        raise ActionRefused(turn, {"type": "play", "card": "k7"}, grpc.StatusCode.INVALID_ARGUMENT,
                            words)

    monkeypatch.setattr(bot_driver, "play_seats", refused)
    finished: list[tuple[str, str]] = []

    async def on_finished(match_id: str, reason: str) -> None:
        finished.append((match_id, reason))

    class Rules:
        timeout = 1.0

        def stub(self, game: str) -> Any:
            return None

    from tests.support.logcapture import captured_logs

    driver = bot_driver.BotDriver(Rules(), on_finished)  # type: ignore[arg-type]
    with captured_logs() as logs:
        await driver._run("g", "m-1", {1: "token"})
    line = next(t for t in logs.getvalue().splitlines() if "bot match abandoned" in t)
    assert "INVALID_ARGUMENT" in line and "k7" not in line, line  # the words hidden in logs
    assert finished == [("m-1", "bots stopped: seat 1 at version 12: INVALID_ARGUMENT")]
    assert "k7" not in finished[0][1] and "hand" not in finished[0][1]
