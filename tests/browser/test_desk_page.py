"""The organiser's desk on the tournament page (static/desk.js) in headless Chromium, against
the real services (tournament, Neon Reign's rules, dice; the gateway in front): an organiser
with an organiser token creates a Swiss from the page's form, registers four players, checks
three in, is refused the start naming the fourth, starts without them, pairs each round while
bots play the tables over gRPC, finishes, and downloads the audit bundle, which `neon verify`
accepts. A player token and a forged token at the desk are refused in plain words and change
nothing; an abandoned table is played again from the desk. The token is never in an address,
in the page's text or in the console."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from typer.testing import CliRunner

from services.cli import main as cli
from services.cli.client import RulesClient, close_all
from services.cli.tournament_commands import (
    TournamentClient,
    format_json,
    play_round_as,
    wait_round_complete,
)
from services.genproto.neon.rules.v1 import rules_pb2
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
from services.platform.signing import public_key_hex
from services.rules.games import available
from services.tournament.bundle import verify_bundle
from tests.browser.conftest import Browser, Served, chromium_page
from tests.integration.conftest import make_settings
from tests.support.gateway import backend_and_gateway

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.skipif("neon-reign" not in available(), reason="needs Neon Reign"),
]
GAME = "neon-reign"
KEY = "neon-organiser-token"
ORGANISER_RPCS = {"CreateTournament", "OpenRegistration", "Register", "CheckIn", "Withdraw",
                  "StartTournament", "NextRound", "RematchTable", "FinishTournament",
                  "ExportTournament"}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def served(tmp_path_factory: pytest.TempPathFactory, nats_url: str) -> AsyncIterator[Served]:
    folder: Path = tmp_path_factory.mktemp("desk-page")
    settings = make_settings(folder, nats_url)
    async with backend_and_gateway(settings, games=[GAME], tournament=True) as (backend, gateway):
        yield Served(backend, gateway)


@pytest_asyncio.fixture(loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    async with chromium_page() as page:
        yield page


@pytest_asyncio.fixture(loop_scope="module")
async def client(served: Served) -> AsyncIterator[TournamentClient]:
    c = TournamentClient(served.backend.address("tournament"))
    try:
        yield c
    finally:
        await c.close()


def organiser(served: Served) -> str:
    return served.backend.issuer.issue("organiser", "*", player="org", ttl=900)


async def open_desk(browser: Browser, served: Served, token: str, tournament_id: str = "") -> Any:
    """The Tournaments tab (``tournament_id`` picked from the list), the token pasted."""
    page = browser.page
    await page.goto(served.url + "/")
    await page.wait_for_selector("body[data-ready='1']")
    await page.click("#tab-tournament")
    assert await page.is_hidden("#desk"), "no desk without a token"
    if tournament_id:
        await page.click(f"#tournament-list button[data-tournament-id='{tournament_id}']")
        await page.wait_for_selector(f"#tournament[data-tournament-id='{tournament_id}']")
    await page.fill("#organiser-token", token)
    await page.wait_for_selector("#desk:visible")
    return page


async def desk_says(page: Any, code: str) -> str:
    await page.wait_for_selector(f"#desk-message[data-code='{code}']:visible", timeout=20_000)
    return str(await page.text_content("#desk-message"))


async def noted(page: Any, text: str, timeout: float = 20) -> str:
    """The desk's note once it holds ``text``."""
    try:
        await page.wait_for_function(
            "t => (document.querySelector('#desk-note').textContent || '').includes(t)",
            arg=text, timeout=timeout * 1000)
    except Exception:
        said = await page.text_content("#desk-message")
        raise AssertionError(f"no note {text!r}: the desk says {said!r}") from None
    return str(await page.text_content("#desk-note"))


async def statuses(client: TournamentClient, tid: str) -> dict[str, str]:
    t = (await client.call("GetTournament", tournament_id=tid)).tournament
    return {p.player_id: p.status for p in t.players}


def token_kept_out(browser: Browser, consoled: list[str], token: str, content: str, text: str) -> None:
    """The token in no address the page asked for, not in its HTML or text, not logged."""
    assert all(token not in r.url for r in browser.responses)
    assert token not in browser.page.url
    assert token not in content and token not in text
    assert all(token not in line for line in consoled)


async def test_an_organiser_runs_a_tournament_from_the_desk(
        served: Served, browser: Browser, client: TournamentClient, tmp_path: Path) -> None:
    page = browser.page
    consoled: list[str] = []
    page.on("console", lambda m: consoled.append(m.text))
    tid = f"desk_{uuid.uuid4().hex[:8]}"
    org = organiser(served)
    await open_desk(browser, served, org)
    assert await page.text_content("#organiser-who") == "You act as the organiser org."
    assert await page.evaluate(f"sessionStorage.getItem('{KEY}')") == org

    # a new tournament from the form: created, registration opened, picked on the page
    assert await page.get_attribute("#desk-new", "open") is not None  # nothing picked yet
    await page.fill("#new-name", "Desk Cup")
    await page.fill("#new-id", tid)
    await page.select_option("#new-game", GAME)
    await page.wait_for_selector("#new-mode option[value='single']", state="attached")
    await page.select_option("#new-mode", "single")
    await page.select_option("#new-format", "swiss")
    await page.fill("#new-rounds", "2")
    await page.fill("#new-check-in", "60")
    await page.click("#new-create")
    await page.wait_for_selector(f"#desk[data-tournament-id='{tid}'][data-status='registration']")
    await page.wait_for_selector(f"#tournament[data-tournament-id='{tid}']")
    assert f"{tid} created; registration is open" in await noted(page, "created")
    t = (await client.call("GetTournament", tournament_id=tid)).tournament
    assert (t.name, t.game, t.mode, t.status) == ("Desk Cup", GAME, "single", pb.TOURNAMENT_STATUS_REGISTRATION)
    stored = json.loads(t.format_json)  # the service's settings, every default filled in
    cli_made = json.loads(format_json("swiss", 2))  # as `neon tournament create` makes them
    assert {k: stored[k] for k in cli_made} == cli_made
    assert (t.no_show, t.check_in_seconds) == (pb.NO_SHOW_POLICY_FORFEIT, 60)
    assert await page.is_visible(f"#tournament-list button[data-tournament-id='{tid}']")

    # five players at once, one withdrawn, three of the others checked in
    names = ["ann", "bob", "cat", "dan"]
    await page.fill("#desk-players", "ann, bob\ncat dan eve")
    await page.click("#desk-register")
    assert "5 players registered: ann, bob, cat, dan, eve" in await noted(page, "registered")
    await page.wait_for_selector("#desk-roster li[data-player='eve'][data-status='registered']")
    assert await page.input_value("#desk-players") == ""
    await page.click("#desk-roster li[data-player='eve'] button.withdraw")
    await page.wait_for_selector("#desk-roster li[data-player='eve'][data-status='withdrawn']")
    assert await page.query_selector_all("#desk-roster li[data-player='eve'] button") == []
    for name in names[:3]:
        await page.click(f"#desk-roster li[data-player='{name}'] button.check-in")
        await page.wait_for_selector(f"#desk-roster li[data-player='{name}'][data-status='checked-in']")
    assert await statuses(client, tid) == {"ann": "checked-in", "bob": "checked-in",
                                           "cat": "checked-in", "dan": "registered",
                                           "eve": "withdrawn"}
    line = await page.text_content("#desk-line")
    assert line == ("3 checked in, 1 registered but not checked in: dan; 1 withdrawn; Start "
                    "refuses without them (or press “Start without them”)")
    assert await page.is_hidden("#desk-export")

    # the start is refused for dan; "Start without them" leaves him out
    await page.click("#desk-start")
    refused = await desk_says(page, "failed_precondition")
    assert "FAILED_PRECONDITION" in refused and "did not check in: dan" in refused
    assert await page.is_visible("#desk-start-anyway")
    assert (await client.call("GetTournament", tournament_id=tid)).tournament.status == \
        pb.TOURNAMENT_STATUS_REGISTRATION
    await browser.screenshot("desk-start-refused")
    await page.click("#desk-start-anyway")
    await page.wait_for_selector("#desk[data-status='running']")
    assert await page.get_attribute("#desk-started", "data-left-out") == "dan"
    started = await page.text_content("#desk-started")
    assert started and "Started with 3 checked-in players" in started and "not playing: dan" in started
    assert await page.is_hidden("#desk-message") and await page.is_hidden("#desk-start-anyway")
    line = await page.text_content("#desk-line")
    assert line == f"{tid} is running (check-in is over): 3 playing, 1 registered but not playing: dan; 1 withdrawn"

    # each round paired from the desk, its tables played by bots over gRPC
    tokens = {n: served.backend.issuer.issue_player(n) for n in names[:3]}
    rules: dict[str, RulesClient] = {}
    try:
        for number in (1, 2):
            await page.click("#desk-next-round")
            assert f"Round {number} paired: 1 table and 1 bye." in await noted(page, f"Round {number} paired")
            if number == 1:  # too early: the service's refusals, said in the desk
                await page.click("#desk-next-round")
                early = await desk_says(page, "failed_precondition")
                assert early.startswith("Pairing the next round was refused: FAILED_PRECONDITION: ")
                await page.click("#desk-finish")
                early = await desk_says(page, "failed_precondition")
                assert early.startswith("Finishing was refused: FAILED_PRECONDITION: ")
                assert "rounds are complete" in early
            played = await asyncio.gather(*(play_round_as(client, rules, tokens[n], tid, n, timeout=60)
                                            for n in names[:3]))
            assert sorted(played) == ["bye", "played", "played"]
            await wait_round_complete(client, tid, number, 60)
            await page.wait_for_selector(f"#rounds .round[data-round='{number}'][data-complete='1']",
                                         timeout=20_000)
    finally:
        await close_all(rules)

    await page.click("#desk-finish")
    assert "Finished: the final standings are published; 1st: " in await noted(page, "Finished")
    await page.wait_for_selector("#desk[data-status='finished']")
    await page.wait_for_selector("#standings[data-final='1']", timeout=20_000)
    t = (await client.call("GetTournament", tournament_id=tid)).tournament
    assert t.status == pb.TOURNAMENT_STATUS_FINISHED and t.rounds_paired == 2

    # the bundle, downloaded: `neon verify` accepts it, pinned to the deployment's key
    async with page.expect_download() as downloading:
        await page.click("#desk-export")
    download = await downloading.value
    assert download.suggested_filename == f"{tid}-bundle.jsonl"
    bundle = tmp_path / download.suggested_filename
    await download.save_as(bundle)
    said = await noted(page, "downloaded")
    assert said == (f"2 matches and 2 round checkpoints in {tid}-bundle.jsonl (downloaded); "
                    f"check it with: neon verify {tid}-bundle.jsonl")
    key = public_key_hex(served.backend.keys.signing_key)
    report = await asyncio.to_thread(verify_bundle, bundle.read_bytes(), key)
    assert report.ok, report.failure
    assert (report.tournament_id, report.matches) == (tid, 2)
    verified = await asyncio.to_thread(CliRunner().invoke, cli.app,
                                       ["verify", str(bundle), "--public-key", key])
    assert verified.exit_code == 0, verified.output
    assert f"verified: tournament {tid}, 2 matches" in verified.output

    # the token: only in the Authorization header of the desk's own calls
    token_kept_out(browser, consoled, org, await page.content(),
                   await page.evaluate("document.body.innerText"))
    for response in browser.responses:
        headers = await response.request.all_headers()
        rpc = response.url.rsplit("/", 1)[-1]
        if "authorization" in headers:
            assert headers["authorization"] == f"Bearer {org}" and rpc in ORGANISER_RPCS, rpc
        elif rpc in ORGANISER_RPCS:
            raise AssertionError(f"{rpc} sent without the token")
    called = {r.url.rsplit("/", 1)[-1] for r in browser.responses}
    assert ORGANISER_RPCS - {"RematchTable"} <= called
    assert all(e.startswith("Failed to load resource") and " 400 " in e
               for e in browser.console_errors), browser.console_errors


async def test_a_player_token_at_the_desk_is_told_and_changes_nothing(
        served: Served, browser: Browser, client: TournamentClient) -> None:
    page = browser.page
    consoled: list[str] = []
    page.on("console", lambda m: consoled.append(m.text))
    tid = f"nodesk_{uuid.uuid4().hex[:8]}"
    org = organiser(served)
    await client.call("CreateTournament", org, tournament_id=tid, game=GAME, mode="single",
                      format_json=format_json("swiss", 1))
    await client.call("OpenRegistration", org, tournament_id=tid)
    for name in ("ann", "bob"):
        await client.call("Register", org, tournament_id=tid, player_id=name)
    before = (await client.call("GetTournament", tournament_id=tid)).tournament

    ann = served.backend.issuer.issue_player("ann")
    await open_desk(browser, served, ann, tid)
    told = await desk_says(page, "permission_denied")
    assert told == ("This is a player token (ann): the organiser's desk needs an organiser token "
                    "(var/organiser.token, written by `neon up`). The desk sends nothing with it.")
    assert await page.is_hidden("#desk-body")
    assert await page.text_content("#organiser-who") == ""
    # its acts, even if pressed, send nothing
    await page.wait_for_selector("#desk-roster li[data-player='ann']", state="attached")
    await page.evaluate("document.querySelector('#desk-players').value = 'ann carl'")
    for selector in ("#desk-register", "#desk-start",
                     "#desk-roster li[data-player='ann'] button.check-in",
                     "#desk-roster li[data-player='bob'] button.withdraw"):
        await page.dispatch_event(selector, "click")
    await asyncio.sleep(0.5)
    assert await desk_says(page, "permission_denied") == told
    assert not {r.url.rsplit("/", 1)[-1] for r in browser.responses} & ORGANISER_RPCS
    after = (await client.call("GetTournament", tournament_id=tid)).tournament
    assert after == before
    token_kept_out(browser, consoled, ann, await page.content(),
                   await page.evaluate("document.body.innerText"))
    await browser.screenshot("desk-player-token")

    # a refusal of the service itself (PERMISSION_DENIED) says the same
    said = await page.evaluate("""() => import('/static/desk.js').then(m => m.refusal(
        {code: 'permission_denied', reason: 'this call needs an organiser token, not player'}, 'The start'))""")
    assert said == ("The start was refused (PERMISSION_DENIED: this call needs an organiser token, "
                    "not player): the organiser's desk needs an organiser token (var/organiser.token, "
                    "written by `neon up`); a player's or a seat's token cannot act here.")

    # a forged organiser token: the service refuses it (UNAUTHENTICATED), nothing changes
    forged = org[:-6] + ("AAAAAA" if not org.endswith("AAAAAA") else "BBBBBB")
    await page.fill("#organiser-token", forged)
    await page.wait_for_selector("#desk-body:visible")
    await page.click("#desk-start")
    refused = await desk_says(page, "unauthenticated")
    assert refused.startswith("The start was refused: Your token was refused (UNAUTHENTICATED: ")
    assert "Paste a fresh token" in refused
    assert (await client.call("GetTournament", tournament_id=tid)).tournament == before

    # forgetting the token clears it from the tab and closes the desk
    await page.click("#organiser-forget")
    assert await page.evaluate(f"sessionStorage.getItem('{KEY}')") is None
    assert await page.input_value("#organiser-token") == ""
    assert await page.is_hidden("#desk")
    assert all(e.startswith("Failed to load resource") and " 401 " in e
               for e in browser.console_errors), browser.console_errors


async def test_an_abandoned_table_is_played_again_from_the_desk(
        served: Served, browser: Browser, client: TournamentClient) -> None:
    page = browser.page
    tid = f"again_{uuid.uuid4().hex[:8]}"
    org = organiser(served)
    await client.call("CreateTournament", org, tournament_id=tid, game=GAME, mode="single",
                      format_json=format_json("swiss", 1))
    await client.call("OpenRegistration", org, tournament_id=tid)
    for name in ("ann", "bob"):
        await client.call("Register", org, tournament_id=tid, player_id=name)
    await client.call("StartTournament", org, tournament_id=tid)
    table = (await client.call("NextRound", org, tournament_id=tid)).round.tables[0]
    await open_desk(browser, served, org, tid)
    await page.wait_for_selector("#desk[data-status='running']")
    assert await page.query_selector_all("#desk-abandoned li") == []
    rules = RulesClient(served.backend.address(f"rules-{GAME}"))
    try:
        await rules.call("AbandonMatch", rules_pb2.AbandonMatchRequest(
            match_id=table.match_id, reason="the lights went out"), org)
    finally:
        await rules.close()
    row = f"#desk-abandoned li[data-round='1'][data-table='{table.number}']"
    await page.wait_for_selector(row, timeout=20_000)
    await browser.screenshot("desk-abandoned-table")
    shown = await page.text_content(f"{row} span")
    assert shown == (f"Round 1, table {table.number}: {' vs '.join(table.seats)} — match "
                     f"{table.match_id} abandoned: the lights went out")
    await page.click(f"{row} button.rematch")  # no reason: the service asks for one
    assert "a rematch needs a reason" in await desk_says(page, "invalid_argument")
    await page.fill(f"{row} input.rematch-reason", "played again after the outage")
    for _ in range(100):  # once the abandoned match is sealed
        await page.click(f"{row} button.rematch")
        await page.wait_for_function(
            """() => document.querySelector('#desk').dataset.busy === '0'
                     && (!document.querySelector('#desk-message').hidden
                         || document.querySelector('#desk-note').textContent.includes('plays again'))""")
        said = await page.text_content("#desk-message")
        if await page.is_hidden("#desk-message"):
            break
        assert "not sealed yet" in (said or ""), said
        await asyncio.sleep(0.1)
    assert f"Table {table.number} of round 1 plays again: match {table.match_id}-g2." in \
        await noted(page, "plays again")
    served_round = (await client.call("GetRound", tournament_id=tid, round=1)).round
    again = served_round.tables[0]
    assert again.match_id == f"{table.match_id}-g2"
    assert again.earlier[0].rematch_reason == "played again after the outage"
    await page.wait_for_selector(f"{row}", state="detached", timeout=20_000)
    assert all(e.startswith("Failed to load resource") and any(f" {c} " in e for c in (400,))
               for e in browser.console_errors), browser.console_errors
