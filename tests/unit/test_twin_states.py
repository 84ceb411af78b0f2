"""Side channels: what a viewer receives never depends on a hidden zone or a hidden choice.

Twin states differ from a random-bot game's states only in what the viewer may not see (deck
orders, other seats' hands reshuffled with their decks, NEON's face-down card choices and
private loot and upgrade cards, Neon Knights' draft packets, picks and hidden speeds, Neon
Reign's secret hero picks; tests/support/campaign/twins.py). For the viewer, its view, who is
asked for what (``(seat, kind)`` as the host shows everyone, and each decision's public
shape), its own decisions and the host's answer to its illegal actions must be the same for
both, also in the steps after a seat resigned. Planted leaks prove each of these dimensions is looked at: a probe that cannot see
them would pass vacuously.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from services.platform.draws import SeededRandomness
from services.rules.games import load_engine
from services.rules.games.contract import MatchConfig
from tests.support.campaign.leaks import setups
from tests.support.campaign.twins import bot_probe, probe, twin

GAMES = ("neon", "neon-reign", "neon-knights-2086", "barbaric")
STEPS = int(os.environ.get("NEON_TWIN_STEPS", "60"))
LONG_GAMES, LONG_STEPS = 2, 1500  # the slow run: every set-up, 2 games of up to 1,500 steps
# (and 2 more with a resignation about every 60 steps)
FAILURES = ("view differs", ": pending ", "own decisions differ", ": refusal of ",
            "not the same cards")


def _failures(found: list[str]) -> list[str]:
    return [f for f in found if any(k in f for k in FAILURES)]


@pytest.mark.parametrize("game", GAMES)
def test_twin_states_look_the_same_and_ask_the_same_seats(game: str) -> None:
    combos = list(setups(game))
    found: list[str] = []
    for i in range(3):
        mode, seats = combos[i % len(combos)]
        found += _failures(probe(game, mode, seats, i, steps=STEPS, refusals=1))
    assert found == []


@pytest.mark.parametrize("game", GAMES)
def test_twin_states_after_resignations_look_the_same(game: str) -> None:
    """Seats resign at random (about one step in 15): a resigned seat's hand, deck and
    choices stay as hidden as they were, in the steps that follow (with three seats or
    more; Neon Reign seats two, and its game ends at a resignation)."""
    most = max(s for _, s in setups(game))
    combos = [(m, s) for m, s in setups(game) if s == most]  # the most seats: play goes on
    mode, seats = combos[-1]
    resigned: set[int] = set()

    def apply(engine: Any, state: Any, seat: int, action: Any, rng: Any) -> Any:
        if action == {"type": "resign"}:
            resigned.add(seat)
        return engine.apply(state, seat, action, rng)

    found = probe(game, mode, seats, 100, steps=STEPS, refusals=1, resign_every=15,
                  engine=Planted(game, apply=apply))
    assert _failures(found) == []
    assert resigned  # the steps after a resignation were looked at


def test_hidden_starting_speeds_are_varied_and_look_the_same() -> None:
    # seed 7 reaches the starting speeds of race 1 at step 68
    found = probe("neon-knights-2086", "normal", 3, 7, steps=80, start=64,
                  options={"hidden_speeds": True})
    assert _failures(found) == []


SLOW_SETUPS = [(g, m, s) for g in GAMES for m, s in setups(g)]


@pytest.mark.slow
@pytest.mark.parametrize(("game", "mode", "seats"), SLOW_SETUPS)
def test_long_games_of_twin_states(game: str, mode: str, seats: int) -> None:
    found: list[str] = []
    for seed in range(LONG_GAMES):
        found += _failures(probe(game, mode, seats, 1000 + seed, steps=LONG_STEPS))
        found += _failures(probe(game, mode, seats, 3000 + seed, steps=LONG_STEPS,
                                 resign_every=60))
        if game == "neon-knights-2086" and mode == "normal":
            found += _failures(probe(game, mode, seats, 2000 + seed, steps=LONG_STEPS,
                                     options={"hidden_speeds": True}))
    assert found == []


# ---- planted leaks: each dimension of the probe finds one -----------------------------------


class Planted:
    """An engine that leaks: ``view``, ``pending`` or ``validate`` replaced, the rest its."""

    def __init__(self, game: str, **replaced: Any) -> None:
        self._engine = load_engine(game)
        for name, fn in replaced.items():
            setattr(self, name, lambda *a, _fn=fn, **k: _fn(self._engine, *a, **k))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)


def _view_with(extra: Any) -> Any:
    def view(engine: Any, state: Any, viewer: Any) -> Any:
        return {**engine.view(state, viewer), "leak": extra(state, viewer)}
    return view


def _found(game: str, mode: str, seats: int, engine: Planted, what: str, steps: int = 60,
           options: dict[str, Any] | None = None, start: int = 0) -> list[str]:
    return [f for f in probe(game, mode, seats, 1, steps=steps, engine=engine, options=options,
                             start=start, first=True) if what in f]


def test_a_planted_face_down_choice_leak_is_found() -> None:
    """NEON: the top card another fighter chose face down, in every view."""
    engine = Planted("neon", view=_view_with(lambda s, v: [
        f.choice.top if f.choice and not f.row and f.idx != v else None for f in s.fighters]))
    assert _found("neon", "rebirth", 3, engine, "view differs")


def test_a_planted_choice_orientation_leak_is_found() -> None:
    """NEON: only how another fighter laid its cards (the cards themselves kept)."""
    engine = Planted("neon", view=_view_with(lambda s, v: [
        f.choice.cover if f.choice and not f.row and f.idx != v else None for f in s.fighters]))
    assert _found("neon", "rebirth", 2, engine, "view differs")


def test_a_planted_private_loot_leak_is_found() -> None:
    """NEON: the cards of another fighter's keep, place or upgrade frame."""
    engine = Planted("neon", view=_view_with(lambda s, v: [
        fr.get("cards") for fr in s.stack if getattr(fr, "kind", "") in ("keep", "place", "upgrade")
        and fr.owner != v]))
    assert _found("neon", "rebirth", 2, engine, "view differs", steps=400)


def test_a_planted_resigned_hand_leak_is_found_only_with_resignations() -> None:
    """NEON: the hand of a fighter that resigned, in every other view."""
    engine = Planted("neon", view=_view_with(lambda s, v: [
        sorted(f.hand) if f.resigned and f.idx != v else None for f in s.fighters]))
    with_resigns = [f for f in probe("neon", "battle-royale", 3, 1, steps=60, engine=engine,
                                     first=True, resign_every=6) if "view differs" in f]
    assert with_resigns
    assert not [f for f in probe("neon", "battle-royale", 3, 1, steps=60, engine=engine,
                                 first=True) if "view differs" in f]


def test_a_planted_draft_pick_leak_is_found() -> None:
    """Neon Knights: which implant another seat picked this draft round."""
    engine = Planted("neon-knights-2086", view=_view_with(lambda s, v: [
        p if i != v else None for i, p in enumerate((s.doc["draft"] or {}).get("picks", []))]))
    assert _found("neon-knights-2086", "normal", 3, engine, "view differs")


def test_a_planted_draft_packet_leak_is_found() -> None:
    """Neon Knights: the packet on the viewer's right (it has not held it yet)."""
    def leak(s: Any, v: Any) -> Any:
        draft = s.doc["draft"]
        if draft is None or v is None:
            return None
        return sorted(draft["packets"][(v - 1) % s.doc["seats"]])
    engine = Planted("neon-knights-2086", view=_view_with(leak))
    assert _found("neon-knights-2086", "normal", 4, engine, "view differs")


def test_a_planted_implant_hand_leak_is_found() -> None:
    """Neon Knights: the implants another seat drafted."""
    engine = Planted("neon-knights-2086", view=_view_with(lambda s, v: [
        sorted(p["implant_hand"]) for p in s.doc["players"] if p["seat"] != v]))
    assert _found("neon-knights-2086", "normal", 3, engine, "view differs")


def test_a_planted_hidden_speed_leak_is_found() -> None:
    """Neon Knights: another seat's starting speed before the reveal (hidden speeds)."""
    engine = Planted("neon-knights-2086", view=_view_with(lambda s, v: [
        x if i != v else None for i, x in enumerate(s.doc["speeds"] or [])]))
    # seed 1 reaches the starting speeds of race 1 at step 69
    assert _found("neon-knights-2086", "normal", 3, engine, "view differs", steps=80,
                  options={"hidden_speeds": True}, start=64)


def test_a_planted_card_choice_default_leak_is_found() -> None:
    """NEON (engine 6): how a clock would lay another fighter's cards (the default drawn for
    its hidden card choice; the twins redraw it)."""
    engine = Planted("neon", view=_view_with(lambda s, v: [
        choice.cover for idx, choice in s.defaults if idx != v]))
    assert _found("neon", "rebirth", 3, engine, "view differs")


def test_a_planted_keep_default_leak_is_found() -> None:
    """NEON (engine 6): the pair a clock would keep of another fighter's loot."""
    engine = Planted("neon", view=_view_with(lambda s, v: [
        fr.get("default") for fr in s.stack if getattr(fr, "kind", "") == "keep"
        and fr.owner != v]))
    assert _found("neon", "rebirth", 2, engine, "view differs", steps=400)


def test_a_planted_drawn_default_leak_is_found() -> None:
    """Neon Knights (engine 0.6.0): the default drawn for another seat's hidden draft pick,
    what a clock would pick for it (the twins redraw it)."""
    engine = Planted("neon-knights-2086", view=_view_with(lambda s, v: [
        x if i != v else None for i, x in enumerate(s.doc.get("defaults") or [])]))
    assert _found("neon-knights-2086", "normal", 3, engine, "view differs")


def test_a_planted_drawn_speed_default_leak_is_found() -> None:
    """Neon Knights (engine 0.6.0): the default drawn for another seat's hidden speed."""
    engine = Planted("neon-knights-2086", view=_view_with(lambda s, v: [
        x if i != v and not isinstance(x, str) else None
        for i, x in enumerate(s.doc.get("defaults") or [])]))
    # seed 1 reaches the starting speeds of race 1 at step 69
    assert _found("neon-knights-2086", "normal", 3, engine, "view differs", steps=80,
                  options={"hidden_speeds": True}, start=64)


def test_a_planted_hero_pick_leak_is_found() -> None:
    """Neon Reign: the other side's secret starting hero."""
    engine = Planted("neon-reign", view=_view_with(lambda s, v: [
        p if i != v else None for i, p in enumerate(s.picks)]))
    assert _found("neon-reign", "hero-match", 2, engine, "view differs")


def test_a_planted_leak_in_own_decisions_is_found() -> None:
    """Neon Reign: a pick prompt that says what the other side picked."""
    def pending(engine: Any, state: Any) -> Any:
        return tuple(replace(d, prompt=f"{d.prompt} (they took {state.picks[1 - d.seat]})")
                     if d.kind == "pick_hero" else d for d in engine.pending(state))
    engine = Planted("neon-reign", pending=pending)
    assert _found("neon-reign", "hero-match", 2, engine, "own decisions differ")


def test_a_planted_leak_in_the_public_shape_is_found() -> None:
    """NEON: a decision marked hidden when the next fighter's first card (in sorted
    order) has an odd number."""
    def pending(engine: Any, state: Any) -> Any:
        def tell(seat: int) -> bool:
            hand = sorted(state.fighters[(seat + 1) % state.seats].hand)
            return bool(hand) and hand[0].endswith(("1", "3", "5", "7", "9"))
        return tuple(replace(d, hidden=tell(d.seat)) for d in engine.pending(state))
    engine = Planted("neon", pending=pending)
    assert _found("neon", "rebirth", 3, engine, "pending shape")


def test_a_planted_leak_in_a_refusal_is_found() -> None:
    """NEON: an illegal action's message that names a card of the next fighter's hand."""
    def validate(engine: Any, state: Any, seat: int, action: Any) -> Any:
        reason = engine.validate(state, seat, action)
        hand = state.fighters[(seat + 1) % state.seats].hand
        return reason if reason is None or not hand else f"{reason} ({hand[0]} is theirs)"
    engine = Planted("neon", validate=validate)
    assert _found("neon", "rebirth", 2, engine, ": refusal of ")


def test_the_twins_vary_every_hidden_choice() -> None:
    """The twins of a state with a face-down choice, a draft pick and a hero pick differ
    from it there (the probe cannot pass by leaving them alone)."""
    for game, mode, seats, field in (("neon", "rebirth", 2, "choice"),
                                     ("neon-knights-2086", "normal", 3, "draft"),
                                     ("neon-reign", "hero-match", 2, "picks")):
        engine = load_engine(game)
        rng = SeededRandomness("vary")
        state = engine.setup(MatchConfig(mode, seats, dict(engine.match_options(mode, seats))), rng)
        d = engine.pending(state)[0]
        state = engine.apply(state, d.seat, d.legal[-1], rng).state
        encoded = engine.encode(state)
        differ = 0
        for t in range(20):
            other = twin(game, state, 1 - d.seat if seats == 2 else (d.seat + 1) % seats,
                               SeededRandomness(f"t{t}"))
            a, b = encoded, engine.encode(other)
            part = (lambda e: [f["choice"] for f in e["fighters"]]) if field == "choice" else \
                (lambda e: e["draft"]) if field == "draft" else (lambda e: e["picks"])
            differ += part(a) != part(b)
        assert differ >= 10, (game, differ)


# ---- bots on hidden decisions (a seat the rules host hands to the rule bot) ------------------

BOT_HIDDEN_KINDS = {"neon": {"choose_cards", "keep_loot", "place_loot"},
                    "neon-knights-2086": {"draft", "start_speed", "fan_bet"},
                    "neon-reign": {"pick_hero"}, "barbaric": {"choose_card"}}


def _bot_options(game: str, mode: str) -> dict[str, Any] | None:
    return {"hidden_speeds": True} if (game, mode) == ("neon-knights-2086", "normal") else None


@pytest.mark.parametrize("game", GAMES)
def test_the_rule_bot_answers_hidden_decisions_that_the_table_cannot_foretell(game: str) -> None:
    """Every hidden decision of a random game, in the state and in a twin for another seat:
    24 rule bots of different seeds answer it legally, and not all alike (the pair of
    cards a NEON fighter lays, whether it lays a loot card out or tucks it, NK's draft pick
    and hidden speed, Neon Reign's hero, Barbaric's starting card)."""
    looked: Counter[str] = Counter()
    found: list[str] = []
    for i, (mode, seats) in enumerate(setups(game)):
        found += bot_probe(game, mode, seats, i, steps=120, options=_bot_options(game, mode),
                           looked=looked)
    assert found == []
    assert set(looked) == BOT_HIDDEN_KINDS[game], looked


class _FixedRule:
    """A bot that answers hidden decisions by a fixed rule of what it sees (the answer
    listed last; NEON's laying out: equipment whenever it can, as the rule bot did before),
    the game's rule bot otherwise."""

    def __init__(self, game: str, seed: Any) -> None:
        from services.rules.bots import make_bot
        self.bot = make_bot("rule", seed, game)

    def choose(self, decision: Any, view: Any = None) -> Any:
        if not decision.hidden:
            return self.bot.choose(decision, view)
        if decision.kind == "place_loot":
            laid = [a for a in decision.legal if a["as"] == "equipment"]
            return (laid or [a for a in decision.legal if a["as"] == "supply"]
                    or list(decision.legal))[0]
        return decision.legal[-1]


@pytest.mark.parametrize(("game", "mode", "seats", "kinds"), [
    ("neon", "rebirth", 3, {"choose_cards", "keep_loot", "place_loot"}),
    ("neon-knights-2086", "normal", 3, {"draft", "start_speed"}),
    ("neon-reign", "hero-match", 2, {"pick_hero"}),
    ("barbaric", "competitive", 3, {"choose_card"}),
])
def test_a_planted_bot_with_a_fixed_rule_on_hidden_decisions_is_found(
        game: str, mode: str, seats: int, kinds: set[str]) -> None:
    """The bot probe is not vacuous: a bot that answers each hidden decision by a fixed rule
    (the table, knowing it, would name the answer) is found at every kind of them."""
    found = bot_probe(game, mode, seats, 1, steps=120, options=_bot_options(game, mode),
                      maker=lambda seed: _FixedRule(game, seed))
    assert {f.split(" step ")[1].split(" ")[3] for f in found} >= kinds


def test_the_rule_bots_of_before_are_found() -> None:
    """The rule bots as they were: NEON's best pair of cards every time, NK's speed 6 and
    its draft pick by a fixed taste (RULES.md of each, "Bots on hidden decisions")."""
    from services.rules.bots import make_bot

    class Before:
        def __init__(self, game: str, seed: Any) -> None:
            self.bot, self.game = make_bot("rule", seed, game), game

        def choose(self, decision: Any, view: Any = None) -> Any:
            if self.game == "neon" and decision.kind == "choose_cards":
                from services.rules.games.neon.bots import row_value
                return max(decision.legal, key=row_value)
            if decision.kind == "start_speed":
                return {"type": "start_speed", "speed": 6}
            if decision.kind == "draft":
                from services.rules.games.neon_knights.bots import IMPLANT_TASTE
                from services.rules.games.neon_knights.content import IMPLANTS
                return max(decision.legal, key=lambda a: IMPLANTS[a["implant"]]["level"] * 20
                           - IMPLANT_TASTE.index(IMPLANTS[a["implant"]]["effect"]))
            return self.bot.choose(decision, view)

    kinds = set()
    for game, mode in (("neon", "rebirth"), ("neon-knights-2086", "normal")):
        found = bot_probe(game, mode, 3, 1, steps=120, options=_bot_options(game, mode),
                          maker=lambda seed, game=game: Before(game, seed))
        kinds |= {f.split(" step ")[1].split(" ")[3] for f in found}
    assert kinds == {"choose_cards", "draft", "start_speed"}

