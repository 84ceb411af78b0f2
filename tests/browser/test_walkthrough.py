"""The pages as people use them, in headless Chromium against the real services: a player on
a phone (390 px wide), the seat's own cards of Neon Knights 2086 and Barbaric named in the
game's words, every board's words inside its board, and tables of one tournament told apart
in the spectator's list. No page logs a console error; the seat's page receives nothing its
seat may not see."""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
import pytest_asyncio

from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.genproto.neon.tournament.v1 import tournament_pb2, tournament_pb2_grpc
from services.platform.playing import play_seat, play_table, random_choice
from services.rules.games import available, load_engine
from tests.browser.conftest import Browser, Served, module_fixtures
from tests.browser.leakscan import received_bodies, scan
from tests.browser.pages import open_replay, replay_tab
from tests.browser.seatplay import buttons, export, ready_after
from tests.integration.conftest import make_settings
from tests.support.gateway import backend_and_gateway

pytestmark = [pytest.mark.timeout(240), pytest.mark.asyncio(loop_scope="module")]

browser = module_fixtures("walkthrough")[1]  # a fresh page for each test


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def served(tmp_path_factory: pytest.TempPathFactory, nats_url: str) -> AsyncIterator[Served]:
    """Every game, the tournament service and matchmaking, as a deployment has them (the
    Tournaments and Play tabs ask both), and the gateway in front."""
    settings = make_settings(tmp_path_factory.mktemp("walkthrough"), nats_url)
    async with backend_and_gateway(settings, games=available(), tournament=True,
                                   matchmaking=True) as (backend, gateway):
        yield Served(backend, gateway)

PHONE = {"width": 390, "height": 844}


def two_seat_mode(game: str) -> str:
    return next(name for name, mode in load_engine(game).modes().items()
                if mode.min_seats <= 2 <= mode.max_seats)


async def create(served: Served, game: str, match_id: str = "") -> tuple[Any, Any, str, dict[int, str]]:
    channel = grpc.aio.insecure_channel(served.backend.address(f"rules-{game}"))
    stub = rules_pb2_grpc.RulesServiceStub(channel)
    organiser = [("authorization", f"Bearer {served.backend.organiser_token()}")]
    created = await stub.CreateMatch(rules_pb2.CreateMatchRequest(
        match_id=match_id or f"walk-{uuid.uuid4().hex[:10]}", mode=two_seat_mode(game), seats=2,
        dev_seed=f"walkthrough-{game}"), metadata=organiser, timeout=10)
    return channel, stub, created.match_id, {t.seat: t.token for t in created.seat_tokens}


async def sideways(page: Any) -> dict[str, int]:
    """How far the page reaches past the window's width (0: nothing to scroll sideways to)."""
    return dict(await page.evaluate(
        "() => ({ page: document.documentElement.scrollWidth - document.documentElement.clientWidth,"
        "         window: window.innerWidth })"))


async def test_a_phone_shows_every_tab_without_sideways_scrolling(served: Served, browser: Browser) -> None:
    """At 390 px the three columns (list, match, events) made the page about 750 px wide (the
    tournament's about 1000): a phone showed a sliver of the board and scrolled sideways."""
    game = "neon-knights-2086"
    channel, stub, match_id, tokens = await create(served, game)
    bot = asyncio.create_task(play_seat(stub, tokens[1], match_id, random_choice(game), seat=1))
    try:
        page = browser.page
        await page.set_viewport_size(PHONE)
        await page.goto(f"{served.url}/?game={game}&match={match_id}")
        await page.wait_for_selector("body[data-ready='1']")
        await page.wait_for_selector(f"#board svg[data-game='{game}']")
        await browser.screenshot("phone-live")
        assert await sideways(page) == {"page": 0, "window": 390}, "the live tab"
        await page.click("#tab-tournament")
        await page.wait_for_selector("#tournament:visible")
        assert (await sideways(page))["page"] == 0, "the tournament tab"
        await page.click("#tab-play")
        await page.select_option("#play-game", game)
        await page.fill("#play-match", match_id)
        await page.fill("#play-token", tokens[0])
        await page.click("#play-open")
        await ready_after(page, None)
        await browser.screenshot("phone-play")
        assert (await sideways(page))["page"] == 0, "the play tab"
        width = await page.evaluate(
            "() => document.querySelector('#play-board svg').getBoundingClientRect().width")
        assert width > 300, "the board takes the phone's width"
        assert browser.console_errors == []
    finally:
        bot.cancel()
        await asyncio.gather(bot, return_exceptions=True)
        await channel.close()


ID_LIKE = {
    "neon-knights-2086": re.compile(r"\b[ib]-?[a-z_]*-\d|\bb\d\d\b"),  # i-accel-1, b15
    "barbaric": re.compile(r"[a-z]+-[a-z-]+/\d"),  # pia-pickpocket/1
}


@pytest.mark.parametrize("game", ["neon-knights-2086", "barbaric"])
async def test_the_seats_own_cards_are_named_in_the_games_words(
        served: Served, browser: Browser, game: str) -> None:
    """"Only you see" listed Neon Knights 2086's implants and bets and Barbaric's skill cards
    by their ids (i-accel-1, b15, pia-pickpocket/1): their names are in the game's content as
    lists (and Barbaric's deep in each character), which only a table of names was looked in."""
    channel, stub, match_id, tokens = await create(served, game)
    bot = asyncio.create_task(play_seat(stub, tokens[1], match_id, random_choice(game), seat=1))
    page = browser.page
    try:
        await page.goto(f"{served.url}/?game={game}&match={match_id}&play")
        await page.wait_for_selector("body[data-ready='1']")
        await page.fill("#play-token", tokens[0])
        await page.click("#play-open")
        last: str | None = None
        shown: list[str] = []
        for _ in range(12):  # Barbaric's hand is chosen card by card first
            version = await ready_after(page, last)
            if version == "ended":
                break
            shown = await page.eval_on_selector_all("#play-private li", "ls => ls.map(l => l.textContent)")
            if any("hand" in line and "nothing" not in line for line in shown):
                break
            owed = [b for b in (await buttons(page))["buttons"] if not b["standing"]]
            await page.click(f"#play-actions button[data-decision='{owed[0]['decision']}']"
                             f"[data-index='{owed[0]['index']}']")
            last = version
        await browser.screenshot(f"own-cards-{game}")
        assert shown, "the seat's own cards are listed"
        assert not [line for line in shown if ID_LIKE[game].search(line)], shown
        if game == "barbaric":
            assert any(re.search(r"hand: [A-Z]{3,}", line) for line in shown), shown
        else:
            assert any(re.search(r"(packet|implant hand): [A-Z][a-z]+ L\d", line) for line in shown), shown
        bot.cancel()
        await asyncio.gather(bot, return_exceptions=True)
        await stub.AbandonMatch(rules_pb2.AbandonMatchRequest(match_id=match_id, reason="test over"),
                                metadata=[("authorization", f"Bearer {served.backend.organiser_token()}")])
        await page.wait_for_selector("#play-actions[data-state='ended']", state="attached",
                                     timeout=30_000)
        leaks, checked = scan(await received_bodies(browser), await export(served, stub, match_id), viewer=0)
        assert leaks == [] and checked
        assert browser.console_errors == []
    finally:
        bot.cancel()
        await asyncio.gather(bot, return_exceptions=True)
        await channel.close()


@pytest.mark.parametrize("game", available())
async def test_every_boards_words_fit_inside_it(served: Served, browser: Browser, game: str) -> None:
    """Barbaric's line of each seat's damage and resources ran past the right edge of its board
    ("… fuel 0 scr"): the board's words are all inside it, at each step of a replay."""
    channel, stub, match_id, tokens = await create(served, game)
    try:
        assert await play_table(stub, match_id, tokens, random_choice(game)) is not None
        await export(served, stub, match_id)
        page = browser.page
        await open_replay(page, served.url, game, match_id)
        await page.wait_for_selector("#step-label[data-n='1']")  # the first frame: no board yet
        frames = int((await page.text_content("#step-label") or "").split(" of ")[1].split(":")[0])
        outside: list[str] = []
        drawn = 0
        for n in range(1, frames + 1, max(1, frames // 12)):
            await page.wait_for_function("n => +document.querySelector('#step-label').dataset.n === n", arg=n)
            outside += await page.evaluate(
                """() => {
                     const svg = document.querySelector('#replay-board svg');
                     if (!svg) return [];
                     const width = svg.viewBox.baseVal.width;
                     return [...svg.querySelectorAll('text')].filter((t) => {
                       const box = t.getBBox();
                       let x = box.x, node = t.parentNode;
                       for (; node !== svg; node = node.parentNode) {
                         const m = node.transform && node.transform.baseVal.consolidate();
                         if (m) x += m.matrix.e;
                       }
                       return x + box.width > width + 1;
                     }).map((t) => t.textContent);
                   }""")
            drawn += await page.locator("#replay-board svg").count()
            # the steps between two looked at, pressed in one round trip (a frame each)
            await page.evaluate("k => { for (let i = 0; i < k; i++) "
                                "document.querySelector('#step-next').click(); }",
                                max(1, frames // 12))
        await browser.screenshot(f"board-words-{game}")
        assert drawn >= 6, "the board was drawn at most steps"
        assert outside == [], sorted(set(outside))[:5]
        assert browser.console_errors == []
    finally:
        await channel.close()


async def test_tables_of_one_tournament_are_told_apart_in_the_match_list(
        served: Served, browser: Browser) -> None:
    """The list showed each match id's first eight characters: a tournament's tables
    (cup_3f2a9c-r1-t1, cup_3f2a9c-r1-t2) were two buttons both reading "cup_3f2a"; and one
    match was "1 matches"."""
    game = "neon-reign"
    stem = f"cup_{uuid.uuid4().hex[:6]}-r1-t"
    made = [await create(served, game, stem + "1"), await create(served, game, stem + "2")]
    try:
        page = browser.page
        await page.goto(f"{served.url}/?game={game}")
        await page.wait_for_selector("body[data-ready='1']")
        for _, _, match_id, _ in made:
            text = await page.text_content(f"#match-list button[data-match-id='{match_id}']")
            assert text and match_id in text, text
        count = await page.locator("#match-list button").count()
        said = await page.text_content("#status")
        assert said == f"{count} match{'' if count == 1 else 'es'} of {game}", said
        await page.set_viewport_size(PHONE)
        assert (await sideways(page))["page"] == 0
        await browser.screenshot("match-list-tables")
        assert browser.console_errors == []
    finally:
        for channel, *_ in made:
            await channel.close()


async def test_one_match_is_one_match(served: Served, browser: Browser) -> None:
    """"1 matches of barbaric" in the header when a game has one match."""
    game = "barbaric"
    channel, stub, match_id, _ = await create(served, game)
    try:
        page = browser.page
        await page.route(f"**/games/{game}/neon.rules.v1.RulesService/ListMatches",
                         lambda route: route.fulfill(
                             status=200, content_type="application/json",
                             body=json.dumps({"matches": [{"matchId": match_id, "mode": "competitive",
                                                           "seats": 2, "status": "MATCH_STATUS_RUNNING",
                                                           "version": "2"}]})))
        await page.goto(f"{served.url}/?game={game}")
        await page.wait_for_selector("body[data-ready='1']")
        assert await page.text_content("#status") == f"1 match of {game}"
        assert browser.console_errors == []
    finally:
        await channel.close()


async def test_the_replay_fields_stay_in_their_column(served: Served, browser: Browser) -> None:
    """The Replay tab's match id field (34 characters wide) and file field ran out of the
    250 px column on the left, over the board."""
    page = browser.page
    await replay_tab(page, served.url)
    edges = await page.evaluate(
        """() => {
             const column = document.querySelector('#replay .picker').getBoundingClientRect().right;
             return [...document.querySelectorAll('#replay .picker input, #replay .picker select,'
                                                   + ' #replay .picker button')]
               .filter((f) => f.getBoundingClientRect().right > column + 0.5).map((f) => f.id);
           }""")
    await browser.screenshot("replay-fields")
    assert edges == []
    assert browser.console_errors == []


async def test_a_move_sent_while_the_network_is_down_can_be_made_again(
        served: Served, browser: Browser) -> None:
    """A player's Wi-Fi drops as they click: the move is not sent, the page says the service
    does not answer and "Try again in a moment", but its buttons stayed disabled ("sending")
    for good once the network was back, as nothing loaded the position again (the other seat
    waited for this one, so no event came): only a reload let the person play on."""
    game = "neon-knights-2086"  # the draft: seat 0 owes a pick whatever seat 1 does
    channel, stub, match_id, tokens = await create(served, game)
    page = browser.page
    try:
        await page.goto(f"{served.url}/?game={game}&match={match_id}&play")
        await page.wait_for_selector("body[data-ready='1']")
        await page.fill("#play-token", tokens[0])
        await page.click("#play-open")
        version = await ready_after(page, None)
        await page.context.set_offline(True)
        await page.click("#play-actions .decision:not(.standing) button.action")
        await page.wait_for_selector("#play-message[data-code='unavailable']", timeout=10_000)
        assert "Try again in a moment" in (await page.text_content("#play-message") or "")
        await browser.screenshot("offline-move")
        await page.context.set_offline(False)
        # the position is loaded again by itself: the same choices, clickable, the message gone
        await page.wait_for_selector(f"#play-actions[data-state='ready'][data-version='{version}']",
                                     timeout=15_000)
        assert await page.is_hidden("#play-message")
        await page.click("#play-actions .decision:not(.standing) button.action")
        await page.wait_for_function(
            "v => document.querySelector('#play-actions').dataset.version !== v", arg=version,
            timeout=15_000)
        view = await stub.GetView(rules_pb2.GetViewRequest(match_id=match_id), timeout=10)
        assert int(view.version) > int(version), "the move was made"
        assert all(e.startswith("Failed to load resource: net::ERR_INTERNET_DISCONNECTED")
                   for e in browser.console_errors), browser.console_errors
    finally:
        await page.context.set_offline(False)
        await channel.close()


async def test_the_desk_says_a_finished_tournament_was_played(served: Served, browser: Browser) -> None:
    """Once a tournament was finished the desk still read "… is finished (check-in is over):
    4 playing", as while it ran."""
    page = browser.page
    await page.goto(f"{served.url}/")
    await page.wait_for_selector("body[data-ready='1']")
    players = [{"playerId": p, "status": s} for p, s in
               [("ann", "playing"), ("bob", "playing"), ("cat", "dropped"), ("dan", "registered")]]
    lines = await page.evaluate(
        """async (players) => {
             const { deskLine } = await import('/static/desk.js');
             return ['RUNNING', 'FINISHED', 'FORCE_ENDED'].map((s) => deskLine(
               { tournamentId: 'cup', status: `TOURNAMENT_STATUS_${s}`, players }));
           }""", players)
    assert lines == [
        "cup is running (check-in is over): 2 playing, 1 dropped, 1 registered but not playing: dan",
        "cup is finished: 2 played to the end, 1 dropped, 1 registered but left out at the start: dan",
        "cup is force ended: 2 played to the end, 1 dropped, 1 registered but left out at the start: dan",
    ]
    assert browser.console_errors == []


async def test_a_replay_that_cannot_open_says_why_where_the_replay_was(
        served: Served, browser: Browser) -> None:
    """Opening a replay that the gateway refused (an unknown or still running match) only
    changed the small status line in the corner: the replay opened before stayed on the tab,
    "Verified: every check passed" and its board, as if it were the match asked for."""
    game = "neon-reign"
    channel, stub, finished, tokens = await create(served, game)
    running = (await create(served, game))[2]
    try:
        assert await play_table(stub, finished, tokens, random_choice(game)) is not None
        await export(served, stub, finished)
        page = browser.page
        await open_replay(page, served.url, game, finished)
        await page.wait_for_selector("#verify-ok")
        for asked, why in [(running, "the match is not over"), ("no-such-match", "no match 'no-such-match'")]:
            await page.fill("#replay-match", asked)
            await page.click("#replay-open")
            await page.wait_for_function(
                "a => (document.querySelector('#verify-failure')?.textContent || '').includes(a)",
                arg=f"The replay of {asked} ")
            said = await page.text_content("#verification") or ""
            assert said.startswith(f"The replay of {asked} did not open: ") and why in said, said
            assert await page.locator("#replay-board *").count() == 0
            assert await page.text_content("#step-label") == "no replay open"
            assert await page.is_hidden("#replay-outcome")
            await page.click("#step-last")  # nothing to step through
            assert await page.locator("#replay-board *").count() == 0
        await browser.screenshot("replay-refused")
        assert all(e.startswith("Failed to load resource") and (" 400 " in e or " 404 " in e)
                   for e in browser.console_errors), browser.console_errors
    finally:
        await channel.close()


async def test_on_a_phone_the_match_comes_into_view_when_play_starts(
        served: Served, browser: Browser) -> None:
    """On a phone the token form fills the first screens: pressing "Play this seat" drew the
    match a thousand pixels further down and nothing changed in view, as if the button did
    nothing."""
    game = "neon-reign"
    channel, _, match_id, tokens = await create(served, game)
    try:
        page = browser.page
        await page.set_viewport_size(PHONE)
        await page.goto(f"{served.url}/?game={game}&match={match_id}&play")
        await page.wait_for_selector("body[data-ready='1']")
        await page.fill("#play-token", tokens[0])
        await page.click("#play-open")
        await ready_after(page, None)
        top = await page.evaluate("() => document.querySelector('#play-title').getBoundingClientRect().top")
        assert 0 <= top < PHONE["height"] / 2, top
        await browser.screenshot("phone-play-started")
        assert browser.console_errors == []
    finally:
        await channel.close()


async def test_on_a_phone_a_match_picked_from_the_list_comes_into_view(
        served: Served, browser: Browser) -> None:
    """On a phone the match list fills the first screens: a match picked from it was drawn
    below the list, out of view, as if the button did nothing."""
    game = "neon"
    made = [await create(served, game) for _ in range(12)]  # a list longer than the screen
    try:
        page = browser.page
        await page.set_viewport_size(PHONE)
        await page.goto(f"{served.url}/?game={game}")
        await page.wait_for_selector("body[data-ready='1']")
        picked = made[-1][2]
        await page.click(f"#match-list button[data-match-id='{picked}']")
        await page.wait_for_selector(f"#board svg[data-game='{game}']")
        await page.wait_for_function(
            "() => { const t = document.querySelector('#match-title').getBoundingClientRect().top;"
            "        return t >= 0 && t < innerHeight / 2; }", timeout=5_000)
        assert picked in (await page.text_content("#match-title") or "")
        await browser.screenshot("phone-live-picked")
        assert browser.console_errors == []
    finally:
        for channel, *_ in made:
            await channel.close()


async def test_a_link_to_no_match_says_so(served: Served, browser: Browser) -> None:
    """A shared link with a mistyped match id (or another game's) showed the match's title
    over an empty board, only the corner's status line saying "stream: not_found"."""
    page = browser.page
    await page.goto(f"{served.url}/?game=neon-reign&match=no-such-match")
    await page.wait_for_selector("body[data-ready='1']")
    await page.wait_for_selector("#outcome[data-code='not_found']:visible", timeout=10_000)
    said = await page.text_content("#outcome")
    assert said == ("There is no match no-such-match of neon-reign here (NOT_FOUND: no match "
                    "'no-such-match'): check the link's match id and game."), said
    await browser.screenshot("live-no-such-match")
    assert all(e.startswith("Failed to load resource") and " 404 " in e
               for e in browser.console_errors), browser.console_errors


async def test_a_pick_clicked_just_after_another_seats_pick_is_sent_again_while_still_open(
        served: Served, browser: Browser) -> None:
    """Neon Knights 2086's draft: every seat picks at once. Seat 1 (a bot, which answers at
    once) picks between the page's drawing of seat 0's choices and the person's click: the
    click's expected version is one behind and the rules service refuses it ABORTED. The pick
    is still open to seat 0 at the new version, so the page sends it again there, once, and
    the move is made. Before, the page said the match moved on and the person picked again."""
    game = "neon-knights-2086"
    channel, stub, match_id, tokens = await create(served, game)
    seat1 = [("authorization", f"Bearer {tokens[1]}")]
    sent: list[dict[str, Any]] = []

    async def bot_picks_first(route: Any) -> None:
        sent.append(json.loads(route.request.post_data or "{}"))
        if len(sent) == 1:  # the race: the bot's pick lands before the page's first move
            legal = await stub.ListLegalActions(rules_pb2.ListLegalActionsRequest(match_id=match_id),
                                                metadata=seat1, timeout=10)
            owed = next(d for d in legal.decisions if not d.standing and d.legal_json)
            await stub.SubmitAction(rules_pb2.SubmitActionRequest(
                match_id=match_id, command_id="bot-pick", action_json=owed.legal_json[0],
                expected_version=legal.version), metadata=seat1, timeout=10)
        await route.continue_()

    page = browser.page
    try:
        await page.route("**/SubmitAction", bot_picks_first)
        await page.goto(f"{served.url}/?game={game}&match={match_id}&play")
        await page.wait_for_selector("body[data-ready='1']")
        await page.fill("#play-token", tokens[0])
        await page.click("#play-open")
        version = await ready_after(page, None)
        await page.click("#play-actions .decision:not(.standing) button.action")
        await page.wait_for_function(
            "v => { const box = document.querySelector('#play-actions');"
            "       return box.dataset.state !== 'sending' && +box.dataset.version > +v; }",
            arg=version, timeout=15_000)
        view = await stub.GetView(rules_pb2.GetViewRequest(match_id=match_id), timeout=10)
        assert int(view.version) == int(version) + 2, "the bot's pick and the page's were both made"
        assert [s["actionJson"] for s in sent] == [sent[0]["actionJson"]] * 2, sent
        assert [int(s["expectedVersion"]) for s in sent] == [int(version), int(version) + 1]
        assert len({s["commandId"] for s in sent}) == 2
        assert await page.is_hidden("#play-message"), await page.text_content("#play-message")
        assert all(e.startswith("Failed to load resource") and " 409 " in e
                   for e in browser.console_errors), browser.console_errors
    finally:
        await channel.close()


async def test_each_tab_keeps_its_own_status_line(served: Served, browser: Browser) -> None:
    """The header's status line was one for every tab: the live tab's "3 matches of
    neon-reign" read on the Replay tab, the Tournaments tab's count on the live one."""
    game = "neon-reign"
    page = browser.page
    await page.goto(f"{served.url}/?game={game}")
    await page.wait_for_selector("body[data-ready='1']")
    live = await page.text_content("#status") or ""
    assert live.endswith(f" of {game}"), live
    await page.click("#tab-tournament")
    await page.wait_for_function("() => /tournament/.test(document.querySelector('#status').textContent)")
    tournaments = await page.text_content("#status")
    for tab, said in (("replay", ""), ("play", ""), ("live", live), ("tournament", tournaments)):
        await page.click(f"#tab-{tab}")
        assert await page.text_content("#status") == said, tab
        assert await page.get_attribute("#status", "data-view") == tab
    await page.click("#tab-replay")
    await page.click("#replay-open")  # no match id: the Replay tab says so, on its own line
    assert await page.text_content("#status") == "enter a finished match id"
    await page.click("#tab-live")
    assert await page.text_content("#status") == live
    await page.click("#tab-replay")
    assert await page.text_content("#status") == "enter a finished match id"
    assert browser.console_errors == []


async def test_find_a_match_starts_on_the_game_the_address_names(served: Served, browser: Browser) -> None:
    """/?game=barbaric opened the Play tab's "Find a match" (and the Replay tab) on the first
    game of the list, whichever game the address named; a game not served left the live
    tab's list empty without a word."""
    page = browser.page
    await page.goto(f"{served.url}/")
    await page.wait_for_selector("body[data-ready='1']")
    games = await page.eval_on_selector_all("#mm-game option", "os => os.map(o => o.value)")
    assert len(games) >= 2 and sorted(games) == sorted(available())
    game = games[-1]  # not the one a select starts on by itself
    await page.goto(f"{served.url}/?game={game}")
    await page.wait_for_selector("body[data-ready='1']")
    await page.click("#tab-play")
    assert await page.input_value("#mm-game") == game
    modes = sorted(load_engine(game).modes())
    await page.wait_for_function(
        "want => JSON.stringify([...document.querySelectorAll('#mm-mode option')].map(o => o.value).sort())"
        " === JSON.stringify(want)", arg=modes)
    assert await page.input_value("#replay-game") == game
    # a game not served: the lists' first, and the live tab says so (it listed nothing, and
    # said nothing, before), nor follows the match the address names in a game it is not of
    await page.goto(f"{served.url}/?game=no-such-game&match=m-1")
    await page.wait_for_selector("body[data-ready='1']")
    assert await page.input_value("#mm-game") == games[0]
    assert await page.input_value("#game-select") == games[0]
    said = await page.text_content("#status") or ""
    assert said.startswith("“no-such-game” is not a game this server serves"), said
    assert all(g in said for g in games), said
    assert await page.locator("#board svg").count() == 0
    assert browser.console_errors == []


async def test_with_no_tournaments_yet_the_lists_say_so_and_the_page_stays_usable(
        served: Served, browser: Browser) -> None:
    """With no tournament yet, the Play tab's tournament picker was an empty box and "Go to my
    table" said "Pick a tournament first." of a list with nothing to pick; the Tournaments
    tab's list was empty. This module's backend holds no tournament (no test of it makes one)."""
    async with grpc.aio.insecure_channel(served.backend.address("tournament")) as channel:
        listed = await tournament_pb2_grpc.TournamentServiceStub(channel).ListTournaments(
            tournament_pb2.ListTournamentsRequest(), timeout=10)
    assert list(listed.tournaments) == []
    page = browser.page
    await page.goto(f"{served.url}/?game=neon-reign")
    await page.wait_for_selector("body[data-ready='1']")
    await page.click("#tab-play")
    await page.wait_for_selector("#player-tournament option[data-none='1']", state="attached",
                                 timeout=10_000)
    options = await page.eval_on_selector_all("#player-tournament option", "os => os.map(o => [o.value, o.textContent])")
    assert options == [["", "no tournaments yet"]]
    await page.fill("#player-token", served.backend.issuer.issue_player("ann"))
    await page.click("#player-follow")
    said = await page.text_content("#play-message") or ""
    assert said.startswith("No tournaments yet") and "Find a match" in said, said
    assert await page.is_hidden("#player-status"), "no tournament was followed"
    await page.click("#player-refresh")  # asked again: still none, still said so
    await page.wait_for_selector("#player-tournament option[data-none='1']", state="attached")
    assert await page.input_value("#mm-game") == "neon-reign" and await page.is_enabled("#mm-queue")
    await page.wait_for_selector("#mm-mode option", state="attached")
    await browser.screenshot("play-no-tournaments")
    await page.click("#tab-tournament")
    await page.wait_for_selector("#tournament-list li.none")
    assert (await page.text_content("#tournament-list") or "").startswith("No tournaments yet")
    assert await page.locator("#tournament-list button").count() == 0
    assert await page.text_content("#status") == "no tournaments yet"
    assert browser.console_errors == []
