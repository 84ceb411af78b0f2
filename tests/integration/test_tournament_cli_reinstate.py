"""``neon tournament reinstate TID PLAYER --reason TEXT`` against a running tournament service
over gRPC (the command runs as its own process, as in test_tournament_cli_desk.py): a player
dropped with ``drop`` is reinstated and paired in the next round; ``--json`` prints
ReinstatePlayer's answer; the service's refusals (a player who plays, a round robin, a
player token) are printed as the service said them; ``--reason`` is required."""

from __future__ import annotations

import json

import pytest

from tests.integration.test_tournament_cli_desk import (  # noqa: F401 (desk: the fixture)
    Desk,
    desk,
    said,
)
from tests.integration.test_tournament_cli_json import proto_json

pytestmark = pytest.mark.timeout(180)


async def test_reinstate_a_dropped_player_who_is_paired_again(desk: Desk) -> None:  # noqa: F811
    run = desk.run
    await desk.started("back", "swiss", ("ann", "ben", "cat", "dan"))

    playing = await run("tournament", "reinstate", "back", "ann", "--reason", "mistake")
    assert playing.returncode != 0, playing.stdout + playing.stderr
    assert "'ann' is not dropped: it plays" in said(playing.stderr), playing.stderr

    dropped = await run("tournament", "drop", "back", "ann", "--reason", "client failed")
    assert dropped.returncode == 0, dropped.stdout + dropped.stderr
    assert (await desk.statuses("back"))["ann"] == "dropped"

    bare = await run("tournament", "reinstate", "back", "ann")
    assert bare.returncode == 2 and "--reason" in bare.stderr, bare.stdout + bare.stderr

    back = await run("tournament", "reinstate", "back", "ann", "--reason",
                     "[bold]readied late[/bold], the arbiter agreed")
    assert back.returncode == 0, back.stdout + back.stderr
    assert back.stdout.splitlines() == ["ann reinstated in back: paired again from round 1"]
    assert back.stderr == ""
    assert (await desk.statuses("back"))["ann"] == "playing"
    version = (await desk.tournament("back")).version
    again = await run("tournament", "reinstate", "back", "ann", "--reason", "again", "--json")
    assert again.returncode == 0, again.stdout + again.stderr
    [shown] = [json.loads(line) for line in again.stdout.splitlines()]
    # the tournament as it is, and the answer's word that the repeat changed nothing
    assert shown == {**proto_json(await desk.client.call("GetTournament", tournament_id="back")),
                     "alreadyReinstated": True}
    assert (await desk.tournament("back")).version == version, "a repeat records nothing"

    first = (await desk.client.call("NextRound", desk.org, tournament_id="back")).round
    assert "ann" in {p for t in first.tables for p in t.seats}

    ann = desk.b.issuer.issue("player", "*", player="ann", ttl=600)
    await run("tournament", "drop", "back", "ben", "--reason", "went home")
    own = await run("tournament", "reinstate", "back", "ben", "--reason", "x", NEON_TOKEN=ann)
    assert own.returncode != 0, own.stdout + own.stderr
    assert "organiser token" in said(own.stderr), own.stderr
    assert (await desk.statuses("back"))["ben"] == "dropped"


async def test_a_round_robin_refuses_with_the_service_reason(desk: Desk) -> None:  # noqa: F811
    await desk.started("rr", "round-robin", ("ann", "ben", "cat"))
    await desk.client.call("DropPlayer", desk.org, tournament_id="rr", player_id="cat",
                           reason="left")
    refused = await desk.run("tournament", "reinstate", "rr", "cat", "--reason", "back")
    assert refused.returncode != 0, refused.stdout + refused.stderr
    assert "a round-robin reinstates no dropped player" in said(refused.stderr), refused.stderr
    assert (await desk.statuses("rr"))["cat"] == "dropped"


async def test_a_repeated_drop_or_reinstatement_says_already(desk: Desk) -> None:  # noqa: F811
    """A repeat changes nothing (the service answers it as it is, still exit 0) and says so:
    before, a repeat said "dropped" / "reinstated" again."""
    run = desk.run
    await desk.started("again", "swiss", ("ann", "ben", "cat", "dan"))
    first = await run("tournament", "drop", "again", "ann", "--reason", "went home")
    assert first.returncode == 0, first.stdout + first.stderr
    assert first.stdout.splitlines() == ["ann dropped from again after round 0"]
    version = (await desk.tournament("again")).version
    repeat = await run("tournament", "drop", "again", "ann", "--reason", "went home")
    assert repeat.returncode == 0, repeat.stdout + repeat.stderr
    assert repeat.stdout.splitlines() == ["ann already dropped from again: nothing changed"]
    assert (await desk.tournament("again")).version == version, "a repeat records nothing"

    back = await run("tournament", "reinstate", "again", "ann", "--reason", "mistake")
    assert back.stdout.splitlines() == ["ann reinstated in again: paired again from round 1"]
    repeat = await run("tournament", "reinstate", "again", "ann", "--reason", "mistake")
    assert repeat.returncode == 0, repeat.stdout + repeat.stderr
    assert repeat.stdout.splitlines() == ["ann already reinstated in again: nothing changed"]
    assert (await desk.statuses("again"))["ann"] == "playing"
