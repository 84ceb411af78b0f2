"""Organisers in matchmaking (matchmaker.py, "Organisers"), on the matchmaker itself (SQLite
store, a rules service that records what it is asked): who is shown a ticket's seat tokens,
which organisers a ticket records as having acted for its players (kept across a restart), and
what matchmaking tells the rules service when it creates their match."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from services.matchmaking import events
from services.matchmaking.app import MatchmakingApplication
from services.matchmaking.catalogue import Catalogue, GameSpec, ModeSpec
from services.matchmaking.config import config_from_env
from services.matchmaking.grouping import Policy
from services.matchmaking.matchmaker import Config, Matchmaker, organiser_acting, shown_to
from services.matchmaking.ratings import StaticRatings
from services.matchmaking.requests import TicketRequest
from services.platform.tokens import Claims, TokenIssuer

SECRET = b"s" * 32


def org(name: str) -> Claims:
    return Claims(role="organiser", match="*", player=name, exp=2**40)


def player(name: str, minted_by: str | None = None) -> Claims:
    return Claims(role="player", match="*", player=name, exp=2**40, minted_by=minted_by)


SERVICE = Claims(role="service", match="*", player="matchmaking", exp=2**40)


class Rules:
    """Creates every match it is asked for, and keeps what it was asked."""

    def __init__(self) -> None:
        self.asked: list[dict[str, Any]] = []

    def address(self, game: str) -> str:
        return ""

    async def create_match(self, game: str, match_id: str, mode: str, players: list[str],
                           teams: list[list[int]],
                           on_behalf_of_organiser: str | None = None,
                           await_client_seeds: bool = False) -> dict[int, str]:
        self.asked.append({"match_id": match_id, "players": players,
                           "on_behalf_of_organiser": on_behalf_of_organiser})
        return {seat: f"token-{match_id}-{seat}" for seat in range(len(players))}

    async def start_match(self, game: str, match_id: str) -> None:
        return None


async def opened(path: Path, rules: Rules, trust_minted_tokens: bool = False) -> Matchmaker:
    app = MatchmakingApplication(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                                      "SQLITE_DBNAME": str(path)})
    catalogue = Catalogue()
    catalogue.register(GameSpec("toy", (ModeSpec("race", 2, 2),)))
    config = Config(policy=Policy(partial_after=0, backfill_after=1e9),
                    trust_minted_tokens=trust_minted_tokens)
    mm = Matchmaker(app, rules, StaticRatings({}), config, catalogue)  # type: ignore[arg-type]
    await mm.recover()
    return mm


async def queue(mm: Matchmaker, by: Claims, ticket_id: str, *players: str) -> None:
    await mm.create_ticket(by, TicketRequest(ticket_id, "toy", players=players))


async def matched(mm: Matchmaker, *accepts: tuple[Claims, str]) -> None:
    """One cycle proposes; each (caller, ticket) accepts; the next cycle creates the match."""
    await mm.cycle()
    for caller, ticket_id in accepts:
        match_id = mm.tickets[ticket_id].proposal["match_id"]  # type: ignore[index]
        await mm.accept_match(caller, ticket_id, match_id)
    await mm.cycle()
    await mm.drain()


def test_an_organiser_acts_with_its_own_token_or_a_player_token_it_minted() -> None:
    assert organiser_acting(org("olga"), trust_minted_tokens=False) == "olga"
    assert organiser_acting(org("olga"), trust_minted_tokens=True) == "olga"
    assert organiser_acting(player("ann", minted_by="olga"), trust_minted_tokens=False) == "olga"
    assert organiser_acting(player("ann", minted_by=""), trust_minted_tokens=False) == ""
    assert organiser_acting(player("ann", minted_by="olga"), trust_minted_tokens=True) is None
    assert organiser_acting(player("ann"), trust_minted_tokens=False) is None
    assert organiser_acting(SERVICE, trust_minted_tokens=False) is None


def test_minted_tokens_name_their_organiser_and_no_other_token_changes() -> None:
    issuer = TokenIssuer(SECRET, external=None)
    assert issuer.verify(issuer.issue_player("ann", minted_by="olga")).minted_by == "olga"
    assert issuer.verify(issuer.issue_player("ann", minted_by="")).minted_by == ""
    plain = issuer.issue_player("ann")
    assert issuer.verify(plain).minted_by is None
    body = plain.split(".")[1]
    assert "minted_by" not in json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    assert config_from_env({}).trust_minted_tokens is False
    assert config_from_env({"NEON_MATCHMAKING_TRUST_MINTED_TOKENS": "1"}).trust_minted_tokens


def view(queued_by: str) -> dict[str, Any]:
    return {"ticket_id": "t", "declined": [], "queued_by": queued_by, "assignment": {
        "match_id": "m", "seats": [{"seat": 0, "player": "ann", "token": "tok-ann"},
                                   {"seat": 1, "player": "bob", "token": "tok-bob"}]}}


def shown(caller: Claims, queued_by: str) -> dict[str, str]:
    return {s["player"]: s["token"] for s in shown_to(caller, view(queued_by))["assignment"]["seats"]}


def test_seat_tokens_go_to_the_seats_player_or_whoever_queued_the_ticket() -> None:
    both = {"ann": "tok-ann", "bob": "tok-bob"}
    none = {"ann": "", "bob": ""}
    assert shown(org("olga"), "organiser:olga") == both
    assert shown(org("oscar"), "organiser:olga") == none, "another organiser"
    assert shown(org("olga"), "player:ann") == none, "players queued it"
    assert shown(SERVICE, "service:matchmaking") == both
    assert shown(SERVICE, "player:ann") == none
    assert shown(SERVICE, "organiser:matchmaking") == none, "the role is part of who"
    assert shown(player("ann"), "organiser:olga") == {"ann": "tok-ann", "bob": ""}
    assert shown(player("bob", minted_by="olga"), "player:ann") == {"ann": "", "bob": "tok-bob"}


async def test_the_organisers_who_acted_are_told_to_the_rules_service(tmp_path: Path) -> None:
    """Per match: players alone (none), an organiser's ticket, an organiser accepting for
    players who queued themselves, and a minted token (both organisers, sorted, joined)."""
    rules = Rules()
    mm = await opened(tmp_path / "mm.db", rules)
    await queue(mm, player("ann"), "t-ann", "ann")
    await queue(mm, player("bob"), "t-bob", "bob")
    await matched(mm, (player("ann"), "t-ann"), (player("bob"), "t-bob"))
    await queue(mm, org("olga"), "t-olga", "cy", "dee")
    await matched(mm, (org("olga"), "t-olga"))
    await queue(mm, player("eve"), "t-eve", "eve")
    await queue(mm, player("fay"), "t-fay", "fay")
    await matched(mm, (player("eve"), "t-eve"), (org("oscar"), "t-fay"))
    await queue(mm, player("gil", minted_by="olga"), "t-gil", "gil")
    await queue(mm, org("oscar"), "t-hal", "hal")
    await matched(mm, (player("gil", minted_by="olga"), "t-gil"), (org("oscar"), "t-hal"))
    asked = {tuple(sorted(a["players"])): a["on_behalf_of_organiser"] for a in rules.asked}
    assert asked == {("ann", "bob"): None, ("cy", "dee"): "olga", ("eve", "fay"): "oscar",
                     ("gil", "hal"): "olga\noscar"}
    mm.app.close()


async def test_an_organisers_accept_is_kept_across_a_restart_and_not_published(
        tmp_path: Path) -> None:
    """oscar accepts for fay while eve has not accepted yet; the matchmaker restarts; eve
    accepts: the match is still oscar's. The ActedFor event goes out on no NATS subject."""
    rules = Rules()
    mm = await opened(tmp_path / "mm.db", rules)
    await queue(mm, player("eve"), "t-eve", "eve")
    await queue(mm, player("fay", minted_by="olga"), "t-fay", "fay")
    await mm.cycle()
    match_id = mm.tickets["t-fay"].proposal["match_id"]  # type: ignore[index]
    await mm.accept_match(org("oscar"), "t-fay", match_id)
    assert mm.tickets["t-fay"].organisers == ("olga", "oscar")
    mm.app.close()
    again = await opened(tmp_path / "mm.db", rules)
    assert again.tickets["t-fay"].organisers == ("olga", "oscar")
    assert again.tickets["t-eve"].organisers == ()
    await again.accept_match(player("eve"), "t-eve", match_id)
    await again.cycle()
    await again.drain()
    assert [a["on_behalf_of_organiser"] for a in rules.asked] == ["olga\noscar"]
    stored = again.app.recorder.select_notifications(1, 100)
    kinds = [n.topic.rsplit(".", 1)[-1] for n in stored]
    assert kinds.count("ActedFor") == 2
    published = [m for n in stored for m in events.project(again.app.mapper.to_domain_event(n))]
    assert published and not any("ActedFor" in p["type"] for _, p in published)
    again.app.close()


async def test_a_trusted_minted_token_is_the_players_own(tmp_path: Path) -> None:
    rules = Rules()
    mm = await opened(tmp_path / "mm.db", rules, trust_minted_tokens=True)
    await queue(mm, player("gil", minted_by="olga"), "t-gil", "gil")
    await queue(mm, player("hal", minted_by="olga"), "t-hal", "hal")
    await matched(mm, (player("gil", minted_by="olga"), "t-gil"),
                  (player("hal", minted_by="olga"), "t-hal"))
    assert [a["on_behalf_of_organiser"] for a in rules.asked] == [None]
    mm.app.close()


def test_organisers_without_a_name_are_left_out_of_the_line_list() -> None:
    from services.matchmaking.matchmaker import on_behalf

    assert on_behalf([]) is None  # no organiser: matchmaking's own match
    assert on_behalf(["olga"]) == "olga"
    assert on_behalf(["", "olga", "oscar"]) == "olga\noscar"  # not names ["", "olga", ...]
    assert on_behalf([""]) == ""  # still an organiser's match (unrated), with no name
