"""The gateway's settings (environment variables), beside the platform's Settings."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_PORT = 8080


@dataclass(frozen=True)
class GatewayConfig:
    port: int = DEFAULT_PORT
    """NEON_GATEWAY_PORT (0: any free port)."""
    cors_origins: tuple[str, ...] = ()
    """NEON_GATEWAY_CORS_ORIGINS: comma-separated origins allowed to call from a browser, or
    ``*``; empty (the default) sends no CORS headers, so only same-origin pages may call."""
    unary_timeout: float = 30.0
    """Seconds a unary call may take when the client sends no ``connect-timeout-ms``."""
    max_message_bytes: int = 4 * 1024 * 1024
    replay_from_service: bool = True
    """NEON_GATEWAY_REPLAYS=0 turns off replays of finished matches fetched from the rules
    services with the gateway's own service token (uploaded exports still work)."""
    max_streams_per_client: int = 64
    """NEON_GATEWAY_MAX_STREAMS_PER_CLIENT: server streams (WatchMatch, WatchTicket, ...) one
    HTTP client address may hold open through the gateway (0: no limit). The services see all
    of the gateway's anonymous callers as one peer; this keeps one web client from using up
    that peer's allowance."""

    def allows(self, origin: str) -> bool:
        return bool(origin) and ("*" in self.cors_origins or origin in self.cors_origins)


def load_config(environ: dict[str, str] | None = None) -> GatewayConfig:
    e = os.environ if environ is None else environ
    origins = tuple(
        o.strip() for o in e.get("NEON_GATEWAY_CORS_ORIGINS", "").split(",") if o.strip()
    )
    return GatewayConfig(
        port=int(e.get("NEON_GATEWAY_PORT") or DEFAULT_PORT),
        cors_origins=origins,
        unary_timeout=float(e.get("NEON_GATEWAY_TIMEOUT") or 30.0),
        replay_from_service=e.get("NEON_GATEWAY_REPLAYS", "1").strip().lower()
        not in ("0", "false", "no", "off"),
        max_streams_per_client=_count(e, "NEON_GATEWAY_MAX_STREAMS_PER_CLIENT", 64),
    )


def _count(e: Mapping[str, str], name: str, default: int) -> int:
    raw = e.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit():
        raise ValueError(f"{name} {raw!r}: use a whole number, 0 for no limit")
    return int(raw)
