"""Steps the browser tests take on the gateway's page again and again."""

from __future__ import annotations

from typing import Any


async def replay_tab(page: Any, url: str) -> None:
    """The page at ``url`` loaded, on its Replay tab."""
    await page.goto(f"{url}/")
    await page.wait_for_selector("body[data-ready='1']")
    await page.click("#tab-replay")


async def open_replay(page: Any, url: str, game: str, match_id: str) -> None:
    """The Replay tab asked for the finished match ``match_id`` of ``game`` (from the
    services); what it answers is the caller's to wait for."""
    await replay_tab(page, url)
    await page.select_option("#replay-game", game)
    await page.fill("#replay-match", match_id)
    await page.click("#replay-open")
