"""Matchmaking, the tournament service and the command line name no game (issue 10): modes,
seat counts, teams and engine-played sides come from each rules service's GetGameInfo. This searches their source,
comments and help texts included, for the games' ids and mode names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("neon-reign", "automa", "coalition", "rebirth", "battle-royale", "hero-match",
         "best-of-three")
PATTERN = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, NAMES)) + r")(?![\w-])",
                     re.IGNORECASE)


def hits(folder: str) -> list[str]:
    found = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if PATTERN.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    return found


def test_the_pattern_finds_names_and_only_names() -> None:
    assert PATTERN.search('GameSpec("neon-reign", ...)')
    assert PATTERN.search("the Automa always takes part")
    assert PATTERN.search('modes=["coalition"]')
    assert not PATTERN.search("automatic retries; neon-reigns; best-of-threes")


@pytest.mark.parametrize("folder", [
    "services/matchmaking",
    "services/cli",
    "services/tournament",
])
def test_no_game_is_named_in(folder: str) -> None:
    assert (ROOT / folder).is_dir()
    found = hits(folder)
    assert not found, "game knowledge outside the games' packages:\n" + "\n".join(found)
