"""Wake-ups across replicas of the tournament service: after each save a replica publishes a
small core NATS message (not JetStream: nothing is stored) naming the tournament and its new
version, nothing else; every replica turns one into :meth:`Director.notify
<services.tournament.director.Director.notify>` of its own watches and round driver. A save
on replica A so reaches a watch on replica B at once, not at B's re-read ``WATCH_RECHECK``
seconds later, which stays the fallback while NATS is down (a message lost is a wake-up
late, never a change missed: a watch reads the tournament from the store).

The subject is ``neon.tournament.saved.<tournament id>``, ``<ns>.neon.tournament.saved...`` in
a namespace (led by it, as every subject of the deployment), outside ``neon.events.>``: the
event stream does not capture it."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from services.platform.logs import get_logger
from services.tournament.director import TOURNAMENT_ID

log = get_logger("tournament")


def subject(namespace: str, tournament_id: str) -> str:
    """The wake-up subject of ``tournament_id`` (``*``: every tournament's)."""
    base = "neon.tournament.saved"
    return f"{namespace}.{base}.{tournament_id}" if namespace else f"{base}.{tournament_id}"


def message(tournament_id: str, version: int) -> bytes:
    return json.dumps({"tournament_id": tournament_id, "version": int(version)},
                      separators=(",", ":")).encode()


def read(data: bytes) -> tuple[str, int] | None:
    """The tournament id and version a wake-up names; None for anything else."""
    try:
        body = json.loads(data)
        tournament_id, version = body["tournament_id"], body["version"]
    except (ValueError, TypeError, KeyError):
        return None
    if (not isinstance(tournament_id, str) or not TOURNAMENT_ID.match(tournament_id)
            or not isinstance(version, int) or isinstance(version, bool) or version < 1):
        return None
    return tournament_id, version


class Wakeups:
    """One replica's end of the wake-ups on the NATS connection ``nc``: :meth:`saved`
    publishes, :meth:`start` hands each message heard to ``heard`` (tournament id, version)."""

    def __init__(self, nc: Any, namespace: str) -> None:
        self.nc, self.namespace = nc, namespace
        self._sub: Any = None

    async def start(self, heard: Callable[[str, int], Awaitable[None]]) -> None:
        async def on_message(msg: Any) -> None:
            found = read(msg.data)
            if found is None:
                log.debug("a wake-up message that names no tournament was passed over",
                          subject=msg.subject)
                return
            try:
                await heard(*found)
            except Exception as err:  # never the subscription's end
                log.warning("a wake-up message could not be handled", error=repr(err))

        self._sub = await self.nc.subscribe(subject(self.namespace, "*"), cb=on_message)

    async def saved(self, tournament_id: str, version: int) -> None:
        """Tell the other replicas; best effort: NATS down (or closed) costs their watches
        the wait for their re-read, never the save."""
        try:
            await self.nc.publish(subject(self.namespace, tournament_id),
                                  message(tournament_id, version))
        except Exception as err:
            log.debug("a wake-up was not published", tournament_id=tournament_id,
                      error=repr(err))

    async def stop(self) -> None:
        sub, self._sub = self._sub, None
        if sub is not None:
            try:
                await sub.unsubscribe()
            except Exception as err:  # the connection closed first
                log.debug("the wake-up subscription ended with its connection", error=repr(err))
