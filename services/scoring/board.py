"""The query side: standings, results and histories folded from the stored events.

The store is the truth; this is a cache of it in memory, rebuilt at start-up by reading
the application's notification log and kept current by reading it again after each of
our saves and, for reads, at most every ``refresh`` seconds (which also picks up what
another replica on the same store wrote). Standings are folded with the aggregates' own
event mutators, so the board holds exactly what the repository would rebuild.
"""

from __future__ import annotations

import copy
import heapq
import threading
import time
import uuid
from collections import defaultdict
from typing import Any

from eventsourcing.utils import get_topic

from services.scoring.domain import MatchRecord, Standing, standing_id

TOPICS = [get_topic(cls) for cls in (Standing.Opened, Standing.Counted, MatchRecord.Recorded)]
BATCH = 1000
LEADERBOARD_ROWS = 1000
"""The most rows a leaderboard shows (GetLeaderboard's largest page)."""


def by_ordinal(s: Standing) -> tuple[float, float, str]:
    return -s.skill.ordinal, -s.mu, s.player


def by_best_score(s: Standing) -> tuple[int, int, str]:
    return -(s.best_score or 0), -s.wins, s.player


class Board:
    def __init__(self, app: Any, refresh: float = 0.1) -> None:
        self.app, self.refresh = app, refresh
        self.position = 0
        self._lock = threading.RLock()
        self._last = 0.0
        self.standings: dict[uuid.UUID, Standing] = {}
        self.boards: dict[tuple[str, str], set[uuid.UUID]] = defaultdict(set)
        self.results: dict[tuple[str, str], dict[str, Any]] = {}
        """Keyed by (game, match id): match ids are per game."""
        self.history: dict[str, list[tuple[str, str]]] = defaultdict(list)
        self.modes: dict[str, set[str]] = defaultdict(set)
        self._ranked: dict[tuple[str, str, bool], list[Standing]] = {}
        """Leaderboards in order, worked out on the first read after a change of the board."""

    def catch_up(self, force: bool = True) -> None:
        with self._lock:
            if not force and time.monotonic() - self._last < self.refresh:
                return
            while True:
                notifications = self.app.recorder.select_notifications(
                    self.position + 1, BATCH, topics=TOPICS
                )
                for notification in notifications:
                    self._fold(self.app.mapper.to_domain_event(notification))
                    self.position = notification.id
                if len(notifications) < BATCH:
                    break
            self._last = time.monotonic()

    def _fold(self, domain_event: Any) -> None:
        if isinstance(domain_event, MatchRecord.Recorded):
            data = domain_event.data
            key = (data["game"], data["match_id"])
            self.results[key] = data
            self.modes[data["game"]].add(data["mode"])
            for player, bot in zip(data["players"], data["bots"], strict=True):
                if player and not bot and key not in self.history[player][-1:]:
                    self.history[player].append(key)
            return
        standing = domain_event.mutate(self.standings.get(domain_event.originator_id))
        self.standings[standing.id] = standing
        self.boards[(standing.game, standing.mode)].add(standing.id)
        self.modes.setdefault(standing.game, set())
        for by_score in (False, True):
            self._ranked.pop((standing.game, standing.mode, by_score), None)

    # -- reads (callers hold no lock; each returns copies or immutable data) -----------

    def games(self) -> set[str]:
        with self._lock:
            return set(self.modes)

    def result(self, game: str, match_id: str) -> dict[str, Any] | None:
        with self._lock:
            return self.results.get((game, match_id))

    def results_of(self, match_id: str) -> list[dict[str, Any]]:
        """Every game's result under ``match_id`` (ids are per game): one look-up per game."""
        with self._lock:
            return [self.results[(game, match_id)] for game in sorted(self.modes)
                    if (game, match_id) in self.results]

    def standing(self, game: str, mode: str, player: str) -> Standing | None:
        with self._lock:
            found = self.standings.get(standing_id(game, mode, player))
            return copy.copy(found) if found is not None else None

    def ranking(self, game: str, mode: str, by_score: bool) -> list[Standing]:
        """The first LEADERBOARD_ROWS of a leaderboard: by best score (everyone with a
        recorded match), else by ordinal (players with a rated match). Ordered once per
        change of the board, not per read: the copies are shared, so callers only read."""
        key = (game, mode, by_score)
        with self._lock:
            if key not in self._ranked:
                rows = (self.standings[i] for i in self.boards.get((game, mode), ()))
                if by_score:
                    top = heapq.nsmallest(LEADERBOARD_ROWS, rows, key=by_best_score)
                else:
                    top = heapq.nsmallest(LEADERBOARD_ROWS, (r for r in rows if r.rated_matches > 0),
                                          key=by_ordinal)
                self._ranked[key] = [copy.copy(r) for r in top]
            return list(self._ranked[key])

    def player_history(self, player: str) -> list[dict[str, Any]]:
        with self._lock:
            return [self.results[m] for m in self.history.get(player, ())]
