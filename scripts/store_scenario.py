"""The scenario of ``scripts/make_store_fixture.py``: run in a child process whose PYTHONPATH
is an EARLIER release's tree, against that release's ``neon up``, with that release's own
client code (``services.cli``), so the stores hold what that release wrote.

Usage (the fixture script runs it): ``python store_scenario.py MANIFEST`` with the backend's
``NEON_VAR_DIR`` and ``NEON_*_PORT`` in the environment. It leaves the deployment mid-life:

- a finished (sealed) match of Neon Reign and one of NEON, bots only;
- a Neon Reign match in progress between two people (some actions played, not ended);
- a Swiss tournament of Neon Reign, 5 players, 2 rounds: round 1 played (results, checkpoint
  signed), round 2 paired with its matches created and started (every seat checked in, no
  action played); if the release has AbandonMatch, table 1's round-2 match abandoned;
- a finished Swiss of 16 bots over 4 rounds, past 200 events: a Tournament snapshot;
- ratings in scoring from 8 simulated players through matchmaking (``neon simulate``'s run);
- a matchmaking ticket still waiting (a player who does not accept bots, alone in a mode).

and writes MANIFEST (JSON) saying what it made. Only the release's own modules are imported
(no module of the current tree), so this file must keep to what every supported release has.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from services.cli.client import RulesClient
from services.cli.play import play_match
from services.cli.tournament_commands import (
    TournamentClient,
    format_json,
    play_round_as,
    wait_round_complete,
)
from services.platform.keys import load_keys
from services.platform.settings import load
from services.platform.tokens import TokenIssuer

TOURNAMENT = "fx_swiss"
PLAYERS = ["fx-ann", "fx-ben", "fx-cal", "fx-dee", "fx-eve"]
LIVE_PLAYERS = ["fx-liv", "fx-max"]
LIVE_ACTIONS = 6
WAITER = "fx-waiter"


class Enough(Exception):
    """Stops the in-progress match after its first actions."""


async def export_facts(client: RulesClient, organiser: str, match_id: str) -> dict[str, Any]:
    reply = await client.export(organiser, match_id)
    lines = [json.loads(x) for x in reply.export_jsonl.splitlines() if x.strip()]
    records = [x for x in lines if "hash" in x and "match_id" in x]
    return {"match_id": match_id, "final_hash": records[-1]["hash"],
            "event_count": int(reply.event_count), "records": len(records)}


async def finished_match(settings: Any, service: str, organiser: str, game: str,
                         match_id: str) -> dict[str, Any]:
    client = RulesClient(settings.address(f"rules-{game}"), timeout=30)
    try:
        info = await client.info()
        mode = info.modes[0]
        result = await play_match(client, service, mode=mode.name,
                                  seats=["random"] * mode.min_seats, match_id=match_id, game=game)
        facts = await export_facts(client, organiser, result.match_id)
        return {"game": game, "mode": mode.name, "steps": result.steps,
                "engine_version": info.engine_version, **facts}
    finally:
        await client.close()


async def live_match(settings: Any, service: str) -> dict[str, Any]:
    """Two people, a few actions each, then left as it is."""
    from services.platform.playing import play_table, random_choice

    client = RulesClient(settings.address("rules-neon-reign"), timeout=30)
    match_id = "fx-reign-live"
    try:
        created = await client.create(service, match_id=match_id, mode="single", seats=2,
                                      players=LIVE_PLAYERS)
        tokens = {t.seat: t.token for t in created.seat_tokens}
        pick = random_choice("fx-live")
        played: list[str] = []

        async def choose(turn: Any) -> Any:
            if len(played) >= LIVE_ACTIONS:
                raise Enough
            return pick(turn)

        def answered(answer: Any) -> None:
            played.append(answer.state_hash)

        try:
            await play_table(client.stub, match_id, tokens, choose, on_answer=answered,
                             command_prefix="live-")
        except Enough:
            pass
        view = await client.view(match_id, tokens[0])
        return {"match_id": match_id, "game": "neon-reign", "mode": "single",
                "players": LIVE_PLAYERS, "actions": len(played),
                "state_hash": played[-1] if played else "",
                "version": int(getattr(view, "version", 0))}
    finally:
        await client.close()


async def tournament(settings: Any, issue: Any, organiser: str) -> dict[str, Any]:
    from services.genproto.neon.tournament.v1 import tournament_pb2 as pb

    client = TournamentClient(settings.address("tournament"), timeout=60)
    rules: dict[str, RulesClient] = {}
    tokens = {p: issue("player", "*", player=p, ttl=3600) for p in PLAYERS}
    tid = TOURNAMENT
    try:
        await client.call("CreateTournament", organiser, tournament_id=tid, name="fixture swiss",
                          game="neon-reign", mode="single", format_json=format_json("swiss", 2),
                          check_in_seconds=24 * 3600)
        await client.call("OpenRegistration", organiser, tournament_id=tid)
        for p in PLAYERS:
            await client.call("Register", tokens[p], tournament_id=tid)
        await client.call("StartTournament", organiser, tournament_id=tid)
        await client.call("NextRound", organiser, tournament_id=tid, round=1)
        await asyncio.gather(*(play_round_as(client, rules, tokens[p], tid, p, timeout=120)
                               for p in PLAYERS))
        one = await wait_round_complete(client, tid, 1, 120)
        standings = (await client.call("GetStandings", tournament_id=tid)).rows

        await client.call("NextRound", organiser, tournament_id=tid, round=2)
        deadline = time.monotonic() + 60
        while True:  # the driver creates the round's matches
            two = (await client.call("GetRound", tournament_id=tid, round=2)).round
            if all(t.match_id for t in two.tables if not t.bye):
                break
            if time.monotonic() > deadline:
                raise RuntimeError("round 2's matches were not created")
            await asyncio.sleep(0.1)
        playing = [t for t in two.tables if not t.bye]
        abandoned: dict[str, Any] = {}
        first = playing[0]
        rc = RulesClient(first.rules_address if hasattr(first, "rules_address") and
                         first.rules_address else settings.address("rules-neon-reign"))
        rules.setdefault(rc.address, rc)
        if hasattr(rc, "abandon"):  # AbandonMatch exists in this release
            await rc.abandon(organiser, first.match_id, "fixture: the table's room lost power")
            abandoned = {"table": first.number, "match_id": first.match_id}
            status = getattr(pb, "TABLE_STATUS_ABANDONED", None)
            while status is not None:
                r = (await client.call("GetRound", tournament_id=tid, round=2)).round
                if r.tables[first.number - 1].status == status:
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError("the abandon was not recorded by the tournament")
                await asyncio.sleep(0.1)
        # every other seat checks in (client seed, ready): the driver starts those matches,
        # and nobody plays them
        ready = [p for t in playing if t.number != abandoned.get("table") for p in t.seats]
        for p in ready:
            await check_in(client, rules, tokens[p], tid, p, settings)
        while True:
            two = (await client.call("GetRound", tournament_id=tid, round=2)).round
            started = [t for t in two.tables if t.number != abandoned.get("table")
                       and not t.bye and t.status == pb.TABLE_STATUS_RUNNING]
            if len(started) == len(playing) - (1 if abandoned else 0):
                break
            if time.monotonic() > deadline:
                raise RuntimeError("round 2's checked-in matches did not start")
            await asyncio.sleep(0.1)
        at_stop = (await client.call("GetStandings", tournament_id=tid)).rows
        return {
            "tournament_id": tid, "game": "neon-reign", "mode": "single", "players": PLAYERS,
            "rounds": 2,
            "round1": {
                "checkpoint_root": one.checkpoint.merkle_root,
                "checkpoint_leaves": one.checkpoint.leaves,
                "tables": [table_facts(t) for t in one.tables],
            },
            "standings_after_round1": standing_rows(standings),
            "standings_at_stop": standing_rows(at_stop),
            "round2": {"tables": [table_facts(t) for t in two.tables], "abandoned": abandoned,
                       "unplayed": [t.number for t in playing]},
        }
    finally:
        await client.close()
        for c in rules.values():
            await c.close()


def standing_rows(rows: Any) -> list[dict[str, Any]]:
    """GetStandings' rows (with round 2 paired they count its bye)."""
    return [{"rank": r.rank, "player_id": r.player_id, "points": r.points, "games": r.games,
             "wins": r.wins} for r in rows]


def table_facts(t: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"number": t.number, "seats": list(t.seats), "bye": t.bye,
                           "match_id": t.match_id, "final_hash": t.final_hash}
    if t.HasField("result"):
        out["placements"] = list(t.result.placements)
        out["kind"] = t.result.kind
    return out


async def check_in(client: Any, rules: dict[str, RulesClient], token: str, tid: str, player: str,
                   settings: Any) -> None:
    from services.genproto.neon.rules.v1 import rules_pb2

    while True:
        a = (await client.call("MyNextMatch", token, tournament_id=tid)).assignment
        if a.match_id and a.seat_token:
            break
        await asyncio.sleep(0.1)
    rc = rules.setdefault(a.rules_address, RulesClient(a.rules_address))
    await rc.call("AddClientSeed", rules_pb2.AddClientSeedRequest(
        match_id=a.match_id, seed=f"fixture-{player}"), a.seat_token)
    await client.call("ReadyForMatch", token, tournament_id=tid, match_id=a.match_id)


async def long_tournament(settings: Any, issue: Any) -> dict[str, Any]:
    """A finished Swiss of 16 bots over 4 rounds (``neon tournament simulate``'s run): past
    200 events, so the store holds a snapshot of the Tournament as this release shaped it."""
    from services.cli.tournament_commands import simulate_run

    report = await simulate_run(settings.address("tournament"), issue, "neon-reign",
                                format_json("swiss", 4), 16, mode="single",
                                tournament_id="fx_long", timeout=300)
    if not report.verify.ok:
        raise RuntimeError(f"the long tournament's bundle does not verify: {report.verify}")
    records = [json.loads(x) for x in report.bundle.splitlines()]
    return {"tournament_id": "fx_long", "standings": standing_rows(report.standings),
            "log_records": sum(1 for r in records if r.get("type") == "LogRecord"),
            "matches": report.verify.matches}


async def ratings(settings: Any, issue: Any) -> dict[str, Any]:
    from services.cli.mm_commands import Endpoints, simulate_run
    from services.genproto.neon.matchmaking.v1 import matchmaking_pb2  # noqa: F401

    ends = Endpoints(settings.address("matchmaking"), settings.address("scoring"), issue)
    report = await simulate_run(ends, "neon-reign", 8, timeout=120, rating_timeout=60)
    if report.problems:
        raise RuntimeError(f"simulate: {report.problems[:3]}")
    board = [{"player": e.rating.player, "mu": e.rating.mu, "sigma": e.rating.sigma,
              "matches": e.rating.matches, "wins": e.rating.wins} for e in report.board]
    return {"game": "neon-reign", "matches": sorted(report.matches), "board": board}


async def waiting_ticket(settings: Any, issue: Any) -> dict[str, Any]:
    from services.cli.mm_commands import MatchmakingClient

    mm = MatchmakingClient(settings.address("matchmaking"))
    token = issue("player", "*", player=WAITER, ttl=3600)
    ticket_id = "fx-waiting-ticket"
    try:
        await mm.call("CreateTicket", token, ticket_id=ticket_id, game="neon-reign",
                      modes=["best-of-three"], players=[WAITER], allow_bots=False)
        await asyncio.sleep(1.0)  # a few cycles: it stays queued (no one else, no bots)
        ticket = (await mm.call("GetTicket", token, ticket_id=ticket_id))
        ticket = getattr(ticket, "ticket", ticket)
        return {"ticket_id": ticket_id, "player": WAITER, "game": "neon-reign",
                "modes": ["best-of-three"], "status": int(ticket.status)}
    finally:
        await mm.close()


async def main(manifest: Path) -> None:
    settings = load()
    issuer = TokenIssuer(load_keys(settings).token_secret)
    issue = issuer.issue
    token_file = getattr(settings, "state_dir", settings.var_dir) / "organiser.token"
    organiser = token_file.read_text().strip()
    service = issue("service", "*", player="neon-cli", ttl=3600)
    out: dict[str, Any] = {"made_at": round(time.time())}
    out["finished"] = [
        await finished_match(settings, service, organiser, "neon-reign", "fx-reign-done"),
        await finished_match(settings, service, organiser, "neon", "fx-neon-done"),
    ]
    out["in_progress"] = await live_match(settings, service)
    out["tournament"] = await tournament(settings, issue, organiser)
    out["long_tournament"] = await long_tournament(settings, issue)
    out["ratings"] = await ratings(settings, issue)
    out["waiting_ticket"] = await waiting_ticket(settings, issue)
    manifest.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(json.dumps({"ok": True}))


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
