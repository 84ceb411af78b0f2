"""The pure game engines, by game id. Each engine lives in its own sub-package."""

from __future__ import annotations

import importlib

from services.rules.games.contract import GameEngine

ENGINE_MODULES = {
    "neon-reign": "services.rules.games.neon_reign",
    "neon": "services.rules.games.neon",
}


def available() -> list[str]:
    """Game ids whose engine is present in this build."""
    found = []
    for game_id, module in ENGINE_MODULES.items():
        try:
            importlib.import_module(module)
        except ModuleNotFoundError:
            continue
        found.append(game_id)
    return found


def load_engine(game_id: str) -> GameEngine:
    module = ENGINE_MODULES.get(game_id)
    if module is None:
        raise KeyError(f"unknown game {game_id!r}; known: {', '.join(ENGINE_MODULES)}")
    return importlib.import_module(module).ENGINE  # type: ignore[no-any-return]
