"""A seat handed to a bot (clock policy "bot") is played from a seed nobody at the table can
compute: a bot seeded by match, seat and version alone chose in a way anyone could rerun (its
secret hero pick in a drafted Hero Match, its starting-hand choice), before the seat's
opponents chose theirs. The seed comes from the match's state key, revealed at the seal, so
the choices can still be rerun afterwards."""

from __future__ import annotations

import hashlib
import hmac

from services.rules.host import bot_seed

KEY = bytes(range(32))


def test_a_keyed_match_seeds_its_bots_with_its_secret_state_key() -> None:
    seed = bot_seed("m1", 1, 7, KEY)
    public = "m1:1:7"
    assert seed != public and public not in seed
    assert seed == hmac.new(KEY, b"neon-arena/bot/m1:1:7", hashlib.sha256).hexdigest()
    assert len({bot_seed("m1", 1, 7, KEY), bot_seed("m1", 0, 7, KEY), bot_seed("m1", 1, 8, KEY),
                bot_seed("m2", 1, 7, KEY), bot_seed("m1", 1, 7, bytes(32))}) == 5


def test_a_match_without_a_state_key_keeps_the_seed_it_had() -> None:
    assert bot_seed("m1", 1, 7, None) == "m1:1:7"  # dev and older matches: nothing to hide
