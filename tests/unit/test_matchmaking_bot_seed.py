"""Matchmaking's backfilled bots choose from a seed keyed with a deployment secret: seeded by
the match id alone (public), a player could rerun every choice of the bot across the table,
its secret picks among public options included, before making their own. The choice is still
the same after a restart (the same command, answered once), as the secret is the
deployment's."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from services.matchmaking.bot_driver import random_bot
from services.platform.playing import random_choice

LEGAL = [{"type": "pick", "n": i} for i in range(64)]


def turn(version: int) -> Any:
    """What random_choice reads of a seat's turn: its seat, version and owed decisions."""
    return SimpleNamespace(seat=1, version=version, decisions=[SimpleNamespace(legal=LEGAL)])


def picks(choose: Any) -> list[dict[str, Any]]:
    return [choose(turn(v)) for v in range(40)]


def test_a_bot_with_the_deployment_secret_cannot_be_rerun_from_the_match_id() -> None:
    public = picks(random_choice("mm-bot:m1"))  # what anyone can compute
    secret = picks(random_bot("m1", b"s" * 32))
    assert secret != public
    assert secret == picks(random_bot("m1", b"s" * 32)), "the same after a restart"
    assert secret != picks(random_bot("m1", b"t" * 32))
    assert secret != picks(random_bot("m2", b"s" * 32))
