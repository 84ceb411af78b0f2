"""The viewer in headless Chromium: live bot matches of every game followed to the end, a
replay stepped through, a tampered export shown failing, and no hidden card ever received."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import grpc
import pytest

from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.playing import play_table, random_choice
from services.rules.games import available, load_engine
from tests.browser.conftest import Browser, Served, module_fixtures
from tests.browser.leakscan import received_bodies, scan, stream_frames

pytestmark = [pytest.mark.timeout(120), pytest.mark.asyncio(loop_scope="module")]


served, browser = module_fixtures("browser")
"""One backend and gateway for this module's tests (each makes its own matches); a page each."""


PIECES = {
    "neon-reign": ".hero",
    "neon": ".fighter",
    "neon-knights-2086": ".car",
    "barbaric": ".rider",
}
"""What each game's board draws for its seats (services/gateway/static/boards.js)."""
CLOCKED = "neon-reign"
"""The game whose match runs with Fischer clocks, so the page shows a clock per seat."""


def two_seat_mode(game: str) -> str:
    return next(
        name
        for name, mode in load_engine(game).modes().items()
        if mode.min_seats <= 2 <= mode.max_seats
    )


def winner_line(outcome: dict[str, Any]) -> str:
    """The page's first words for ``outcome``: who placed 1st, the sides the engine plays
    (NEON's Automa, Neon Reign's Computer) included, never "seat -1"."""
    if outcome.get("draw"):
        return "Draw"
    first = [f"seat {s}" for s, place in enumerate(outcome["placements"]) if place == 1]
    b = outcome.get("breakdown") or {}
    if (b.get("automa") or {}).get("rank") == 1:
        first.append("the Automa")
    if b.get("computer") is True and b.get("winner") in ("computer", "double KO"):
        first.append("the Computer")
    if not first:
        return "No winner"
    return ("Winners: " if len(first) > 1 else "Winner: ") + ", ".join(first)


async def create(served: Served, game: str) -> tuple[Any, Any, str, dict[int, str]]:
    channel = grpc.aio.insecure_channel(served.backend.address(f"rules-{game}"))
    stub = rules_pb2_grpc.RulesServiceStub(channel)
    organiser = [("authorization", f"Bearer {served.backend.organiser_token()}")]
    request = rules_pb2.CreateMatchRequest(
        match_id=f"web-{uuid.uuid4().hex[:10]}",
        mode=two_seat_mode(game),
        seats=2,
        dev_seed=f"browser-{game}",
    )
    if game == CLOCKED:
        request.clock.CopyFrom(
            rules_pb2.ClockConfig(
                kind=rules_pb2.CLOCK_KIND_FISCHER, bank_ms=600_000, increment_ms=1_000
            )
        )
    created = await stub.CreateMatch(request, metadata=organiser)
    return channel, stub, created.match_id, {t.seat: t.token for t in created.seat_tokens}


async def export(served: Served, stub: Any, match_id: str) -> bytes:
    organiser = [("authorization", f"Bearer {served.backend.organiser_token()}")]
    for _ in range(100):  # the seal follows the end
        answer = await stub.ExportMatch(
            rules_pb2.ExportMatchRequest(match_id=match_id), metadata=organiser
        )
        if b'"MatchSealed"' in answer.export_jsonl:
            return bytes(answer.export_jsonl)
        await asyncio.sleep(0.05)
    raise AssertionError("the match was never sealed")


def slow(choose: Any, pause: float) -> Any:
    """The random bot, a little slower, so the page follows the match while it is played."""

    async def chosen(turn: Any) -> Any:
        await asyncio.sleep(pause)
        return choose(turn)

    return chosen


async def test_the_page_loads_without_console_errors(served: Served, browser: Browser) -> None:
    page = browser.page
    await page.goto(served.url + "/")
    await page.wait_for_selector("body[data-ready='1']")
    games = await page.eval_on_selector_all("#game-select option", "os => os.map(o => o.value)")
    assert games == sorted(available())
    assert await page.title() == "Neon Arena — spectator and replay"
    await browser.screenshot("page-loaded")
    assert browser.console_errors == []


@pytest.mark.parametrize("game", available())
async def test_a_spectator_follows_a_live_bot_match_to_its_end(
    served: Served, browser: Browser, game: str
) -> None:
    channel, stub, match_id, tokens = await create(served, game)
    try:
        page = browser.page
        await page.goto(f"{served.url}/?game={game}")
        await page.wait_for_selector("body[data-ready='1']")
        # the match is listed (ListMatches) and picked from the list
        await page.click(f"#match-list button[data-match-id='{match_id}']")
        await page.wait_for_selector(f"#board svg[data-game='{game}']")
        pause = {"neon-knights-2086": 0.005, "barbaric": 0.01, "neon": 0.015}.get(game, 0.04)
        playing = asyncio.create_task(
            play_table(stub, match_id, tokens, slow(random_choice(game), pause))
        )
        # while it is played, the board shows the game's pieces (heroes, fighters, cars, riders)
        await page.wait_for_selector(f"#board svg {PIECES[game]}", timeout=30_000)
        await browser.screenshot(f"live-{game}-playing")
        outcome = await playing
        assert outcome is not None
        await page.wait_for_selector("#board[data-ended='1']", timeout=60_000)
        shown = await page.text_content("#outcome")
        assert shown and shown.split(".")[0].split(" — ")[0] == winner_line(outcome)
        log = await page.eval_on_selector_all("#log li", "ls => ls.map(l => l.textContent)")
        data = await export(served, stub, match_id)
        events = len(data.splitlines()) - 1
        versions = await page.eval_on_selector_all(
            "#log li", "ls => ls.map(l => +l.dataset.version)"
        )
        assert max(versions) == events, "the log reaches the match's last event"
        assert len(log) >= events // 2 and all(line.strip() for line in log)
        if game == CLOCKED:
            clocks = await page.eval_on_selector_all(
                "#clocks .clock", "cs => cs.map(c => c.textContent)"
            )
            assert [c.split(":")[0] for c in clocks] == ["seat 0", "seat 1"]
        await browser.screenshot(f"live-{game}")
        received = await received_bodies(browser)
        streamed = [
            f for url, body in received if url.endswith("/WatchMatch") for f in stream_frames(body)
        ]
        assert len(streamed) == events + 1, "every event frame, then the end of the stream"
        views = [body for url, body in received if url.endswith("/GetView")]
        leaks, checked = scan(received, data)
        assert checked >= events + len(views)
        assert leaks == []
        assert browser.console_errors == []
    finally:
        await channel.close()


async def test_a_replay_steps_forward_and_back_and_a_tampered_export_fails(
    served: Served, browser: Browser, tmp_path: Any
) -> None:
    game = "neon-reign" if "neon-reign" in available() else available()[0]
    channel, stub, match_id, tokens = await create(served, game)
    try:
        await play_table(stub, match_id, tokens, random_choice("replay"))
        data = await export(served, stub, match_id)
    finally:
        await channel.close()
    page = browser.page
    await page.goto(served.url + "/")
    await page.wait_for_selector("body[data-ready='1']")
    await page.click("#tab-replay")
    await page.select_option("#replay-game", game)
    await page.fill("#replay-match", match_id)
    await page.click("#replay-open")
    await page.wait_for_selector("#verify-ok")
    checks = await page.eval_on_selector_all("#verification li", "ls => ls.map(l => l.textContent)")
    assert any("hash chain" in c for c in checks) and any("rules replay" in c for c in checks)
    assert any("draws recomputed" in c for c in checks) and any("signature" in c for c in checks)
    assert await page.get_attribute("#step-label", "data-n") == "1"
    for _ in range(3):
        await page.click("#step-next")
    assert await page.get_attribute("#step-label", "data-n") == "4", (
        await page.text_content("#status"),
        await page.text_content("#step-label"),
        browser.console_errors,
    )
    await page.click("#step-prev")
    assert await page.get_attribute("#step-label", "data-n") == "3"
    await page.wait_for_selector(f"#replay-board svg[data-game='{game}']")
    await page.click("#step-last")
    assert await page.is_visible("#replay-outcome")
    await browser.screenshot("replay-verified")

    lines = data.decode().splitlines()
    target = next(i for i, line in enumerate(lines) if '"ActionAccepted"' in line)
    record = json.loads(lines[target])
    record["seat"] = 1 - int(record["seat"])  # a forged seat: the chain breaks right there
    lines[target] = json.dumps(record, separators=(",", ":"))
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("\n".join(lines) + "\n")
    await page.set_input_files("#replay-file", str(tampered))
    await page.wait_for_selector("#verify-failure")
    failure = await page.text_content("#verify-failure")
    assert failure and f"event {record['n']}" in failure, failure
    await browser.screenshot("replay-tampered")
    leaks, _ = scan(await received_bodies(browser), data)
    assert leaks == []
    assert browser.console_errors == []
