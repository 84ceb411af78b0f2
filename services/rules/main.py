"""Start the rules service of one game."""

from __future__ import annotations

import asyncio
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.platform import bus, metrics, storehealth
from services.platform.grpc_kit import start_server
from services.platform.keys import Keys
from services.platform.leadership import relay_leadership
from services.platform.running import RunningService
from services.platform.settings import Settings
from services.platform.store import close_when_idle, eventsourcing_env, open_application
from services.platform.tokens import TokenIssuer
from services.rules import records, routing
from services.rules.app import rules_application
from services.rules.clockwork import Heartbeat, replica_slot
from services.rules.dice_client import DiceClient
from services.rules.games import load_engine
from services.rules.host import MatchHost
from services.rules.results import sign_result
from services.rules.service import SERVICE_NAME

SERVICE_TOKEN_TTL = 10 * 365 * 24 * 3600


def service_name(game: str) -> str:
    return f"rules-{game}"


def game_service_name(game: str) -> str:
    """The name under which a rules service's game shows in reflection and health checks:
    ``neon.rules.v1.RulesService.<game id>`` (every game's API is the one RulesService)."""
    return f"{SERVICE_NAME}.{game}"


def subject(game: str, match_id: str, namespace: str = "") -> str:
    return bus.events_subject(namespace, "rules", game, match_id)


def results_subject(game: str, match_id: str, namespace: str = "") -> str:
    """MatchEnded again, on its own subject: scoring reads results without every move."""
    return bus.events_subject(namespace, "results", game, match_id)


def projection(game: str, signing_key: Ed25519PrivateKey, namespace: str = "") -> bus.Projection:
    """Public messages for each stored match event: hidden parts stripped (records.project).

    A MatchEnded goes out a second time on the results subject as a signed result
    (rules/results.py), so that scoring and tournaments act only on real results. The
    signed result also carries the record's ``created_by`` (who created the match: scoring
    rates an organiser's match only when told to), which the public message leaves out.
    """

    def project(event: Any) -> list[tuple[str, dict[str, Any]]]:
        record = getattr(event, "record", None)
        if record is None:
            return []
        public = {"game": game, **records.project(record, None)}
        messages = [(subject(game, record["match_id"], namespace), public)]
        if public["type"] == "MatchEnded":
            result = {**public, **records.creator_field(record)}
            messages.append((results_subject(game, record["match_id"], namespace),
                             sign_result(result, signing_key)))
        return messages

    return project


async def start(
    game: str, settings: Settings, keys: Keys, nats_client: Any = None, engine: Any = None
) -> RunningService:
    engine = engine or load_engine(game)
    name = service_name(game)
    router = routing.Router.from_settings(settings)  # None: a single replica
    app = await asyncio.to_thread(
        open_application, settings, lambda: rules_application(name, eventsourcing_env(settings, name))
    )
    issuer = TokenIssuer(keys.token_secret)
    dice = DiceClient(settings.address("dice"), issuer.issue("service", "*", ttl=SERVICE_TOKEN_TTL),
                      settings.call_timeout)
    relay = None
    if nats_client is not None:
        relay = bus.OutboxRelay(app, name, nats_client.jetstream(),
                                projection(game, keys.signing_key, settings.namespace),
                                interval=settings.outbox_interval, namespace=settings.namespace,
                                leader=relay_leadership(settings, name))
        await relay.start()
    host = MatchHost(
        engine, app, dice, issuer, keys.signing_key,
        allow_dev_seeds=not settings.tournament, seat_token_ttl=settings.seat_token_ttl,
        call_timeout=settings.call_timeout, on_saved=relay.poke if relay else (lambda: None),
        clock_grace_ms=settings.clock_grace_ms,
    )
    if settings.serves_metrics:  # else no meter and no batch hook: nothing per commit
        host.meter = metrics.RulesMeter(name, engine.game_id)
        host.committer.on_batch = host.meter.batch_size
    # before serving: learn when this place's previous process stopped (the clock pause)
    slot, replicas = replica_slot(router.replicas if router else None)
    heartbeat = host.heartbeat = Heartbeat(host.store, slot, replicas, settings.clock_heartbeat_ms,
                                           call_timeout_s=settings.call_timeout * 2)
    await heartbeat.start()
    try:
        handle = await start_server(
            f"{settings.bind_host}:{settings.ports.get(name, 0)}",
            lambda server: routing.register(server, host, router),
            [SERVICE_NAME, game_service_name(engine.game_id)], issuer, settings.stream_limits(),
            metrics=settings.serves_metrics,
        )
    except BaseException:
        await heartbeat.stop()
        raise
    rearm = asyncio.create_task(host.rearm_clocks(routing.owned_here(router)), name=f"rearm-{name}")
    closers: list[Any] = [storehealth.watch(settings, handle, name), rearm.cancel]
    if settings.serves_metrics:
        closers.append(metrics.watch(metrics.live_matches(name, host.live), name,
                                     metrics.RULES_LIVE))
    if relay is not None:
        if settings.serves_metrics:
            closers.append(metrics.watch(metrics.outbox(relay), name, metrics.OUTBOX_LAG))
        closers += [relay.drain, relay.stop]
    # the last beat once the host serves nothing (server stopped, clocks closed), before the
    # store closes
    closers += [dice.close, host.close, heartbeat.stop, lambda: close_when_idle(app),
                *([router.close] if router else [])]
    return RunningService(name, handle, f"{settings.host}:{handle.port}", closers=closers,
                          extra={"host": host, "relay": relay, "app": app})
