"""Start the tournament service: gRPC server, outbox relay, the results consumer and the
drivers of running rounds."""

from __future__ import annotations

import asyncio
from typing import Any

from services.platform import bus, metrics, storehealth
from services.platform.grpc_kit import start_server
from services.platform.keys import Keys
from services.platform.leadership import relay_leadership
from services.platform.logs import get_logger
from services.platform.rules_channels import rules_address
from services.platform.running import RunningService
from services.platform.settings import Settings
from services.platform.store import close_when_idle, eventsourcing_env, open_application
from services.platform.tokens import TokenIssuer, external_identity
from services.tournament import events
from services.tournament.app import StatusCounts, TournamentApplication
from services.tournament.director import Director, Options
from services.tournament.ratings import ScoringRatings
from services.tournament.results import ResultConsumer
from services.tournament.rules_port import RulesGateway
from services.tournament.service import SERVICE_NAME, register
from services.tournament.wakeups import Wakeups

NAME = "tournament"
DEFAULT_PORT = 50054
SERVICE_TOKEN_TTL = 10 * 365 * 24 * 3600
log = get_logger(NAME)


def trusted_keys(keys: Keys) -> tuple[str, ...]:
    """NEON_TRUSTED_RESULT_KEYS as scoring reads it, else the deployment's own signing key
    and its earlier ones across a rotation (NEON_PREVIOUS_PUBLIC_KEYS: results signed
    before it, recorded in the log or still in the stream)."""
    import os

    text = os.environ.get("NEON_TRUSTED_RESULT_KEYS", "")
    found = tuple(k.strip().lower() for k in text.split(",") if k.strip())
    return found or keys.trusted_keys()  # the signing key's public half first


async def start(
    settings: Settings,
    keys: Keys,
    nats_client: Any = None,
    *,
    options: Options | None = None,
    ratings: Any = None,
) -> RunningService:
    """Without ``nats_client`` no result arrives: only for tests of the API alone."""
    app = await asyncio.to_thread(
        open_application,
        settings,
        lambda: TournamentApplication(
            env={**eventsourcing_env(settings, NAME), "AGGREGATE_CACHE_MAXSIZE": "1000"}
        ),
    )
    issuer = TokenIssuer(keys.token_secret, external=external_identity(settings))
    # A service token, as matchmaking's: the rules services record who created each match,
    # and scoring rates a match an organiser created only when told to (an organiser holds
    # every seat token of its matches). The tournament refuses bot- player ids itself.
    token = issuer.issue("service", "*", player=NAME, ttl=SERVICE_TOKEN_TTL)
    rules = RulesGateway(rules_address(settings), token, settings.call_timeout)
    owned_ratings = None
    if ratings is None and ("scoring" in settings.addresses or "scoring" in settings.ports):
        owned_ratings = ratings = ScoringRatings(
            settings.address("scoring"), settings.call_timeout, token
        )
    relay = consumer = wakeups = None
    director = Director(app, rules, ratings, keys.signing_key, options or Options.from_env())
    director.result_keys = trusted_keys(keys)
    director.previous_keys = keys.previous_public_keys
    try:
        if settings.serves_metrics:  # counted once here, before anything can save, then kept
            director.statuses = StatusCounts(await metrics.STORE_READS.read(
                (NAME, id(app)), app.statuses))
        if nats_client is not None:
            js = nats_client.jetstream()
            relay = bus.OutboxRelay(
                app,
                NAME,
                js,
                events.projection(settings.namespace, app),
                interval=settings.outbox_interval,
                namespace=settings.namespace,
                leader=relay_leadership(settings, NAME),
            )
            await relay.start()
            director.on_saved = relay.poke
            consumer = ResultConsumer(director, js, trusted_keys(keys), settings.namespace)
            await consumer.start()
            # a save on another replica wakes this one's watches at once (core NATS)
            wakeups = Wakeups(nats_client, settings.namespace)
            await wakeups.start(director.heard)
            director.wakeups = wakeups
        await director.recover()
        handle = await start_server(
            f"{settings.bind_host}:{settings.ports.get(NAME, DEFAULT_PORT)}",
            lambda server: register(server, director),
            [SERVICE_NAME],
            issuer,
            settings.stream_limits(),
            metrics=settings.serves_metrics,
        )
    except BaseException:
        if wakeups is not None:
            await wakeups.stop()
        await director.close()
        if consumer is not None:
            await consumer.stop()
        if relay is not None:
            await relay.stop()
        app.close()
        raise
    closers: list[Any] = [storehealth.watch(settings, handle, NAME)]
    if wakeups is not None:
        closers.append(wakeups.stop)
    closers.append(director.close)
    if settings.serves_metrics:
        closers.append(metrics.watch(metrics.tournaments(NAME, director), NAME,
                                     metrics.TOURNAMENT_ROUNDS, metrics.TOURNAMENTS))
    if consumer is not None:
        closers.append(consumer.stop)
    if relay is not None:
        if settings.serves_metrics:
            closers.append(metrics.watch(metrics.outbox(relay), NAME, metrics.OUTBOX_LAG))
        closers += [relay.drain, relay.stop]
    closers.append(rules.close)
    if owned_ratings is not None:
        closers.append(owned_ratings.close)
    closers.append(lambda: close_when_idle(app))
    log.info("tournament up", port=handle.port)
    return RunningService(
        NAME,
        handle,
        f"{settings.host}:{handle.port}",
        closers=closers,
        extra={"director": director, "app": app, "consumer": consumer, "wakeups": wakeups},
    )
