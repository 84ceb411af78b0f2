from __future__ import annotations

import pytest

from services.rules.games import available, load_engine


def test_plugin_engines_register_and_unwritten_games_are_not_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    # a package without ENGINE (a content pack, an engine not written yet) and a module that
    # is not in this build are not offered, and say so when asked for
    monkeypatch.setenv("NEON_ENGINES", "toy=tests.support.toy,half=tests.support,ghost=tests.nope")
    assert "toy" in available()
    assert load_engine("toy").game_id == "toy"
    assert "half" not in available() and "ghost" not in available()
    with pytest.raises(KeyError, match="not written yet"):
        load_engine("half")
    with pytest.raises(KeyError, match="not in this build"):
        load_engine("ghost")
    with pytest.raises(KeyError):
        load_engine("no-such-game")
