"""The pages that follow a match live keep following it when their WatchMatch stream is cut:
the gateway restarts (a deploy, a crash) in the middle of a match. The spectator page and the
Play page open the stream again from the last event they received, so every event is listed
once, in order, and "the match is over" is said only when it is (before, the spectator page
said the match was over as soon as its stream ended, and stopped following it)."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
import pytest_asyncio

from services.cli.backend import Backend, start_backend
from services.gateway import main as gateway_main
from services.gateway.config import GatewayConfig
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.playing import play_table, random_choice
from tests.browser.conftest import Browser, chromium_page
from tests.integration.conftest import make_settings
from tests.support.gateway import upstreams

pytestmark = [pytest.mark.timeout(180), pytest.mark.asyncio(loop_scope="module")]

GAME = "neon-reign"


class Restartable:
    """A backend with Neon Reign, and a gateway in front of it that the test stops and
    starts again on the same port."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.gateway: gateway_main.RunningGateway | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        self.gateway = await gateway_main.start(
            self.backend.settings, self.backend.keys, GatewayConfig(port=self.port),
            addresses=upstreams(self.backend))
        self.port = int(self.gateway.address.rsplit(":", 1)[1])

    async def stop(self) -> None:
        if self.gateway is not None:
            await self.gateway.stop()
            self.gateway = None


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def served(tmp_path_factory: pytest.TempPathFactory, nats_url: str) -> AsyncIterator[Restartable]:
    settings = make_settings(tmp_path_factory.mktemp("reconnect"), nats_url)
    backend = await start_backend(settings, games=[GAME], embedded_nats=False)
    running = Restartable(backend)
    try:
        await running.start()
        yield running
    finally:
        await running.stop()
        await backend.stop(1)


@pytest_asyncio.fixture(loop_scope="module")
async def browser(chromium: Any) -> AsyncIterator[Browser]:
    async with chromium_page(chromium) as page:
        yield page


class Paused:
    """The random bot, which stops before its ``at``-th move until ``go`` is set."""

    def __init__(self, at: int) -> None:
        self.at, self.moves = at, 0
        self.reached, self.go = asyncio.Event(), asyncio.Event()
        self.choose = random_choice("reconnect")

    async def __call__(self, turn: Any) -> Any:
        self.moves += 1
        if self.moves == self.at:
            self.reached.set()
            await self.go.wait()
        await asyncio.sleep(0.02)
        return self.choose(turn)


@contextlib.asynccontextmanager
async def match(served: Restartable) -> AsyncIterator[tuple[Any, str, dict[int, str]]]:
    async with grpc.aio.insecure_channel(served.backend.address(f"rules-{GAME}")) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        created = await stub.CreateMatch(
            rules_pb2.CreateMatchRequest(match_id=f"cut-{uuid.uuid4().hex[:10]}", mode="single",
                                         seats=2, dev_seed="reconnect"),
            metadata=[("authorization", f"Bearer {served.backend.organiser_token()}")])
        yield stub, created.match_id, {t.seat: t.token for t in created.seat_tokens}


async def versions(page: Any, log: str) -> list[int]:
    return await page.eval_on_selector_all(f"{log} li", "ls => ls.map(l => +l.dataset.version)")


async def until_logged(page: Any, log: str, version: int) -> None:
    for _ in range(200):
        if version in await versions(page, log):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"event {version} never listed: {await versions(page, log)}")


async def cut_and_resume(served: Restartable, page: Any, stub: Any, match_id: str,
                         tokens: dict[int, str], log: str, board: str) -> int:
    """Plays the match with the gateway stopped and started again in its middle; the match's
    last version."""
    bot = Paused(at=6)
    playing = asyncio.create_task(play_table(stub, match_id, tokens, bot))
    try:
        await asyncio.wait_for(bot.reached.wait(), 60)
        view = await stub.GetView(rules_pb2.GetViewRequest(match_id=match_id))
        await until_logged(page, log, view.version)
        await served.stop()
        await asyncio.sleep(1.5)  # the page has found its stream cut, and the gateway down
        assert await page.get_attribute(board, "data-ended") is None, (
            "the page says the match is over while it is played: "
            + (await page.text_content("#status") or ""))
        await served.start()
        bot.go.set()
        await asyncio.wait_for(playing, 120)
    finally:
        bot.go.set()
        playing.cancel()
    view = await stub.GetView(rules_pb2.GetViewRequest(match_id=match_id))
    assert view.status == rules_pb2.MATCH_STATUS_ENDED
    return int(view.version)


def listed_once_in_order(shown: list[int], last: int) -> None:
    assert shown == sorted(shown), f"an event listed again after a later one: {shown}"
    assert sorted(set(shown)) == list(range(1, last + 1)), f"events missing: {shown}"


async def test_a_spectator_keeps_following_a_match_across_a_gateway_restart(
    served: Restartable, browser: Browser
) -> None:
    page = browser.page
    async with match(served) as (stub, match_id, tokens):
        await page.goto(f"{served.url}/?game={GAME}&match={match_id}")
        await page.wait_for_selector(f"#board svg[data-game='{GAME}']")
        last = await cut_and_resume(served, page, stub, match_id, tokens, "#log", "#board")
        await page.wait_for_selector("#board[data-ended='1']", timeout=30_000)
        await until_logged(page, "#log", last)
        listed_once_in_order(await versions(page, "#log"), last)
        assert await page.is_visible("#outcome")
        assert "over" in (await page.text_content("#status") or "")


async def test_a_seats_play_page_keeps_following_its_match_across_a_gateway_restart(
    served: Restartable, browser: Browser
) -> None:
    """The Play page follows the match with the seat's token (here the test plays both seats
    over gRPC; the page shows seat 0's view and events)."""
    page = browser.page
    async with match(served) as (stub, match_id, tokens):
        await page.goto(f"{served.url}/?game={GAME}&match={match_id}&play")
        await page.wait_for_selector("body[data-ready='1']")
        await page.fill("#play-token", tokens[0])
        await page.click("#play-open")
        await page.wait_for_selector(f"#play-board svg[data-game='{GAME}']")
        last = await cut_and_resume(served, page, stub, match_id, tokens, "#play-log", "#play-board")
        await page.wait_for_selector("#play-board[data-ended='1']", timeout=30_000)
        await until_logged(page, "#play-log", last)
        listed_once_in_order(await versions(page, "#play-log"), last)
        assert await page.is_visible("#play-outcome")


async def test_a_stream_whose_body_ends_without_its_end_message_is_cut_not_ended(
    served: Restartable, browser: Browser
) -> None:
    """Connect closes every stream with an end-of-stream message; a body that ends before it
    (a proxy's timeout, a gateway that stopped) was cut: connect.js's serverStream says
    ``unavailable`` (which the pages follow again) instead of ending as if the match had."""
    page = browser.page
    event = b'{"event": {"version": "1", "type": "MatchCreated", "text": ["created"]}}'
    head = bytes([0]) + len(event).to_bytes(4, "big")

    async def cut(route: Any) -> None:
        await route.fulfill(status=200, content_type="application/connect+json", body=head + event)

    await page.route("**/WatchMatch", cut)
    await page.goto(served.url + "/")
    await page.wait_for_selector("body[data-ready='1']")
    got = await page.evaluate(
        """async () => {
             const { serverStream } = await import("/static/connect.js");
             const seen = [];
             try {
               for await (const m of serverStream("/games/x/neon.rules.v1.RulesService/WatchMatch", {})) seen.push(m);
               return { seen, ended: true };
             } catch (err) {
               return { seen, code: err.code };
             }
           }""")
    assert got == {"seen": [{"event": {"version": "1", "type": "MatchCreated", "text": ["created"]}}],
                   "code": "unavailable"}, got
