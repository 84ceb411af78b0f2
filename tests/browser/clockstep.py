"""Running a page's fake clock (``page.clock.install()``) on while it opens a faked stream
again and again (common.js's ``reconnecting``: a second after each failure)."""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

STEP_MS = 500
"""The clock's step while streams are opened: two to the second a page waits between two."""
QUIET_MS = 5_000
"""Page time with no stream opened (a page that tries again does every second) after which
the page is taken to have given up: the rest of the time is run in :data:`QUIET_STEP_MS`."""
QUIET_STEP_MS = 5_000
"""The clock's step once the page is quiet. A page that still tried again would open a
stream in each step (its next try is due within a second of its last failure), so each
step of the rest would still count one: 28 more over the 140 s after a minute's tries."""


class Opened(Protocol):
    opened: int


async def run_streams_on(page: Any, streams: Opened, until: int, ms: int) -> int:
    """Run ``page``'s clock on until ``streams`` were opened ``until`` times or ``ms`` of page
    time went by; the page time run. Each step lets the page read the stream, see it end and
    set its timer first (a short real sleep). The clock steps :data:`STEP_MS` while streams
    are opened, and :data:`QUIET_STEP_MS` once none was for :data:`QUIET_MS`: the same page
    time with a quarter of the steps or fewer, for the tests that show a page gives up (the
    clock is run on well past that, to show it stays given up)."""
    ran, seen, last_opened = 0, streams.opened, 0
    while ran < ms and streams.opened < until:
        if streams.opened != seen:
            seen, last_opened = streams.opened, ran
        step = QUIET_STEP_MS if ran - last_opened >= QUIET_MS else STEP_MS
        step = min(step, ms - ran)
        await asyncio.sleep(0.02)  # the page reads the stream, sees it end, sets its timer
        await page.clock.run_for(step)
        ran += step
    return ran
