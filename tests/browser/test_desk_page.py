"""The organiser's desk on the tournament page (static/desk.js) in headless Chromium, against
the real services (tournament, Neon Reign's rules, dice; the gateway in front): an organiser
with an organiser token creates a Swiss from the page's form, registers four players, checks
three in, is refused the start naming the fourth, starts without them, pairs each round while
bots play the tables over gRPC, finishes, and downloads the audit bundle, which `neon verify`
accepts. A player token and a forged token at the desk are refused in plain words and change
nothing; an abandoned table is played again from the desk, or its result is set by hand (the
bundle exported afterwards still verifies); a player dropped from the desk is not paired in
the next round and a late entry added there is; a dropped player is reinstated from the desk
with its reason (an empty reason is not sent; a round robin offers no "Reinstate" and says
why); a tournament is force-ended from the desk with
its reason and final standings, and another called off while registration is open (the desk
and the page say no rounds were played, no empty standings), a confirm left open while the
tournament starts elsewhere being put away unsent, and a call-off clicked before the page
heard of such a start refused by the service (expected_status), nothing ended. A tournament
created elsewhere (as the CLI does) shows in the desk's list when the tab comes back into view or focus and once a minute,
nothing asked while the tab is hidden and the list drawn again only when it changed. The
token is never in an address, in the page's text or in the console."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from google.protobuf import json_format
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
                  "ExportTournament", "CorrectResult", "DropPlayer", "AddLateEntry", "ForceEnd",
                  "ReinstatePlayer"}
LATER = {"RematchTable", "CorrectResult", "DropPlayer", "AddLateEntry", "ForceEnd",
         "ReinstatePlayer"}  # other tests


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def served(tmp_path_factory: pytest.TempPathFactory, nats_url: str) -> AsyncIterator[Served]:
    folder: Path = tmp_path_factory.mktemp("desk-page")
    settings = make_settings(folder, nats_url)
    async with backend_and_gateway(settings, games=[GAME], tournament=True) as (backend, gateway):
        yield Served(backend, gateway)


@pytest_asyncio.fixture(loop_scope="module")
async def browser(chromium: Any) -> AsyncIterator[Browser]:
    async with chromium_page(chromium) as page:
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


async def token_only_where_needed(browser: Browser, consoled: list[str], token: str) -> set[str]:
    """The token kept out (token_kept_out), and only in the Authorization header of the
    desk's own calls, each of which carries it. The RPCs the page called."""
    page = browser.page
    token_kept_out(browser, consoled, token, await page.content(),
                   await page.evaluate("document.body.innerText"))
    for response in browser.responses:
        headers = await response.request.all_headers()
        rpc = response.url.rsplit("/", 1)[-1]
        if "authorization" in headers:
            assert headers["authorization"] == f"Bearer {token}" and rpc in ORGANISER_RPCS, rpc
        elif rpc in ORGANISER_RPCS:
            raise AssertionError(f"{rpc} sent without the token")
    return {r.url.rsplit("/", 1)[-1] for r in browser.responses}


async def wait_idle(page: Any) -> None:
    """Until the desk's act is answered (a note or a refusal said)."""
    await page.wait_for_function("() => document.querySelector('#desk').dataset.busy === '0'")


def only_refusals(browser: Browser, *codes: int) -> None:
    """The console's errors: only the refused calls' responses (HTTP ``codes``)."""
    assert all(e.startswith("Failed to load resource") and any(f" {c} " in e for c in codes)
               for e in browser.console_errors), browser.console_errors


async def running(client: TournamentClient, org: str, tid: str, players: list[str],
                  fmt: str, checked_in: list[str] | None = None) -> Any:
    """A tournament created, registered, started (``checked_in`` checked in first, the
    others left out) and its round 1 paired over gRPC; round 1."""
    await client.call("CreateTournament", org, tournament_id=tid, game=GAME, mode="single",
                      format_json=fmt)
    await client.call("OpenRegistration", org, tournament_id=tid)
    for name in players:
        await client.call("Register", org, tournament_id=tid, player_id=name)
    for name in checked_in or []:
        await client.call("CheckIn", org, tournament_id=tid, player_id=name)
    await client.call("StartTournament", org, tournament_id=tid, checked_in_only=bool(checked_in))
    return (await client.call("NextRound", org, tournament_id=tid)).round


async def abandon(served: Served, org: str, match_id: str, reason: str) -> None:
    rules = RulesClient(served.backend.address(f"rules-{GAME}"))
    try:
        await rules.call("AbandonMatch", rules_pb2.AbandonMatchRequest(match_id=match_id, reason=reason),
                         org)
    finally:
        await rules.close()


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
    called = await token_only_where_needed(browser, consoled, org)
    assert called >= ORGANISER_RPCS - LATER
    only_refusals(browser, 400)


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
    table = (await running(client, org, tid, ["ann", "bob"], format_json("swiss", 1))).tables[0]
    await open_desk(browser, served, org, tid)
    await page.wait_for_selector("#desk[data-status='running']")
    assert await page.query_selector_all("#desk-abandoned li") == []
    await abandon(served, org, table.match_id, "the lights went out")
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
    only_refusals(browser, 400)


async def test_an_abandoned_table_gets_its_result_set_from_the_desk(
        served: Served, browser: Browser, client: TournamentClient, tmp_path: Path) -> None:
    page = browser.page
    consoled: list[str] = []
    page.on("console", lambda m: consoled.append(m.text))
    tid = f"set_{uuid.uuid4().hex[:8]}"
    org = organiser(served)
    table = (await running(client, org, tid, ["ann", "bob"], format_json("swiss", 1))).tables[0]
    await open_desk(browser, served, org, tid)
    await page.wait_for_selector("#desk[data-status='running']")
    await abandon(served, org, table.match_id, "the table's screen broke")
    row = f"#desk-abandoned li[data-round='1'][data-table='{table.number}']"
    await page.wait_for_selector(row, timeout=20_000)
    # a place per seat, 1st..2nd, each seat its own place first; equal places may tie
    for seat in (0, 1):
        select = f"{row} select.place[data-seat='{seat}']"
        assert await page.eval_on_selector_all(f"{select} option", "os => os.map(o => o.textContent)") \
            == ["1st", "2nd"]
        assert await page.input_value(select) == str(seat + 1)
    await page.select_option(f"{row} select.place[data-seat='0']", "2")
    await page.select_option(f"{row} select.place[data-seat='1']", "1")
    await browser.screenshot("desk-set-result")
    await page.click(f"{row} button.set-result")  # no reason: the service asks for one
    refused = await desk_says(page, "invalid_argument")
    assert refused == ("Setting the result of table 1 was refused: INVALID_ARGUMENT: a correction "
                       "needs a reason")
    assert (await client.call("GetRound", tournament_id=tid, round=1)).round.tables[0].status == \
        pb.TABLE_STATUS_ABANDONED
    await page.fill(f"{row} input.result-reason", "replayed on paper: bob won")
    await page.click(f"{row} button.set-result")
    said = await noted(page, "set by hand")
    assert said == (f"Table 1 of round 1: {table.seats[0]}: 2nd, {table.seats[1]}: 1st (set by "
                    "hand: replayed on paper: bob won); the abandoned match stays in the log.")
    await page.wait_for_selector(row, state="detached")
    corrected = (await client.call("GetRound", tournament_id=tid, round=1)).round.tables[0]
    assert corrected.status == pb.TABLE_STATUS_DONE
    assert list(corrected.result.placements) == [2, 1] and not corrected.result.forfeited
    assert (corrected.result.kind, corrected.result.reason) == (
        "correction", "replayed on paper: bob won")
    assert corrected.abandoned_reason == "the table's screen broke"
    # the round's table on the page shows it
    cell = f"#rounds .round[data-round='1'] tr.pairing[data-table='{table.number}'] td.result"
    await page.wait_for_function(
        "([s, t]) => (document.querySelector(s)?.textContent || '').includes(t)",
        arg=[cell, f"{table.seats[1]}: 1st (set by hand: replayed on paper: bob won)"],
        timeout=20_000)

    # the round completes once the abandoned match is sealed: finish, export, verify
    await wait_round_complete(client, tid, 1, 60)
    await page.wait_for_selector("#rounds .round[data-round='1'][data-complete='1']", timeout=20_000)
    await page.click("#desk-finish")
    assert f"1st: {table.seats[1]}" in await noted(page, "Finished")
    async with page.expect_download() as downloading:
        await page.click("#desk-export")
    bundle = tmp_path / f"{tid}-bundle.jsonl"
    await (await downloading.value).save_as(bundle)
    report = await asyncio.to_thread(verify_bundle, bundle.read_bytes(),
                                     public_key_hex(served.backend.keys.signing_key))
    assert report.ok, report.failure
    assert report.tournament_id == tid
    # the reason is in the log the bundle carries too
    assert any("result set by the organiser (replayed on paper: bob won)" in w
               for w in report.warnings), report.warnings
    assert "CorrectResult" in await token_only_where_needed(browser, consoled, org)
    only_refusals(browser, 400)


async def test_a_player_dropped_and_a_late_entry_added_at_the_desk(
        served: Served, browser: Browser, client: TournamentClient) -> None:
    page = browser.page
    consoled: list[str] = []
    page.on("console", lambda m: consoled.append(m.text))
    tid = f"late_{uuid.uuid4().hex[:8]}"
    org = organiser(served)
    names = ["ann", "bob", "cat", "dan"]
    fmt = format_json("swiss", 2, extra='{"late_entry_until": 2}')
    await running(client, org, tid, names, fmt)
    await open_desk(browser, served, org, tid)
    await page.wait_for_selector("#desk[data-status='running']")
    made = await page.evaluate("() => import('/static/desk.js').then(m => m.formatJson('swiss', 2, [], 2))")
    assert json.loads(made) == json.loads(fmt)  # the New tournament form's "Late entries until round"
    for name in names:
        await page.wait_for_selector(f"#desk-roster li[data-player='{name}'][data-status='playing'] button.drop")

    # "Drop" asks first; "Cancel" sends nothing
    dan = "#desk-roster li[data-player='dan']"
    await page.click(f"{dan} button.drop")
    assert await page.is_visible(f"{dan} button.drop-confirm") and await page.is_hidden(f"{dan} button.drop")
    assert await page.text_content(f"{dan} button.drop-confirm") == "Drop dan from the next rounds"
    await page.click(f"{dan} button.drop-cancel")
    assert await page.is_hidden(f"{dan} button.drop-confirm") and await page.is_visible(f"{dan} button.drop")
    assert "DropPlayer" not in {r.url.rsplit("/", 1)[-1] for r in browser.responses}
    await page.click(f"{dan} button.drop")
    await page.fill(f"{dan} input.drop-reason", "went home")
    await page.click(f"{dan} button.drop-confirm")
    assert await noted(page, "dropped") == "dan dropped after round 1: not paired from round 2 on."
    await page.wait_for_selector(f"{dan}[data-status='dropped']")
    assert await page.query_selector_all(f"{dan} button.drop") == []
    assert await page.is_visible(f"{dan} button.reinstate")  # a Swiss: see the reinstate test

    # a late entry, from the box
    await page.fill("#desk-late-player", "erin")
    await page.click("#desk-late-add")
    assert await noted(page, "enters late") == "erin enters late: paired from round 2 on."
    await page.wait_for_selector("#desk-roster li[data-player='erin'][data-status='playing'][data-late='1']")
    assert await page.text_content("#desk-roster li[data-player='erin'] .standing") == "playing (late entry)"
    assert await page.input_value("#desk-late-player") == ""
    assert await statuses(client, tid) == {"ann": "playing", "bob": "playing", "cat": "playing",
                                           "dan": "dropped", "erin": "playing"}
    await browser.screenshot("desk-running")

    # round 1 played out (dan's table too), then round 2 paired from the desk: erin, not dan
    tokens = {n: served.backend.issuer.issue_player(n) for n in names}
    rules: dict[str, RulesClient] = {}
    try:
        played = await asyncio.gather(*(play_round_as(client, rules, tokens[n], tid, n, timeout=60)
                                        for n in names))
        assert played == ["played"] * 4
    finally:
        await close_all(rules)
    await wait_round_complete(client, tid, 1, 60)
    await page.wait_for_selector("#rounds .round[data-round='1'][data-complete='1']", timeout=20_000)
    await page.click("#desk-next-round")
    assert "Round 2 paired: 2 tables." in await noted(page, "Round 2 paired")
    second = (await client.call("GetRound", tournament_id=tid, round=2)).round
    seated = sorted(p for t in second.tables for p in t.seats)
    assert seated == ["ann", "bob", "cat", "erin"]
    await page.wait_for_selector("#rounds .round[data-round='2'] span.seat[data-player='erin']",
                                 timeout=20_000)

    # past the format's last round for late entries: the refusal in plain words
    await page.fill("#desk-late-player", "fay")
    await page.click("#desk-late-add")
    refused = await desk_says(page, "failed_precondition")
    assert refused == ("Adding fay as a late entry was refused (FAILED_PRECONDITION: the format "
                       "takes late entries until round 2; the next round is 3): late entries may "
                       "first play in round 2 at the latest, and round 2 is paired already.")
    assert await page.input_value("#desk-late-player") == "fay"
    assert "fay" not in await statuses(client, tid)
    called = await token_only_where_needed(browser, consoled, org)
    assert {"DropPlayer", "AddLateEntry", "NextRound"} <= called
    only_refusals(browser, 400)


async def test_a_dropped_player_reinstated_at_the_desk(
        served: Served, browser: Browser, client: TournamentClient) -> None:
    page = browser.page
    consoled: list[str] = []
    page.on("console", lambda m: consoled.append(m.text))
    tid = f"back_{uuid.uuid4().hex[:8]}"
    org = organiser(served)
    names = ["ann", "bob", "cat", "dan"]
    await running(client, org, tid, names, format_json("swiss", 3))
    await open_desk(browser, served, org, tid)
    await page.wait_for_selector("#desk[data-status='running']")
    dan = "#desk-roster li[data-player='dan']"
    await page.wait_for_selector(f"{dan}[data-status='playing'] button.drop")
    assert await page.query_selector_all("#desk-roster button.reinstate") == []  # nobody dropped

    # dropped from the desk: "Reinstate" in its place
    await page.click(f"{dan} button.drop")
    await page.fill(f"{dan} input.drop-reason", "went home")
    await page.click(f"{dan} button.drop-confirm")
    await noted(page, "dan dropped after round 1")
    await page.wait_for_selector(f"{dan}[data-status='dropped'] button.reinstate")
    assert await page.query_selector_all(f"{dan} button.drop") == []
    assert await page.is_hidden("#desk-no-reinstate")

    # "Reinstate" asks first; "Cancel" sends nothing, nor does the confirm without a reason
    def reinstated() -> int:
        return sum(r.url.endswith("/ReinstatePlayer") for r in browser.responses)
    await page.click(f"{dan} button.reinstate")
    assert await page.is_visible(f"{dan} button.reinstate-confirm") and await page.is_hidden(f"{dan} button.reinstate")
    assert await page.text_content(f"{dan} button.reinstate-confirm") == "Reinstate dan from the next round"
    await page.click(f"{dan} button.reinstate-cancel")
    assert await page.is_visible(f"{dan} button.reinstate") and await page.is_hidden(f"{dan} button.reinstate-confirm")
    await page.click(f"{dan} button.reinstate")
    await page.fill(f"{dan} input.reinstate-reason", "   ")
    await page.click(f"{dan} button.reinstate-confirm")
    said = await desk_says(page, "invalid_argument")
    assert said == ("Type why dan plays again first: a reinstatement needs a reason, kept in the "
                    "tournament's log. Nothing was sent.")
    await page.wait_for_timeout(300)
    assert reinstated() == 0
    assert (await statuses(client, tid))["dan"] == "dropped"
    assert await page.is_visible(f"{dan} button.reinstate-confirm")  # the confirm stays open

    # with a reason: ReinstatePlayer, the roster drawn from its answer
    await page.fill(f"{dan} input.reinstate-reason", "back from the station")
    await page.click(f"{dan} button.reinstate-confirm")
    assert await noted(page, "reinstated") == ("dan reinstated (back from the station): paired again "
                                               "from round 2 on; the rounds missed count as unplayed.")
    assert await page.is_hidden("#desk-message")
    await page.wait_for_selector(f"{dan}[data-status='playing'] button.drop")
    assert await page.text_content(f"{dan} .standing") == "playing"
    assert await page.query_selector_all("#desk-roster button.reinstate") == []
    assert reinstated() == 1
    assert "4 playing" in str(await page.text_content("#desk-line"))
    assert await statuses(client, tid) == {n: "playing" for n in names}  # recorded by the service
    await browser.screenshot("desk-reinstated")

    # a round robin: its dropped player gets no "Reinstate", one line says why
    rr = f"rr_{uuid.uuid4().hex[:8]}"
    await running(client, org, rr, names, format_json("round-robin", 0))
    await client.call("DropPlayer", org, tournament_id=rr, player_id="cat", reason="ill")
    await page.click("#refresh-tournaments")  # the list as it is now, with the round robin
    await page.click(f"#tournament-list button[data-tournament-id='{rr}']", timeout=20_000)
    await page.wait_for_selector(f"#desk[data-tournament-id='{rr}'][data-status='running']")
    await page.wait_for_selector("#desk-roster li[data-player='cat'][data-status='dropped']")
    assert await page.query_selector_all("#desk-roster button.reinstate") == []
    assert await page.text_content("#desk-no-reinstate") == (
        "A dropped player cannot be reinstated here: a round-robin has a fixed schedule (only a "
        "Swiss or a multiplayer event pairs a reinstated player again).")
    assert await page.is_visible("#desk-no-reinstate")
    called = await token_only_where_needed(browser, consoled, org)
    assert {"DropPlayer", "ReinstatePlayer"} <= called
    assert not browser.console_errors, browser.console_errors


async def test_the_desk_force_ends_a_tournament(
        served: Served, browser: Browser, client: TournamentClient) -> None:
    page = browser.page
    consoled: list[str] = []
    page.on("console", lambda m: consoled.append(m.text))
    tid = f"end_{uuid.uuid4().hex[:8]}"
    org = organiser(served)
    table = (await running(client, org, tid, ["ann", "bob", "cat"], format_json("swiss", 1),
                           checked_in=["ann", "bob"])).tables[0]
    await open_desk(browser, served, org, tid)
    await page.wait_for_selector("#desk[data-status='running']")

    # cat, left out at the start: a late entry the format does not take, said plainly
    cat = "#desk-roster li[data-player='cat'][data-status='registered']"
    await page.wait_for_selector(cat)
    assert await page.text_content(f"{cat} .standing") == "registered, not playing (left out at the start)"
    await page.click(f"{cat} button.late-entry")
    refused = await desk_says(page, "failed_precondition")
    assert refused == ("Adding cat as a late entry was refused (FAILED_PRECONDITION: the format "
                       "takes late entries until round 0; the next round is 2): this tournament's "
                       "format takes no late entries (it was created without “Late entries until "
                       "round”, late_entry_until).")

    # "Force end…" asks for a reason and a confirm; "Cancel" sends nothing
    assert await page.is_hidden("#desk-force-confirm")
    await page.click("#desk-force")
    assert await page.is_visible("#desk-force-confirm") and await page.is_hidden("#desk-force")
    await page.fill("#desk-force-reason", "changed my mind")
    await page.click("#desk-force-cancel")
    assert await page.is_hidden("#desk-force-confirm") and await page.is_visible("#desk-force")
    await page.click("#desk-force")
    assert await page.input_value("#desk-force-reason") == ""
    assert "ForceEnd" not in {r.url.rsplit("/", 1)[-1] for r in browser.responses}
    await page.click("#desk-force-now")  # no reason: the service asks for one
    refused = await desk_says(page, "invalid_argument")
    assert refused == "Force-ending was refused: INVALID_ARGUMENT: force-ending needs a reason"
    assert (await client.call("GetTournament", tournament_id=tid)).tournament.status == \
        pb.TOURNAMENT_STATUS_RUNNING
    await page.fill("#desk-force-reason", "the venue closed")
    await browser.screenshot("desk-force-end")
    await page.click("#desk-force-now")
    said = await noted(page, "Force-ended")
    assert said.startswith("Force-ended (the venue closed): the matches still in play do not "
                           "count; the final standings are published; 1st: ")
    await page.wait_for_selector("#desk[data-status='force ended']")
    assert await page.is_hidden("#desk-running") and await page.is_hidden("#desk-roster")
    assert await page.is_visible("#desk-export")
    t = (await client.call("GetTournament", tournament_id=tid)).tournament
    assert (t.status, t.reason) == (pb.TOURNAMENT_STATUS_FORCE_ENDED, "the venue closed")
    standings = await client.call("GetStandings", tournament_id=tid)
    assert standings.final and sorted(r.player_id for r in standings.rows) == ["ann", "bob"]
    assert said.endswith(f"1st: {standings.rows[0].player_id}.")
    # the page: final standings, the reason in the header, the table abandoned with it
    await page.wait_for_selector("#standings[data-final='1']", timeout=20_000)
    assert await page.text_content("#standings-title") == "Final standings"
    assert "force ended (the venue closed)" in (await page.text_content("#tournament-meta") or "")
    ended = (await client.call("GetRound", tournament_id=tid, round=1)).round
    played = next(x for x in ended.tables if x.number == table.number)
    assert (played.status, played.abandoned_reason) == (pb.TABLE_STATUS_ABANDONED, "the venue closed")
    called = await token_only_where_needed(browser, consoled, org)
    assert {"ForceEnd", "AddLateEntry", "GetStandings"} <= called
    only_refusals(browser, 400)


async def test_the_desk_calls_off_a_tournament_before_it_starts(
        served: Served, browser: Browser, client: TournamentClient) -> None:
    page = browser.page
    consoled: list[str] = []
    page.on("console", lambda m: consoled.append(m.text))
    org = organiser(served)
    tag = uuid.uuid4().hex[:8]
    made, soon, tid = f"made_{tag}", f"soon_{tag}", f"off_{tag}"
    for name in (made, soon, tid):
        await client.call("CreateTournament", org, tournament_id=name, game=GAME, mode="single",
                          format_json=format_json("swiss", 1))
    for name in (soon, tid):
        await client.call("OpenRegistration", org, tournament_id=name)
        for player in ("ann", "bob", "cat"):
            await client.call("Register", org, tournament_id=name, player_id=player)
    await client.call("CheckIn", org, tournament_id=tid, player_id="ann")

    # created, registration not open yet: "Force end…" is offered, its confirm says what it does
    await open_desk(browser, served, org, made)
    await page.wait_for_selector(f"#desk[data-tournament-id='{made}'][data-status='created']")
    await page.click("#desk-force")
    assert await page.text_content("#desk-force-what") == (
        "Call the tournament off now: it ends without being played. No round is paired, nobody "
        "plays and there are no standings; registration never opens and it can never be "
        "started.")
    await page.click("#desk-force-cancel")

    # a confirm opened while registration is open, the tournament started elsewhere meanwhile:
    # put away unsent, and the desk says so
    await page.click(f"#tournament-list button[data-tournament-id='{soon}']")
    await page.wait_for_selector(f"#desk[data-tournament-id='{soon}'][data-status='registration']")
    await page.click("#desk-force")
    await page.fill("#desk-force-reason", "too few players")
    await client.call("StartTournament", org, tournament_id=soon)
    await page.wait_for_selector("#desk[data-status='running']", timeout=20_000)
    assert await page.is_hidden("#desk-force-confirm") and await page.is_visible("#desk-force")
    assert await noted(page, "put away") == (
        f"{soon} is running now: the force-end was put away unsent; press “Force end…” again if "
        "it should still end.")
    await page.click("#desk-force")
    assert await page.input_value("#desk-force-reason") == ""
    assert (await page.text_content("#desk-force-what") or "").startswith(
        "End the tournament now: the matches still in play are abandoned")
    await page.click("#desk-force-cancel")
    assert (await client.call("GetTournament", tournament_id=soon)).tournament.status == \
        pb.TOURNAMENT_STATUS_RUNNING

    # registration open: called off from the desk, with its reason and the confirm
    await page.click(f"#tournament-list button[data-tournament-id='{tid}']")
    await page.wait_for_selector(f"#desk[data-tournament-id='{tid}'][data-status='registration']")
    await page.wait_for_selector("#desk-roster li[data-player='ann'][data-status='checked-in']")
    assert await page.is_visible("#desk-force") and await page.is_hidden("#desk-force-confirm")
    await page.click("#desk-force")
    assert await page.text_content("#desk-force-what") == (
        "Call the tournament off now: it ends without being played. No round is paired, nobody "
        "plays and there are no standings; registration closes and it can never be started.")
    await page.click("#desk-force-now")  # no reason: the service asks for one
    refused = await desk_says(page, "invalid_argument")
    assert refused == "Force-ending was refused: INVALID_ARGUMENT: force-ending needs a reason"
    assert await page.is_visible("#desk-force-confirm")
    await page.fill("#desk-force-reason", "the venue was lost")
    await browser.screenshot("desk-call-off")
    await page.click("#desk-force-now")
    said = await noted(page, "Force-ended")
    assert said == ("Force-ended (the venue was lost) before it started: no rounds were played, so "
                    "there are no standings.")
    await page.wait_for_selector("#desk[data-status='force ended']")
    for gone in ("#desk-ending", "#desk-registration", "#desk-starting", "#desk-roster",
                 "#desk-running"):
        assert await page.is_hidden(gone), gone
    assert await page.text_content("#desk-line") == (
        f"{tid} is force ended: it ended before it started, no rounds were played (1 checked "
        "in, 2 registered but not checked in)")
    t = (await client.call("GetTournament", tournament_id=tid)).tournament
    assert (t.status, t.reason, t.rounds_paired) == (
        pb.TOURNAMENT_STATUS_FORCE_ENDED, "the venue was lost", 0)
    standings = await client.call("GetStandings", tournament_id=tid)
    assert standings.final and list(standings.rows) == []
    # the page: no empty standings table, the reason in words
    await page.wait_for_selector("#standings[data-final='1']", state="attached", timeout=20_000)
    await page.wait_for_selector("#standings-none:visible")
    assert await page.is_hidden("#standings")
    assert " ".join((await page.text_content("#standings-none") or "").split()) == (
        "No rounds were played: the tournament was force-ended before it started, so it has no "
        "standings.")
    assert "force ended (the venue was lost)" in (await page.text_content("#tournament-meta") or "")
    await browser.screenshot("desk-called-off")
    # the desk's word in the other cases: started but no round paired, finished meanwhile
    # (ForceEnd leaves a finished tournament as it is)
    words = await page.evaluate("""() => import('/static/desk.js').then(m => [
        m.forceEnded({tournamentId: 't', status: 'TOURNAMENT_STATUS_FORCE_ENDED', reason: 'rain'},
                     [{playerId: 'ann'}, {playerId: 'bob'}]),
        m.forceEnded({tournamentId: 't', status: 'TOURNAMENT_STATUS_FORCE_ENDED', reason: 'rain',
                      roundsPaired: 1}, [{playerId: 'ann'}]),
        m.forceEnded({tournamentId: 't', status: 'TOURNAMENT_STATUS_FINISHED'}, [{playerId: 'ann'}])])""")
    assert words == [
        "Force-ended (rain) before its first round was paired: no rounds were played; the final "
        "standings list 2 players with no results.",
        "Force-ended (rain): the matches still in play do not count; the final standings are "
        "published; 1st: ann.",
        "t is finished already: nothing was force-ended; its final standings stand."]
    called = await token_only_where_needed(browser, consoled, org)
    assert {"ForceEnd", "GetStandings"} <= called
    only_refusals(browser, 400)


async def test_a_call_off_after_a_start_the_page_did_not_hear_of_ends_nothing(
        served: Served, browser: Browser, client: TournamentClient) -> None:
    """The confirm opened while registration is open; the tournament started (and its round
    paired) over gRPC with its WatchTournament frames held back, so the page has not heard
    of it when "End the tournament now" is clicked. The ForceEnd carries the state the
    confirm was opened in (expected_status): refused, nothing ended, the event still runs;
    the desk says so in plain words and draws it running, the confirm put away."""
    page = browser.page
    consoled: list[str] = []
    page.on("console", lambda m: consoled.append(m.text))
    org = organiser(served)
    tid = f"race_{uuid.uuid4().hex[:8]}"
    await client.call("CreateTournament", org, tournament_id=tid, game=GAME, mode="single",
                      format_json=format_json("swiss", 1))
    await client.call("OpenRegistration", org, tournament_id=tid)
    for player in ("ann", "bob"):
        await client.call("Register", org, tournament_id=tid, player_id=player)
        await client.call("CheckIn", org, tournament_id=tid, player_id=player)

    # the page's WatchTournament for it: one frame (registration open), then the stream
    # ends; the page's next WatchTournament is held, never answered: it hears nothing more
    seen = (await client.call("GetTournament", tournament_id=tid)).tournament
    frame = json_format.MessageToJson(pb.WatchTournamentResponse(tournament=seen),
                                      always_print_fields_with_no_presence=True,
                                      indent=None).encode()
    watches: list[Any] = []

    async def watch(route: Any) -> None:
        if tid.encode() not in (route.request.post_data_buffer or b""):
            await route.continue_()
            return
        watches.append(route)
        if len(watches) == 1:
            await route.fulfill(status=200, headers={"content-type": "application/connect+json"},
                                body=b"\x00" + len(frame).to_bytes(4, "big") + frame)

    await page.route("**/WatchTournament", watch)
    await open_desk(browser, served, org, tid)
    await page.wait_for_selector(f"#desk[data-tournament-id='{tid}'][data-status='registration']")
    await page.click("#desk-force")
    assert (await page.text_content("#desk-force-what") or "").startswith(
        "Call the tournament off now")
    await page.fill("#desk-force-reason", "too few players")
    await client.call("StartTournament", org, tournament_id=tid)
    paired = (await client.call("NextRound", org, tournament_id=tid)).round
    await asyncio.sleep(0.5)
    assert await page.get_attribute("#desk", "data-status") == "registration"
    assert await page.is_visible("#desk-force-confirm")

    await page.click("#desk-force-now")
    refused = await desk_says(page, "failed_precondition")
    assert refused == (
        "Force-ending was refused (FAILED_PRECONDITION: the tournament is running now, not in "
        "registration: nothing was ended; look again before ending it): another organiser or "
        f"the CLI changed {tid} after this confirm was opened; nothing was ended, and the desk "
        "now shows it as it is.")
    # drawn as it is now (asked by the desk: its frames are still held), the confirm put away
    await page.wait_for_selector(f"#desk[data-tournament-id='{tid}'][data-status='running']")
    assert await page.is_hidden("#desk-force-confirm") and await page.is_visible("#desk-force")
    assert await noted(page, "put away") == (
        f"{tid} is running now: the force-end was put away unsent; press “Force end…” again if "
        "it should still end.")
    assert await page.is_visible("#desk-running")
    assert len(watches) >= 1
    # nothing ended: it still runs, its table still plays
    t = (await client.call("GetTournament", tournament_id=tid)).tournament
    assert (t.status, t.reason) == (pb.TOURNAMENT_STATUS_RUNNING, "")
    now = (await client.call("GetRound", tournament_id=tid, round=1)).round
    assert pb.TABLE_STATUS_ABANDONED not in [x.status for x in now.tables]
    assert [x.match_id for x in now.tables] == [x.match_id for x in paired.tables]
    assert not (await client.call("GetStandings", tournament_id=tid)).final
    forced = [r for r in browser.responses if r.url.endswith("/ForceEnd")]
    assert len(forced) == 1 and json.loads(forced[0].request.post_data or "{}") == {
        "tournamentId": tid, "reason": "too few players",
        "expectedStatus": "TOURNAMENT_STATUS_REGISTRATION"}
    called = await token_only_where_needed(browser, consoled, org)
    assert {"ForceEnd", "GetTournament"} <= called
    only_refusals(browser, 400)
    await browser.screenshot("desk-call-off-refused")
    await page.unroute("**/WatchTournament")
    await client.call("ForceEnd", org, tournament_id=tid, reason="test over")


async def test_the_desk_list_shows_tournaments_made_elsewhere(
        served: Served, browser: Browser, client: TournamentClient) -> None:
    page = browser.page
    org = organiser(served)
    tag = uuid.uuid4().hex[:8]
    first, second = f"cli_{tag}", f"cli2_{tag}"
    row = "#tournament-list button[data-tournament-id='{}']".format

    def listed() -> int:
        return sum(1 for r in browser.responses if r.url.endswith("/ListTournaments"))

    async def create(tid: str) -> None:  # as `neon tournament create` and `open` do
        await client.call("CreateTournament", org, tournament_id=tid, game=GAME, mode="single",
                          format_json=format_json("swiss", 1))
        await client.call("OpenRegistration", org, tournament_id=tid)

    await page.clock.install()  # the page's minutes, run forward below
    await open_desk(browser, served, org)
    await page.clock.run_for(11_000)  # past the gap between two looks

    # made elsewhere: not on the page by itself...
    await create(first)
    await asyncio.sleep(1)
    assert await page.query_selector(row(first)) is None
    # ...until the organiser comes back to the tab
    await page.evaluate("window.dispatchEvent(new Event('focus'))")
    await page.wait_for_selector(row(first), timeout=10_000)

    # a hidden tab asks nothing, not even after its minute
    await page.evaluate("""() => {
        Object.defineProperty(document, 'hidden', {value: true, configurable: true});
        Object.defineProperty(document, 'visibilityState', {value: 'hidden', configurable: true});
        document.dispatchEvent(new Event('visibilitychange'));
    }""")
    await create(second)
    before = listed()
    await page.clock.run_for(61_000)
    await asyncio.sleep(1)
    assert listed() == before and await page.query_selector(row(second)) is None
    # back in view: it asks at once
    await page.evaluate("""() => {
        delete document.hidden;
        delete document.visibilityState;
        document.dispatchEvent(new Event('visibilitychange'));
    }""")
    await page.wait_for_selector(row(second), timeout=10_000)

    # in view, once a minute: a player registered elsewhere is counted
    await client.call("Register", org, tournament_id=second, player_id="ann")
    await page.clock.run_for(61_000)
    await page.wait_for_function(
        "s => (document.querySelector(s)?.textContent || '').includes('· 1 players ·')",
        arg=row(second), timeout=10_000)
    # nothing changed: one question a minute, the list not drawn again
    await page.evaluate(f"window.keptButton = document.querySelector(\"{row(second)}\")")
    before = listed()
    await page.clock.run_for(61_000)
    for _ in range(50):
        if listed() > before:
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.5)
    assert listed() == before + 1
    assert await page.evaluate(f"document.querySelector(\"{row(second)}\") === window.keptButton")
    assert browser.console_errors == []
