"""Start the scoring service: gRPC queries plus the durable consumer of match results."""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Iterable
from typing import Any

from services.platform import storehealth
from services.platform.grpc_kit import start_server
from services.platform.keys import Keys
from services.platform.logs import get_logger
from services.platform.running import RunningService
from services.platform.settings import GAMES, Settings
from services.platform.store import close_when_idle, eventsourcing_env, open_application
from services.platform.tokens import TokenIssuer
from services.scoring.app import ScoringApplication
from services.scoring.consumer import ConsumerOptions, ResultConsumer, in_namespace
from services.scoring.service import SERVICE_NAME, register

NAME = "scoring"
log = get_logger(NAME)


def known_games(extra: Iterable[str] = ()) -> set[str]:
    """The four games, plug-in engines named in NEON_ENGINES, and ``extra``.

    Any game with a scored result is known as well (see ScoringApplication.check_game).
    """
    plugins = {item.partition("=")[0].strip() for item in os.environ.get("NEON_ENGINES", "").split(",")}
    return (set(GAMES) | plugins | set(extra)) - {""}


async def start(
    settings: Settings,
    keys: Keys,
    nats_client: Any = None,
    *,
    games: Iterable[str] = (),
    consumer: ConsumerOptions | None = None,
    on_scored: Any = None,
) -> RunningService:
    """Without ``nats_client`` only the queries run (the store still answers them)."""
    app = await asyncio.to_thread(open_application, settings, lambda: ScoringApplication(
        {**eventsourcing_env(settings, NAME), "AGGREGATE_CACHE_MAXSIZE": "10000"},
        known_games(games),
    ))
    results = None
    try:
        if nats_client is not None:
            options = in_namespace(consumer or ConsumerOptions.from_env(), settings.namespace)
            if not options.trusted_keys:
                # the organiser's key, and its earlier ones across a rotation (results
                # signed before it, still in the stream): NEON_PREVIOUS_PUBLIC_KEYS
                options = dataclasses.replace(options, trusted_keys=keys.trusted_keys())
            results = ResultConsumer(app, nats_client.jetstream(), options, on_scored)
            await results.start()
        handle = await start_server(
            f"{settings.bind_host}:{settings.ports.get(NAME, 0)}",
            lambda server: register(server, app), [SERVICE_NAME], TokenIssuer(keys.token_secret),
            settings.stream_limits(), metrics=settings.serves_metrics,
        )
    except BaseException:
        if results is not None:
            await results.stop()
        app.close()
        raise
    closers: list[Any] = [storehealth.watch(settings, handle, NAME)]
    closers += [results.stop] if results is not None else []
    closers.append(lambda: close_when_idle(app))
    log.info("scoring up", port=handle.port, durable=results.durable if results else "",
             rate_organiser_matches=results.options.rate_organiser_matches if results else None)
    return RunningService(NAME, handle, f"{settings.host}:{handle.port}", closers=closers,
                          extra={"app": app, "consumer": results})
