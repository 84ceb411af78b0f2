"""The words of ``neon tournament``: ``start`` counts players and rounds in the singular and
the plural rightly, ``register`` counts the players it newly registered and names those
registered already, and every command shows a one-line summary in ``--help``'s list (its
docstring's first paragraph is one line; the rest shows in the command's own --help)."""

from __future__ import annotations

import pytest

from services.cli.main import app
from services.cli.tournament_commands import register_text, start_text
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb


@pytest.mark.parametrize("group", [[], ["tournament"]], ids=["neon", "neon tournament"])
def test_every_command_has_a_one_line_summary(group: list[str]) -> None:
    import typer.main

    command = typer.main.get_command(app)
    for name in group:
        command = command.commands[name]  # type: ignore[attr-defined]
    for name, sub in command.commands.items():  # type: ignore[attr-defined]
        summary = (sub.help or "").strip().split("\n\n")[0]
        assert summary and "\n" not in summary, (name, summary)


def started(players: list[tuple[str, str]], rounds: int, left_out: list[str]) -> object:
    t = pb.Tournament(planned_rounds=rounds,
                      players=[pb.Player(player_id=n, status=s) for n, s in players])
    return pb.StartTournamentResponse(tournament=t, left_out=left_out)


def test_start_says_one_and_many_rightly() -> None:
    two = [("ann", "playing"), ("ben", "playing")]
    assert start_text(started(two, 1, [])) == "started with 2 players; 1 round planned"
    assert start_text(started(two, 3, [])) == "started with 2 players; 3 rounds planned"
    assert start_text(started(two, 0, [])) == "started with 2 players; rounds not known yet"
    assert start_text(started([("ann", "playing")], 1, [])) == \
        "started with 1 player; 1 round planned"
    assert start_text(started([("ann", "playing"), ("cat", "registered")], 1, ["cat"])) == (
        "started with 1 checked-in player; 1 registered player who did not check in is not "
        "playing: cat (1 round planned; an organiser may add them with late-entry where the "
        "format allows it)")
    assert start_text(started([*two, ("cat", "registered"), ("dan", "registered")], 2,
                              ["cat", "dan"])) == (
        "started with 2 checked-in players; 2 registered players who did not check in are not "
        "playing: cat, dan (2 rounds planned; an organiser may add them with late-entry where "
        "the format allows it)")


def test_register_counts_the_new_and_names_those_registered_already() -> None:
    assert register_text(["ann", "ben"], {}) == "2 newly registered"
    before = {"ann": "registered", "ben": "checked-in", "cat": "withdrawn"}
    assert register_text(["ann", "ben", "cat", "dan"], before) == \
        "2 newly registered; already registered: ann, ben"
    assert register_text(["ann", "ann"], before) == "0 newly registered; already registered: ann"
