"""``replace`` for the engines' frozen dataclasses, without ``dataclasses.replace``'s cost.

``dataclasses.replace`` builds keyword arguments for every field and runs the generated
``__init__``, which sets each field through ``object.__setattr__``: for a state of thirty
fields changed in one, most of the work copies what does not change. :func:`replace`
copies the instance's attributes in one step and sets the changed ones. It gives the same
object ``dataclasses.replace`` gives for a class whose instances hold only their fields
(no ``__post_init__``, no ``init=False`` field, no ``__slots__``, no cached properties);
for any other class, and for a name that is not a field, it calls ``dataclasses.replace``
(which raises as before). The result is as immutable as the original: frozen classes
refuse assignment whichever way the instance was made.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, TypeVar

T = TypeVar("T")

_FIELDS: dict[type, frozenset[str] | None] = {}


def _plain_fields(cls: type) -> frozenset[str] | None:
    """The field names of ``cls`` when its instances hold exactly their fields, else None."""
    if (
        not dataclasses.is_dataclass(cls)
        or hasattr(cls, "__post_init__")
        or "__slots__" in vars(cls)
    ):
        return None
    found = dataclasses.fields(cls)
    if any(not f.init for f in found):
        return None
    for klass in cls.__mro__:
        if any(isinstance(v, functools.cached_property) for v in vars(klass).values()):
            return None
    return frozenset(f.name for f in found)


_NEW = object.__new__
_SET = object.__setattr__


def replace(obj: T, /, **changes: Any) -> T:
    """``dataclasses.replace(obj, **changes)``, copying the attributes at once."""
    return but(obj, changes)


def but(obj: T, changes: dict[str, Any]) -> T:
    """:func:`replace` with the changes as a dict (no keyword packing): the engines' most
    frequent operation, one dict copy per new instance."""
    cls = obj.__class__
    try:
        names = _FIELDS[cls]
    except KeyError:
        names = _FIELDS[cls] = _plain_fields(cls)
    if names is None or not names.issuperset(changes):
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    # dict(d), not d.copy(): an instance made by its __init__ holds a split dict, whose
    # copies stay split, and CPython 3.11 does not specialise attribute reads on instances
    # holding one (the generic lookup on every read); dict(d) makes a combined dict
    attrs = dict(obj.__dict__)
    attrs.update(changes)
    new = _NEW(cls)
    _SET(new, "__dict__", attrs)
    return new


def _event_by_dict(kind: str, data: Any, visible_to: frozenset[int] | None = None) -> Any:
    """``EngineEvent(kind, data, visible_to)``, its instance dict set at once (the generated
    ``__init__`` of a frozen dataclass sets each field through ``object.__setattr__``)."""
    new = _NEW(EngineEvent)
    _SET(new, "__dict__", {"kind": kind, "data": data, "visible_to": visible_to})
    return new


from services.rules.games.contract import EngineEvent  # noqa: E402

event = (_event_by_dict if _plain_fields(EngineEvent) == {"kind", "data", "visible_to"}
         else EngineEvent)
"""Make an engine event, the engines' most made object: the same object as
``EngineEvent(...)`` (that constructor itself if the class ever holds more than these fields)."""


def _transition_by_dict(state: Any, events: tuple[Any, ...] = ()) -> Any:
    """``Transition(state, events)``, its instance dict set at once (as :data:`event`)."""
    new = _NEW(Transition)
    _SET(new, "__dict__", {"state": state, "events": events})
    return new


from services.rules.games.contract import Transition  # noqa: E402

transition = (_transition_by_dict if _plain_fields(Transition) == {"state", "events"}
              else Transition)
"""Make a ``Transition`` (one per action): the same object as ``Transition(...)`` (that
constructor itself if the class ever holds more than these fields)."""
