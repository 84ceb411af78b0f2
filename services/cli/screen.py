"""What a person sees of a game: the game's own presentation, or a generic one.

Each game may ship ``<engine package>/present.py`` implementing
:class:`services.rules.games.contract.Presentation` (as module-level functions, or as a
``PRESENTATION`` object). It is looked up afresh for each match, so a game whose
presentation lands later is picked up without touching the command line. Whatever a game
does not provide falls back to :class:`GenericPresentation`: a tree of the view and plain
words built from event kinds and action fields, never raw JSON.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from rich.tree import Tree

from services.platform.logs import get_logger
from services.rules.games.words import generic_action_text, scalar_text, words
from services.rules.records import is_abandoned

JSON = Any
PRESENTATION_METHODS = ("render", "describe_event", "describe_action")
log = get_logger("cli")


def _label(item: JSON, index: int) -> str:
    if isinstance(item, dict):
        for key in ("name", "title", "id", "side", "seat"):
            if key in item and not isinstance(item[key], (dict, list)):
                return f"{words(key)} {item[key]}" if key in ("side", "seat") else str(item[key])
    return f"#{index}"


def _is_flat(value: JSON) -> bool:
    return not isinstance(value, (dict, list)) or (
        isinstance(value, list) and all(not isinstance(v, (dict, list)) for v in value))


def _grow(tree: Tree, value: JSON) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if _is_flat(item):
                line = Text.assemble((f"{words(key)}: ", "bold"), scalar_text(item))
                if key in ("health", "hp", "life"):
                    line.stylize("red")
                tree.add(line)
            else:
                _grow(tree.add(Text(words(key), style="bold cyan")), item)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if _is_flat(item):
                tree.add(Text(scalar_text(item)))
            else:
                _grow(tree.add(Text(_label(item, index), style="bold")), item)
    else:
        tree.add(Text(scalar_text(value)))


class GenericPresentation:
    """For a game without its own ``present.py``: readable, complete, game-agnostic."""

    def render(self, view: JSON, viewer: int | None) -> RenderableType:
        who = "spectator" if viewer is None else f"seat {viewer}"
        tree = Tree(Text(f"the table as {who} sees it", style="bold magenta"))
        _grow(tree, view)
        return tree

    def describe_event(self, event: Mapping[str, JSON], viewer: int | None) -> str:
        data = event.get("data") or {}
        if isinstance(data, Mapping):
            whose = {k: v for k, v in data.items() if k in ("side", "seat")}
            rest = {k: v for k, v in data.items() if k not in whose}
            actor = ", ".join("you" if v == viewer else f"{k} {v}" for k, v in whose.items())
            details = "; ".join(filter(None, [actor, scalar_text(rest) if rest else ""]))
        else:
            details = scalar_text(data)
        return f"{words(str(event.get('kind', 'event')))}: {details}" if data else \
            words(str(event.get("kind", "event")))

    def describe_action(self, action: Mapping[str, JSON], view: JSON) -> str:
        return generic_action_text(action)  # the words the rules service serves (legal_text)

    def engine_places(self, outcome: Mapping[str, JSON]) -> list[tuple[int, str, JSON]]:
        """The places of the sides the engine plays (none known for a generic game)."""
        return []


@dataclass
class Presenter:
    """The functions the screen calls, each from the game when it has it, else generic."""

    game: str
    source: Any = None
    generic: GenericPresentation = GenericPresentation()

    @property
    def from_game(self) -> bool:
        return self.source is not None

    def _call(self, name: str, *args: Any) -> Any:
        fn = getattr(self.source, name, None) if self.source is not None else None
        if fn is not None:
            try:
                return fn(*args)
            except Exception as err:  # a game's presentation bug must not end a human's match
                log.warning("presentation failed; generic used", game=self.game, call=name,
                            error=repr(err))
        return getattr(self.generic, name)(*args)

    def render(self, view: JSON, viewer: int | None) -> RenderableType:
        return self._call("render", view, viewer)  # type: ignore[no-any-return]

    def describe_event(self, event: Mapping[str, JSON], viewer: int | None) -> str:
        return str(self._call("describe_event", event, viewer))

    def describe_action(self, action: Mapping[str, JSON], view: JSON) -> str:
        return str(self._call("describe_action", action, view))

    def engine_places(self, outcome: Mapping[str, JSON]) -> list[tuple[int, str, JSON]]:
        """``(place, name, score)`` of each side the engine plays (``ModeInfo``'s AI
        participants), read off the outcome's breakdown by the game's presentation."""
        return list(self._call("engine_places", outcome))


def load_presentation(game: str) -> Presenter:
    """The game's ``present.py`` (via its engine module), or the generic presentation."""
    from services.rules.games import _modules

    module = _modules().get(game)
    if module is None:
        return Presenter(game)
    try:
        loaded = importlib.import_module(f"{module}.present")
    except ModuleNotFoundError as err:
        if err.name and f"{module}.present".startswith(err.name):
            return Presenter(game)
        raise
    source = getattr(loaded, "PRESENTATION", loaded)
    if not any(callable(getattr(source, m, None)) for m in PRESENTATION_METHODS):
        return Presenter(game)
    return Presenter(game, source)


def narrate(presenter: Presenter, records: list[Mapping[str, JSON]], viewer: int | None,
            view: JSON, names: Mapping[int, str] | None = None) -> list[str]:
    """Plain lines for projected records: who did what, then what the engine says happened.

    ``names`` gives a name per seat ("you", "bot-random-1"). A hidden action (absent from
    the projection) is told as "made a hidden choice".
    """
    names = names or {}
    lines: list[str] = []
    for record in records:
        kind = record.get("type")
        if kind == "ActionAccepted":
            seat = int(record.get("seat", -1))
            who = names.get(seat, f"seat {seat}")
            if seat != viewer:
                action = record.get("action")
                what = (presenter.describe_action(action, view) if isinstance(action, Mapping)
                        else "made a hidden choice")
                lines.append(f"{who}: {what}")
        elif kind == "MatchStarted":
            lines.append("the match begins")
        elif kind == "MatchEnded":
            outcome = record.get("outcome")
            if is_abandoned(outcome):
                lines.append(f"the match was abandoned: {outcome.get('reason', '')}")
            else:
                lines.append("the match is over")
        texts = list(record.get("text") or ())
        events = list(record.get("events") or ())
        if texts and len(texts) == len(events) and not presenter.from_game:
            lines += [f"  {t}" for t in texts]  # the server's words when the game has no present.py
        else:
            lines += [f"  {presenter.describe_event(e, viewer)}" for e in events]
    return lines


def options_table(presenter: Presenter, decisions: list[Any], view: JSON) -> tuple[
        RenderableType, list[tuple[int, dict[str, JSON]]]]:
    """The legal actions in words, grouped by decision and numbered from 1."""
    numbered: list[tuple[int, dict[str, JSON]]] = []
    parts: list[RenderableType] = []
    for index, decision in enumerate(decisions):
        prompt = getattr(decision, "prompt", "") or words(decision.kind)
        parts.append(Text(prompt + (" (optional)" if getattr(decision, "optional", False) else ""),
                          style="bold yellow"))
        for action in decision.legal:
            numbered.append((index, dict(action)))
            parts.append(Text.assemble((f"{len(numbered):>4}  ", "bold"),
                                       presenter.describe_action(action, view)))
    return Group(*parts), numbered
