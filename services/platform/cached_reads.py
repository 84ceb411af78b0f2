"""Reads of a cached aggregate one at a time: an Application mixin for the services that keep
their aggregates built in eventsourcing's aggregate cache (AGGREGATE_CACHE_MAXSIZE: the
tournament, scoring, matchmaking) and read them from several threads (``asyncio.to_thread``).

A read of a cached aggregate brings the cached copy up to date with the events saved since
(the library's fast-forward, under its lock), then hands out a copy of it after that lock is
let go: another thread's fast-forward could change the cached copy while it was being copied
("RuntimeError: dictionary changed size during iteration", an INTERNAL answer, or a copy with
an event half applied: seen in round 3 of a 128-player tournament). Here the whole read, its
copy included, holds one of :data:`STRIPES` locks chosen by the aggregate's id: reads of one
aggregate run one after another (copying is CPU-bound: nothing is lost under the GIL), reads
of different ones rarely wait."""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from typing import Any

from eventsourcing.application import Repository

STRIPES = 64


class SerialCachedReads(Repository):  # type: ignore[type-arg]
    """The library's repository whose reads of a cached aggregate never overlap; ``copier``
    makes each read's own copy (``copy.deepcopy`` as the library does, or faster where the
    aggregate's state allows)."""

    def __init__(self, *args: Any, copier: Callable[[Any], Any] = copy.deepcopy,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.copier = copier
        self._stripes = [threading.Lock() for _ in range(STRIPES)]

    def get(self, aggregate_id: Any, *, version: int | None = None, **kwargs: Any) -> Any:
        if self.cache is None or version is not None:  # no shared copy involved
            return super().get(aggregate_id, version=version, **kwargs)
        copied = kwargs.pop("deepcopy_from_cache", True) and self.deepcopy_from_cache
        with self._stripes[hash(aggregate_id) % STRIPES]:
            cached = super().get(aggregate_id, deepcopy_from_cache=False, **kwargs)
            return self.copier(cached) if copied else cached


class SerialReads:
    """Application mixin: its repository is a :class:`SerialCachedReads` (the cache, fast-
    forward and copy settings as the environment made them); ``copy_from_cache`` copies."""

    copy_from_cache: Callable[[Any], Any] = staticmethod(copy.deepcopy)

    def construct_repository(self) -> Repository:  # type: ignore[type-arg]
        built = super().construct_repository()  # type: ignore[misc]
        repository = SerialCachedReads(
            event_store=built.event_store, snapshot_store=built.snapshot_store,
            fastforward=built.fastforward, fastforward_skipping=built.fastforward_skipping,
            deepcopy_from_cache=built.deepcopy_from_cache, copier=type(self).copy_from_cache)
        repository.cache = built.cache
        return repository
