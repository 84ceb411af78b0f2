"""Self-play: a game's bots against each other on the pure engine, in process.

Seeded randomness (``SeededRandomness``), so a run is reproducible. A mode's games cycle
through the seat counts and team layouts its ``ModeInfo`` declares, with the options
``match_options`` gives them; bots see what a client sees (their seat's view, as JSON).
Used by ``neon selfplay`` and ``bench/bench_bots.py``: how every mode ends, how long its
games are, and games/s and actions/s per core (CPU time of this process, bots included).
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from services.platform.draws import SeededRandomness
from services.rules.bots import Bot, bot_maker, game_bots, make_bot
from services.rules.games import available, load_engine
from services.rules.games.contract import GameEngine, MatchConfig, canonical_state, setup_transition

ACTION_LIMIT = 20_000
"""Generous: rule-bot games of the existing games end in well under a thousand actions."""


@dataclass(frozen=True)
class Setup:
    seats: int
    options: dict[str, Any]

    @property
    def label(self) -> str:
        teams = self.options.get("teams")
        return f"{self.seats} seats" + (f", teams {teams}" if teams else "")


@dataclass
class Tally:
    game: str
    mode: str
    endings: Counter[str] = field(default_factory=Counter)
    lengths: list[int] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    cpu: float = 0.0

    @property
    def games(self) -> int:
        return len(self.lengths) + len(self.failures)


def setups(engine: GameEngine, mode: str) -> list[Setup]:
    """Every seat count and team layout the mode declares, with the options it needs."""
    info = engine.modes()[mode]
    out = []
    for seats in info.seat_counts():
        splits: Sequence[int | None] = info.team_sizes_for(seats) or (None,)
        for size in splits:
            teams = None if size is None else [list(range(t, seats, seats // size))
                                               for t in range(seats // size)]
            options = dict(engine.match_options(mode, seats, teams))  # type: ignore[attr-defined]
            out.append(Setup(seats, options))
    return out


def play(engine: GameEngine, game: str, mode: str, setup: Setup, seed: int,
         limit: int, bot: str = "rule",
         maker: Callable[[int | str], Bot] | None = None) -> tuple[str, int]:
    """One game; returns (ending reason, actions). Raises on any failure. ``maker``:
    ``bot_maker(bot, game)``, found once for many games."""
    rng = SeededRandomness(f"bench-bots:{game}:{mode}:{setup.label}:{seed}")
    state = engine.setup(MatchConfig(mode, setup.seats, setup.options), rng)
    maker = maker or bot_maker(bot, game)
    bots = [maker(f"{seed}-{seat}") for seat in range(setup.seats)]
    client = client_view(engine)
    actions = 0
    while pending := engine.pending(state):
        if actions >= limit:
            raise RuntimeError(f"no ending after {limit} actions")
        decision = pending[0]
        view = client(engine.view(state, decision.seat))
        action = bots[decision.seat].choose(decision, view)
        refused = engine.validate(state, decision.seat, action)
        if refused is not None:
            raise RuntimeError(f"bot answer {action} to {decision.kind} refused: {refused}")
        state = engine.apply(state, decision.seat, action, rng).state
        actions += 1
    outcome = engine.outcome(state)
    if outcome is None:
        raise RuntimeError("no decision pending but no outcome")
    return outcome.reason, actions


def client_view(engine: GameEngine) -> Callable[[Any], Any]:
    """What turns the engine's view into what a client reads: :func:`as_client_json`, or
    nothing for an engine whose ``json_views`` is true (its views hold JSON values only,
    lists and not tuples, string keys: the round trip would give an equal copy, type for
    type; views and their shared parts are read, never changed, bots included)."""
    if getattr(engine, "json_views", False):
        return _as_it_is
    return as_client_json


def _as_it_is(value: Any) -> Any:
    return value


def as_client_json(value: Any) -> Any:
    """``value`` as a client reads it, ``json.loads(json.dumps(value))``, through orjson
    (several times faster). The two agree on every JSON value (tuples become lists, floats
    read back the same); what orjson refuses (keys that are not strings, integers beyond
    64 bits) takes the json module. Only NaN and infinity, which no view holds and no
    client could parse, would differ (orjson writes them as null)."""
    try:
        return orjson.loads(orjson.dumps(value, option=_PASSTHROUGH))
    except TypeError:
        return json.loads(json.dumps(value))


_PASSTHROUGH = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS


def ending(reason: str) -> str:
    """The reason with seat numbers taken out, so endings group by kind, not by winner."""
    return re.sub(r"\bseat \d+", "a seat", reason)


def run_mode(game: str, mode: str, games: int, limit: int = ACTION_LIMIT, bot: str = "rule") -> Tally:
    engine = load_engine(game)
    tally = Tally(game, mode)
    plans = setups(engine, mode)
    maker = bot_maker(bot, game)
    maker("warm-up")  # imports the bots' packages before the clock starts
    start = time.process_time()
    for n in range(games):
        setup = plans[n % len(plans)]
        try:
            reason, actions = play(engine, game, mode, setup, n, limit, bot, maker)
        except Exception as err:  # noqa: BLE001 - every failure is reported, then exit 1
            tally.failures.append(f"{game} {mode} ({setup.label}) game {n}: "
                                  f"{type(err).__name__}: {err}")
            continue
        tally.endings[ending(reason)] += 1
        tally.lengths.append(actions)
    tally.cpu = time.process_time() - start
    return tally


def targets(game: str | None, mode: str | None, bot: str = "rule") -> Iterator[tuple[str, str]]:
    games = [game] if game else available()
    for g in games:
        if bot != "random" and bot not in game_bots(g):
            print(f"{g}: no {bot!r} bot in its package, skipped", flush=True)
            continue
        modes = list(load_engine(g).modes())
        if mode and mode not in modes:
            raise SystemExit(f"{g} has no mode {mode!r}; modes: {', '.join(modes)}")
        for m in [mode] if mode else modes:
            yield g, m


def report(tally: Tally) -> str:
    lengths = tally.lengths or [0]
    cpu = max(tally.cpu, 1e-9)
    lines = [f"{tally.game} / {tally.mode}: {tally.games} games, "
             f"actions mean {statistics.fmean(lengths):.0f} median {statistics.median(lengths):.0f} "
             f"max {max(lengths)}, {tally.games / cpu:.1f} games/s, "
             f"{sum(tally.lengths) / cpu:.0f} actions/s per core"]
    for reason, count in tally.endings.most_common():
        lines.append(f"    {count:6d}  {reason}")
    if tally.failures:
        lines.append(f"    {len(tally.failures):6d}  FAILED (first: {tally.failures[0]})")
    return "\n".join(lines)


def export_game(game: str, mode: str, setup: Setup, seed: int, key: Any, bot: str = "rule",
                keyed: bool = True, version: str | None = None,
                table: tuple[str, list[str]] | None = None) -> bytes:
    """One self-play game as a signed audit export, offline (no dice or rules service).

    The records have the shape the rules host writes (MatchCreated with the dice commitment,
    MatchStarted and ActionAccepted with their draws and state hashes, MatchEnded with the
    seats that never made a move of their own (``no_move_seats``, rules/noshow.py, as the
    host writes it: none, the bots make every move themselves) and, unless ``table``,
    ``"dev_seed": true`` (the draws come from a dev seed), MatchSealed with the
    revealed seed), chained and closed by a checkpoint signed with
    ``key`` (Ed25519): a folder of such exports is what ``neon verify`` and
    ``bench/bench_verify.py`` check. Draws come from a dice seed derived from ``seed``;
    ``keyed`` hashes states with the per-match state key, as a deployment does; ``version``
    plays the engine as it was at that earlier version (``for_version``), as a deployment
    of that version would have (a benchmark's baseline tree replays only what it knows).
    ``table`` (match id, player ids) makes the export a tournament table's: a client seed
    from every seat mixed into the draws, no dev seed, as a tournament's rules service
    writes it.
    """
    import hashlib

    from services.platform.canonical import KEYED_SCHEME, sha256_hex
    from services.platform.draws import (
        DrawStream,
        RecordingRandomness,
        keyed_state_hash,
        perform,
        state_key,
    )
    from services.rules import noshow
    from services.rules import records as rec
    from services.rules.export import build_export
    from services.rules.replay import outcome_json
    from services.rules.verify import engine_at

    engine = load_engine(game)
    if version is not None:
        engine = engine_at(engine, version)
    match_id = table[0] if table else f"selfplay-{game}-{mode}-{setup.seats}-{bot}-{seed}"
    dice_seed = hashlib.sha256(f"selfplay-seed:{match_id}".encode()).digest()
    stream_id = f"{game}/{match_id}" if table else f"dev:{match_id}"
    client_seeds = [[seat, hashlib.sha256(f"{seed}:{seat}".encode()).hexdigest()]
                    for seat in range(setup.seats)] if table else []
    stream = DrawStream(dice_seed, stream_id, [(s, c) for s, c in client_seeds])
    hash_key = state_key(dice_seed, stream_id) if keyed else None

    def rng() -> RecordingRandomness:
        return RecordingRandomness(lambda op, n, count: perform(stream, op, n, count))

    def digest(state: Any) -> str:
        data = canonical_state(engine, state)  # canonical_json(engine.encode(state))
        return keyed_state_hash(hash_key, data) if hash_key else sha256_hex(data)

    records: list[dict[str, Any]] = []

    def add(body: dict[str, Any]) -> None:
        records.append(rec.seal_record(match_id, len(records) + 1, rec.head(records), body))

    players = list(table[1]) if table else [f"bot-{bot}-{seat}" for seat in range(setup.seats)]
    created: dict[str, Any] = {
        "type": "MatchCreated", "match_id": match_id, "game": game, "mode": mode,
        "seats": setup.seats, "options": dict(setup.options), "players": players,
        "engine_version": engine.engine_version, "content_version": engine.content_version,
        "dice": {"stream_id": stream_id, "commitment": hashlib.sha256(dice_seed).hexdigest(),
                 **({} if table else {"dev": True, "session": f"{game}/{match_id}"})},
        "await_client_seeds": bool(table),
    }
    if keyed:
        created["state_hash_scheme"] = KEYED_SCHEME
    add(created)
    r = rng()
    started = setup_transition(engine, MatchConfig(mode, setup.seats, setup.options), r)
    state = started.state
    add({"type": "MatchStarted", "client_seeds": client_seeds, "draws": [d.to_json() for d in r.records],
         "events": rec.engine_events_json(started.events), "state_hash": digest(state)})
    bots = [make_bot(bot, f"{seed}-{seat}", game) for seat in range(setup.seats)]
    while pending := engine.pending(state):
        if len(records) > ACTION_LIMIT:
            raise RuntimeError(f"no ending after {ACTION_LIMIT} actions")
        decision = pending[0]
        view = json.loads(json.dumps(engine.view(state, decision.seat)))
        action = json.loads(json.dumps(bots[decision.seat].choose(decision, view)))
        r = rng()
        transition = engine.apply(state, decision.seat, action, r)
        state = transition.state
        add({"type": "ActionAccepted", "seat": decision.seat, "command_id": f"c{len(records)}",
             "action": action, "decision": decision.kind, "hidden": decision.hidden,
             "draws": [d.to_json() for d in r.records],
             "events": rec.engine_events_json(transition.events), "state_hash": digest(state)})
    outcome = engine.outcome(state)
    if outcome is None:
        raise RuntimeError("no decision pending but no outcome")
    add({"type": "MatchEnded", "outcome": outcome_json(outcome), "players": players,
         "game": game, "mode": mode, noshow.FIELD: noshow.no_move_seats(records),
         **rec.dev_seed_field(created)})
    add({"type": "MatchSealed", "seed": dice_seed.hex(), "commitment": created["dice"]["commitment"]})
    return build_export(match_id, game, records, key)
