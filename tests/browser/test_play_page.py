"""A person plays a seat in headless Chromium: the Play page, given seat 0's token, plays a
Neon Reign match to its end by clicking the legal actions (labelled in the game's words, as
ListLegalActions gives them) while the test plays seat 1 over gRPC; the page takes its next
choices from its own SubmitAction's answer and asks ListLegalActions only for positions it did
not make, never drawing an answer's choices once the match moved past them; refused tokens and
a stale version get clear messages; the page never receives the opponent's hidden cards."""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest_asyncio

from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.grpc_kit import call_metadata
from services.platform.playing import play_seat, random_choice
from tests.browser.conftest import Browser, Served, module_fixtures
from tests.browser.leakscan import received_bodies, scan, secrets_by_version, stream_frames
from tests.browser.seatplay import (
    GAME,
    REIGN_MARKS,
    asked_legal,
    buttons,
    click_to_the_end,
    export,
    few_legal_calls,
    ready_after,
)

pytestmark = REIGN_MARKS
KEY = "neon-play-token"


served, browser = module_fixtures("play")


@pytest_asyncio.fixture(loop_scope="module")
async def rules(served: Served) -> AsyncIterator[Any]:
    async with grpc.aio.insecure_channel(served.backend.address(f"rules-{GAME}")) as channel:
        yield rules_pb2_grpc.RulesServiceStub(channel)


async def create(served: Served, stub: Any) -> tuple[str, dict[int, str]]:
    """A Neon Reign ``single`` match of two people, alice (seat 0) and bob, with clocks."""
    request = rules_pb2.CreateMatchRequest(
        match_id=f"play-{uuid.uuid4().hex[:10]}", mode="single", seats=2,
        players=["alice", "bob"], dev_seed="browser-play",
        clock=rules_pb2.ClockConfig(kind=rules_pb2.CLOCK_KIND_FISCHER, bank_ms=600_000,
                                    increment_ms=1_000),
    )
    created = await stub.CreateMatch(
        request, metadata=call_metadata(served.backend.organiser_token()), timeout=10)
    return created.match_id, {t.seat: t.token for t in created.seat_tokens}


async def open_play(browser: Browser, served: Served, match_id: str, token: str) -> None:
    page = browser.page
    await page.goto(f"{served.url}/?game={GAME}&match={match_id}&play")
    await page.wait_for_selector("body[data-ready='1']")
    assert await page.is_visible("#play") and not await page.is_visible("#live")
    assert await page.input_value("#play-match") == match_id
    await page.fill("#play-token", token)
    await page.click("#play-open")


async def legal_words(stub: Any, match_id: str, token: str) -> tuple[str, list[tuple[int, int, str]]]:
    legal = await stub.ListLegalActions(
        rules_pb2.ListLegalActionsRequest(match_id=match_id, with_text=True),
        metadata=call_metadata(token), timeout=10)
    return str(legal.version), [(k, i, text) for k, d in enumerate(legal.decisions)
                                for i, text in enumerate(d.legal_text)]


async def test_a_person_plays_seat_0_of_neon_reign_to_the_end(
        served: Served, browser: Browser, rules: Any) -> None:
    match_id, tokens = await create(served, rules)
    bot = random_choice("browser-play-bob")

    async def bob(turn: Any) -> Any:
        await asyncio.sleep(0.02)
        return bot(turn)

    opponent = asyncio.create_task(play_seat(rules, tokens[1], match_id, bob, seat=1))
    page = browser.page
    try:
        await open_play(browser, served, match_id, tokens[0])
        assert tokens[0] not in page.url
        assert await page.evaluate(f"sessionStorage.getItem('{KEY}')") == tokens[0]
        assert await page.evaluate("localStorage.length") == 0
        hand_listed = False

        async def check(version: str, shown: dict[str, Any]) -> bool:
            nonlocal hand_listed
            said_version, said = await legal_words(rules, match_id, tokens[0])
            if said_version != version:
                return False
            assert [(b["decision"], b["index"], b["text"]) for b in shown["buttons"]] == said
            assert all(b["text"] and not b["text"].startswith("{") for b in shown["buttons"])
            turn = await page.text_content("#play-turn")
            assert turn and turn.startswith("Your turn (seat 0)")
            hand_listed |= await page.locator("#play-private li[data-path='sides.0.hand']").count() > 0
            return True

        async def screenshot(clicks: int) -> None:
            if clicks == 3:
                await browser.screenshot("play-neon-reign")

        clicks = await click_to_the_end(page, random.Random(2086), check, screenshot)
        outcome = await asyncio.wait_for(opponent, 60)
        assert outcome is not None and clicks >= 3
        assert hand_listed, "the seat's hand was listed under 'Only you see'"
        await page.wait_for_selector("#play-board[data-ended='1']")
        shown_outcome = await page.text_content("#play-outcome")
        assert await page.is_visible("#play-outcome") and shown_outcome
        assert "Winner: seat" in shown_outcome or "Draw" in shown_outcome
        assert shown_outcome.startswith(f"You (seat 0) placed {outcome['placements'][0]}")
        assert await page.text_content("#play-turn") == "The match is over."
        assert await page.locator("#play-actions button").count() == 0
        clocks = await page.eval_on_selector_all("#play-clocks .clock", "cs => cs.map(c => c.textContent)")
        assert [c.split(":")[0] for c in clocks] == ["seat 0", "seat 1"]
        data = await export(served, rules, match_id)
        events = len(data.splitlines()) - 1
        versions = await page.eval_on_selector_all("#play-log li", "ls => ls.map(l => +l.dataset.version)")
        assert max(versions) == events, "the log reaches the match's last event"
        log = await page.eval_on_selector_all("#play-log li", "ls => ls.map(l => l.textContent)")
        assert any(line.startswith("You ") for line in log), "events told as the seat sees them"
        await browser.screenshot("play-neon-reign-end")
        received = await received_bodies(browser)
        secrets, _ = secrets_by_version(data, 0)
        assert any(secrets.values()), "the opponent held cards seat 0 may not see"
        leaks, checked = scan(received, data, viewer=0)
        assert leaks == []
        worded = [u for u, _ in received if u.endswith("/ListLegalActions")]
        submitted = [u for u, _ in received if u.endswith("/SubmitAction")]
        assert len(submitted) == clicks
        await few_legal_calls(browser, served, rules, match_id)
        streamed = [f for u, b in received if u.endswith("/WatchMatch") for f in stream_frames(b)]
        assert checked >= len(streamed) + len(worded) + len(submitted)
        assert all(tokens[0] not in u for u, _ in received)
        assert browser.console_errors == []
    finally:
        opponent.cancel()
        await asyncio.gather(opponent, return_exceptions=True)


async def test_the_page_takes_its_next_choices_from_its_own_answers_and_never_stale_ones(
        served: Served, browser: Browser, rules: Any) -> None:
    """Seat 0 on the page, seat 1 played by the test inside each of the page's SubmitAction
    calls: once the rules service has answered the page and before the page reads the answer,
    seat 1 answers whatever it owes. The page's WatchMatch stream is held back, so it learns
    of seat 1's moves only from its own loads. The page must then draw, at every position,
    the buttons ListLegalActions gives at that very version (never the choices of an answer
    the match moved past), and ask ListLegalActions exactly once at the start and once per
    answer seat 1 moved past: never for a position its own answer described."""
    match_id, tokens = await create(served, rules)
    rng = random.Random(4242)
    seat1 = call_metadata(tokens[1])
    answers: list[dict[str, Any]] = []

    async def seat1_plays() -> int:
        """Seat 1 answers what it owes until it owes nothing; how many moves."""
        moves = 0
        while True:
            legal = await rules.ListLegalActions(
                rules_pb2.ListLegalActionsRequest(match_id=match_id), metadata=seat1, timeout=10)
            owed = [d for d in legal.decisions if not d.standing and d.legal_json]
            if not owed:
                return moves
            await rules.SubmitAction(rules_pb2.SubmitActionRequest(
                match_id=match_id, command_id=f"seat1-{legal.version}",
                action_json=rng.choice(list(rng.choice(owed).legal_json)),
                expected_version=legal.version), metadata=seat1, timeout=10)
            moves += 1

    async def submitted(route: Any) -> None:
        response = await route.fetch()
        try:
            answer = await response.json()
            moved = await seat1_plays() if response.ok else 0
            now = await rules.GetView(rules_pb2.GetViewRequest(match_id=match_id), timeout=10)
            _, words = await legal_words(rules, match_id, tokens[0])
            answers.append({
                "sent": json.loads(route.request.post_data or "{}"), "answer": answer, "moved": moved,
                "running": now.status == rules_pb2.MATCH_STATUS_RUNNING,
                "stale": [(k, i, t) for k, d in enumerate(answer.get("decisions", []))
                          for i, t in enumerate(d.get("legalText", []))] != words})
        finally:
            await route.fulfill(response=response)

    await seat1_plays()  # seat 0 owes the first move
    page = browser.page
    await page.route("**/WatchMatch", lambda route: None)
    await page.route("**/SubmitAction", submitted)
    await open_play(browser, served, match_id, tokens[0])

    async def check(version: str, shown: dict[str, Any]) -> bool:
        said_version, said = await legal_words(rules, match_id, tokens[0])
        assert said_version == version, "the page shows the match's current position"
        assert [(b["decision"], b["index"], b["text"]) for b in shown["buttons"]] == said
        return True

    clicks = await click_to_the_end(page, random.Random(99), check)
    await page.wait_for_selector("#play-board[data-ended='1']")
    assert clicks == len(answers) >= 3
    assert all(a["sent"]["withText"] is True for a in answers)
    passed = [a for a in answers if a["moved"] and a["running"]]  # the page's answer was stale
    kept = [a for a in answers if not a["moved"] and a["running"]]  # the answer was the position
    assert passed and kept, "both cases were played"
    assert any(a["stale"] for a in passed), "a stale answer's choices differed from the position's"
    assert all(a["answer"]["positionVersion"] == a["answer"]["version"] for a in answers)
    assert all(len(d["legalText"]) == len(d["legalJson"]) and d["legalText"]
               for a in kept for d in a["answer"]["decisions"])
    print("MEASURE", dict(clicks=clicks, passed=len(passed), kept=len(kept), asked=asked_legal(browser)))
    assert asked_legal(browser) == 1 + len(passed)
    assert browser.console_errors == []


async def message(page: Any, code: str) -> str:
    await page.wait_for_selector(f"#play-message[data-code='{code}']", timeout=20_000)
    return str(await page.text_content("#play-message"))


async def test_refused_tokens_and_a_stale_version_get_clear_messages(
        served: Served, browser: Browser, rules: Any) -> None:
    match_id, tokens = await create(served, rules)
    other_id, other_tokens = await create(served, rules)
    page = browser.page
    forged = tokens[0][:-6] + ("AAAAAA" if not tokens[0].endswith("AAAAAA") else "BBBBBB")
    await open_play(browser, served, match_id, forged)
    text = await message(page, "unauthenticated")
    assert "UNAUTHENTICATED" in text and "Paste a fresh token" in text
    assert await page.locator("#play-actions button").count() == 0
    await browser.screenshot("play-unauthenticated")
    expired = served.backend.issuer.issue("seat", match_id, 0, "alice", ttl=-60)
    await page.fill("#play-token", expired)
    await page.click("#play-open")
    assert "expired" in await message(page, "unauthenticated")
    # a good seat token of another match: no seat in this one
    await page.fill("#play-token", other_tokens[0])
    await page.click("#play-open")
    text = await message(page, "permission_denied")
    assert f"no seat in match {match_id}" in text
    # a player token plays no seat by itself
    await page.fill("#play-token", served.backend.issuer.issue_player("alice"))
    await page.click("#play-open")
    assert "player token" in await message(page, "permission_denied")
    # a stale version: the page does not hear of a move (its stream held back), then clicks
    await page.route("**/WatchMatch", lambda route: None)
    await page.fill("#play-token", tokens[0])
    await page.click("#play-open")
    version = await ready_after(page, None)
    shown = await buttons(page)
    legal = await rules.ListLegalActions(
        rules_pb2.ListLegalActionsRequest(match_id=match_id), metadata=call_metadata(tokens[0]),
        timeout=10)
    owed = next(d for d in legal.decisions if not d.standing)
    await rules.SubmitAction(rules_pb2.SubmitActionRequest(
        match_id=match_id, command_id="behind-the-page", action_json=owed.legal_json[0],
        expected_version=legal.version), metadata=call_metadata(tokens[0]), timeout=10)
    first = next(b for b in shown["buttons"] if not b["standing"])
    await page.click(f"#play-actions button[data-decision='{first['decision']}']"
                     f"[data-index='{first['index']}']")
    text = await message(page, "aborted")
    assert "ABORTED" in text and "moved on" in text
    # the same move was made behind the page: the choice is gone, said so, and not sent again
    assert f"“{first['text']}” is no longer yours to choose" in text, text
    assert sum(1 for r in browser.responses if r.url.endswith("/SubmitAction")) == 1
    await page.wait_for_function(
        "(v) => document.querySelector('#play-actions').dataset.version !== v", arg=version)
    now = await rules.GetView(rules_pb2.GetViewRequest(match_id=match_id), timeout=10)
    assert await page.get_attribute("#play-actions", "data-version") == str(now.version)
    assert json.loads(now.view_json)["phase"]
    await browser.screenshot("play-stale-version")
    # the browser notes each refused call (401, 403, 409) as a failed resource: nothing else
    assert all(e.startswith("Failed to load resource") and any(f" {c} " in e for c in (401, 403, 409))
               for e in browser.console_errors), browser.console_errors
    # forgetting the token clears it from the tab, and the seat's own view from the screen
    assert await page.locator("#play-private li").count() > 0, "the seat's hand was shown"
    await page.click("#play-forget")
    assert await page.evaluate(f"sessionStorage.getItem('{KEY}')") is None
    assert await page.input_value("#play-token") == ""
    for pane in ("#play-private", "#play-board", "#play-actions"):
        assert await page.locator(f"{pane} > *").count() == 0, pane
    await rules.AbandonMatch(rules_pb2.AbandonMatchRequest(match_id=other_id, reason="test"),
                             metadata=call_metadata(served.backend.organiser_token()), timeout=10)
