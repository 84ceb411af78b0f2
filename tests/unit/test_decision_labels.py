"""``decision_labels``: the (seat, kind, hidden) of the decisions offered in a state, without
their legal lists (issue 18: verify's decision check compared three labels of decisions it
built whole).

An engine's own ``decision_labels(state)`` must give exactly, in order, the labels of
``pending(state)`` then of ``standing(state)``; checked on every state of seeded self-play of
each engine that has one (every version kept, every mode and seat count, rule-based and
random bots, seats answering their decisions in any order, some resigning). The contract's
``decision_labels(engine, state)`` derives them from ``pending`` for the others. And verify
still refuses a record naming a decision the engine did not offer.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.platform.draws import SeededRandomness
from services.rules.bots import game_bots, make_bot
from services.rules.export import parse_export
from services.rules.games import load_engine
from services.rules.games.contract import (
    RESIGN,
    Decision,
    MatchConfig,
    decision_labels,
    standing_options,
)
from services.rules.games.neon.ruleset import RULESETS as NEON_RULESETS
from services.rules.games.neon_knights.engine import RULESETS as KNIGHTS_RULESETS
from services.rules.games.neon_reign.rulesets import RULESETS as REIGN_RULESETS
from services.rules.replay import replay
from services.rules.selfplay import client_view, export_game, setups
from services.rules.verify import verify_export

OWN = {"neon": NEON_RULESETS, "neon-knights-2086": KNIGHTS_RULESETS, "neon-reign": REIGN_RULESETS}
"""The engines with a ``decision_labels`` of their own, and the versions each keeps (Barbaric
has none: most of its ``pending`` is reading the table, which its labels would need too)."""

EXTRA = {"neon-knights-2086": ("hidden_speeds", "weapons_during_movement")}
"""Options (true or false) drawn besides ``match_options``': hidden starting speeds make the
speed decisions hidden; the house rule adds fire to the movement decisions."""


def _options(engine: Any, base: dict[str, Any], turned_on: Any) -> dict[str, Any]:
    known = engine.config_schema().get("properties", {})
    return {**base, **{name: True for name in EXTRA.get(engine.game_id, ())
                       if name in known and turned_on(name)}}


def _engines(game: str) -> list[Any]:
    return [load_engine(game).for_version(v) for v in sorted(OWN[game])]


def _reference(engine: Any, state: Any) -> list[tuple[int, str, bool]]:
    return [(d.seat, d.kind, bool(d.hidden))
            for d in (*engine.pending(state), *standing_options(engine, state))]


def _labels_match(engine: Any, state: Any, where: Any) -> list[tuple[int, str, bool]]:
    # asked first, before pending (NEON remembers the last state's pending)
    own = list(engine.decision_labels(state))
    through_contract = list(decision_labels(engine, state))
    want = _reference(engine, state)
    assert own == want, (engine.game_id, engine.engine_version, where)
    assert through_contract == want, (engine.game_id, engine.engine_version, where)
    for seat, kind, hidden in own:
        assert type(seat) is int and type(kind) is str and type(hidden) is bool
    return want


def _play(engine: Any, mode: str, seats: int, options: dict[str, Any], bot: str, seed: int,
          limit: int = 1500, resign_every: int = 0, seen: set | None = None) -> int:
    """A seeded game checking the labels of every state; the seat that acts is any seat
    owing a decision (not always the first), and with ``resign_every`` a seat still in the
    game resigns about once in that many steps. Returns the states checked."""
    rng = SeededRandomness(f"decision-labels:{engine.game_id}:{mode}:{seed}")
    choice = random.Random(seed)
    state = engine.setup(MatchConfig(mode, seats, dict(options)), rng)
    bots = [make_bot(bot, f"{seed}-{s}", engine.game_id) for s in range(seats)]
    client = client_view(engine)
    for step in range(limit):
        labels = _labels_match(engine, state, (mode, seats, seed, step))
        if seen is not None:
            seen.update((kind, hidden) for _, kind, hidden in labels)
        pending = engine.pending(state)
        if not pending:
            return step + 1
        resigners = [d.seat for d in standing_options(engine, state)
                     if d.kind in ("resign", "any_time")]
        if resign_every and resigners and choice.randrange(resign_every) == 0:
            seat, action = choice.choice(resigners), dict(RESIGN)
        else:
            decision: Decision = choice.choice(pending)
            seat = decision.seat
            action = bots[seat].choose(decision, client(engine.view(state, seat)))
        assert engine.validate(state, seat, action) is None
        state = engine.apply(state, seat, action, rng).state
    return limit


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.sampled_from(sorted(OWN)), st.data(), st.integers(0, 2**32),
       st.sampled_from(["rule", "random"]), st.sampled_from([0, 0, 25, 120]))
def test_labels_are_those_of_pending_and_standing_on_every_state_of_self_play(
        game, data, seed, bot, resign_every):
    engine = data.draw(st.sampled_from(_engines(game)))
    mode = data.draw(st.sampled_from(sorted(engine.modes())))
    plans = setups(engine, mode)
    plan = plans[data.draw(st.integers(0, len(plans) - 1))]
    if bot not in game_bots(game):
        bot = "random"
    options = _options(engine, plan.options, lambda name: data.draw(st.booleans(), label=name))
    assert _play(engine, mode, plan.seats, options, bot, seed, resign_every=resign_every) >= 1


@pytest.mark.parametrize("game", sorted(OWN))
def test_every_mode_of_the_current_engine_to_the_end(game):
    """Each mode and seat count of the current version, to the end, rule bots: every kind of
    decision the games meet (hidden ones among them) is checked."""
    engine = load_engine(game)
    seen: set[tuple[str, bool]] = set()
    checked = 0
    for mode in sorted(engine.modes()):
        for n, plan in enumerate(setups(engine, mode)):
            bot = "rule" if "rule" in game_bots(game) else "random"
            options = _options(engine, plan.options, lambda name, n=n: n % 2 == 1)
            checked += _play(engine, mode, plan.seats, options, bot, 7 + n,
                             resign_every=0 if n % 2 else 200, seen=seen)
    assert checked > (150 if game == "neon-reign" else 300)  # Neon Reign's games are short
    assert any(hidden for _, hidden in seen) and any(not hidden for _, hidden in seen)
    assert len({kind for kind, _ in seen}) >= 5, seen
    if game == "neon-knights-2086":
        assert {("start_speed", True), ("start_speed", False)} <= seen


@pytest.mark.parametrize("game", ["barbaric"])
def test_the_contract_derives_labels_from_pending_for_an_engine_without_its_own(game):
    """Barbaric has no ``decision_labels``: the contract's gives the labels of its
    ``pending`` and ``standing``; standing options are
    asked only when the caller reads past the owed decisions."""
    engine = load_engine(game)
    assert getattr(engine, "decision_labels", None) is None
    rng = SeededRandomness("labels-default")
    mode = sorted(engine.modes())[0]
    plan = setups(engine, mode)[0]
    state = engine.setup(MatchConfig(mode, plan.seats, dict(plan.options)), rng)
    bots = [make_bot("random", s, game) for s in range(plan.seats)]
    client = client_view(engine)
    for _ in range(60):
        assert list(decision_labels(engine, state)) == _reference(engine, state)
        pending = engine.pending(state)
        if not pending:
            break
        d = pending[0]
        state = engine.apply(state, d.seat, bots[d.seat].choose(d, client(engine.view(state, d.seat))),
                             rng).state

    class Counting:
        contract_version = 2

        def __init__(self) -> None:
            self.standing_asked = 0

        def pending(self, state: Any) -> tuple[Decision, ...]:
            return (Decision(1, "turn", ({"type": "pass"},), hidden=False),)

        def standing(self, state: Any) -> tuple[Decision, ...]:
            self.standing_asked += 1
            return (Decision(0, "resign", (dict(RESIGN),), standing=True),)

    counting = Counting()
    labels = iter(decision_labels(counting, None))  # type: ignore[arg-type]
    assert next(labels) == (1, "turn", False) and counting.standing_asked == 0
    assert list(labels) == [(0, "resign", False)] and counting.standing_asked == 1


# -- verify still refuses a decision the engine did not offer --------------------------------


def _replayed_until(engine: Any, records: list[dict[str, Any]], n: int) -> Any:
    """The state before record ``n`` (1-based)."""
    return replay(engine, records[:n - 1]).state


MATCHES = [("neon", "rebirth"), ("neon", "battle-royale"), ("neon-knights-2086", "normal"),
           ("neon-reign", "single"), ("neon-reign", "hero-match"), ("barbaric", "competitive")]


@pytest.mark.parametrize("game,mode", MATCHES)
def test_verify_refuses_a_decision_the_engine_did_not_offer_that_seat(game, mode):
    """Self-play exports re-signed with one action's decision changed to: a kind offered to
    another seat in that very state (when there is one), a kind the game has but did not
    offer there, its hidden flag flipped, or no kind of the game at all. Each fails naming
    the event; the export as played verifies. The first two changes of each sort (each a
    whole verification); ``-m slow`` (or NEON_SLOW=1) all of them."""
    _refuses(game, mode, every=False)


@pytest.mark.slow
@pytest.mark.parametrize("game,mode", MATCHES)
def test_verify_refuses_every_decision_changed_to_one_not_offered_that_seat(game, mode):
    _refuses(game, mode, every=True)


def _refuses(game: str, mode: str, every: bool) -> None:
    from tests.unit.test_verify_descriptions import KEY, PINNED, _signed

    engine = load_engine(game)
    # plain state hashes: the test replays the records itself to find what was offered
    records = parse_export(export_game(game, mode, setups(engine, mode)[0], 5, KEY,
                                       keyed=False))[0]
    report = verify_export(_signed(records), PINNED)
    assert report.ok, report.failure
    assert "engine events and decisions match the replay" in report.checks

    actions = [r for r in records if r["type"] == "ActionAccepted"]
    kinds = sorted({r["decision"] for r in actions})
    cases: list[tuple[str, int, str, bool]] = []
    for record in actions[:: max(1, len(actions) // 12)]:
        n, seat = record["n"], record["seat"]
        state = _replayed_until(engine, records, n)
        offered = set(decision_labels(engine, state))
        mine = {(k, h) for s, k, h in offered if s == seat}
        assert (record["decision"], record["hidden"]) in mine
        theirs = sorted((k, h) for s, k, h in offered if s != seat and (k, h) not in mine)
        if theirs:
            cases.append(("theirs", n, *theirs[0]))
        absent = [k for k in kinds if (k, record["hidden"]) not in mine]
        if absent:
            cases.append(("absent", n, absent[0], record["hidden"]))
        if (record["decision"], not record["hidden"]) not in mine:
            cases.append(("flipped", n, record["decision"], not record["hidden"]))
    cases.append(("unknown", actions[-1]["n"], "no_such_decision", False))
    # a seat still in the game resigning (legal at any time) under the name of the decision
    # owed to the seat that acted there: offered, but not to it
    swaps: list[tuple[int, str, bool, int]] = []
    for record in actions[1::max(1, len(actions) // 6)]:
        state = _replayed_until(engine, records, record["n"])
        offered = list(decision_labels(engine, state))
        resigners = {s for s, _, _ in offered} - {record["seat"]}
        owed_kind = (record["decision"], record["hidden"])
        if resigners and owed_kind not in {(k, h) for s, k, h in offered if s in resigners}:
            swaps.append((record["n"], *owed_kind, min(resigners)))
    assert swaps
    if not every:  # the first two of each sort
        cases = [c for i, c in enumerate(cases) if [d[0] for d in cases[:i]].count(c[0]) < 2]
        swaps = swaps[:2]
    for n, kind, hidden, seat in [(n, k, h, None) for _, n, k, h in cases] + swaps:
        changed = copy.deepcopy(records)
        changed[n - 1].update(decision=kind, hidden=hidden)
        if seat is not None:
            changed[n - 1].update(seat=seat, action=dict(RESIGN))
        report = verify_export(_signed(changed), PINNED)
        seat = changed[n - 1]["seat"]
        assert not report.ok, (n, kind, hidden)
        assert report.failure.startswith(f'event {n}: decision "{kind}" (hidden: '
                                         f'{"true" if hidden else "false"})') \
            and report.failure.endswith(f"is not one the engine offered seat {seat} there"), \
            report.failure
