"""The tournament page in headless Chromium, following tournaments that bots play through the
real services (tournament, rules, dice; the gateway in front): a 4-player Swiss of Neon Reign
followed live round by round to its final standings, and a 4-player single elimination's
bracket; a tournament called off before its start (no empty standings table); the list kept
in place while it is asked again. What the page shows is compared with the tournament
service's own answers."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import pytest_asyncio

from services.cli.tournament_commands import TournamentClient, format_json, simulate_run
from services.rules.games import available
from services.tournament.core import bracket as core_bracket
from services.tournament.core.model import Entrant, FormatConfig, History
from tests.browser.clockstep import run_streams_on
from tests.browser.conftest import Browser, Served, chromium_page
from tests.integration.conftest import make_settings
from tests.support.gateway import backend_and_gateway

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.skipif("neon-reign" not in available(), reason="needs Neon Reign"),
]
GAME = "neon-reign"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def served(tmp_path_factory: pytest.TempPathFactory, nats_url: str) -> AsyncIterator[Served]:
    """Dice, Neon Reign's rules service and the tournament service, the gateway in front."""
    folder: Path = tmp_path_factory.mktemp("tournament-page")
    settings = make_settings(folder, nats_url)
    async with backend_and_gateway(settings, games=[GAME], tournament=True) as (backend, gateway):
        yield Served(backend, gateway)


@pytest_asyncio.fixture(loop_scope="module")
async def browser(chromium: Any) -> AsyncIterator[Browser]:
    async with chromium_page(chromium) as page:
        yield page


async def open_tournament(browser: Browser, served: Served, tournament_id: str) -> None:
    """From the front page: the Tournaments tab, then the tournament picked from the list."""
    page = browser.page
    await page.goto(served.url + "/")
    await page.wait_for_selector("body[data-ready='1']")
    await page.click("#tab-tournament")
    await page.click(f"#tournament-list button[data-tournament-id='{tournament_id}']")
    await page.wait_for_selector(f"#tournament[data-tournament-id='{tournament_id}']")


async def create_with_ann_and_bob(client: TournamentClient, org: str, tournament_id: str) -> None:
    """A one-round Swiss of GAME, its registration open, ann and bob registered by the
    organiser."""
    await client.call("CreateTournament", org, tournament_id=tournament_id, game=GAME,
                      mode="single", format_json=format_json("swiss", 1))
    await client.call("OpenRegistration", org, tournament_id=tournament_id)
    for player in ("ann", "bob"):
        await client.call("Register", org, tournament_id=tournament_id, player_id=player)


async def shown_round(page: Any, number: int) -> list[dict[str, Any]]:
    return await page.eval_on_selector_all(
        f"#rounds .round[data-round='{number}'] tr.pairing",
        """rows => rows.map(r => ({
            table: +r.dataset.table, status: r.dataset.status,
            seats: [...r.querySelectorAll('.seat')].map(s => s.dataset.player),
            href: r.querySelector('a.watch')?.getAttribute('href') || ''}))""",
    )


async def shown_standings(page: Any) -> list[dict[str, Any]]:
    return await page.eval_on_selector_all(
        "#standings tbody tr",
        """rows => rows.map(r => Object.fromEntries([...r.querySelectorAll('td')].map(
            td => [td.dataset.col, td.dataset.value ?? td.textContent])))""",
    )


def expected_round(r: Any) -> list[dict[str, Any]]:
    return [
        {
            "table": t.number,
            "status": "bye" if t.bye else "done",
            "seats": list(t.seats),
            "href": f"/?game={GAME}&match={t.match_id}" if t.match_id else "",
        }
        for t in r.tables
    ]


async def test_the_tournament_tab_loads_without_console_errors(
    served: Served, browser: Browser
) -> None:
    page = browser.page
    await page.goto(served.url + "/")
    await page.wait_for_selector("body[data-ready='1']")
    await page.click("#tab-tournament")
    assert await page.is_visible("#tournament") and not await page.is_visible("#live")
    assert await page.text_content("#tournament-title") == "Pick a tournament"
    assert browser.console_errors == []


async def test_a_swiss_followed_live_to_its_final_standings(
    served: Served, browser: Browser
) -> None:
    page = browser.page
    tid = f"swiss_{uuid.uuid4().hex[:8]}"
    seen_live: list[int] = []

    async def watch_round(number: int) -> None:
        """While the round's matches are played: the page shows its pairings, pushed by
        WatchTournament (round 2 is paired long after the page opened)."""
        if number == 1:
            await open_tournament(browser, served, tid)
        await page.wait_for_selector(f"#rounds .round[data-round='{number}']", timeout=20_000)
        assert await page.get_attribute("#tournament", "data-ended") == "0"
        if number == 2:
            await browser.screenshot("tournament-swiss-live")
        seen_live.append(number)

    report = await simulate_run(
        served.backend.address("tournament"),
        served.backend.issuer.issue,
        GAME,
        format_json("swiss", 2),
        4,
        mode="single",
        tournament_id=tid,
        between_rounds=watch_round,
        timeout=60,
    )
    assert seen_live == [1, 2]
    await page.wait_for_selector("#tournament[data-ended='1']", timeout=20_000)
    await page.wait_for_selector("#standings[data-final='1']")
    await browser.screenshot("tournament-swiss")

    # the page's pairings and results are the service's rounds
    client = TournamentClient(served.backend.address("tournament"))
    try:
        for number in (1, 2):
            served_round = (await client.call("GetRound", tournament_id=tid, round=number)).round
            assert await shown_round(page, number) == expected_round(served_round)
            complete = await page.get_attribute(
                f"#rounds .round[data-round='{number}']", "data-complete"
            )
            assert complete == "1" and served_round.complete
        standings = await client.call("GetStandings", tournament_id=tid)
    finally:
        await client.close()
    assert standings.final
    # the page's standings are the service's, with every tie-break value
    assert await shown_standings(page) == [
        {
            "rank": str(r.rank),
            "player": r.player_id,
            "points": f"{r.points:g}",
            "games": str(r.games),
            "wins": str(r.wins),
            **{t.name: f"{t.value:g}" for t in r.tiebreaks},
        }
        for r in standings.rows
    ]
    assert [t.name for t in standings.rows[0].tiebreaks] == [
        "buchholz",
        "median-buchholz",
        "sonneborn-berger",
        "wins",
    ]
    assert [r.player_id for r in standings.rows] == [r.player_id for r in report.standings]
    # the "wins" tie-break is headed as one, not as a second "wins" column
    heads = await page.eval_on_selector_all("#standings thead th", "ths => ths.map(t => t.textContent)")
    assert heads == ["#", "player", "points", "games", "wins", "buchholz", "median-buchholz",
                     "sonneborn-berger", "wins (tie-break)"], heads
    assert await page.text_content("#standings-title") == "Final standings"
    assert await page.is_visible("#standings") and await page.is_hidden("#standings-none")
    calls = [r.request for r in browser.responses if r.request.method == "POST"]
    assert any(c.url.endswith("/WatchTournament") for c in calls)
    sent = [await c.all_headers() for c in calls]
    assert all("content-type" in h and "authorization" not in h for h in sent), "no token sent"
    assert "finished" in (await page.text_content("#tournament-meta") or "")
    assert browser.console_errors == []

    # a table's link opens its match in the live spectator view
    first = (await shown_round(page, 1))[0]
    await page.click(
        f"#rounds .round[data-round='1'] tr.pairing[data-table='{first['table']}'] a.watch"
    )
    match_id = first["href"].rsplit("=", 1)[1]
    await page.wait_for_selector(
        f"#board[data-match-id='{match_id}'][data-ended='1']", timeout=20_000
    )
    assert await page.is_visible("#outcome")
    assert browser.console_errors == []


async def test_a_single_elimination_bracket_is_drawn(served: Served, browser: Browser) -> None:
    page = browser.page
    tid = f"knockout_{uuid.uuid4().hex[:8]}"

    async def watch_round(number: int) -> None:
        if number == 1:
            await open_tournament(browser, served, tid)
            await page.wait_for_selector("#bracket svg .bracket-match[data-id='W2-1']")

    report = await simulate_run(
        served.backend.address("tournament"),
        served.backend.issuer.issue,
        GAME,
        format_json("single-elimination", 0),
        4,
        mode="single",
        tournament_id=tid,
        between_rounds=watch_round,
        timeout=60,
    )
    await page.wait_for_selector("#tournament[data-ended='1']", timeout=20_000)
    bracket = json.loads(report.tournament.bracket_json)
    champion = report.standings[0].player_id
    assert bracket["champion"] == champion
    assert await page.get_attribute("#bracket svg", "data-champion") == champion
    drawn = await page.eval_on_selector_all(
        "#bracket svg .bracket-match",
        """gs => gs.map(g => ({id: g.dataset.id, winner: g.dataset.winner,
            players: [...g.querySelectorAll('.player')].map(t => t.dataset.player)}))""",
    )
    assert drawn == [
        {"id": m["id"], "winner": m["winner"] or "", "players": [p or "" for p in m["players"]]}
        for m in bracket["matches"]
    ]
    assert len(await page.query_selector_all("#bracket svg .bracket-line")) == 2
    await browser.screenshot("tournament-bracket")
    assert browser.console_errors == []


async def test_a_double_elimination_bracket_draws_every_part(
    served: Served, browser: Browser
) -> None:
    """The drawing alone, from the pure core's bracket of 8 before round 1: winners' and
    losers' brackets and the grand finals, every match once, each winner's path a line."""
    config = FormatConfig.from_dict({"format": "double-elimination", "grand_final_reset": True})
    history = History(tuple(Entrant(f"p{i}", 100.0 - i, i) for i in range(8)))
    bracket = core_bracket(config, history)
    page = browser.page
    await page.goto(served.url + "/")
    await page.wait_for_selector("body[data-ready='1']")
    await page.click("#tab-tournament")
    await page.evaluate(
        "b => import('/static/tournament.js').then(m => m.drawBracket(b))",
        json.loads(json.dumps(bracket)),
    )
    drawn = await page.eval_on_selector_all(
        "#bracket svg .bracket-match", "gs => gs.map(g => g.dataset.id)"
    )
    assert drawn == [m["id"] for m in bracket["matches"]]
    assert {m["bracket"] for m in bracket["matches"]} == {"winners", "losers", "final"}
    boxes = await page.eval_on_selector_all(
        "#bracket svg .bracket-match rect",
        "rs => rs.map(r => [+r.getAttribute('x'), +r.getAttribute('y')])",
    )
    assert len(set(map(tuple, boxes))) == len(boxes), "no two matches drawn on each other"
    winner_links = sum(1 for m in bracket["matches"] for f in m["from"] if f.startswith("winner:"))
    assert len(await page.query_selector_all("#bracket svg .bracket-line")) == winner_links
    first_round = await page.eval_on_selector_all(
        "#bracket svg .bracket-match[data-id='W1-1'] .player", "ts => ts.map(t => t.dataset.player)"
    )
    assert first_round == ["p0", "p7"], "seed 1 meets seed 8"
    await browser.screenshot("tournament-double-elimination")
    assert browser.console_errors == []


async def test_an_abandoned_table_shows_why(served: Served, browser: Browser) -> None:
    """A match of the tournament abandoned on its rules service: its row says so, with the
    organiser's reason, and still links to the match."""
    from services.cli.client import RulesClient
    from services.genproto.neon.rules.v1 import rules_pb2

    page = browser.page
    tid = f"abandon_{uuid.uuid4().hex[:8]}"
    backend = served.backend
    org = backend.issuer.issue("organiser", "*", player="org", ttl=600)
    tokens = {n: backend.issuer.issue("player", "*", player=n, ttl=600) for n in ("ann", "bob")}
    client = TournamentClient(backend.address("tournament"))
    rules = RulesClient(backend.address(f"rules-{GAME}"))
    try:
        await client.call("CreateTournament", org, tournament_id=tid, game=GAME, mode="single",
                          format_json=format_json("swiss", 1))
        await client.call("OpenRegistration", org, tournament_id=tid)
        for token in tokens.values():
            await client.call("Register", token, tournament_id=tid)
        await client.call("StartTournament", org, tournament_id=tid)
        table = (await client.call("NextRound", org, tournament_id=tid)).round.tables[0]
        await open_tournament(browser, served, tid)
        await page.wait_for_selector("#rounds .round[data-round='1'] tr.pairing")
        await rules.call("AbandonMatch", rules_pb2.AbandonMatchRequest(
            match_id=table.match_id, reason="a fire alarm"), org)
        row = f"#rounds .round[data-round='1'] tr.pairing[data-table='{table.number}']"
        await page.wait_for_selector(f"{row}[data-status='abandoned']", timeout=20_000)
        assert await page.text_content(f"{row} td.result") == "abandoned: a fire alarm"
        assert await page.text_content(f"{row} a.watch") == "watch again"
        note = await page.text_content("#rounds .round[data-round='1'] p.small")
        assert note == "in play; an abandoned table waits for the organiser's correction"
        served_round = (await client.call("GetRound", tournament_id=tid, round=1)).round
        assert served_round.tables[0].abandoned_reason == "a fire alarm"
        await browser.screenshot("tournament-abandoned")
        # the organiser has the table play again: the row shows the new match and why
        for _ in range(100):  # once the abandoned match is sealed
            try:
                await client.call("RematchTable", org, tournament_id=tid, round=1,
                                  table=table.number, reason="the alarm was a test")
                break
            except grpc.aio.AioRpcError as err:
                assert "not sealed yet" in (err.details() or ""), err.details()
                await asyncio.sleep(0.1)
        await page.wait_for_selector(f"{row}[data-status='awaiting seats']", timeout=20_000)
        assert await page.text_content(f"{row} td.result") == (
            f"rematch of {table.match_id} (abandoned: a fire alarm; again: the alarm was a test)")
        assert await page.get_attribute(f"{row} a.watch", "data-match-id") == \
            f"{table.match_id}-g2"
        assert await page.get_attribute(f"{row} td.result a.earlier", "href") == \
            f"/?game={GAME}&match={table.match_id}"  # the abandoned match, to watch again
        assert await page.text_content(f"{row} a.watch") == "watch live"
    finally:
        await client.close()
        await rules.close()
    assert browser.console_errors == []


async def test_a_force_ended_round_shows_its_tables_abandoned(served: Served,
                                                             browser: Browser) -> None:
    page = browser.page
    tid = f"ended_{uuid.uuid4().hex[:8]}"
    backend = served.backend
    org = backend.issuer.issue("organiser", "*", player="org", ttl=600)
    client = TournamentClient(backend.address("tournament"))
    try:
        await create_with_ann_and_bob(client, org, tid)
        await client.call("StartTournament", org, tournament_id=tid)
        table = (await client.call("NextRound", org, tournament_id=tid)).round.tables[0]
        await client.call("ForceEnd", org, tournament_id=tid, reason="the hall closed")
    finally:
        await client.close()
    await open_tournament(browser, served, tid)
    row = f"#rounds .round[data-round='1'] tr.pairing[data-table='{table.number}']"
    await page.wait_for_selector(f"{row}[data-status='abandoned']", timeout=20_000)
    assert await page.text_content(f"{row} td.result") == "abandoned: the hall closed"
    note = await page.text_content("#rounds .round[data-round='1'] p.small")
    assert note == "force-ended before this round was complete"
    # force-ended after a round was paired: its final standings are a table, no sentence
    await page.wait_for_selector("#standings[data-final='1'] tbody tr", timeout=20_000)
    assert sorted(r["player"] for r in await shown_standings(page)) == ["ann", "bob"]
    assert await page.is_visible("#standings") and await page.is_hidden("#standings-none")
    assert await page.text_content("#standings-title") == "Final standings"
    assert browser.console_errors == []


CALLED_OFF = ("No rounds were played: the tournament was force-ended before it started, so it "
              "has no standings.")


async def test_a_tournament_called_off_before_it_starts_says_so(served: Served,
                                                                 browser: Browser) -> None:
    """A spectator (no token) following a tournament while registration is open sees no
    sentence; once it is force-ended (called off) its final standings have no rows, and the
    page says why in place of an empty table: live, and when opened afterwards."""
    page = browser.page
    tid = f"off_{uuid.uuid4().hex[:8]}"
    backend = served.backend
    org = backend.issuer.issue("organiser", "*", player="org", ttl=600)
    client = TournamentClient(backend.address("tournament"))
    try:
        await create_with_ann_and_bob(client, org, tid)
        await open_tournament(browser, served, tid)
        await page.wait_for_selector("#tournament[data-status='registration']", timeout=20_000)
        assert await page.is_hidden("#standings-none")
        await client.call("ForceEnd", org, tournament_id=tid, reason="the venue was lost")
        standings = await client.call("GetStandings", tournament_id=tid)
    finally:
        await client.close()
    assert standings.final and list(standings.rows) == []
    for opened in ("live", "afterwards"):
        if opened == "afterwards":
            await open_tournament(browser, served, tid)
        await page.wait_for_selector("#standings-none:visible", timeout=20_000)
        assert await page.is_hidden("#standings"), opened
        assert await page.get_attribute("#standings", "data-final") == "1"
        assert " ".join((await page.text_content("#standings-none") or "").split()) == CALLED_OFF
        assert await page.text_content("#standings-title") == "Standings"
        assert "force ended (the venue was lost)" in (
            await page.text_content("#tournament-meta") or "")
    await browser.screenshot("tournament-called-off")
    sent = [await r.request.all_headers() for r in browser.responses if r.request.method == "POST"]
    assert sent and all("authorization" not in h for h in sent), "a spectator sends no token"
    assert browser.console_errors == []


async def test_the_list_stays_in_place_while_it_is_asked_again(served: Served,
                                                               browser: Browser) -> None:
    """"Refresh" asks ListTournaments first and redraws the list once the answer is there:
    while the answer is held back, every entry stays, scrolled where it was, the followed one
    marked; then the new tournament shows up, the followed one still marked, the scrolling
    and the focus kept."""
    page = browser.page
    tag = uuid.uuid4().hex[:8]
    first, second, newer = f"la_{tag}", f"lb_{tag}", f"lc_{tag}"
    backend = served.backend
    org = backend.issuer.issue("organiser", "*", player="org", ttl=600)
    row = "#tournament-list button[data-tournament-id='{}']".format
    shown = "() => [...document.querySelectorAll('#tournament-list button')].map(b => b.dataset.tournamentId)"
    marked = ("() => [...document.querySelectorAll('#tournament-list button[aria-current=true]')]"
              ".map(b => b.dataset.tournamentId)")
    scrolled = "() => document.getElementById('tournament-list').scrollTop"
    client = TournamentClient(backend.address("tournament"))
    release, held = asyncio.Event(), asyncio.Event()

    async def hold(route: Any) -> None:
        held.set()
        await release.wait()
        await route.continue_()

    try:
        for tid in (first, second):
            await client.call("CreateTournament", org, tournament_id=tid, game=GAME,
                              mode="single", format_json=format_json("swiss", 1))
        await open_tournament(browser, served, first)
        assert await page.evaluate(marked) == [first]
        # a short list, scrolled to its end
        await page.evaluate("""() => { const l = document.getElementById('tournament-list');
            l.style.maxHeight = '60px'; l.scrollTop = l.scrollHeight; }""")
        top = await page.evaluate(scrolled)
        assert top > 0
        before = await page.evaluate(shown)
        assert before[:2] == [second, first] and len(before) < 50
        await client.call("CreateTournament", org, tournament_id=newer, game=GAME,
                          mode="single", format_json=format_json("swiss", 1))
        await page.route("**/ListTournaments", hold)
        await page.click("#refresh-tournaments")
        await asyncio.wait_for(held.wait(), 10)
        await asyncio.sleep(0.5)  # frames drawn while the answer is held back
        assert await page.evaluate(shown) == before, "the entries stay while it is asked"
        assert await page.is_visible(row(first)) and await page.evaluate(marked) == [first]
        assert await page.evaluate(scrolled) == top
        await page.focus(row(first))  # reached with Tab meanwhile, say
        top = await page.evaluate(scrolled)  # scrolled to show it
        release.set()
        await page.wait_for_selector(row(newer), timeout=10_000)
        assert await page.evaluate(shown) == [newer, *before]
        assert await page.evaluate(marked) == [first]
        assert await page.evaluate(scrolled) == top
        assert await page.evaluate("() => document.activeElement.dataset.tournamentId") == first
        await page.unroute("**/ListTournaments")
    finally:
        release.set()
        await client.close()
    assert browser.console_errors == []


class CutStreams:
    """WatchTournament faked in the page (page.route): each stream opened is answered with
    ``frames`` frames of a running tournament and then cut (its body ends without Connect's
    end message, as a proxy's idle timeout cuts it), or, with ``frames`` 0, refused: by the
    gateway, ``unavailable`` (its backend down), or by a proxy in front of it, a page of its
    own with no Connect code (the gateway down)."""

    def __init__(self, frames: int, refusal: str = "gateway") -> None:
        self.frames, self.refusal, self.opened = frames, refusal, 0

    async def __call__(self, route: Any) -> None:
        self.opened += 1
        if not self.frames and self.refusal == "gateway":
            await route.fulfill(status=503, content_type="application/json",
                                body=json.dumps({"code": "unavailable", "message": "down"}))
            return
        if not self.frames:
            await route.fulfill(status=502, content_type="text/html",
                                body="<html><body>502 Bad Gateway</body></html>")
            return
        t = {"tournamentId": "cut_t", "name": f"cut {self.opened}", "game": GAME, "mode": "single",
             "formatJson": format_json("swiss", 9), "status": "TOURNAMENT_STATUS_RUNNING"}
        frame = json.dumps({"tournament": t}).encode()
        body = (bytes([0]) + len(frame).to_bytes(4, "big") + frame) * self.frames
        await route.fulfill(status=200, content_type="application/connect+json", body=body)


async def follow_cut_streams(page: Any, streams: CutStreams, until: int, ms: int) -> None:
    """Follows tournament cut_t with the page's fake clock run on (a second before each
    stream is opened again), until ``until`` streams were opened or ``ms`` went by."""
    await page.route("**/WatchTournament", streams)
    await page.route("**/GetStandings", lambda route: route.fulfill(
        status=200, content_type="application/json", body='{"rows": [], "final": false}'))
    await page.evaluate("() => { import('/static/tournament.js').then((m) => m.follow('cut_t')); }")
    await run_streams_on(page, streams, until, ms)


async def test_a_tournament_is_followed_across_any_number_of_cuts(served: Served,
                                                                  browser: Browser) -> None:
    """A long tournament's stream cut again and again over a day (proxies' idle timeouts):
    each stream that delivered a frame starts the count of failures again, so the page keeps
    following it. Before, it gave up for good at the 22nd cut, frames or not."""
    page = browser.page
    await page.clock.install()
    await page.goto(served.url + "/")
    await page.wait_for_selector("body[data-ready='1']")
    await page.click("#tab-tournament")
    streams = CutStreams(frames=1)
    await follow_cut_streams(page, streams, until=45, ms=120_000)
    assert streams.opened >= 45, (
        f"given up after {streams.opened} streams: {await page.text_content('#status')}")
    shown = int((await page.text_content("#tournament-title") or "").removeprefix("cut "))
    assert shown >= 44, "each stream's frame is drawn"
    assert await page.get_attribute("#tournament", "data-ended") == "0"


class QuietCuts(CutStreams):
    """WatchTournament answered, then quiet for ``open_ms`` (the page's clock moved on while
    the stream is open) and cut with no frame, as a proxy's idle timeout cuts a stream of a
    tournament where nothing happens for a while."""

    def __init__(self, page: Any, open_ms: int) -> None:
        super().__init__(frames=0, refusal="quiet")
        self.page, self.open_ms = page, open_ms

    async def __call__(self, route: Any) -> None:
        self.opened += 1
        await self.page.clock.fast_forward(self.open_ms)
        await route.fulfill(status=200, content_type="application/connect+json", body=b"")


async def test_a_quiet_tournament_stream_is_followed_across_any_number_of_idle_cuts(
        served: Served, browser: Browser) -> None:
    """A stream with nothing to say, cut by a proxy every 30 s (its idle timeout) for longer
    than the page's count of failures allows: a stream that stayed open STEADY_FOR (15 s)
    before its cut is no failure, so the page keeps following it. Before, it gave up at the
    21st cut (every cut counted, with no frame between)."""
    page = browser.page
    await page.clock.install()
    await page.goto(served.url + "/")
    await page.wait_for_selector("body[data-ready='1']")
    await page.click("#tab-tournament")
    streams = QuietCuts(page, open_ms=30_000)
    await follow_cut_streams(page, streams, until=30, ms=120_000)
    assert streams.opened >= 30, (
        f"given up after {streams.opened} streams: {await page.text_content('#status')}")
    assert await page.get_attribute("#tournament", "data-ended") == "0"


@pytest.mark.parametrize("refusal", ["gateway", "proxy"])
async def test_a_tournament_stream_that_never_answers_is_given_up(
    served: Served, browser: Browser, refusal: str
) -> None:
    """A stream that fails with no frame between is tried again every second, and given up
    once it failed 20 times in a row over a minute (common.js's reconnecting, as the live
    viewer's followMatch). A proxy's 502 page is ``unavailable`` (connect.js, from its HTTP
    status as Connect maps it), tried again as the gateway's own is."""
    page = browser.page
    await page.clock.install()
    await page.goto(served.url + "/")
    await page.wait_for_selector("body[data-ready='1']")
    await page.click("#tab-tournament")
    streams = CutStreams(frames=0, refusal=refusal)
    await follow_cut_streams(page, streams, until=1000, ms=200_000)
    assert 21 <= streams.opened <= 70, streams.opened
    assert "unavailable" in (await page.text_content("#status") or "")
