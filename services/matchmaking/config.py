"""Matchmaking settings: the cycle, timeouts and the grouping policy, from NEON_MATCHMAKING_*."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from services.matchmaking.grouping import Policy
from services.platform.settings import limit_from_env


@dataclass(frozen=True)
class Config:
    interval: float = 0.5
    """Seconds between matchmaking cycles (a cycle also runs when a proposal is accepted)."""
    ticket_ttl: float = 600.0
    """Seconds a ticket may wait in the queue before it expires."""
    accept_timeout: float = 30.0
    """Seconds every player of a proposed match has to accept it."""
    auto_accept: bool = False
    """Accept each proposal for the players its ticket's creator is authenticated as (a player
    token's own player; every player of a ticket an organiser or service token queued), for
    simulations and bots-only queues. The other players of a party still accept with their
    own tokens: nobody is ever accepted for, or handed a seat token, by another player."""
    policy: Policy = field(default_factory=Policy)
    rating_timeout: float = 1.0
    create_concurrency: int = 16
    bot_wait: float = 10.0
    """Longest a bot waits on a match's stream before it looks again."""
    trust_minted_tokens: bool = False
    """NEON_MATCHMAKING_TRUST_MINTED_TOKENS: take a player token an organiser minted
    (MintPlayerToken) as the player's own. Off by default: such a token lets its organiser act
    as the player, so a ticket queued or a match accepted with it counts as the organiser's
    (the match is made on their behalf, and scoring does not rate it by default). Turn it on
    where organisers are the players' identity provider and trusted with the ladder."""
    client_seeds: bool = True
    """NEON_MATCHMAKING_CLIENT_SEEDS (on by default): create matches that wait for their
    seats' client seeds (CreateMatch with await_client_seeds) and start them (StartMatch)
    when every human seat said it is ready (ReadyForMatch) or ``seed_window`` ran out, so
    that no player has to trust the server's seed alone. Off: matches start as they are
    created, as before."""
    seed_window: float = 25.0
    """NEON_MATCHMAKING_SEED_WINDOW: seconds from a match's creation until it starts whether
    or not every human seat said it is ready (bots need no seed)."""
    max_invites_per_player: int = 20
    """NEON_MATCHMAKING_MAX_INVITES_PER_PLAYER: how many open tickets may name a player
    without holding them (their open invitations). A CreateTicket that would name a player
    past it is RESOURCE_EXHAUSTED: so a few accounts cannot flood one player's invitations
    (ListMyInvitations); the player frees a place by declining."""
    decline_limit: int = 3
    """NEON_MATCHMAKING_DECLINE_LIMIT (0: no cooldown): after this many proposed matches fell
    through because of a player within ``decline_window`` (a ticket that held them timed out
    without their accept, or they cancelled it while a match was proposed), their CreateTicket
    for that game is FAILED_PRECONDITION for ``decline_cooldown`` seconds from the last one."""
    decline_window: float = 600.0
    """NEON_MATCHMAKING_DECLINE_WINDOW: seconds over which ``decline_limit`` counts."""
    decline_cooldown: float = 300.0
    """NEON_MATCHMAKING_DECLINE_COOLDOWN: seconds a player waits before queueing again."""
    join_limit: int = 20
    """NEON_MATCHMAKING_JOIN_LIMIT (0: none): how many tickets a player may queue for one game
    with their own player token within ``join_window``; one more is RESOURCE_EXHAUSTED, saying
    when they may queue again (each ticket, and each cancel, is a stored event)."""
    join_window: float = 60.0
    """NEON_MATCHMAKING_JOIN_WINDOW: seconds over which ``join_limit`` counts."""


def _flag(value: str | None, default: bool) -> bool:
    if not value:
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def config_from_env(environ: Mapping[str, str] | None = None) -> Config:
    """``NEON_MATCHMAKING_*`` variables over the defaults."""
    e = os.environ if environ is None else environ
    base, p = Config(), Policy()

    def num(key: str, default: float) -> float:
        value = e.get(f"NEON_MATCHMAKING_{key}")
        return float(value) if value else default

    policy = replace(
        p, base_window=num("BASE_WINDOW", p.base_window),
        widen_per_second=num("WIDEN_PER_SECOND", p.widen_per_second),
        max_window=num("MAX_WINDOW", p.max_window),
        partial_after=num("PARTIAL_AFTER", p.partial_after),
        backfill_after=num("BACKFILL_AFTER", p.backfill_after),
        bots=_flag(e.get("NEON_MATCHMAKING_BOTS"), True),
    )
    return Config(
        interval=num("INTERVAL", base.interval), ticket_ttl=num("TICKET_TTL", base.ticket_ttl),
        accept_timeout=num("ACCEPT_TIMEOUT", base.accept_timeout),
        auto_accept=_flag(e.get("NEON_MATCHMAKING_AUTO_ACCEPT"), False),
        policy=policy, rating_timeout=num("RATING_TIMEOUT", base.rating_timeout),
        bot_wait=num("BOT_WAIT", base.bot_wait),
        trust_minted_tokens=_flag(e.get("NEON_MATCHMAKING_TRUST_MINTED_TOKENS"), False),
        client_seeds=_flag(e.get("NEON_MATCHMAKING_CLIENT_SEEDS"), True),
        seed_window=_window(num("SEED_WINDOW", base.seed_window)),
        max_invites_per_player=_invites(e.get("NEON_MATCHMAKING_MAX_INVITES_PER_PLAYER"),
                                        base.max_invites_per_player),
        decline_limit=limit_from_env(e, "NEON_MATCHMAKING_DECLINE_LIMIT", base.decline_limit),
        decline_window=_seconds(e, "DECLINE_WINDOW", base.decline_window),
        decline_cooldown=_seconds(e, "DECLINE_COOLDOWN", base.decline_cooldown),
        join_limit=limit_from_env(e, "NEON_MATCHMAKING_JOIN_LIMIT", base.join_limit),
        join_window=_seconds(e, "JOIN_WINDOW", base.join_window),
    )


MAX_LIMIT_SECONDS = 86400.0


def _seconds(e: Mapping[str, str], key: str, default: float) -> float:
    """Seconds, more than 0 and at most a day."""
    value = e.get(f"NEON_MATCHMAKING_{key}", "").strip()
    if not value:
        return default
    try:
        s = float(value)
    except ValueError:
        raise ValueError(f"NEON_MATCHMAKING_{key} must be a number of seconds, "
                         f"not {value!r}") from None
    if not 0.0 < s <= MAX_LIMIT_SECONDS:
        raise ValueError(f"NEON_MATCHMAKING_{key} must be more than 0 and at most "
                         f"{MAX_LIMIT_SECONDS:g} seconds, not {s:g}")
    return s


MAX_SEED_WINDOW = 600.0


def _window(seconds: float) -> float:
    """A seed window is 0-600 s (0: start as soon as every human seat is ready, or at once
    at the next cycle if none is)."""
    if not 0.0 <= seconds <= MAX_SEED_WINDOW:
        raise ValueError(f"NEON_MATCHMAKING_SEED_WINDOW must be 0-{MAX_SEED_WINDOW:g} seconds, "
                         f"not {seconds:g}")
    return seconds


def _invites(value: str | None, default: int) -> int:
    """At least 1 (a player can always be invited by someone); a whole number."""
    if not value or not value.strip():
        return default
    try:
        n = int(value.strip())
    except ValueError:
        raise ValueError("NEON_MATCHMAKING_MAX_INVITES_PER_PLAYER must be a whole number, "
                         f"not {value!r}") from None
    if n < 1:
        raise ValueError(f"NEON_MATCHMAKING_MAX_INVITES_PER_PLAYER must be at least 1, not {n}")
    return n
