"""Text the viewer did not write (an uploaded export's game, mode and players, echoed in its
verification's failure and the step-through's stop) is shown as text, never parsed as HTML:
an export naming its game ``<img onerror=...>`` puts those characters on the page and no
element, and runs nothing. The pages build every element with createElement and textContent
(no innerHTML anywhere in static/), and the Content-Security-Policy runs only the gateway's
own scripts; this checks the first on the path where a stranger chooses the words."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from services.gateway.config import GatewayConfig
from tests.browser.conftest import Browser, chromium_page
from tests.support.gateway import bare_gateway

pytestmark = [pytest.mark.timeout(60), pytest.mark.asyncio(loop_scope="module")]

EXPORT = Path(__file__).parents[1] / "fixtures" / "exports" / "neon-knights-2086-0.4.0-normal.jsonl"
MARKUP = '<img src="x" id="injected" onerror="document.body.dataset.xss=1">'


@pytest_asyncio.fixture(loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    async with chromium_page() as page:
        yield page


async def test_an_uploaded_exports_words_are_shown_as_text(browser: Browser, tmp_path: Path) -> None:
    lines = EXPORT.read_text().splitlines()
    created = json.loads(lines[0])
    created.update(game=MARKUP, mode=MARKUP, players=[MARKUP] * len(created["players"]))
    lines[0] = json.dumps(created)
    upload = tmp_path / "markup.jsonl"
    upload.write_text("\n".join(lines) + "\n")
    async with bare_gateway(GatewayConfig(port=0), {}) as url:
        page = browser.page
        await page.goto(url + "/")
        await page.wait_for_selector("body[data-ready='1']")
        await page.click("#tab-replay")
        await page.set_input_files("#replay-file", str(upload))
        await page.wait_for_selector("#verify-failure")
        shown = await page.text_content("#verification") or ""
        assert MARKUP in shown, shown  # the words themselves, as text
        assert await page.query_selector("#injected") is None
        assert await page.query_selector("#verification img") is None
        assert await page.get_attribute("body", "data-xss") is None
        assert browser.console_errors == []
