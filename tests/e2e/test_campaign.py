"""The campaign of issue 17, short: leaks, fuzzing and fault injection, measured on every change.

The long run with the same code: ``python bench/campaign.py`` (see its --help).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from services.rules.games import available, load_engine
from tests.support.campaign import faults, fuzz, leaks
from tests.support.pgcluster import binaries

LEAK_GAMES_PER_GAME = 2
FUZZ_EXAMPLES = 1500
"""CI's sample of the fuzzer: the same draws every run (derandomized under CI)."""
FUZZ_EXAMPLES_LONG = 3000
"""The long run's (``-m slow``); bench/campaign.py's is longer still."""
FAULT_PLAYERS = 6


def test_no_channel_leaks_a_hidden_card_in_bot_games() -> None:
    report = leaks.run(LEAK_GAMES_PER_GAME, seed=17)
    print(f"leaks: {report.games} games, {report.actions} actions, {report.checks} checks, "
          f"{len(report.leaks)} leaks")
    assert report.games >= LEAK_GAMES_PER_GAME * len([g for g in available() if g in leaks.HIDDEN_ZONES])
    assert report.leaks == []


def test_the_leak_checker_finds_a_planted_leak(monkeypatch: pytest.MonkeyPatch) -> None:
    """A view that shows the opponent's hand is caught: the checker can fail."""
    engine = load_engine("neon-reign")
    honest = engine.view

    def leaky(state: Any, viewer: int | None) -> Any:
        out = honest(state, viewer)
        return {**out, "debug": [list(side.hand) for side in state.sides]}

    monkeypatch.setattr(type(engine), "view", lambda self, state, viewer: leaky(state, viewer))
    report = leaks.play_one("neon-reign", "single", 2, seed=1, max_steps=20)
    assert report.leaks and "view of spectator" in report.leaks[0]


@pytest.fixture
def fuzz_target(tmp_path: Path, nats_url: str) -> Iterator[fuzz.Target]:
    with fuzz.served(tmp_path, nats_url) as (rules, dice, issuer):
        target = fuzz.new_target(rules, dice, issuer)
        yield target
        target.close()


def test_fuzzing_the_rules_and_dice_surface_never_gives_internal(fuzz_target: fuzz.Target) -> None:
    check_fuzzing(fuzz_target, FUZZ_EXAMPLES)


@pytest.mark.slow
def test_fuzzing_the_rules_and_dice_surface_long(fuzz_target: fuzz.Target) -> None:
    """The long run (-m slow): the same checks over FUZZ_EXAMPLES_LONG examples."""
    check_fuzzing(fuzz_target, FUZZ_EXAMPLES_LONG)


def check_fuzzing(fuzz_target: fuzz.Target, examples: int) -> None:
    report = fuzz.run(fuzz_target, examples)
    print(f"fuzz: {report.requests} requests, {report.accepted} accepted, codes {dict(report.codes)}")
    for line in sorted({i.split("<- ")[-1] for i in report.internal}):
        print("INTERNAL <-", line.replace(chr(10), " "))
    assert report.requests >= examples
    assert report.internal == [], sorted({i.split(" <- ")[0].split("(request id")[0][:160] for i in report.internal})
    assert report.stored_mismatch == []
    assert report.accepted > 0, "legal play never went through: the fuzzer stayed shallow"


async def test_faults_lose_nothing_and_double_nothing(tmp_path: Path) -> None:
    campaign = faults.Campaign(tmp_path)
    campaign.start()
    try:
        report = await campaign.run(players=FAULT_PLAYERS, pause=1.2, cycles=1)
    finally:
        campaign.stop()
    print(f"faults: {report.summary()}")
    assert campaign.cluster is not None
    assert set(report.kills) == {v for v in faults.VICTIMS if v == "nats" or v in campaign.cluster.procs}
    assert report.unexpected == [], report.unexpected[:5]
    assert report.finished == report.matches > FAULT_PLAYERS
    assert (report.lost, report.doubled) == (0, 0)
    assert report.unverified == []
    assert report.scored == report.matches


async def test_faults_with_postgres_stopped_mid_run_lose_nothing(tmp_path: Path) -> None:
    """The services on a PostgreSQL cluster of the test's own, stopped for a few seconds and
    started again while matches are played; NATS frozen for a moment; rules killed once, to
    rebuild from that store. The long run (bench/campaign.py) freezes NATS for 10-20 s."""
    if binaries() is None:
        pytest.skip("no PostgreSQL binaries under /usr/lib/postgresql/*/bin to start a cluster of our own")
    campaign = faults.Campaign(tmp_path, store="postgres", pg_stop=(2.0, 3.0), freeze=(3.0, 3.0))
    campaign.start()
    try:
        report = await campaign.run(players=FAULT_PLAYERS, pause=1.5, cycles=1,
                                    faults=("postgres", "nats-freeze", "rules-toy"))
    finally:
        campaign.stop()
    print(f"faults on postgres: {report.summary()}")
    assert report.outages == {"postgres": 1, "nats-freeze": 1}, report.log
    assert report.kills == {"rules-toy": 1}, report.log
    assert report.retried["UNAVAILABLE"] > 0, "the outage was not seen by any client"
    assert (report.lost, report.doubled) == (0, 0)
    assert report.unexpected == [], report.unexpected[:5]
    assert report.finished == report.matches > FAULT_PLAYERS
    assert report.unverified == []
    assert report.scored == report.matches
