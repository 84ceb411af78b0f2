"""The rules service's event texts (service.Narrator) for actions whose engine events the viewer
does not see: every game's self-play, projected for each seat and for spectators as the
streams send it. Some 3-7% of actions made no event the viewer sees (a Barbaric discard, a Neon
Knights day action, a fan bet another seat drew), and clients showed "ActionAccepted"."""

from __future__ import annotations

import json

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.rules.games import load_engine
from services.rules.records import project
from services.rules.selfplay import export_game, setups
from services.rules.service import Narrator

KEY = Ed25519PrivateKey.generate()
PLAYS = [("barbaric", "competitive", 0), ("neon-knights-2086", "normal", 1),
         ("neon", "rebirth", 0), ("neon-reign", "single", 0)]


def records(game: str, mode: str, seed: int) -> list[dict]:
    plan = setups(load_engine(game), mode)[0]
    data = export_game(game, mode, plan, seed, KEY, bot="random")
    return [json.loads(line) for line in data.splitlines()[:-1]]


@pytest.mark.parametrize("game,mode,seed", PLAYS)
def test_every_action_is_told_in_words_and_a_hidden_one_says_no_more_than_its_decision(
        game: str, mode: str, seed: int) -> None:
    narrator = Narrator(game)
    played = records(game, mode, seed)
    seats = len(played[0]["players"])
    told_alone = 0
    for record in played:
        if record["type"] != "ActionAccepted":
            continue
        for viewer in (None, *range(seats)):
            seen = project(record, viewer)
            texts = narrator.texts(seen, viewer)
            assert texts and "ActionAccepted" not in texts, (record["n"], viewer)
            if seen["events"]:
                continue
            told_alone += 1
            (line,) = texts
            assert line.startswith(f"seat {record['seat']}: "), line
            if "action" not in seen:  # a hidden answer to another seat: its decision alone
                assert line == f"seat {record['seat']}: {record['decision'].replace('_', ' ')}"
    if game in ("barbaric", "neon-knights-2086"):  # such actions are common there
        assert told_alone, f"{game}: no action without a visible event was met"


def test_a_hidden_answer_is_named_by_its_decision_to_others_and_in_full_to_its_seat() -> None:
    narrator = Narrator("neon-knights-2086")
    record = {"type": "ActionAccepted", "match_id": "m", "n": 9, "hash": "h", "seat": 1,
              "decision": "fan_bet", "hidden": True, "action": {"type": "keep_bets"},
              "events": [{"kind": "bets_kept", "data": {}, "visible_to": [1]}]}
    assert narrator.texts(project(record, None), None) == ["seat 1: fan bet"]
    assert narrator.texts(project(record, 0), 0) == ["seat 1: fan bet"]
    own = narrator.texts(project(record, 1), 1)
    assert own and own != ["seat 1: fan bet"], own


@pytest.mark.parametrize("extra,line", [
    ({"timeout": True}, "seat 1's time ran out: the clock played its decision's default"),
    ({"timeout": "forfeit"},
     "seat 1 ran out of time too often: the clock forfeits the match for it"),
    ({"by": "bot"}, "a bot plays for seat 1 (its time ran out)"),
    ({}, None),
])
def test_an_action_the_clock_made_says_so_first_to_everyone(extra: dict, line: str | None) -> None:
    """The service's own actions for a seat (a timeout's default, the forfeit after repeated
    timeouts, a bot after them) are public, as the clocks are: the projection carries the
    record's mark and the text says it first (a forfeit read only "seat 1 resigned", the
    engine's words for the resignation the clock makes)."""
    narrator = Narrator("neon-reign")
    record = {"type": "ActionAccepted", "match_id": "m", "n": 9, "hash": "h", "seat": 1,
              "decision": "turn", "hidden": False, "action": {"type": "resign"},
              "events": [{"kind": "resigned", "data": {"seat": 1}, "visible_to": None}],
              "state_hash": "s", "draws": [], **extra}
    for viewer in (None, 0, 1):
        seen = project(record, viewer)
        assert {k: seen[k] for k in extra} == extra
        texts = narrator.texts(seen, viewer)
        if line is None:
            assert all("time ran out" not in t and "clock" not in t for t in texts), texts
        else:
            assert texts[0] == line and len(texts) == 2, texts
