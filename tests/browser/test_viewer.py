"""The viewer in headless Chromium: live bot matches of every game followed to the end, a
replay stepped through, a tampered export shown failing, and no hidden card ever received."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.playing import play_table, random_choice
from services.rules.export import parse_export
from services.rules.games import available, load_engine, load_presentation
from services.rules.replay import Replayed, step
from services.rules.verify import engine_at, replay_key
from tests.browser.conftest import Browser, Served, module_fixtures
from tests.browser.leakscan import received_bodies, scan, stream_frames
from tests.browser.pages import open_replay, replay_tab

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
SHORT = {"neon-knights-2086": {"races": 1}}
"""A shorter match where the game has the option: one race of Neon Knights, not three (its
board across three races: test_walkthrough's board-words replay)."""
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
        options_json=json.dumps(SHORT[game]) if game in SHORT else "",
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
    await open_replay(page, served.url, game, match_id)
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


NK_EXPORT = Path(__file__).parents[1] / "fixtures" / "exports" / "neon-knights-2086-0.4.0-normal.jsonl"
"""A 3-seat Neon Knights match of engine 0.4.0 in which Fan Bets are turned face up during a race."""


def views_at(data: bytes, n: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the spectator's view, each seat's own view) after event ``n`` of the export."""
    records, _ = parse_export(data)
    engine = engine_at(load_engine(str(records[0]["game"])), str(records[0]["engine_version"]))
    replayed = Replayed(key=replay_key(records))
    for record in records:
        step(engine, replayed, record)
        if record["n"] == n:
            seats = int(records[0]["seats"])
            return engine.view(replayed.state, None), [engine.view(replayed.state, s) for s in range(seats)]
    raise AssertionError(f"no event {n}")


async def test_the_neon_knights_board_shows_face_up_fan_bets_and_no_hidden_one(
    served: Served, browser: Browser
) -> None:
    game = "neon-knights-2086"
    data = NK_EXPORT.read_bytes()
    assert json.loads(data.splitlines()[0])["engine_version"] == "0.4.0"
    n = 434  # race 3: seat 0's Fan Bet is face up (event 422), the others' still hidden
    spectator, seat_views = views_at(data, n)
    up = {p["seat"]: p["bets_up"] for p in spectator["players"]}
    assert any(up.values()), "the fixture has a face-up Fan Bet at this event"
    bets = {b["id"]: b for b in load_presentation(game).content()["fan_bets"]}
    hidden = {b for v in seat_views for p in v["players"] if isinstance(p["bets"], list) for b in p["bets"]}
    assert hidden, "some Fan Bets are still hidden at this event"

    page = browser.page
    await replay_tab(page, served.url)
    await page.set_input_files("#replay-file", str(NK_EXPORT))
    await page.wait_for_selector("#step-label[data-n='1']")  # the first frame: no table yet
    await page.click("#step-last")
    while int(await page.get_attribute("#step-label", "data-n") or 0) > n:
        await page.click("#step-prev")
    assert await page.get_attribute("#step-label", "data-n") == str(n)
    board = f"#replay-board svg[data-game='{game}']"
    for seat, ids in up.items():
        panel = f"{board} .bets[data-seat='{seat}']"
        await page.wait_for_selector(f"{panel}[data-up='{' '.join(ids)}']")
        shown = await page.eval_on_selector_all(f"{panel} .bet-up .bet-name", "ts => ts.map(t => t.textContent)")
        assert shown == [f"▲ {bets[b]['name']}" for b in ids]
        count = spectator["players"][seat]["bets"]
        assert await page.get_attribute(panel, "data-hidden") == str(count)
        assert f"{count} hidden" in (await page.text_content(panel) or "")
    await page.locator(f"{board} .bets[data-seat='0']").scroll_into_view_if_needed()
    await browser.screenshot("replay-neon-knights-2086-fan-bets")
    text = await page.text_content(board) or ""
    assert bets[up[0][0]]["name"] in text
    assert [bets[b]["name"] for b in sorted(hidden) if bets[b]["name"] in text] == []

    # a seat's own view (the Play page) draws the same public board: its own hidden bets
    # are a count there too (the page lists them apart, "Only you see")
    drawn = await page.evaluate(
        """async ([views, content]) => {
             const { drawBoard } = await import("/static/boards.js");
             return views.map((v) => drawBoard("neon-knights-2086", v, content).textContent);
           }""",
        [[spectator, *seat_views], load_presentation(game).content()],
    )
    assert all(d == drawn[0] for d in drawn), drawn
    leaks, _ = scan(await received_bodies(browser), data)
    assert leaks == []
    assert browser.console_errors == []
