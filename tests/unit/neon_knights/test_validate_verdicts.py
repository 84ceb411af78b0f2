"""``validate`` gives the verdict it always gave: the reference below is the engine's
``validate`` as it was before issue 18 made it cheaper (it built every seat's standing options
to look at the acting seat's). Checked on the states of seeded self-play, every version kept,
for every seat and every answer any seat's decisions list (owed or standing), plus answers no
decision lists."""

from __future__ import annotations

import random
from typing import Any

import pytest

from services.platform.draws import SeededRandomness
from services.rules.bots import make_bot
from services.rules.games import load_engine
from services.rules.games.contract import RESIGN, MatchConfig, json_key
from services.rules.games.neon_knights.engine import RULESETS, _reason
from services.rules.selfplay import client_view, setups

GAME = "neon-knights-2086"
ODD = [{"type": "step", "dir": 0}, {"type": "step", "dir": 7}, {"type": "speed", "to": 99},
       {"type": "ability_repair", "part": "nope", "part_to": "hand", "points": 1},
       {"type": "fire", "upgrade": "x"}, {"type": "draft", "implant": "none"},
       {"type": "wealthy", "choice": "stay"}, {"type": "acquire_pass"}, {"type": "unknown"},
       {"type": "resign", "extra": 1}]


def reference(engine: Any, state: Any, seat: int, action: Any) -> str | None:
    doc = state.doc
    if doc["phase"] == "over":
        return "the game is over"
    if not 0 <= seat < doc["seats"] or doc["players"][seat]["out"]:
        return "you are not racing in this game"
    key = json_key(dict(action))
    mine = [d for d in (*engine.pending(state), *engine.standing(state)) if d.seat == seat]
    if any(json_key(dict(a)) == key for d in mine for a in d.legal):
        return None
    if not any(not d.standing for d in mine):
        return "it is not your decision to make"
    return _reason(doc, seat, dict(action))


@pytest.mark.parametrize("version", sorted(RULESETS))
def test_validate_gives_the_reference_verdict_on_self_play(version):
    engine = load_engine(GAME).for_version(version)
    known = engine.config_schema().get("properties", {})
    checked = refused = 0
    for n, mode in enumerate(sorted(engine.modes())):
        plan = setups(engine, mode)[n % len(setups(engine, mode))]
        options = {**plan.options, **({"hidden_speeds": True} if n % 2 else {}),
                   **({"weapons_during_movement": True}
                      if "weapons_during_movement" in known and n != 1 else {})}
        rng = SeededRandomness(f"validate-verdicts:{version}:{mode}")
        pick = random.Random(f"{version}:{mode}")
        state = engine.setup(MatchConfig(mode, plan.seats, options), rng)
        bots = [make_bot("rule", f"v-{s}", GAME) for s in range(plan.seats)]
        client = client_view(engine)
        for step in range(150):
            pending = engine.pending(state)
            listed = [a for d in (*pending, *engine.standing(state)) for a in d.legal]
            tried = pick.sample(listed, min(len(listed), 6)) + ODD
            seats = range(plan.seats) if step % 10 else range(-1, plan.seats + 1)
            for seat in seats:
                for action in tried:
                    want = reference(engine, state, seat, action)
                    assert engine.validate(state, seat, action) == want, \
                        (version, mode, step, seat, action)
                    checked += 1
                    refused += want is not None
            if not pending:
                break
            if step % 97 == 96 and len(pending) == 1:  # now and then a seat resigns
                seat, action = pending[0].seat, dict(RESIGN)
            else:
                d = pick.choice(pending)
                seat, action = d.seat, bots[d.seat].choose(d, client(engine.view(state, d.seat)))
            state = engine.apply(state, seat, action, rng).state
    assert checked > 3000 and 0 < refused < checked
