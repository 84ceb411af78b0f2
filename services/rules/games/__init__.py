"""The pure game engines, by game id. Each engine lives in its own sub-package."""

from __future__ import annotations

import importlib
import os
from typing import Any

from services.rules.games.contract import GameEngine

ENGINE_MODULES = {
    "neon-reign": "services.rules.games.neon_reign",
    "neon": "services.rules.games.neon",
    "neon-knights-2086": "services.rules.games.neon_knights",
    "barbaric": "services.rules.games.barbaric",
}
"""Every game's package; one that is missing, or has no ``ENGINE`` yet, is not served."""


def _modules() -> dict[str, str]:
    """Built-in engines plus plug-ins from NEON_ENGINES ("game=package.module,...")."""
    modules = dict(ENGINE_MODULES)
    for item in os.environ.get("NEON_ENGINES", "").split(","):
        game_id, _, module = item.partition("=")
        if game_id.strip() and module.strip():
            modules[game_id.strip()] = module.strip()
    return modules


def available() -> list[str]:
    """Game ids whose engine is present in this build."""
    found = []
    for game_id, module in _modules().items():
        try:
            loaded = importlib.import_module(module)
        except ModuleNotFoundError:
            continue
        if hasattr(loaded, "ENGINE"):  # a content pack without its engine is not a game yet
            found.append(game_id)
    return found


def load_engine(game_id: str) -> GameEngine:
    modules = _modules()
    module = modules.get(game_id)
    if module is None:
        raise KeyError(f"unknown game {game_id!r}; known: {', '.join(modules)}")
    try:
        loaded = importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name is None or not module.startswith(err.name):
            raise
        raise KeyError(f"the {game_id!r} engine is not in this build yet") from None
    if not hasattr(loaded, "ENGINE"):
        raise KeyError(f"the {game_id!r} engine is not written yet")
    return loaded.ENGINE  # type: ignore[no-any-return]


def load_presentation(game_id: str) -> Any | None:
    """The game's ``present`` module (contract.Presentation), or ``None`` if it has none."""
    module = _modules().get(game_id)
    if module is None:
        return None
    try:
        return importlib.import_module(f"{module}.present")
    except ModuleNotFoundError as err:
        if err.name == f"{module}.present":
            return None
        raise
