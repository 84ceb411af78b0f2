"""Legal actions in words, for every client: the labels the rules service serves in
``Decision.legal_text`` (ListLegalActions with ``with_text``).

A label is the game's own ``present.describe_action(action, view)`` (the words ``neon play``
numbers), else a generic rendering from the action's fields. Both work from served JSON
only: the action as ``legal_json`` holds it and the asking seat's own view, never the full
state, so a label tells the seat nothing its view and decision list do not.

Neither the rules service nor this module imports the CLI. The generic rendering is the one
``services/cli/screen.py`` (``GenericPresentation.describe_action``) shows, word for word.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.platform.logs import get_logger

JSON = Any
log = get_logger("rules")


def words(key: str) -> str:
    """A JSON key or kind as words: ``pick_hero`` -> ``pick hero``."""
    return str(key).replace("_", " ").replace("-", " ")


def scalar_text(value: JSON) -> str:
    """A JSON value in plain words, never as JSON."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(scalar_text(v) for v in value) if value else "none"
    if isinstance(value, dict):
        return "; ".join(f"{words(k)} {scalar_text(v)}" for k, v in value.items())
    return str(value)


def generic_action_text(action: Mapping[str, JSON]) -> str:
    """An action of a game without its own words: its type, then its fields."""
    rest = {k: v for k, v in action.items() if k != "type"}
    kind = words(str(action.get("type", "action")))
    return f"{kind}: {scalar_text(rest)}" if rest else kind


def action_text(present: Any, action: Mapping[str, JSON], view: JSON) -> str:
    """``action`` as a menu entry, in the game's words when ``present`` (the game's
    presentation module, or ``None``) has them; a failing presentation falls back to the
    generic words rather than failing the call."""
    describe = getattr(present, "describe_action", None) if present is not None else None
    if describe is not None:
        try:
            return str(describe(action, view))
        except Exception as err:  # words are a courtesy: never fail a call for them
            log.warning("describe_action failed; generic words used", error=repr(err))
    return generic_action_text(action)


def legal_texts(present: Any, legal: Sequence[Mapping[str, JSON]], view: JSON) -> list[str]:
    """One line per legal action, in the same order."""
    return [action_text(present, action, view) for action in legal]
