"""The gateway's pages hold an organiser's token (the desk keeps it in sessionStorage) and act
with it: they are served with a Content-Security-Policy that runs only the gateway's own
scripts and lets no other site frame them (a framed desk could be clicked into ending a
tournament), and every answer says nosniff. Over a real socket, the real app."""

from __future__ import annotations

import aiohttp

from services.gateway.config import GatewayConfig
from tests.support.gateway import bare_gateway


def policy(header: str) -> dict[str, str]:
    return {d.split(" ", 1)[0]: d.split(" ", 1)[1] if " " in d else ""
            for d in (p.strip() for p in header.split(";")) if d}


async def test_pages_run_only_the_gateways_scripts_and_are_never_framed() -> None:
    async with bare_gateway(GatewayConfig(port=0), {}) as url, aiohttp.ClientSession() as http:
        for path in ("/", "/static/desk.js", "/static/style.css"):
            async with http.get(url + path) as r:
                assert r.status == 200, path
                csp = policy(r.headers.get("Content-Security-Policy", ""))
                assert csp.get("script-src") == "'self'", (path, csp)
                assert csp.get("frame-ancestors") == "'none'", (path, csp)
                assert csp.get("object-src") == "'none'" and csp.get("base-uri") == "'none'"
                assert r.headers.get("X-Frame-Options") == "DENY"
                assert r.headers.get("X-Content-Type-Options") == "nosniff"
                assert r.headers.get("Referrer-Policy") == "no-referrer"
        async with http.post(url + "/neon.scoring.v1.ScoringService/GetLeaderboard", json={}) as r:
            assert r.headers.get("X-Content-Type-Options") == "nosniff"  # every answer
