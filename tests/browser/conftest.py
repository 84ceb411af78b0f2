"""Browser tests: the viewer in a real headless Chromium (Debian's /usr/bin/chromium) driven
by Playwright for Python, against the real services and the gateway.

The test modules make their own fixtures from ``serving`` and ``chromium_page`` (or take both
from ``module_fixtures``): a backend made by a conftest fixture would run in another event loop
than the module's tests. ``chromium`` (module-scoped, in the requesting module's loop) is the one
Chromium of a module; each test's page gets a browser context of its own from it.

Screenshots go to tests/browser/artifacts/ (git-ignored), one per test. Without a Chromium the
tests are skipped locally; under CI (CI=true) they fail, so a missing browser is never silent.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from services.cli.backend import Backend
from services.gateway import main as gateway_main
from services.rules.games import available
from tests.integration.conftest import make_settings
from tests.support.gateway import backend_and_gateway

ARTIFACTS = Path(__file__).parent / "artifacts"
CHROMIUM = os.environ.get("NEON_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _need_chromium() -> None:
    if shutil.which(CHROMIUM) or Path(CHROMIUM).exists():
        return
    reason = f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@dataclass
class Served:
    backend: Backend
    gateway: gateway_main.RunningGateway

    @property
    def url(self) -> str:
        return self.gateway.url


@contextlib.asynccontextmanager
async def serving(folder: Path, nats_url: str) -> AsyncIterator[Served]:
    """Dice and every game's rules service, and the gateway in front of them."""
    settings = make_settings(folder, nats_url)
    async with backend_and_gateway(settings, games=available()) as (backend, gateway):
        yield Served(backend, gateway)


@dataclass
class Browser:
    page: Any
    console_errors: list[str]
    responses: list[Any]

    async def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        await self.page.screenshot(path=str(path), full_page=True)
        return path


@contextlib.asynccontextmanager
async def launched_chromium() -> AsyncIterator[Any]:
    """A headless Chromium, launched once for a module's tests (see ``chromium``)."""
    _need_chromium()
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        chromium = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            await chromium.close()


@contextlib.asynccontextmanager
async def chromium_page(chromium: Any = None) -> AsyncIterator[Browser]:
    """A fresh page that records console errors and responses: in a context of its own (its
    own cookies, storage, cache and network state) of ``chromium`` when given, else of a
    Chromium launched for it alone."""
    if chromium is None:
        async with launched_chromium() as own, chromium_page(own) as page:
            yield page
        return
    context = await chromium.new_context(viewport={"width": 1400, "height": 900})
    try:
        page = await context.new_page()
        errors: list[str] = []
        responses: list[Any] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("response", lambda r: responses.append(r))
        yield Browser(page, errors, responses)
    finally:
        await context.close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def chromium() -> AsyncIterator[Any]:
    """One Chromium for the requesting module's tests, in that module's event loop; each test
    takes a fresh page in a context of its own from it (``chromium_page(chromium)``), which
    saves a launch and a shutdown of the browser per test."""
    async with launched_chromium() as running:
        yield running


def module_fixtures(folder: str) -> tuple[Any, Any]:
    """``served`` (one backend with every game and the gateway, for the whole module) and
    ``browser`` (a fresh page for each test), made in the calling module so that they run in
    its event loop: ``served, browser = module_fixtures("viewer")``."""

    @pytest_asyncio.fixture(scope="module", loop_scope="module")
    async def served(tmp_path_factory: pytest.TempPathFactory, nats_url: str) -> AsyncIterator[Served]:
        async with serving(tmp_path_factory.mktemp(folder), nats_url) as running:
            yield running

    @pytest_asyncio.fixture(loop_scope="module")
    async def browser(chromium: Any) -> AsyncIterator[Browser]:
        async with chromium_page(chromium) as page:
            yield page

    return served, browser
