"""The viewer's own paths (/api/games, /api/replay, a match's replay, /healthz) and the
Connect paths asked with a method they do not take: HTTP 405 with ``Allow`` and a JSON
reason, as a Connect GET of a call with side effects gets, not 404 "nothing at" a path that
is there; and a CORS preflight that is refused says why in JSON like every other refusal.
Over a real socket, the real app."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest

from services.gateway.config import GatewayConfig
from tests.support.gateway import bare_gateway

REPLAY = "/api/games/neon-reign/matches/m1/replay"
LEADERBOARD = "/neon.scoring.v1.ScoringService/GetLeaderboard"


@pytest.mark.parametrize("method, path, allow", [
    ("GET", "/api/replay", "POST"),
    ("PUT", "/api/replay", "POST"),
    ("GET", REPLAY, "POST"),
    ("DELETE", REPLAY, "POST"),
    ("POST", "/api/games", "GET, HEAD"),
    ("POST", "/healthz", "GET, HEAD"),
    ("PUT", LEADERBOARD, "GET, POST"),
    ("HEAD", LEADERBOARD, "GET, POST"),
    ("PATCH", "/games/neon-reign/neon.rules.v1.RulesService/GetView", "GET, POST"),
    ("PUT", "/games/neon-reign/neon.rules.v1.RulesService/SubmitAction", "POST"),
    ("HEAD", "/games/neon-reign/neon.rules.v1.RulesService/WatchMatch", "POST"),
])
async def test_a_path_asked_with_a_method_it_does_not_take_is_405_with_allow(
    method: str, path: str, allow: str
) -> None:
    async with bare_gateway(GatewayConfig(port=0), {}) as url, aiohttp.ClientSession() as http, \
            http.request(method, url + path) as r:
        assert r.status == 405, (method, path, r.status)
        assert r.headers["Allow"] == allow
        assert r.content_type == "application/json"
        if method != "HEAD":
            err = await r.json()
            assert err["code"] == "unimplemented" and allow.split(",")[0] in err["message"]


@pytest.mark.parametrize("method, path", [
    ("PUT", "/no/such"), ("GET", "/api/nothing"), ("PUT", "/neon.nope.v1.Nope/Get"),
    ("DELETE", "/games/neon-reign/neon.rules.v1.RulesService/NoSuchMethod"),
    ("PUT", "/neon.rules.v1.RulesService/GetView"), ("PUT", "/games/x/" + LEADERBOARD[1:]),
    ("PUT", "/elsewhere/x/neon.rules.v1.RulesService/GetView"),
    # no game named: not a rules call by another method ("GET is not served ...: use GET")
    ("GET", "/games//neon.rules.v1.RulesService/GetView"),
    ("POST", "/games//neon.rules.v1.RulesService/SubmitAction"),
])
async def test_a_path_that_is_not_there_is_still_404(method: str, path: str) -> None:
    async with bare_gateway(GatewayConfig(port=0), {}) as url, aiohttp.ClientSession() as http, \
            http.request(method, url + path) as r:
        assert r.status == 404 and "Allow" not in r.headers
        assert (await r.json())["code"] == "not_found"


async def test_a_refused_cors_preflight_says_why_in_json() -> None:
    config = GatewayConfig(port=0, cors_origins=("http://app.example",))
    async with bare_gateway(config, {}) as url, aiohttp.ClientSession() as http, http.options(
            url + LEADERBOARD,
            headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"},
    ) as r:
        assert r.status == 403 and "Access-Control-Allow-Origin" not in r.headers
        err = await r.json()
        assert err == {"code": "permission_denied", "message": "CORS is not allowed for this origin"}


@pytest.mark.parametrize("path, status, code", [
    ("/static/", 404, "not_found"),
    ("/static/%00", 404, "not_found"),
    ("/static/" + "x" * 5000, 404, "not_found"),
    ("/static/no-such-file.js", 404, "not_found"),
    ("/static/..%2f..%2fapp.py", 404, "not_found"),
])
async def test_the_viewers_files_refused_say_why_in_json(path: str, status: int, code: str) -> None:
    async with bare_gateway(GatewayConfig(port=0), {}) as url, aiohttp.ClientSession() as http, \
            http.get(url + path) as r:
        assert r.status == status and r.content_type == "application/json", await r.text()
        err = await r.json()
        assert err["code"] == code and err["message"]
        assert r.headers.get("X-Content-Type-Options") == "nosniff"


async def test_the_viewers_files_are_served_with_ranges_and_head() -> None:
    async with bare_gateway(GatewayConfig(port=0), {}) as url, aiohttp.ClientSession() as http:
        async with http.get(url + "/static/viewer.js") as r:
            whole = await r.read()
            assert r.status == 200 and r.content_type in ("application/javascript", "text/javascript")
            assert r.headers.get("ETag") and r.headers.get("X-Content-Type-Options") == "nosniff"
        async with http.get(url + "/static/viewer.js", headers={"Range": "bytes=0-9"}) as r:
            assert r.status == 206 and await r.read() == whole[:10]
        async with http.head(url + "/static/style.css") as r:
            assert r.status == 200 and r.content_type == "text/css"
        async with http.get(url + "/") as r:
            assert r.status == 200 and r.content_type == "text/html"


async def test_a_symlink_out_of_the_viewers_folder_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only files whose real path is in the viewer's folder are served: a symlink that leads
    out of it (a deployment's mistake, a package unpacked with links) is 404 like a missing
    file, a link to a file of the folder is served, and a folder is no file."""
    from services.gateway import app as gateway_app

    static, outside = tmp_path / "static", tmp_path / "secret.txt"
    static.mkdir()
    outside.write_text("the deployment's secret")
    (static / "real.js").write_text("export {};")
    (static / "out.js").symlink_to(outside)
    (static / "in.js").symlink_to(static / "real.js")
    (static / "folder").mkdir()
    (static / "up").symlink_to(tmp_path, target_is_directory=True)
    monkeypatch.setattr(gateway_app, "STATIC", static)
    async with bare_gateway(GatewayConfig(port=0), {}) as url, aiohttp.ClientSession() as http:
        for name, status in (("real.js", 200), ("in.js", 200), ("out.js", 404), ("folder", 404),
                             ("up", 404), ("up%2Fsecret.txt", 404)):
            async with http.get(f"{url}/static/{name}") as r:
                body = await r.text()
                assert r.status == status, (name, r.status, body)
                assert "deployment's secret" not in body, name
