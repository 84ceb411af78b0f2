"""Playing a seat on the Play page by clicking its action buttons, for the tests of the page
played with a seat token (test_play_page.py) and with a player token (test_play_player.py)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from services.genproto.neon.rules.v1 import rules_pb2
from services.platform.grpc_kit import call_metadata
from services.rules.games import available
from tests.browser.conftest import Served

GAME = "neon-reign"
REIGN_MARKS = [
    pytest.mark.timeout(180),
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.skipif(GAME not in available(), reason="no Neon Reign engine"),
]
"""The marks of a module of Neon Reign seats played on the page, sharing its module's loop."""
Check = Callable[[str, dict[str, Any]], Awaitable[bool]]


async def ready_after(page: Any, last: str | None, timeout: float = 60) -> str:
    """The version of the page's action buttons once they are ready at a version other than
    ``last``, or "ended"."""
    handle = await page.wait_for_function(
        """(last) => {
             const box = document.querySelector('#play-actions');
             if (box.dataset.state === 'ended') return 'ended';
             if (box.dataset.state === 'ready' && box.dataset.version !== last) return box.dataset.version;
             return null;
           }""",
        arg=last, timeout=timeout * 1000)
    return str(await handle.json_value())


async def buttons(page: Any) -> dict[str, Any]:
    return dict(await page.evaluate(
        """() => {
             const box = document.querySelector('#play-actions');
             return { version: box.dataset.version, buttons: [...box.querySelectorAll('button.action')].map(b => ({
               decision: +b.dataset.decision, index: +b.dataset.index, text: b.textContent,
               standing: b.closest('.decision').classList.contains('standing'), disabled: b.disabled })) };
           }"""))


async def click_to_the_end(page: Any, rng: random.Random, check: Check | None = None,
                           before_click: Callable[[int], Awaitable[None]] | None = None) -> int:
    """Click one of the owed (not standing) actions at each position until the match ends;
    how many clicks. ``check(version, shown)`` may look at the position first (False: the
    match moved meanwhile, look again); ``before_click(n)`` runs before the n-th click."""
    last: str | None = None
    clicks = 0
    while True:
        version = await ready_after(page, last)
        if version == "ended":
            return clicks
        shown = await buttons(page)
        if shown["version"] != version or (check is not None and not await check(version, shown)):
            last = None  # the match moved meanwhile: look again
            continue
        choice = rng.choice([b for b in shown["buttons"] if not b["standing"]])
        if before_click is not None:
            await before_click(clicks)
        await page.click(f"#play-actions button[data-decision='{choice['decision']}']"
                         f"[data-index='{choice['index']}']")
        clicks += 1
        last = version


def asked_legal(browser: Any) -> int:
    """How many ListLegalActions calls the page of ``browser`` (conftest.Browser) made."""
    return sum(1 for r in browser.responses if r.url.endswith("/ListLegalActions"))


async def few_legal_calls(browser: Any, served: Served, stub: Any, match_id: str) -> None:
    """The page played ``match_id`` to its end asking ListLegalActions at most once per
    position it did not make itself (the start, the other seats' moves; the page's own moves
    are its SubmitAction answers, each one position): the choices after its own moves came
    with those answers. Before, it asked at every load, about 1.2 to 1.5 times per position."""
    positions = len((await export(served, stub, match_id)).splitlines()) - 1
    made = sum(1 for r in browser.responses if r.url.endswith("/SubmitAction") and r.ok)
    asked = asked_legal(browser)
    assert made and 1 <= asked <= positions - made, (asked, positions, made)


async def export(served: Served, stub: Any, match_id: str) -> bytes:
    """The match's audit export once it is sealed (organiser token)."""
    organiser = call_metadata(served.backend.organiser_token())
    for _ in range(100):  # the seal follows the end
        answer = await stub.ExportMatch(rules_pb2.ExportMatchRequest(match_id=match_id),
                                        metadata=organiser, timeout=10)
        if b'"MatchSealed"' in answer.export_jsonl:
            return bytes(answer.export_jsonl)
        await asyncio.sleep(0.05)
    raise AssertionError("the match was never sealed")
