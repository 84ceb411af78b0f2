"""Live dice sessions: one lock per session, each session read and changed only under it.

eventsourcing's aggregate cache deep-copies the cached aggregate on every ``get`` and
fast-forwards it in place, so a read racing a draw could fail with "dictionary changed
size during iteration" (issue 17, defect 6). The dice Application runs without that
cache; this table keeps the sessions in use instead, and every read or change of one
happens while holding that session's lock. There is no process-wide lock around I/O: the
table's own lock guards only its dictionaries.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

T = TypeVar("T")


class _Slot(Generic[T]):
    __slots__ = ("__weakref__", "lock", "value")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.value: T | None = None


class SessionTable(Generic[T]):
    """Per-key locks and loaded values, keeping at most ``keep`` idle keys in memory.

    A slot in use stays alive through the weak table even when evicted from the recent
    list, so two threads asking for one key always get the same lock.
    """

    def __init__(self, keep: int = 4096) -> None:
        self._keep = keep
        self._guard = threading.Lock()
        self._slots: weakref.WeakValueDictionary[str, _Slot[T]] = weakref.WeakValueDictionary()
        self._recent: OrderedDict[str, _Slot[T]] = OrderedDict()

    def _slot(self, key: str) -> _Slot[T]:
        with self._guard:
            slot = self._slots.get(key)
            if slot is None:
                slot = _Slot()
                self._slots[key] = slot
            self._recent[key] = slot
            self._recent.move_to_end(key)
            while len(self._recent) > self._keep:
                self._recent.popitem(last=False)
            return slot

    @contextmanager
    def hold(self, key: str, load: Callable[[], T | None]) -> Iterator[Holder[T]]:
        """Lock ``key``; the holder's ``value`` is the loaded value (None if absent)."""
        slot = self._slot(key)
        with slot.lock:
            if slot.value is None:
                slot.value = load()
            yield Holder(slot)

    def __len__(self) -> int:
        return len(self._recent)


class Holder(Generic[T]):
    """Access to one locked slot: read ``value``, ``set`` a new one, or ``drop`` it."""

    def __init__(self, slot: _Slot[T]) -> None:
        self._slot = slot

    @property
    def value(self) -> T | None:
        return self._slot.value

    def set(self, value: T) -> None:
        self._slot.value = value

    def drop(self) -> None:
        self._slot.value = None
