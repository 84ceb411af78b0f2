"""Live matches: each running match held in memory by the one rules process that owns it.

A :class:`LiveMatch` is advanced from the engine's own result after each accepted
action; it is never re-read or copied per call. :class:`LiveMatches` bounds them by an
estimate of the memory they hold, evicting finished matches first, then the least
recently used. An evicted match is rebuilt from the store on its next call.

A sealed match never changes again: its public view (GetView without a seat token) is kept
in :class:`FinalViews` after the match leaves memory, so a spectator of a finished match is
answered without rebuilding it.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any

from services.rules.chance import MatchBlocks
from services.rules.games.contract import GameEngine, MatchConfig
from services.rules.noshow import MoveTally

RECENT = 32
"""Records kept in memory per match, for repeats and watchers (older ones are read back)."""
SEALED_KEEP = 256
"""Finished matches kept in memory (the most recently sealed), for the last answers and
watchers; older ones are read back from the store. Running matches are what memory is for."""
BASE_BYTES = 4096
FINAL_VIEWS_BYTES = 32 * 1024 * 1024
FINAL_VIEWS_KEEP = 4096
"""The public views of sealed matches kept (estimated bytes, and at most this many)."""


STATUS_AFTER = {"MatchStarted": "running", "MatchEnded": "ended", "MatchSealed": "sealed"}
"""The status a record of each type leaves a match in (other types leave it as it was)."""


def dice_key_of(created: dict[str, Any], match_id: str) -> str:
    """The dice session of a match, from its MatchCreated record."""
    return str(created.get("dice", {}).get("session") or match_id)


@dataclass
class LiveMatch:
    match_id: str
    engine: GameEngine
    created: dict[str, Any]
    config: MatchConfig
    status: str = "created"
    version: int = 0
    head: str = ""
    state: Any = None
    state_hash: str = ""
    commands: dict[tuple[int, str], int] = field(default_factory=dict)
    """The version each accepted command made, by (seat, command id): a command id is its
    seat's own (another seat's same id is another command, never its repeat)."""
    blocks: MatchBlocks = field(default_factory=MatchBlocks)
    key: bytes | None = None
    """The state-hash key, while the match runs (None: unkeyed, pre-v2 matches)."""
    recent: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=RECENT))
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    clocks: Any = None
    state_bytes: int = 0
    memo: dict[Any, Any] = field(default_factory=dict)
    """Values derived from the state at ``version`` (pending decisions, views), cleared
    whenever the match moves."""
    moved_at: float = 0.0
    """When the match's latest record was stored (Unix seconds; 0: not known)."""
    ended_at: float = 0.0
    """When its MatchEnded record was stored (Unix seconds; 0: not ended, or not known)."""
    started: tuple[int, str] | None = None
    """The version and state hash of its MatchStarted record (None: not started): what
    StartMatch answers, the first time and every repeat."""
    moves: MoveTally = field(default_factory=MoveTally)
    """Which seats moved themselves and which the service acted for (noshow.py), counted
    by :meth:`add`, so also when the match is rebuilt from its records: what MatchEnded's
    ``no_move_seats`` is written from, without the whole log in memory."""

    def derived(self, key: Any, make: Any) -> Any:
        """``make()`` once per version of the match."""
        try:
            return self.memo[key]
        except KeyError:
            value = self.memo[key] = make()
            return value

    @property
    def dice_key(self) -> str:
        return dice_key_of(self.created, self.match_id)

    @property
    def over(self) -> bool:
        """Ended (with a result or abandoned), sealed or not: it takes no more commands."""
        return self.status in ("ended", "sealed")

    @property
    def outcome(self) -> dict[str, Any] | None:
        for record in self.recent:
            if record["type"] == "MatchEnded":
                return record["outcome"]  # type: ignore[no-any-return]
        return None

    def add(self, record: dict[str, Any]) -> None:
        self.memo.clear()
        self.recent.append(record)
        self.version = record["n"]
        self.head = record["hash"]
        kind = record["type"]
        self.status = STATUS_AFTER.get(kind, self.status)
        if kind == "ActionAccepted":
            self.commands[(int(record["seat"]), record["command_id"])] = record["n"]
            self.moves.note(record)
        elif kind == "MatchStarted":
            self.started = (record["n"], record["state_hash"])
        if "state_hash" in record:
            self.state_hash = record["state_hash"]

    def recent_from(self, n: int) -> list[dict[str, Any]] | None:
        """Records ``n..version`` if all are still in memory, else ``None``."""
        if n > self.version:
            return []
        if not self.recent or self.recent[0]["n"] > n:
            return None
        return [r for r in self.recent if r["n"] >= n]

    def size(self) -> int:
        return BASE_BYTES + 3 * self.state_bytes + 64 * len(self.commands) + 2048 * len(self.recent)


@dataclass(frozen=True)
class FinalView:
    """What GetView answers about a sealed match to anyone without one of its seat tokens:
    the spectator's view of its final state, its public outcome, its stopped clocks. The
    same for ever (a sealed match takes nothing more), so it is kept once made."""

    match_id: str
    version: int
    view_json: str
    """The spectator view as JSON ("" for a match that ended before it started)."""
    outcome_json: str
    game: str
    mode: str
    seats: int
    clocks: tuple[dict[str, Any], ...] = ()

    def size(self) -> int:
        return 512 + len(self.view_json) + len(self.outcome_json) + 160 * len(self.clocks)


class FinalViews:
    """The public views of sealed matches, least recently asked for dropped first, bounded
    by estimated bytes and by count."""

    def __init__(self, budget_bytes: int = FINAL_VIEWS_BYTES, keep: int = FINAL_VIEWS_KEEP) -> None:
        self.budget, self.keep = budget_bytes, keep
        self._views: OrderedDict[str, FinalView] = OrderedDict()
        self.total = 0

    def __len__(self) -> int:
        return len(self._views)

    def get(self, match_id: str) -> FinalView | None:
        final = self._views.get(match_id)
        if final is not None:
            self._views.move_to_end(match_id)
        return final

    def put(self, final: FinalView) -> None:
        old = self._views.pop(final.match_id, None)
        if old is not None:
            self.total -= old.size()
        if final.size() > self.budget:
            return
        self._views[final.match_id] = final
        self.total += final.size()
        while self.total > self.budget or len(self._views) > self.keep:
            _, dropped = self._views.popitem(last=False)
            self.total -= dropped.size()

    def clear(self) -> None:
        self._views.clear()
        self.total = 0


class LiveMatches:
    """The live matches of one rules process, bounded by estimated bytes."""

    def __init__(self, budget_bytes: int) -> None:
        self.budget = budget_bytes
        self._matches: OrderedDict[str, LiveMatch] = OrderedDict()
        self._bytes: dict[str, int] = {}
        self._sealed: OrderedDict[str, None] = OrderedDict()
        self.total = 0
        self.evictions = 0

    def __len__(self) -> int:
        return len(self._matches)

    def get(self, match_id: str) -> LiveMatch | None:
        live = self._matches.get(match_id)
        if live is not None:
            self._matches.move_to_end(match_id)
        return live

    def held(self) -> list[LiveMatch]:
        """The matches in memory (ListMatches): those not over (running, or waiting for
        client seeds) first, the most recently moved first; then the ended ones, the most
        recently finished first. By the times their records were stored, never by when
        they were last asked about: a spectator's GetView of an old match (which may
        rebuild it into memory) does not bring it to the top."""
        return sorted(self._matches.values(),
                      key=lambda live: (live.over, -(live.ended_at if live.over else live.moved_at)))

    def put(self, live: LiveMatch) -> None:
        self._matches[live.match_id] = live
        self._matches.move_to_end(live.match_id)
        self.resize(live)

    def resize(self, live: LiveMatch) -> None:
        if self._matches.get(live.match_id) is not live:  # not held (yet, or any more)
            return
        size = live.size()
        self.total += size - self._bytes.get(live.match_id, 0)
        self._bytes[live.match_id] = size
        if live.status == "sealed":
            self._sealed[live.match_id] = None
            self._sealed.move_to_end(live.match_id)
            while len(self._sealed) > SEALED_KEEP:
                oldest = next(iter(self._sealed))
                held = self._matches.get(oldest)
                if held is not None and held.lock.locked():
                    break
                self._sealed.pop(oldest)
                self.drop(oldest)
                self.evictions += 1
        if self.total > self.budget:
            self._evict()

    def drop(self, match_id: str) -> None:
        self._sealed.pop(match_id, None)
        if self._matches.pop(match_id, None) is not None:
            self.total -= self._bytes.pop(match_id, 0)

    def _evict(self) -> None:
        target = self.budget * 9 // 10
        finished = [m for m, live in self._matches.items() if live.status == "sealed"]
        done = set(finished)
        rest = [m for m in self._matches if m not in done]
        for match_id in finished + rest:
            if self.total <= target:
                return
            live = self._matches[match_id]
            if live.lock.locked():
                continue
            self.drop(match_id)
            self.evictions += 1
