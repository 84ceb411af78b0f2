"""The contract-v2 shell over the rules modules: who acts, what is legal, apply, views."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.rules.games.contract import (
    RESIGN,
    Decision,
    EngineEvent,
    MatchConfig,
    ModeInfo,
    Outcome,
    Randomness,
    Transition,
    json_key,
)

from . import after, days, defaults, race, setup
from .content import CONTENT_VERSION, PARTS
from .schemas import ACTION_SCHEMA, CONFIG_SCHEMA
from .state import REPAIR_COST, Doc, State, active_seats, freeze, max_ap, thaw, wealthy_first
from .views import view_of

Action = Mapping[str, Any]


def advance(doc: Doc, rng: Randomness, events: list[EngineEvent]) -> None:
    """Run everything automatic until a decision is owed or the game is over."""
    while True:
        if doc["phase"] in ("race", "race_over"):
            after.turn_bets_face_up(doc, events)  # engine 0.4.0 on; a no-op in older games
        if doc["phase"] == "over" or doc["wealthy"]:
            return
        if len(active_seats(doc)) <= 1:
            doc["phase"] = "over"
            events.append(EngineEvent("game_over", {"vp": [p["vp"] for p in doc["players"]],
                                                    "reason": "all other drivers resigned"}))
            return
        phase = doc["phase"]
        if phase == "draft":
            moved = setup.draft_advance(doc, events)
            if moved:  # a round of picks is over (or the draft)
                defaults.forget(doc)
            else:  # engine 0.6.0 on: each pick's default drawn when it is asked
                defaults.draw(doc, setup.draft_decisions(doc), "implant", rng)
        elif phase == "prep":
            days.start_race(doc, rng, events)
            moved = True
        elif phase == "track":
            moved = doc["players"][doc["builder"]]["out"]
            if moved:
                doc["builder"] = days.track_builder(doc)
        elif phase == "actions":
            moved = days.days_advance(doc, events)
        elif phase == "speeds":
            moved = race.speeds_advance(doc, events)
            if moved:
                defaults.forget(doc)
            elif doc["hidden_speeds"]:  # engine 0.6.0 on: drawn when the speeds are asked
                defaults.draw(doc, [(seat, race.speed_legal()) for seat in race.speed_seats(doc)],
                              "speed", rng)
        elif phase == "race":
            moved = race.race_advance(doc, rng, events)
        elif phase == "race_over":
            after.score_race(doc, events)
            moved = True
        elif phase == "after_race":
            moved = doc["acquire"] is None or after.acquire_seat(doc) is None
            if moved:
                after.clean_up(doc, rng, events)
        else:
            raise AssertionError(f"unknown phase {phase}")
        if not moved:
            return


def owed(doc: Doc) -> list[Decision]:
    if doc["phase"] == "over":
        return []
    if doc["wealthy"]:
        return [Decision(w["seat"], "wealthy", tuple(days.wealthy_legal(doc, w)),
                         "Wealthy: stay at 60 chips, or drop 60 for 2 reputation",
                         default={"type": "wealthy", "choice": "stay"}) for w in doc["wealthy"]]
    phase = doc["phase"]
    if phase == "draft":
        return [Decision(seat, "draft", tuple(legal), "pick an implant, pass the rest left",
                         hidden=True,
                         default=defaults.default_of(doc, seat, legal, "implant", legal[0]))
                for seat, legal in setup.draft_decisions(doc)]
    if phase == "track":
        legal = days.track_legal(doc)
        return [Decision(doc["builder"], "build_track", tuple(legal),
                         f"choose track tile {len(doc['track']) + 1} of 8", default=legal[0])]
    if phase == "actions":
        seat = days.acting_seat(doc)
        betting = doc["sub"] is not None and doc["sub"]["kind"] == "bet"
        return [Decision(seat, "fan_bet" if betting else "day_action", tuple(days.day_legal(doc)),
                         "keep or discard a Fan Bet" if betting else f"day {doc['day']}: choose an action",
                         default=days.day_default(doc), hidden=betting)]
    if phase == "speeds":
        legal = race.speed_legal()
        return [Decision(seat, "start_speed", tuple(legal), "choose a starting speed (2-10)",
                         hidden=doc["hidden_speeds"],
                         default=defaults.default_of(doc, seat, legal, "speed", legal[2]))
                for seat in race.speed_seats(doc)]
    if phase == "race":
        seat, kind, legal, default = race.race_legal(doc)
        return [Decision(seat, kind, tuple(legal), kind.replace("_", " "), default=default,
                         optional=kind != "move")]
    if phase == "after_race":
        seat = after.acquire_seat(doc)
        if seat is not None:
            legal = after.acquire_legal(doc, seat)
            return [Decision(seat, "acquire_implant", tuple(legal), "take an implant or pass",
                             optional=True, default=legal[0])]
    return []


def owed_labels(doc: Doc) -> list[tuple[int, str, bool]]:
    """The (seat, kind, hidden) of ``owed(doc)``, in its order, without the legal answers."""
    phase = doc["phase"]
    if phase == "over":
        return []
    if doc["wealthy"]:
        return [(w["seat"], "wealthy", False) for w in doc["wealthy"]]
    if phase == "draft":
        return [(seat, "draft", True) for seat in setup.draft_seats(doc)]
    if phase == "track":
        return [(doc["builder"], "build_track", False)]
    if phase == "actions":
        betting = doc["sub"] is not None and doc["sub"]["kind"] == "bet"
        return [(days.acting_seat(doc), "fan_bet" if betting else "day_action", betting)]
    if phase == "speeds":
        hidden = bool(doc["hidden_speeds"])
        return [(seat, "start_speed", hidden) for seat in race.speed_seats(doc)]
    if phase == "race":
        seat, kind = race.race_owner(doc)
        return [(seat, kind, False)]
    if phase == "after_race":
        seat = after.acquire_seat(doc)
        if seat is not None:
            return [(seat, "acquire_implant", False)]
    return []


def repair_ability(doc: Doc, seat: int) -> list[dict[str, Any]]:
    """Part abilities at any time: discard (or return to hand) a wrench part to repair for
    5 chips per Armor Point."""
    p = doc["players"][seat]
    room = min(max_ap(p) - p["ap"], p["chips"] // REPAIR_COST)
    if room <= 0 or doc["phase"] in ("over", "draft") or _owes_wealthy(doc, seat):
        return []
    parts = sorted({v for v in p["car"].values() if v and PARTS[v]["ability"] == "repair"})
    return [{"type": "ability_repair", "part": part, "part_to": to, "points": n}
            for part in parts for to in ("discard", "hand") for n in range(1, room + 1)]


def _owes_wealthy(doc: Doc, seat: int) -> bool:
    """Engine 0.7.0 on: the seat has a Wealthy choice to make, so it spends no chips first (its
    tracker stands at 60 until it chooses; RULES.md, "Rulings of engine 0.7.0")."""
    return wealthy_first(doc) and any(w["seat"] == seat for w in doc["wealthy"])


ENGINE_VERSION = "0.7.0"
_TURNED_ON = {
    "0.1.0": (),
    "0.2.0": ("house_rules",),
    "0.3.0": ("audit",),
    "0.4.0": ("bets_face_up",),
    "0.5.0": ("reshuffle_carried", "decks_without_carried"),
    "0.6.0": ("secret_defaults",),
    "0.7.0": ("wealthy_first",),
}
"""The flags each version turned on; a version keeps every flag of the versions before it."""


def _rulesets(turned_on: dict[str, tuple[str, ...]]) -> dict[str, dict[str, bool]]:
    """Each version's flags: on from the version that turned it on."""
    flags = [flag for turned in turned_on.values() for flag in turned]
    out, on = {}, set()
    for version, turned in turned_on.items():
        on |= set(turned)
        out[version] = {flag: flag in on for flag in flags}
    return out


RULESETS = _rulesets(_TURNED_ON)
"""Every engine version kept for replaying its exports (RULES.md, "Version history"). 0.2.0
only added the house-rule option; without it a game is the same, state for state. 0.3.0
holds the rulebook audit's fixes (``state.audited``): its games carry ``ruleset``. 0.4.0
turns a Fan Bet face up as soon as it is met during the race (``state.bets_face_up``): its
games carry ``ruleset`` "0.4.0" and each player's ``bets_up``. 0.5.0 shuffles the stage cards a
continuing Epic Campaign match carries again, with that match's draws (``setup.reshuffle_stages``),
and builds a continuing match's part and upgrade decks without the cards its drivers carry
(``setup.carried_cards``): its games carry ``ruleset`` "0.5.0"; a first match draws as in 0.4.0.
0.6.0 draws the default of a hidden draft pick or hidden starting speed when it is asked, so a
timeout (public) does not name the answer (``defaults``): its games carry ``ruleset`` "0.6.0"
and ``defaults``; the rest is 0.5.0's. 0.7.0 (the rules-fidelity audit) settles a Wealthy choice
before its seat can spend chips (``state.wealthy_first``): its games carry ``ruleset`` "0.7.0";
the rest is 0.6.0's."""


class NeonKnightsEngine:
    game_id = "neon-knights-2086"
    title = "Neon Knights: 2086"
    content_version = CONTENT_VERSION
    contract_version = 2

    def __init__(self, engine_version: str = ENGINE_VERSION) -> None:
        self.engine_version = engine_version
        self._house_rules = RULESETS[engine_version]["house_rules"]
        self._audit = RULESETS[engine_version]["audit"]
        self._bets_face_up = RULESETS[engine_version]["bets_face_up"]
        self._reshuffle_carried = RULESETS[engine_version]["reshuffle_carried"]
        self._decks_without_carried = RULESETS[engine_version]["decks_without_carried"]
        self._secret_defaults = RULESETS[engine_version]["secret_defaults"]
        self._wealthy_first = RULESETS[engine_version]["wealthy_first"]

    def modes(self) -> dict[str, ModeInfo]:
        return {
            "normal": ModeInfo("normal", 2, 6, "three races; the most VP wins"),
            "campaign": ModeInfo("campaign", 2, 6, "races with implants earned and levelled up; "
                                 "progress carries from match to match", campaign=True),
            "epic-campaign": ModeInfo("epic-campaign", 2, 6, "the 16 stage cards in stage order, "
                                      "one stage (4 races) a match", campaign=True),
        }

    def config_schema(self) -> Any:
        if self._house_rules:
            return CONFIG_SCHEMA
        return {**CONFIG_SCHEMA, "properties": {k: v for k, v in CONFIG_SCHEMA["properties"].items()
                                                if k not in setup.HOUSE_RULES}}

    def action_schema(self) -> Any:
        return ACTION_SCHEMA

    def match_options(self, mode: str, seats: int, teams: Sequence[Sequence[int]] | None = None) -> dict[str, Any]:
        return {}

    def for_version(self, engine_version: str) -> NeonKnightsEngine:
        """The engine that replays matches made with ``engine_version``; ``KeyError`` if none."""
        if engine_version == self.engine_version:
            return self
        if engine_version not in RULESETS:
            raise KeyError(f"neon-knights-2086 engine {engine_version!r} is not kept; "
                           f"replayable versions: {', '.join(RULESETS)}")
        return NeonKnightsEngine(engine_version)

    def setup(self, config: MatchConfig, rng: Randomness) -> State:
        return self.start(config, rng).state

    def start(self, config: MatchConfig, rng: Randomness) -> Transition:
        """The set-up, with the first race's events: each seat's Fan Bet (to that seat),
        then the track builder, or in Epic Campaign the stage card drawn and the first day."""
        doc = setup.setup(config, rng, house_rules=self._house_rules, audit=self._audit,
                          bets_face_up=self._bets_face_up, reshuffle_carried=self._reshuffle_carried,
                          decks_without_carried=self._decks_without_carried,
                          secret_defaults=self._secret_defaults, wealthy_first=self._wealthy_first)
        events: list[EngineEvent] = []
        advance(doc, rng, events)
        return Transition(freeze(doc), tuple(events))

    def pending(self, state: State) -> tuple[Decision, ...]:
        return tuple(owed(state.doc))

    def standing(self, state: State) -> tuple[Decision, ...]:
        doc = state.doc
        if doc["phase"] == "over":
            return ()
        return tuple(Decision(seat, "any_time", (*repair_ability(doc, seat), RESIGN),
                              "part abilities, or resign", standing=True, priority=-1)
                     for seat in active_seats(doc))

    def decision_labels(self, state: State) -> list[tuple[int, str, bool]]:
        """The (seat, kind, hidden) of ``pending(state)`` then ``standing(state)`` (contract:
        "decision labels"), without the legal answers."""
        doc = state.doc
        owed_now = owed_labels(doc)
        if doc["phase"] == "over":
            return owed_now
        return owed_now + [(seat, "any_time", False) for seat in active_seats(doc)]

    def validate(self, state: State, seat: int, action: Action) -> str | None:
        doc = state.doc
        if doc["phase"] == "over":
            return "the game is over"
        if not 0 <= seat < doc["seats"] or doc["players"][seat]["out"]:
            return "you are not racing in this game"
        key = json_key(dict(action))
        owed_now = [d for d in self.pending(state) if d.seat == seat]
        if any(json_key(dict(a)) == key for d in owed_now for a in d.legal):
            return None
        # the seat's own standing option alone (``standing`` lists every racing seat's)
        if any(json_key(dict(a)) == key for a in (*repair_ability(doc, seat), RESIGN)):
            return None
        if not owed_now:
            return "it is not your decision to make"
        return _reason(doc, seat, dict(action))

    def apply(self, state: State, seat: int, action: Action, rng: Randomness) -> Transition:
        doc = thaw(state)
        events: list[EngineEvent] = []
        act = dict(action)
        kind = act["type"]
        if kind == "resign":
            resign(doc, seat, events)
        elif kind == "ability_repair":
            p = doc["players"][seat]
            race._use_part(doc, p, act["part"], act["part_to"])
            p["chips"] -= REPAIR_COST * act["points"]
            p["ap"] += act["points"]
            events.append(EngineEvent("repaired", {"seat": seat, "points": act["points"], "part": act["part"]}))
        elif kind == "wealthy":
            days.wealthy_act(doc, seat, act, events)
        elif kind == "draft":
            setup.draft_pick(doc, seat, act["implant"], events)
            defaults.forget(doc, seat)
        elif kind == "tile":
            days.place_tile(doc, act["tile"], events)
        elif kind == "start_speed":
            race.choose_speed(doc, seat, act["speed"], events)
            defaults.forget(doc, seat)
        elif kind in ("acquire", "acquire_pass"):
            after.acquire_act(doc, seat, act, events)
        elif doc["phase"] == "actions":
            days.day_act(doc, seat, act, rng, events)
        else:
            race.race_act(doc, seat, act, rng, events)
        advance(doc, rng, events)
        return Transition(freeze(doc), tuple(events))

    def view(self, state: State, viewer: int | None) -> Any:
        return view_of(state, viewer)

    def outcome(self, state: State) -> Outcome | None:
        doc = state.doc
        if doc["phase"] != "over":
            return None
        vp = tuple(int(p["vp"]) for p in doc["players"])
        key = [(0 if p["out"] else 1, p["vp"]) for p in doc["players"]]
        placements = tuple(1 + sum(1 for k in key if k > mine) for mine in key)
        resigned = len(active_seats(doc)) <= 1 and doc["race"] <= doc["races"] and any(
            p["out"] for p in doc["players"])
        if resigned:
            reason = "all other drivers resigned"
        elif doc["ended_by"] == "target":
            reason = f"a driver reached the campaign's target of {doc['target_vp']} VP"
        elif doc["mode"] == "epic-campaign" and not doc["stage_deck"]:
            reason = "all 16 stage cards have been played"
        else:
            reason = f"the last race ({doc['races']}) has been run"
        carry = setup.carry(doc) if doc["mode"] != "normal" else None
        return Outcome(placements, vp, reason, draw=len(set(placements)) == 1,
                       breakdown={"vp": list(vp), "fans": [p["fans"] for p in doc["players"]]},
                       carry=carry)

    def encode(self, state: State) -> Any:
        return thaw(state)


def resign(doc: Doc, seat: int, events: list[EngineEvent]) -> None:
    """A resigning driver leaves the race and the game and is placed last."""
    doc["players"][seat]["out"] = True
    defaults.forget(doc, seat)  # a drawn default of a decision it no longer owes
    doc["wealthy"] = [w for w in doc["wealthy"] if w["seat"] != seat]
    if doc["racing"]:
        doc["racing"]["hits"] = [h for h in doc["racing"]["hits"] if h["target"] != seat]
        if doc["racing"]["slam_rolls"]:
            doc["racing"]["slam_rolls"] = [e for e in doc["racing"]["slam_rolls"] if e["seat"] != seat]
    if doc["phase"] == "actions" and doc["order"][doc["turn"]] == seat:
        doc["sub"] = None
    events.append(EngineEvent("resigned", {"seat": seat}))


def _reason(doc: Doc, seat: int, action: dict[str, Any]) -> str:
    """Why an action that is not legal now is refused, in words (no hidden information)."""
    kind = action.get("type")
    p = doc["players"][seat]
    if kind == "step":
        if doc["racing"] is None:  # no race (and during the draft no track either)
            return "you cannot move now"
        from .track import rows_of, step_legal
        why = step_legal(rows_of(doc["track"]), p["row"], p["lane"], action.get("dir", 9))
        return why or "you cannot move now"
    if kind == "ability_repair" and _owes_wealthy(doc, seat):
        return "make your Wealthy choice first: your chips stand at 60 until you have chosen"
    if kind == "speed":
        return "that speed is beyond what your parts allow this turn"
    if kind in ("buy_part", "upgrade", "repair"):
        return "you cannot afford that, or it is not on offer"
    if kind == "install":
        return "that part needs an empty slot of its colour on your car"
    if kind == "fire":
        return "that upgrade is not face up and ready, or a target is out of range"
    return f"{kind} is not a legal action now"
