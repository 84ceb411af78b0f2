"""Bots in backfilled seats: matchmaking holds their seat tokens and plays them.

Each bot match is one task that asks the rules service what its bot seats owe, answers
with a uniformly random legal action, and otherwise waits for the match to move (its
watch stream). The choice at a given match version comes from a seed of match, seat and
version, and the command id is made of seat and version, so a bot that replays a move
after a restart sends the same command and the rules service answers it once.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import grpc

from services.genproto.neon.rules.v1 import rules_pb2
from services.matchmaking.rules_port import RulesGateway
from services.platform.draws import SeededRandomness
from services.platform.logs import get_logger

log = get_logger("matchmaking")
GIVE_UP = (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.PERMISSION_DENIED,
           grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.INVALID_ARGUMENT)
RETRY_MAX = 5.0


def choose(match_id: str, seat: int, version: int, legal: list[str]) -> Any:
    rng = SeededRandomness(f"mm-bot:{match_id}:{seat}:{version}")
    return json.loads(legal[rng.randbelow(len(legal))])


class BotDriver:
    def __init__(self, rules: RulesGateway, on_finished: Callable[[str, str], Awaitable[None]],
                 wait: float = 10.0) -> None:
        self.rules, self.on_finished, self.wait = rules, on_finished, wait
        self.tasks: dict[str, asyncio.Task[None]] = {}

    def drive(self, game: str, match_id: str, seats: dict[int, str]) -> None:
        if match_id in self.tasks or not seats:
            return
        task = asyncio.create_task(self._run(game, match_id, seats), name=f"bots-{match_id}")
        self.tasks[match_id] = task
        task.add_done_callback(lambda _: self.tasks.pop(match_id, None))

    async def close(self) -> None:
        for task in list(self.tasks.values()):
            task.cancel()
        await asyncio.gather(*self.tasks.values(), return_exceptions=True)

    async def _run(self, game: str, match_id: str, seats: dict[int, str]) -> None:
        backoff = 0.1
        while True:
            try:
                reason = await self._play(game, match_id, seats)
            except grpc.aio.AioRpcError as err:
                if err.code() in GIVE_UP:
                    reason = f"bots stopped: {err.code().name}: {err.details()}"
                    log.warning("bot match abandoned", match_id=match_id, reason=reason)
                else:
                    log.info("bot move failed, retrying", match_id=match_id,
                             code=err.code().name, reason=err.details())
                    await asyncio.sleep(backoff)
                    backoff = min(RETRY_MAX, backoff * 2)
                    continue
            try:
                await self.on_finished(match_id, reason)
            except Exception as err:  # the store is down: the bots resume after a restart
                log.error("could not record the end of a bot match", match_id=match_id,
                          error=repr(err))
            return

    async def _play(self, game: str, match_id: str, seats: dict[int, str]) -> str:
        """Answer for the bot seats until the match ends; returns why it stopped."""
        while True:
            acted = False
            for seat, token in sorted(seats.items()):
                acted = await self._act(game, match_id, seat, token) or acted
            if acted:
                continue
            view = await self.rules.view(game, match_id)
            if view.status == rules_pb2.MATCH_STATUS_ENDED:
                return "the match ended"
            await self.rules.wait_change(game, match_id, view.version, self.wait)

    async def _act(self, game: str, match_id: str, seat: int, token: str) -> bool:
        legal = await self.rules.legal(game, token, match_id)
        for decision in legal.decisions:
            if decision.seat != seat or not decision.legal_json:
                continue
            action = choose(match_id, seat, legal.version, list(decision.legal_json))
            try:
                await self.rules.submit(game, token, match_id, f"mm-bot-{seat}-v{legal.version}",
                                        action)
            except grpc.aio.AioRpcError as err:
                # another seat moved first, or the match ended: wait for the match to move
                if err.code() not in (grpc.StatusCode.FAILED_PRECONDITION,
                                      grpc.StatusCode.ABORTED, grpc.StatusCode.ALREADY_EXISTS):
                    raise
                return False
            return True
        return False
