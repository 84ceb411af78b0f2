"""A self-play export records the events of set-up in MatchStarted, as the rules host does:
the engine's ``start`` events (public and seat-private) with their visibility, and it still
verifies (the replay reads states, not events)."""

from __future__ import annotations

import json

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.platform.draws import SeededRandomness
from services.rules.games import load_engine
from services.rules.games.contract import MatchConfig, setup_transition
from services.rules.selfplay import export_game, setups
from services.rules.verify import verify_export


def _started(export: bytes) -> dict:
    for line in export.decode().splitlines():
        record = json.loads(line)
        if record.get("type") == "MatchStarted":
            return record
    raise AssertionError("no MatchStarted")


@pytest.mark.parametrize(("game", "mode"), [("neon", None), ("neon-knights-2086", "campaign"),
                                          ("barbaric", None), ("neon-reign", None)])
def test_match_started_holds_the_set_up_events_with_their_visibility(game: str, mode: str | None
                                                                     ) -> None:
    engine = load_engine(game)
    mode = mode or next(iter(engine.modes()))
    setup = setups(engine, mode)[0]
    export = export_game(game, mode, setup, 3, Ed25519PrivateKey.generate())
    events = _started(export)["events"]
    assert events, f"{game} {mode}: no set-up event recorded"
    if game != "barbaric":  # its roll-off takes as many rounds as ties need
        probe = setup_transition(engine, MatchConfig(mode, setup.seats, setup.options),
                                 SeededRandomness("probe")).events
        assert [e["kind"] for e in events] == [e.kind for e in probe]
    private = [e for e in events if e.get("visible_to")]
    if game == "neon":
        drawn = [e for e in events if e["kind"] == "cards_drawn_private"]
        assert drawn == private
        assert sorted(e["visible_to"] for e in private) == [[s] for s in range(setup.seats)]
    report = verify_export(export)
    assert report.ok, report.failure
