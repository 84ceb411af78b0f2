"""The written-out state encoder builds exactly what the generic, reflective one builds."""

from services.platform.draws import SeededRandomness
from services.rules.bots import RandomBot, make_bot
from services.rules.games.contract import MatchConfig
from services.rules.games.neon.encoding import encode, to_json
from services.rules.games.neon.engine import ENGINE, ENGINES
from services.rules.selfplay import setups

from .helpers import played


def _states(mode: str, bot: str, games: int):
    for n, setup in zip(range(games), setups(ENGINE, mode) * games, strict=False):
        bots = [
            make_bot(bot, f"{n}-{s}", "neon") if bot != "random" else RandomBot(n * 10 + s)
            for s in range(setup.seats)
        ]
        yield from played(mode, setup, bots, f"encoding:{mode}:{n}")


def test_every_state_of_real_games_encodes_as_the_reflective_encoder_does():
    seen = 0
    kinds = set()
    for mode in ("rebirth", "battle-royale", "coalition"):
        for bot in ("rule", "random"):
            for state in _states(mode, bot, 3):
                assert encode(state) == to_json(state)
                kinds.update(fr.kind for fr in state.stack)
                seen += 1
    assert seen > 1000
    assert {"attack"} < kinds  # attack frames and other frames were both encoded


def test_the_version_2_encoding_still_drops_the_later_fields():
    state = next(_states("rebirth", "rule", 1))
    old = ENGINES["2"].setup(MatchConfig("rebirth", 2, {}), SeededRandomness("v2"))
    assert "ruleset" not in ENGINES["2"].encode(old)
    assert all("resigned" not in f for f in ENGINES["2"].encode(old)["fighters"])
    assert "ruleset" in ENGINE.encode(state)
