"""Bots in backfilled seats: matchmaking holds their seat tokens and plays them.

Each bot match is one task that plays its bot seats through the shared "play a seat" loop
(:mod:`services.platform.playing`): a uniformly random legal answer to what a seat owes,
and waiting on the match's stream otherwise. The choice at a given match version comes
from a seed of match, seat and version, and the loop's command id is made of seat and
version, so a bot that replays a move after a restart sends the same command and the
rules service answers it once.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
from collections.abc import Awaitable, Callable

import grpc

from services.matchmaking.rules_port import RulesGateway
from services.platform.logs import get_logger
from services.platform.playing import ActionRefused, Choose, play_seats, random_choice

log = get_logger("matchmaking")
GIVE_UP = (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.PERMISSION_DENIED,
           grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.INVALID_ARGUMENT)
RETRY_MAX = 5.0
COMMAND_PREFIX = "mm-bot-"


def random_bot(match_id: str, secret: bytes = b"") -> Choose:
    """The first owed decision's legal actions, one picked by a seed of match, seat, version
    keyed with ``secret`` (the deployment's): the match id alone is public, and a bot seeded
    by it could be rerun by the players across the table, its secret picks among public
    options included, before they chose theirs. The same secret after a restart gives the
    same choice (the same command, answered once)."""
    seed = f"mm-bot:{match_id}"
    if secret:
        seed = hmac.new(secret, seed.encode(), hashlib.sha256).hexdigest()
    return random_choice(seed)


class BotDriver:
    def __init__(self, rules: RulesGateway, on_finished: Callable[[str, str], Awaitable[None]],
                 wait: float = 10.0, secret: bytes = b"") -> None:
        self.rules, self.on_finished, self.wait = rules, on_finished, wait
        self.secret = secret
        """Keys the bots' seeds (:func:`random_bot`)."""
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
                await play_seats(self.rules.stub(game), match_id, seats, random_bot(match_id, self.secret),
                                 call_timeout=self.rules.timeout, wait=self.wait,
                                 command_prefix=COMMAND_PREFIX)
                reason = "the match ended"
            except ActionRefused as err:
                # stored (BotMatch.Finished) with the refusal's code only: its words may
                # quote the bot's action, its hand; the log line keeps them (hidden there)
                reason = (f"bots stopped: seat {err.turn.seat} at version {err.turn.version}: "
                          f"{err.code.name}")
                log.warning("bot match abandoned", match_id=match_id, reason=reason,
                            refused=err.reason)
            except grpc.aio.AioRpcError as err:
                if err.code() in GIVE_UP:
                    reason = f"bots stopped: {err.code().name}: {err.details()}"
                    log.warning("bot match abandoned", match_id=match_id, reason=reason)
                else:
                    log.info("bot play failed, retrying", match_id=match_id,
                             code=err.code().name, reason=err.details())
                    await asyncio.sleep(backoff)
                    backoff = min(RETRY_MAX, backoff * 2)
                    continue
            except LookupError as err:  # no address for the game's rules service (yet)
                log.info("bot play waits for a rules address", match_id=match_id, error=str(err))
                await asyncio.sleep(backoff)
                backoff = min(RETRY_MAX, backoff * 2)
                continue
            try:
                await self.on_finished(match_id, reason)
            except Exception as err:  # the store is down: the bots resume after a restart
                log.error("could not record the end of a bot match", match_id=match_id,
                          error=repr(err))
            return
