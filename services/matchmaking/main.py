"""Start the matchmaking service: gRPC server, outbox relay and the matchmaking cycle."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import os
from collections.abc import Mapping
from typing import Any

from services.matchmaking import events, routing
from services.matchmaking.app import MatchmakingApplication
from services.matchmaking.catalogue import Catalogue
from services.matchmaking.matchmaker import Config, Matchmaker, config_from_env
from services.matchmaking.ratings import RatingSource, ScoringRatings
from services.matchmaking.rules_port import RulesGateway
from services.matchmaking.service import SERVICE_NAME
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

NAME = "matchmaking"
SERVICE_TOKEN_TTL = 10 * 365 * 24 * 3600
log = get_logger(NAME)


async def start(
    settings: Settings,
    keys: Keys,
    nats_client: Any = None,
    *,
    config: Config | None = None,
    ratings: RatingSource | None = None,
    catalogue: Catalogue | None = None,
    environ: Mapping[str, str] | None = None,
) -> RunningService:
    """``config`` defaults to ``NEON_MATCHMAKING_*`` variables; ``ratings`` to the scoring service;
    the replicas (``NEON_MATCHMAKING_PEERS``, ordinal) are read from ``environ`` (os.environ)."""
    config = config or config_from_env()
    app = await asyncio.to_thread(open_application, settings, lambda: MatchmakingApplication(
        env={**eventsourcing_env(settings, NAME), "AGGREGATE_CACHE_MAXSIZE": "5000"}))
    issuer = TokenIssuer(keys.token_secret, external=external_identity(settings))
    token = issuer.issue("service", "*", player=NAME, ttl=SERVICE_TOKEN_TTL)
    rules = RulesGateway(rules_address(settings), token, settings.call_timeout)
    owned_ratings = None
    if ratings is None:
        owned_ratings = ScoringRatings(settings.address("scoring"), config.rating_timeout, token)
        ratings = owned_ratings
    relay = None
    if nats_client is not None:
        relay = bus.OutboxRelay(app, NAME, nats_client.jetstream(),
                                events.projection(settings.namespace),
                                interval=settings.outbox_interval, namespace=settings.namespace,
                                leader=relay_leadership(settings, NAME))
        await relay.start()
    replicas = routing.replicas_from_env(os.environ if environ is None else environ)
    router = routing.QueueRouter(replicas) if replicas is not None else None
    matchmaker = Matchmaker(app, rules, ratings, config, catalogue,
                            on_saved=relay.poke if relay else (lambda: None),
                            owns=routing.owner_check(replicas),
                            replicated=replicas is not None,
                            bot_secret=hmac.new(keys.token_secret, b"neon-arena/matchmaking-bots",
                                                hashlib.sha256).digest())
    await matchmaker.recover()
    handle = await start_server(
        f"{settings.bind_host}:{settings.ports[NAME]}",
        lambda server: routing.register(server, matchmaker, issuer, router),
        [SERVICE_NAME], issuer, settings.stream_limits(), metrics=settings.serves_metrics,
    )
    loop_task = asyncio.create_task(matchmaker.run(), name="matchmaking-cycle")

    async def stop_cycle() -> None:
        loop_task.cancel()
        await asyncio.gather(loop_task, return_exceptions=True)
        await matchmaker.drain()

    closers: list[Any] = [storehealth.watch(settings, handle, NAME), stop_cycle]
    if settings.serves_metrics:  # else no cycle hook and no gauge refreshes
        closers.append(metrics.watch(metrics.matchmaking(NAME, matchmaker), NAME,
                                     metrics.MM_WAITING))
    if relay is not None:
        if settings.serves_metrics:
            closers.append(metrics.watch(metrics.outbox(relay), NAME, metrics.OUTBOX_LAG))
        closers += [relay.drain, relay.stop]
    closers += [rules.close]
    if router is not None:
        closers.append(router.close)
    if owned_ratings is not None:
        closers.append(owned_ratings.close)
    closers.append(lambda: close_when_idle(app))
    log.info("matchmaking up", port=handle.port, auto_accept=config.auto_accept,
             trust_minted_tokens=config.trust_minted_tokens, client_seeds=config.client_seeds,
             seed_window=config.seed_window,
             replica=replicas.me if replicas else 0, replicas=len(replicas.peers) if replicas else 1)
    return RunningService(NAME, handle, f"{settings.host}:{handle.port}", closers=closers,
                          extra={"matchmaker": matchmaker, "relay": relay, "app": app})
