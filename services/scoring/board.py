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
"""GetLeaderboard's largest page; the rows a leaderboard keeps ordered until a page past them
is asked for."""


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
        self._ranked: dict[tuple[str, str, bool], tuple[list[Standing], int]] = {}
        """Leaderboards in order (their first LEADERBOARD_ROWS, or all of them) and their
        sizes, worked out on the first read after a change of the board."""

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

    def size(self, game: str, mode: str, by_score: bool) -> int:
        """How many rows a leaderboard has."""
        with self._lock:
            return self._ordered((game, mode, by_score), 0)[1]

    def page(self, game: str, mode: str, by_score: bool, first: int,
             count: int) -> tuple[list[Standing], int]:
        """Copies of ``count`` rows of a leaderboard from its ``first`` (0 the top), and how
        many rows the whole leaderboard has."""
        with self._lock:
            rows, total = self._ordered((game, mode, by_score), first + count)
            return [copy.copy(r) for r in rows[first:first + count]], total

    def _ordered(self, key: tuple[str, str, bool], upto: int) -> tuple[list[Standing], int]:
        """The leaderboard ``key`` in order, at least its first ``upto`` rows (all of them
        when it has fewer), and its size; the caller holds the lock. Ordered once per change
        of the board, not per read: its first LEADERBOARD_ROWS, or all of it once a page past
        them is asked for. The rows are the board's own standings, not copies (copying a
        whole board took most of the time): any change of one of them drops the order
        (_fold), and readers get copies of their page only (:meth:`page`)."""
        found = self._ranked.get(key)
        if found is not None and (len(found[0]) >= upto or len(found[0]) == found[1]):
            return found
        game, mode, by_score = key
        rows = [self.standings[i] for i in self.boards.get((game, mode), ())]
        if not by_score:
            rows = [r for r in rows if r.rated_matches > 0]
        order = by_best_score if by_score else by_ordinal
        if upto <= LEADERBOARD_ROWS < len(rows):
            top = heapq.nsmallest(LEADERBOARD_ROWS, rows, key=order)
        else:  # a page past the first rows: the whole board
            top = sorted(rows, key=order)
        found = (top, len(rows))
        self._ranked[key] = found
        return found

    def player_history(self, player: str) -> list[dict[str, Any]]:
        with self._lock:
            return [self.results[m] for m in self.history.get(player, ())]
