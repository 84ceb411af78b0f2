"""The scoring aggregates: the ledger, one record per scored match, one standing per player.

All three are written in one ``save()`` (one transaction) per match:

- :class:`Ledger` (one): it counts the applied results (``sequence``) and keeps the JetStream
  position last applied together with the identity of the stream that position counts in
  (``stream_id``: a stream deleted and made again starts its sequences again at 1). Every
  scoring save touches it, so two writers racing on the same store conflict instead of
  interleaving ratings.
- :class:`MatchRecord` (one per game and match id): the result as scored, with every rating
  before and after. Its id is derived from the game and match id, so a second record
  of the same match cannot be saved: that is what makes a redelivery change nothing.
- :class:`Standing` (one per game, mode and player; mode "" is the game-wide rating):
  mu and sigma as openskill gave them, plus counters and the best score.
"""

from __future__ import annotations

import uuid
from typing import Any

from eventsourcing.domain import Aggregate, event

from services.scoring.skill import Skill

NAMESPACE = uuid.UUID("9d1c4b7e-3a52-4f08-8e61-5b2a7c0d9f44")
LEDGER_ID = uuid.uuid5(NAMESPACE, "ledger")


def record_id(game: str, match_id: str) -> uuid.UUID:
    """Match ids are per game (each rules service names its own): the game is in the id."""
    return uuid.uuid5(NAMESPACE, f"result:{game}\x1f{match_id}")


def standing_id(game: str, mode: str, player: str) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, f"standing:{game}\x1f{mode}\x1f{player}")


class Ledger(Aggregate):
    stream_id = ""
    """The stream ``stream_seq`` counts in (bus.stream_identity: its creation time); ""
    until a :meth:`follow` names it. A class attribute, so that a ledger stored before
    streams were named (its events, or a snapshot of it) loads with ""."""

    @event("Opened")
    def __init__(self) -> None:
        self.sequence = 0
        self.stream_seq = 0

    @staticmethod
    def create_id(*args: Any, **kwargs: Any) -> uuid.UUID:
        return LEDGER_ID

    @event("Applied")
    def apply(self, match_id: str, stream_seq: int) -> None:
        self.sequence += 1
        self.stream_seq = max(self.stream_seq, stream_seq)

    @event("Followed")
    def follow(self, stream_id: str, stream_seq: int) -> None:
        """From now on ``stream_seq`` counts in the stream ``stream_id``, from ``stream_seq``:
        0 for a stream made again (read it from its start), the position kept when a ledger
        stored before streams were named adopts the stream it was reading."""
        self.stream_id = stream_id
        self.stream_seq = stream_seq


class MatchRecord(Aggregate):
    """``data`` holds the outcome (results.MatchOutcome.to_json) plus ``sequence``,
    ``stream_seq``, ``bots``, ``rated``, ``unrated_reason`` and ``ratings``: a list of
    ``{"player", "mode", "seat", "before": [mu, sigma], "after": [mu, sigma]}``."""

    @event("Recorded")
    def __init__(self, match_id: str, data: dict[str, Any]) -> None:
        self.match_id = match_id
        self.data = data

    @staticmethod
    def create_id(match_id: str, data: dict[str, Any], *args: Any, **kwargs: Any) -> uuid.UUID:
        return record_id(data["game"], match_id)


class Standing(Aggregate):
    @event("Opened")
    def __init__(self, game: str, mode: str, player: str, mu: float, sigma: float) -> None:
        self.game, self.mode, self.player = game, mode, player
        self.mu, self.sigma = mu, sigma
        self.matches = self.rated_matches = 0
        self.wins = self.draws = self.losses = 0
        self.best_score: int | None = None
        self.last_match = ""

    @staticmethod
    def create_id(game: str, mode: str, player: str, *args: Any, **kwargs: Any) -> uuid.UUID:
        return standing_id(game, mode, player)

    @property
    def skill(self) -> Skill:
        return Skill(self.mu, self.sigma)

    @event("Counted")
    def count(self, match_id: str, result: str, score: int, after: list[float] | None) -> None:
        """One match of this player; ``after`` is the new [mu, sigma] when it was rated."""
        self.matches += 1
        if result == "win":
            self.wins += 1
        elif result == "draw":
            self.draws += 1
        else:
            self.losses += 1
        self.best_score = score if self.best_score is None else max(self.best_score, score)
        if after is not None:
            self.mu, self.sigma = float(after[0]), float(after[1])
            self.rated_matches += 1
        self.last_match = match_id
