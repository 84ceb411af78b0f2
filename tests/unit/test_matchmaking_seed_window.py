"""Seed windows in unit: the settings, the Kickoff aggregate, and what goes out on NATS."""

from __future__ import annotations

import pytest

from services.matchmaking import events
from services.matchmaking.config import Config, config_from_env
from services.matchmaking.domain import Kickoff, Ticket


def test_client_seeds_are_on_by_default_and_the_window_is_bounded() -> None:
    assert Config().client_seeds and Config().seed_window == 25.0
    default = config_from_env({})
    assert default.client_seeds and default.seed_window == 25.0
    off = config_from_env({"NEON_MATCHMAKING_CLIENT_SEEDS": "0",
                           "NEON_MATCHMAKING_SEED_WINDOW": "5"})
    assert not off.client_seeds and off.seed_window == 5.0
    assert config_from_env({"NEON_MATCHMAKING_CLIENT_SEEDS": "on"}).client_seeds
    for bad in ("-1", "601"):
        with pytest.raises(ValueError, match="NEON_MATCHMAKING_SEED_WINDOW must be 0-600"):
            config_from_env({"NEON_MATCHMAKING_SEED_WINDOW": bad})


def test_a_kickoff_waits_for_human_seats_only_and_ends_once_published_per_ticket() -> None:
    k = Kickoff("mm-1", "toy", 100.0, {"1": "bob", "0": "ann"}, ["t-a", "t-b"])
    assert k.players == ["ann", "bob"] and k.waiting_for == ["ann", "bob"]
    k.say_ready(["bob"])
    assert k.ready == ["bob"] and k.waiting_for == ["ann"] and not k.everyone_ready
    k.say_ready(["ann", "bob"])
    assert k.everyone_ready and k.ready == ["ann", "bob"]
    k.end(True, "match mm-1 started: every seat is ready", "mm-1", ["t-a", "t-b"])
    ended = k.collect_events()[-1]
    messages = events.project(ended)
    assert [s for s, _ in messages] == ["neon.events.matchmaking.ticket.t-a",
                                        "neon.events.matchmaking.ticket.t-b"]
    assert {m["type"] for _, m in messages} == {"TicketMatchStarted"}
    assert messages[0][1]["match_id"] == "mm-1" and messages[0][1]["started"] is True
    assert not events.project(Kickoff("mm-2", "toy", 1.0, {}, ["t-c"]).collect_events()[0])


def test_the_matched_message_carries_the_seed_deadline_and_no_seat_token() -> None:
    t = Ticket("t-a", {}, {"game": "toy", "modes": ["race"], "players": ["ann"]}, 1.0,
               "player:ann")
    t.match("t-a", {"match_id": "mm-1", "game": "toy", "mode": "race", "rules_address": "x",
                    "seats": [{"seat": 0, "player": "ann", "bot": False, "team": 0,
                               "token": "secret-seat-token"}],
                    "seed_deadline": 123.5}, 2.0)
    [(_, message)] = events.project(t.collect_events()[-1])
    assert message["type"] == "TicketMatched" and message["seed_deadline"] == 123.5
    assert "secret-seat-token" not in repr(message)
