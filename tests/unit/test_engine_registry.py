from __future__ import annotations

import pytest

from services.rules.games import available, load_engine


def test_plugin_engines_register_and_unwritten_games_are_not_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEON_ENGINES", "toy=tests.support.toy")
    assert "toy" in available()
    assert load_engine("toy").game_id == "toy"
    assert "barbaric" not in available()
    with pytest.raises(KeyError):
        load_engine("no-such-game")
