"""``frozen.replace`` for NEON's own frozen dataclasses, one dict copy per new instance.

Every step of ``apply`` makes a new state (and a new fighter, or a new attack frame): this
is the engine's most frequent operation. ``but(obj, changes)`` gives the same object as
``frozen.replace(obj, **changes)`` (and so ``dataclasses.replace``) for a class whose
instances hold only their fields, which :func:`services.rules.games.frozen._plain_fields`
checks once per class; any other class, or a name that is not a field, goes to
``frozen.replace`` (which raises as before).
"""

from __future__ import annotations

from typing import Any, TypeVar

from services.rules.games.frozen import _plain_fields, replace

T = TypeVar("T")

_NEW = object.__new__
_SET = object.__setattr__
_FIELDS: dict[type, frozenset[str] | None] = {}


def but(obj: T, changes: dict[str, Any]) -> T:
    cls = obj.__class__
    try:
        names = _FIELDS[cls]
    except KeyError:
        names = _FIELDS[cls] = _plain_fields(cls)
    if names is None or not names.issuperset(changes):
        return replace(obj, **changes)
    attrs = obj.__dict__.copy()
    attrs.update(changes)
    new = _NEW(cls)
    _SET(new, "__dict__", attrs)
    return new
