"""A person with only a player token plays from the Play page in headless Chromium, against
the real services (dice, Neon Reign's rules, tournament and matchmaking; the gateway in
front): their table of a 2-player Swiss (registered from the page, seeded and made ready by
the page, played by clicking, the result and the final standings shown), and a match found
through matchmaking against a bot (queued, accepted, played). Leaving the queue, declining a
proposal and refused tokens get clear messages; nothing the page receives holds a card
hidden from the person's seat; the page asks ListLegalActions only for positions it did not
make (play.js's playMatch, shared with the seat-token page)."""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
import pytest_asyncio

from services.cli.client import RulesClient, close_all
from services.cli.tournament_commands import TournamentClient, format_json, play_round_as
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as mm_pb
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2_grpc as mm_grpc
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
from services.matchmaking.config import Config
from services.matchmaking.grouping import Policy
from services.platform.grpc_kit import call_metadata
from tests.browser.clockstep import run_streams_on
from tests.browser.conftest import Browser, Served, module_fixtures
from tests.browser.leakscan import received_bodies, scan, secrets_by_version
from tests.browser.seatplay import (
    GAME,
    REIGN_MARKS,
    click_to_the_end,
    export,
    few_legal_calls,
    ready_after,
)
from tests.integration.conftest import make_settings
from tests.support.gateway import backend_and_gateway

pytestmark = REIGN_MARKS
KEY = "neon-player-token"
QUICK = Config(interval=0.1, accept_timeout=60,
               policy=Policy(partial_after=0, backfill_after=0.5), seed_window=120.0)
"""A lone player gets a bot in the empty seat after half a second. Its matches wait for client
seeds (the default), with a window longer than any test waits: the page adds its seat's seed
and calls ReadyForMatch, or its match never starts here."""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def served(tmp_path_factory: pytest.TempPathFactory, nats_url: str) -> AsyncIterator[Served]:
    folder: Path = tmp_path_factory.mktemp("play-player")
    settings = make_settings(folder, nats_url)
    async with backend_and_gateway(settings, games=[GAME], tournament=True, matchmaking=True,
                                   matchmaking_config=QUICK) as (backend, gateway):
        yield Served(backend, gateway)


browser = module_fixtures("play-player")[1]  # a fresh page for each test


@pytest_asyncio.fixture(loop_scope="module")
async def rules(served: Served) -> AsyncIterator[Any]:
    async with grpc.aio.insecure_channel(served.backend.address(f"rules-{GAME}")) as channel:
        yield rules_pb2_grpc.RulesServiceStub(channel)


@dataclass
class Event:
    """The organiser's side of the test's tournaments, and the bots playing their other seats
    (stopped at the end of the test)."""

    served: Served
    client: TournamentClient
    clients: dict[str, RulesClient] = field(default_factory=dict)
    bots: list[asyncio.Task[str]] = field(default_factory=list)

    @property
    def org(self) -> str:
        return self.served.backend.organiser_token()

    async def call(self, rpc: str, tid: str, **kw: Any) -> Any:
        """An organiser's call about tournament ``tid``."""
        return await self.client.call(rpc, self.org, tournament_id=tid, **kw)

    async def finish(self, tid: str, round_: int = 1) -> Any:
        """FinishTournament once round ``round_``'s checkpoint is signed: the service
        publishes it a moment after the last result, and refuses to finish before."""
        for _ in range(300):
            got = (await self.client.call("GetRound", tournament_id=tid, round=round_)).round
            if got.HasField("checkpoint") and got.checkpoint.signature:
                break
            await asyncio.sleep(0.1)
        return await self.call("FinishTournament", tid)

    async def create(self, tid: str, *players: str, **kw: Any) -> None:
        """A Neon Reign `single` Swiss of one round with long clocks, registration open,
        ``players`` registered by the organiser."""
        await self.call("CreateTournament", tid, game=GAME, mode="single",
                        format_json=format_json("swiss", 1), check_in_seconds=120,
                        clock=pb.Clock(bank_ms=600_000, increment_ms=1_000), **kw)
        await self.call("OpenRegistration", tid)
        for name in players:
            await self.call("Register", tid, player_id=name)

    def bot(self, tid: str, name: str, **kw: Any) -> asyncio.Task[str]:
        """``name`` plays its table of the current round as a random bot, over gRPC."""
        token = self.served.backend.issuer.issue_player(name)
        task = asyncio.create_task(play_round_as(self.client, self.clients, token, tid, name,
                                                 timeout=120, **kw))
        self.bots.append(task)
        return task


@pytest_asyncio.fixture(loop_scope="module")
async def event(served: Served) -> AsyncIterator[Event]:
    e = Event(served, TournamentClient(served.backend.address("tournament")))
    try:
        yield e
    finally:
        for task in e.bots:
            task.cancel()
        await asyncio.gather(*e.bots, return_exceptions=True)
        await close_all(e.clients)
        await e.client.close()


async def open_play(browser: Browser, served: Served, token: str, query: str = "") -> Any:
    """The Play page (``query``: /?tournament=<id>&play), the player token pasted."""
    page = browser.page
    await page.goto(f"{served.url}/{query}")
    await page.wait_for_selector("body[data-ready='1']")
    if not await page.is_visible("#play"):
        await page.click("#tab-play")
    await page.fill("#player-token", token)
    return page


async def state(page: Any, wanted: str, timeout: float = 60) -> str:
    """The status line once the player's flow reaches ``wanted``."""
    try:
        await page.wait_for_selector(f"#player-status[data-state='{wanted}']", timeout=timeout * 1000)
    except Exception:
        note, said = await page.text_content("#player-note"), await page.text_content("#play-message")
        raise AssertionError(f"not {wanted!r} in {timeout} s: the page says {note!r}, {said!r}") from None
    return str(await page.text_content("#player-note"))


async def message(page: Any, code: str) -> str:
    await page.wait_for_selector(f"#play-message[data-code='{code}']", timeout=20_000)
    return str(await page.text_content("#play-message"))


async def leak_free(browser: Browser, served: Served, stub: Any, match_id: str, seat: int) -> None:
    """Nothing the page received holds a card hidden from ``seat``, nor the page's tokens in
    an address."""
    data = await export(served, stub, match_id)
    received = await received_bodies(browser)
    secrets, _ = secrets_by_version(data, seat)
    assert any(secrets.values()), "the opponent held cards the seat may not see"
    leaks, checked = scan(received, data, viewer=seat)
    assert leaks == []
    assert checked >= len(received) // 2
    assert all("token" not in u.lower() for u, _ in received)


async def statuses(event: Event, tid: str) -> dict[str, str]:
    """Each player's status as GetTournament (gRPC) gives it."""
    t = (await event.client.call("GetTournament", tournament_id=tid)).tournament
    return {p.player_id: p.status for p in t.players}


async def test_a_player_registers_and_plays_their_tournament_table(
        served: Served, browser: Browser, rules: Any, event: Event) -> None:
    """ann (the page, her player token) registers herself with the page's button (which
    does not check her in: the "Check in" button does, and the status line says each); bea, the
    organiser's entry, is played by the test as a random bot over gRPC. The page follows
    WatchMyMatches, seeds and readies ann's table, plays it by clicking, tells the result
    and, once the organiser finishes, the final standings with ann's row marked."""
    tid = f"web_{uuid.uuid4().hex[:8]}"
    await event.create(tid, "bea", name="Web Cup")
    await event.call("CheckIn", tid, player_id="bea")
    ann = served.backend.issuer.issue_player("ann")
    page = await open_play(browser, served, ann, f"?tournament={tid}&play")
    assert await page.input_value("#player-tournament") == tid
    assert await page.text_content("#player-who") == "You play as ann."
    await page.click("#player-follow")
    assert "ann is not registered" in await state(page, "not-registered")
    assert await page.is_hidden("#player-check-in")
    await page.click("#player-register")
    said = await state(page, "registered")
    assert "ann is registered (not checked in): waiting for the organiser to start" in said
    assert await statuses(event, tid) == {"bea": "checked-in", "ann": "registered"}
    assert await page.is_hidden("#player-register")
    await page.wait_for_selector("#player-check-in:visible")
    await page.click("#player-check-in")
    said = await state(page, "checked-in")
    assert "ann is checked in: waiting for the organiser to start" in said
    assert await statuses(event, tid) == {"bea": "checked-in", "ann": "checked-in"}
    assert await page.is_hidden("#player-check-in")
    await page.reload()  # the page finds her checked in, and offers no check-in again
    await page.wait_for_selector("body[data-ready='1']")
    assert "ann is checked in" in await state(page, "checked-in")
    assert await page.is_hidden("#player-check-in")

    await event.call("StartTournament", tid)
    table = next(t for t in (await event.call("NextRound", tid)).round.tables if "ann" in t.seats)
    seat = list(table.seats).index("ann")
    bea = event.bot(tid, "bea")
    seated = await state(page, "ready", 30)
    assert f"Round 1, table {table.number}: you (seat {seat}) play bea" in seated
    assert "seed added, ready" in seated

    async def shot(clicks: int) -> None:
        if clicks == 2:
            await browser.screenshot("play-tournament-table")

    assert await click_to_the_end(page, random.Random(7), before_click=shot) >= 2
    assert await asyncio.wait_for(bea, 60) == "played"
    await page.wait_for_selector("#play-board[data-ended='1']")
    assert (await page.text_content("#play-outcome") or "").startswith(f"You (seat {seat}) placed")
    # the page tells the result once the tournament recorded it (the match's end reaches the
    # tournament service a moment after the page sees it): only then does GetRound hold it
    told = await state(page, "result", 30)
    done = (await event.client.call("GetRound", tournament_id=tid, round=1)).round
    place = next(t for t in done.tables if t.number == table.number).result.placements[seat]
    assert f"Round 1, table {table.number}: " in told
    assert f"you placed {'1st' if place == 1 else '2nd'}" in told
    assert await page.get_attribute("#player-results li", "data-place") == str(place)

    rows = (await event.finish(tid)).rows
    final = await state(page, "final", 30)
    mine = next(r for r in rows if r.player_id == "ann")
    assert await page.get_attribute("#player-status", "data-rank") == str(mine.rank)
    assert f"You (ann) finished {'1st' if mine.rank == 1 else '2nd'} of 2" in final
    assert await page.get_attribute("#player-standings", "data-final") == "1"
    marked = await page.eval_on_selector_all("#player-standings tr.mine", "rs => rs.map(r => r.dataset.player)")
    assert marked == ["ann"]
    shown = await page.eval_on_selector_all(
        "#player-standings tbody tr", "rs => rs.map(r => [r.dataset.player, +r.querySelector('td').textContent])")
    assert shown == [[r.player_id, r.rank] for r in rows]
    await browser.screenshot("play-tournament-final")

    assert await page.evaluate(f"sessionStorage.getItem('{KEY}')") == ann
    assert await page.evaluate("localStorage.length") == 0
    await leak_free(browser, served, rules, table.match_id, seat)
    await few_legal_calls(browser, served, rules, table.match_id)  # played through play.js
    called = [u.rsplit("/", 1)[-1] for u, _ in await received_bodies(browser)]
    for rpc in ("WatchMyMatches", "AddClientSeed", "ReadyForMatch", "GetStandings"):
        assert rpc in called, rpc
    assert browser.console_errors == []


async def test_an_abandoned_table_played_again_is_played_on_the_page(
        served: Served, browser: Browser, rules: Any, event: Event) -> None:
    """The organiser abandons ann's match while she plays it, then has the table play again
    (RematchTable: `…-g2`, the same seats): the page says the match was abandoned, then seeds,
    readies and plays the rematch, and ends with the final standings."""
    tid = f"again_{uuid.uuid4().hex[:8]}"
    await event.create(tid, "ann", "bea")
    await event.call("StartTournament", tid)
    page = await open_play(browser, served, served.backend.issuer.issue_player("ann"),
                           f"?tournament={tid}&play")
    await page.click("#player-follow")
    assert "waiting for the organiser to pair" in await state(page, "between-rounds")
    table = (await event.call("NextRound", tid)).round.tables[0]
    bea = event.bot(tid, "bea", rematches=True)
    await state(page, "ready", 30)
    await ready_after(page, None)  # running: ann's actions are on the page
    await rules.AbandonMatch(rules_pb2.AbandonMatchRequest(
        match_id=table.match_id, reason="the table's lights went out"),
        metadata=call_metadata(event.org), timeout=10)
    told = await state(page, "abandoned", 30)
    assert f"match {table.match_id} was abandoned (the table's lights went out)" in told
    assert "Abandoned by" in (await page.text_content("#play-outcome") or "")
    await event.call("RematchTable", tid, round=1, table=table.number,
                     reason="played again after the outage")
    again = await state(page, "ready", 30)
    assert f"{table.match_id}-g2" in again and "(a rematch)" in again
    await page.wait_for_selector(f"#play-board[data-match-id='{table.match_id}-g2']")
    assert await click_to_the_end(page, random.Random(3)) >= 1
    assert await asyncio.wait_for(bea, 60) == "played"
    await state(page, "result", 30)
    rows = (await event.finish(tid)).rows
    await state(page, "final", 30)
    mine = next(r for r in rows if r.player_id == "ann")
    assert await page.get_attribute("#player-status", "data-rank") == str(mine.rank)
    assert all(e.startswith("Failed to load resource") and " 400 " in e
               for e in browser.console_errors), browser.console_errors


CALLED_OFF = ("No rounds were played: the tournament was force-ended before it started, so it "
              "has no standings.")


async def test_a_tournament_called_off_before_it_starts_shows_no_empty_standings(
        served: Served, browser: Browser, event: Event) -> None:
    """ann follows her tournament on the Play tab while registration is open; the organiser
    calls it off (ForceEnd before the start): its standings are final with no rows, and the
    tab says no rounds were played in place of an empty "Final standings" table (tournament.js's
    drawStandings, as the tournament page does): live, and when the page is opened again."""
    tid = f"off_{uuid.uuid4().hex[:8]}"
    await event.create(tid, "ann", "bea")
    page = await open_play(browser, served, served.backend.issuer.issue_player("ann"),
                           f"?tournament={tid}&play")
    await page.click("#player-follow")
    assert "ann is registered (not checked in)" in await state(page, "registered")
    assert await page.is_hidden("#player-standings-none")
    await event.call("ForceEnd", tid, reason="the venue was lost")
    standings = await event.client.call("GetStandings", tournament_id=tid)
    assert standings.final and list(standings.rows) == []
    for opened in ("live", "again"):
        if opened == "again":
            await page.reload()
            await page.wait_for_selector("body[data-ready='1']")
        said = await state(page, "final", 30)
        assert said == f"{tid} is force-ended (the venue was lost).", (opened, said)
        await page.wait_for_selector("#player-standings-none:visible", timeout=20_000)
        assert await page.is_hidden("#player-standings"), opened
        assert await page.get_attribute("#player-standings", "data-final") == "1"
        assert " ".join((await page.text_content("#player-standings-none") or "").split()) \
            == CALLED_OFF
        assert await page.is_visible("#player-standings-title")
        assert await page.text_content("#player-standings-title") == "Standings"
    await browser.screenshot("play-tournament-called-off")
    assert browser.console_errors == []


async def test_a_player_the_start_left_out_is_told_while_a_late_entry_may_come_and_after(
        served: Served, browser: Browser, event: Event) -> None:
    """ann did not check in and the organiser started with the checked-in players only: the
    Play tab says she was left out and waits while the format may still add her as a late
    entry (up to round 1); once round 1 is paired without her it says she cannot join now and
    stops following (no standings drawn as if it had ended), rather than "no table for you
    now" until the end of the event."""
    tid = f"out_{uuid.uuid4().hex[:8]}"
    await event.call("CreateTournament", tid, game=GAME, mode="single",
                     format_json=format_json("swiss", 2, extra='{"late_entry_until": 1}'))
    await event.call("OpenRegistration", tid)
    for name in ("ann", "bea", "cid"):
        await event.call("Register", tid, player_id=name)
    for name in ("bea", "cid"):
        await event.call("CheckIn", tid, player_id=name)
    started = await event.call("StartTournament", tid, checked_in_only=True)
    assert list(started.left_out) == ["ann"]
    page = await open_play(browser, served, served.backend.issuer.issue_player("ann"),
                           f"?tournament={tid}&play")
    await page.click("#player-follow")
    said = await state(page, "left-out")
    assert said == (f"ann was left out at the start of {tid} (not checked in); the organiser "
                    "may still add you as a late entry (rounds up to 1): waiting."), said
    paired = (await event.call("NextRound", tid)).round
    assert all("ann" not in t.seats for t in paired.tables)
    said = await state(page, "left-out-for-good")
    assert said == f"ann was left out at the start of {tid} (not checked in) and cannot join it now."
    assert await page.is_hidden("#player-standings-title")
    assert browser.console_errors == []


async def test_a_player_finds_a_match_against_a_bot_and_plays_it(
        served: Served, browser: Browser, rules: Any) -> None:
    """cid queues for Neon Reign `single` with bots allowed; the matchmaking service fills the
    empty seat with a bot, the page shows the proposal with its countdown, cid accepts, and
    the page plays the matched seat to the end."""
    page = await open_play(browser, served, served.backend.issuer.issue_player("cid"))
    await page.select_option("#mm-game", GAME)
    await page.wait_for_selector("#mm-mode option[value='single']", state="attached")
    await page.select_option("#mm-mode", "single")
    assert await page.is_checked("#mm-bots")
    await page.click("#mm-queue")
    await page.wait_for_selector("#player-proposal:not([hidden])", timeout=30_000)
    proposal = await page.text_content("#proposal-text") or ""
    assert "against bot-" in proposal and "(a bot)" in proposal and "Accept it?" in proposal
    await page.wait_for_function("/^\\d+ s left$/.test(document.querySelector('#proposal-left').textContent)")
    await browser.screenshot("play-matchmaking-proposal")
    match_id = await page.get_attribute("#player-proposal", "data-match-id")
    await page.click("#mm-accept")
    seated = await state(page, "ready", 30)
    assert f"Matched: match {match_id} of {GAME} single; you are seat" in seated
    assert "seed added, ready" in seated
    seat = int(seated.split("you are seat ")[1].split(" ")[0])
    assert await page.get_attribute("#play-board", "data-match-id") == match_id

    async def shot(clicks: int) -> None:
        if clicks == 2:
            await browser.screenshot("play-matchmaking-match")

    assert await click_to_the_end(page, random.Random(11), before_click=shot) >= 2
    await page.wait_for_selector("#play-board[data-ended='1']")
    assert (await page.text_content("#play-outcome") or "").startswith(f"You (seat {seat}) placed")
    assert f"Match {match_id} ended" in await state(page, "played", 30)
    await browser.screenshot("play-matchmaking-end")
    await leak_free(browser, served, rules, str(match_id), seat)
    await few_legal_calls(browser, served, rules, str(match_id))
    called = [u.rsplit("/", 1)[-1] for u, _ in await received_bodies(browser)]
    for rpc in ("CreateTicket", "WatchTicket", "AcceptMatch", "AddClientSeed", "ReadyForMatch"):
        assert rpc in called, rpc
    started = [json.loads(line) for line in (await export(served, rules, str(match_id))).splitlines()
               if b'"MatchStarted"' in line][0]
    assert [s for s, _ in started["client_seeds"]] == [seat]  # the page's seed; the bot adds none
    assert browser.console_errors == []


async def test_forgetting_the_player_token_mid_match_stops_its_seat_and_clears_its_view(
        served: Served, browser: Browser) -> None:
    """The seat a player token got (here from matchmaking) is played with that seat's token:
    "Forget the player token" ends that play too, and takes the seat's own view (its hand,
    "Only you see") and its buttons off the screen. They stayed, still followed and clickable
    with the seat token, on a screen someone else may now be looking at."""
    page = await open_play(browser, served, served.backend.issuer.issue_player("dee"))
    await page.select_option("#mm-game", GAME)
    await page.wait_for_selector("#mm-mode option[value='single']", state="attached")
    await page.select_option("#mm-mode", "single")
    await page.click("#mm-queue")
    await page.wait_for_selector("#player-proposal:not([hidden])", timeout=30_000)
    await page.click("#mm-accept")
    await state(page, "ready", 30)
    await page.wait_for_selector("#play-private li", timeout=30_000)  # the seat's own hand
    await page.click("#player-forget")
    assert await page.evaluate("sessionStorage.getItem('neon-player-token')") is None
    await asyncio.sleep(2)  # the bot moves meanwhile: nothing is drawn again
    for pane in ("#play-private", "#play-board", "#play-actions"):
        assert await page.locator(f"{pane} > *").count() == 0, pane
    sent = len(browser.responses)
    await asyncio.sleep(1.5)
    later = [r.url for r in browser.responses[sent:]]
    assert not any(u.endswith(("/GetView", "/ListLegalActions", "/SubmitAction")) for u in later), later


async def test_leaving_the_queue_and_declining_a_proposal(served: Served, browser: Browser) -> None:
    token = served.backend.issuer.issue_player("dee")
    page = await open_play(browser, served, token)
    await page.select_option("#mm-game", GAME)
    await page.uncheck("#mm-bots")  # nobody else queues: the ticket waits
    await page.click("#mm-queue")
    await page.wait_for_selector("#player-status[data-ticket='waiting']")
    note = await page.text_content("#player-note") or ""
    queued = await page.evaluate("document.querySelector('#player-status').dataset.ticketId")
    assert queued and queued.startswith("web-"), note
    assert await page.is_visible("#mm-leave")
    await page.click("#mm-leave")
    assert "Your ticket was cancelled" in await message(page, "cancelled")
    assert not await page.is_visible("#mm-leave")
    await page.check("#mm-bots")
    await page.click("#mm-queue")
    await page.wait_for_selector("#player-proposal:not([hidden])", timeout=30_000)
    declined = await page.evaluate("document.querySelector('#player-status').dataset.ticketId")
    assert declined != queued
    await page.click("#mm-decline")
    assert "Your ticket was cancelled" in await message(page, "cancelled")
    async with grpc.aio.insecure_channel(served.backend.address("matchmaking")) as channel:
        stub = mm_grpc.MatchmakingServiceStub(channel)
        for ticket_id in (queued, declined):
            ticket = (await stub.GetTicket(mm_pb.GetTicketRequest(ticket_id=ticket_id),
                                           metadata=call_metadata(token), timeout=10)).ticket
            assert ticket.status == mm_pb.TICKET_STATUS_CANCELLED, ticket
    assert browser.console_errors == []


async def test_refused_player_tokens_and_unknown_tournaments_get_clear_messages(
        served: Served, browser: Browser, event: Event) -> None:
    good = served.backend.issuer.issue_player("eve")
    forged = good[:-6] + ("AAAAAA" if not good.endswith("AAAAAA") else "BBBBBB")
    page = await open_play(browser, served, forged)
    await page.select_option("#mm-game", GAME)
    await page.click("#mm-queue")
    text = await message(page, "unauthenticated")
    assert "UNAUTHENTICATED" in text and "Paste a fresh token" in text
    assert await page.get_attribute("#player-status", "data-state") == "error"
    await browser.screenshot("play-player-unauthenticated")
    # an expired token, for a tournament
    tid = f"gone_{uuid.uuid4().hex[:6]}"
    await event.create(tid, "eve")
    expired = served.backend.issuer.issue("player", "*", player="eve", ttl=-60)
    page = await open_play(browser, served, expired, f"?tournament={tid}&play")
    assert "expired" in await message(page, "unauthenticated")
    # an unknown tournament
    page = await open_play(browser, served, good, "?tournament=no_such_cup&play")
    text = await message(page, "not_found")
    assert "no_such_cup" in text and "NOT_FOUND" in text
    # a seat token pasted as the player token
    await page.fill("#player-token", served.backend.issuer.issue("seat", "m-1", 0, "eve"))
    await page.click("#player-follow")
    assert "seat token" in await message(page, "permission_denied")
    # forgetting the player token clears it from the tab
    await page.fill("#player-token", good)
    await page.click("#player-forget")
    assert await page.evaluate(f"sessionStorage.getItem('{KEY}')") is None
    assert await page.input_value("#player-token") == ""
    assert all(e.startswith("Failed to load resource") and any(f" {c} " in e for c in (401, 404))
               for e in browser.console_errors), browser.console_errors


class EndedStreams:
    """WatchMyMatches faked in the page (page.route): each stream opened is answered with
    ``frames`` frames (the tournament in registration) and then Connect's end message, with
    no error: a stream the server ends at once, cleanly, before the tournament ended."""

    def __init__(self, frames: int) -> None:
        self.frames, self.opened = frames, 0

    async def __call__(self, route: Any) -> None:
        self.opened += 1
        frame = json.dumps({"status": "TOURNAMENT_STATUS_REGISTRATION"}).encode()
        end = b"{}"
        body = (bytes([0]) + len(frame).to_bytes(4, "big") + frame) * self.frames \
            + bytes([2]) + len(end).to_bytes(4, "big") + end
        await route.fulfill(status=200, content_type="application/connect+json", body=body)


async def follow_ended_streams(browser: Browser, served: Served, event: Event,
                               streams: EndedStreams, until: int, ms: int) -> tuple[Any, int]:
    """ann's page (a fake clock) follows her table of a tournament in registration whose
    WatchMyMatches is ``streams``, the clock run on until ``until`` streams were opened or
    ``ms`` went by; the page, and the ms the clock was run on."""
    tid = f"end_{uuid.uuid4().hex[:6]}"
    await event.create(tid, "ann")
    page = browser.page
    await page.clock.install()
    await page.route("**/WatchMyMatches", streams)
    page = await open_play(browser, served, served.backend.issuer.issue_player("ann"),
                           f"?tournament={tid}&play")
    await page.click("#player-follow")
    await page.wait_for_selector("#player-status[data-kind='tournament']")
    return page, await run_streams_on(page, streams, until, ms)


async def test_a_stream_the_server_ends_at_once_is_opened_again_a_second_later(
        served: Served, browser: Browser, event: Event) -> None:
    """WatchMyMatches ended cleanly by the server at once, again and again: each is opened
    again a second later, and given up once it failed 20 times in a row over a minute with
    no frame (common.js's reconnecting, as the tournament page and the live viewer). Before,
    player.js's own loop opened it again at once, for ever: the page spun."""
    streams = EndedStreams(frames=0)
    page, _ = await follow_ended_streams(browser, served, event, streams, until=1000, ms=200_000)
    assert 21 <= streams.opened <= 70, streams.opened
    assert await page.get_attribute("#player-status", "data-state") == "error"
    said = await message(page, "unavailable")
    assert "ended" in said, said


async def test_a_stream_ended_after_each_frame_is_followed_on(
        served: Served, browser: Browser, event: Event) -> None:
    """A stream that delivers a frame before each clean end starts the count again: followed
    on, however many times it ends, a second apart."""
    streams = EndedStreams(frames=1)
    page, ran = await follow_ended_streams(browser, served, event, streams, until=45, ms=120_000)
    assert streams.opened >= 45, await page.text_content("#player-note")
    assert streams.opened <= ran // 1000 + 2, (streams.opened, ran)  # a second apart
    assert await page.get_attribute("#player-status", "data-state") != "error"
