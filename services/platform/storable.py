"""JSON the event stores can keep: no object of exactly the keys ``_type_`` and ``_data_``.

Every service stores its events with eventsourcing's JSON transcoder. It writes a dict as
it is, but reads any JSON object of exactly the keys ``_type_`` and ``_data_`` back as a
value of a registered type (a UUID, a decimal, a datetime, ...), or fails to read it at all
(an unregistered name). Such an object in an event saves without a complaint, and then every
read of its aggregate fails: the match, tournament or ticket can no longer be loaded, its
board or export no longer made, and a service that loads it at start no longer starts.

So JSON that a caller (a client, an organiser, another service) or a plug-in engine supplies
is checked with :func:`unstorable_at` before it reaches a store: its callers refuse it at
the edge (INVALID_ARGUMENT) or refuse the step that produced it, storing nothing. Events
already stored are encoded as ever; the transcoder's own objects (of the values it encodes,
never dicts) are not what this looks for.
"""

from __future__ import annotations

from typing import Any

import orjson

STORE_TYPE_KEYS = frozenset({"_type_", "_data_"})
"""The keys of an object the store's JSON transcoder (eventsourcing's) reads back as a value
of a registered type rather than as an object."""

_MARK = b'"_type_"'
_WHY = ("is an object of exactly the keys '_type_' and '_data_', which the event store "
        "cannot keep as an object (it reads one back as a value of another type)")


def unstorable_at(value: Any) -> str | None:
    """Where in ``value`` an object of exactly the keys ``_type_`` and ``_data_`` is (a path
    such as ``.a[2].b``; ``""`` for ``value`` itself), at any depth; None when there is none.

    Dicts, lists and tuples are walked, without recursion (a parsed message may be nested as
    deep as its parser took). Values orjson encodes whose encoding does not hold the text
    ``"_type_"`` are passed without a walk: the common case costs one encoding, in C."""
    try:
        if _MARK not in orjson.dumps(value):
            return None
    except (TypeError, ValueError):  # what orjson refuses (deep nesting, big ints): walked
        pass
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, dict):
            if item.keys() == STORE_TYPE_KEYS:
                return path
            stack.extend((v, f"{path}.{k}") for k, v in reversed(item.items()))
        elif isinstance(item, (list, tuple)):
            stack.extend((v, f"{path}[{i}]") for i, v in reversed(list(enumerate(item))))
    return None


def unstorable_reason(value: Any, what: str) -> str | None:
    """Why ``value`` (named ``what``) may not be stored, naming the path in it of an object
    the store cannot keep (:func:`unstorable_at`); None when it may be."""
    path = unstorable_at(value)
    return None if path is None else f"{what}{path} {_WHY}"
