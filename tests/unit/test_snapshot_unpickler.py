"""Engine snapshots run no code from the database (services/rules/matchlog.py).

A snapshot row is loaded only when its HMAC tag checks under the deployment's key, and then
with an unpickler that resolves only the classes engine states are made of. Every state of
self-play games of every game, mode, seat count and kept engine version round-trips through
that unpickler: a new type in an engine's state fails here, not in production (where its
snapshots would be refused and every rebuild replay the whole log)."""

from __future__ import annotations

import base64
import io
import pickle
import sys
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench import longgame
from services.platform.draws import SeededRandomness
from services.rules.bots import bot_maker
from services.rules.games import available, load_engine
from services.rules.games.contract import MatchConfig, setup_transition
from services.rules.matchlog import (
    SNAPSHOT_TAGGED,
    STATE_CLASSES,
    SnapshotRefused,
    load_state,
    open_snapshot,
    snapshot_classes,
    snapshot_event,
    snapshot_key,
)
from services.rules.selfplay import client_view, setups
from tests.support import toy


def _states(engine: Any, game: str, mode: str, setup: Any, seed: int, bot: str) -> Any:
    rng = SeededRandomness(f"snapshots:{game}:{mode}:{setup.label}:{seed}")
    state = setup_transition(engine, MatchConfig(mode, setup.seats, setup.options), rng).state
    maker = bot_maker(bot, game)
    bots = [maker(f"{seed}-{seat}") for seat in range(setup.seats)]
    client = client_view(engine)
    for _ in range(5000):
        yield state
        pending = engine.pending(state)
        if not pending:
            return
        decision = pending[0]
        action = bots[decision.seat].choose(decision, client(engine.view(state, decision.seat)))
        state = engine.apply(state, decision.seat, action, rng).state


def _versions(engine: Any) -> list[str]:
    """Every engine version the game's engine still replays (its rulesets), current first."""
    kept = getattr(sys.modules[type(engine).__module__], "RULESETS", {})
    return [engine.engine_version, *(v for v in kept if v != engine.engine_version)]


@pytest.mark.parametrize("game", available())
def test_every_state_of_every_mode_round_trips_through_the_restricted_unpickler(game: str) -> None:
    """The current version: every mode and seat count; older versions: one mode each, the
    modes taken in turn (``-m slow`` or NEON_SLOW=1: every mode of each)."""
    _round_trips(game, every_mode_of_old_versions=False)


@pytest.mark.slow
@pytest.mark.parametrize("game", available())
def test_every_state_of_every_mode_of_every_version_round_trips(game: str) -> None:
    _round_trips(game, every_mode_of_old_versions=True)


def _round_trips(game: str, every_mode_of_old_versions: bool) -> None:
    current = load_engine(game)
    allowed = snapshot_classes(current)
    assert allowed, f"{game} has no STATE_CLASSES entry"
    named: set[tuple[str, str]] = set()

    class Recording(pickle.Unpickler):
        def find_class(self, module: str, name: str) -> Any:
            named.add((module, name))
            return super().find_class(module, name)

    checked = 0
    for n, version in enumerate(_versions(current)):
        engine = current.for_version(version)
        assert snapshot_classes(engine) == allowed  # one list for every kept version
        modes = list(engine.modes())
        if version != current.engine_version and not every_mode_of_old_versions:
            modes = [modes[n % len(modes)]]
        for mode in modes:
            plans = setups(engine, mode)
            # the current version: every seat count with rule bots, and the first with random
            # ones; older versions: each mode's first seat count once
            runs = [(s, 0) for s in plans] + [(plans[0], 1)] \
                if version == current.engine_version else [(plans[0], 0)]
            for setup, seed in runs:
                for state in _states(engine, game, mode, setup, seed, "random" if seed else "rule"):
                    data = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
                    try:
                        loaded = load_state(data, allowed)
                    except SnapshotRefused as refused:
                        pytest.fail(f"{game} {version} {mode} {setup.label}: a state refused:"
                                    f" {refused} (add the type to STATE_CLASSES)")
                    assert loaded == state
                    if checked % 50 == 0:
                        Recording(io.BytesIO(data)).load()
                    checked += 1
    assert checked > 100
    assert named <= allowed


def _global(module: str, name: str, arg: str) -> bytes:
    """A protocol-0 pickle that calls ``module.name(arg)``."""
    return f"c{module}\n{name}\n(V{arg}\ntR.".encode()


@pytest.mark.parametrize("module,name,arg", [
    ("os", "system", "touch {m}"),
    ("posix", "system", "touch {m}"),
    ("builtins", "eval", "__import__('os').system('touch {m}')"),
    ("builtins", "exec", "__import__('os').system('touch {m}')"),
    ("subprocess", "getoutput", "touch {m}"),
    # an allowed module's other names, and attribute paths through an allowed class
    ("services.rules.games.neon.state", "State.__init__", "x"),
    ("services.rules.games.neon.state", "dataclasses", "x"),
    # another game's class in a NEON snapshot
    ("services.rules.games.barbaric.state", "State", "x"),
])
def test_globals_engine_states_are_not_made_of_are_refused_before_they_run(
        tmp_path: Path, module: str, name: str, arg: str) -> None:
    marker = tmp_path / "ran"
    data = _global(module, name, arg.format(m=marker))
    with pytest.raises(SnapshotRefused, match="names the global"):
        load_state(data, snapshot_classes(load_engine("neon")))
    assert not marker.exists()
    for extra in ("getattr", "__import__"):  # and nothing of builtins at all
        with pytest.raises(SnapshotRefused):
            load_state(f"cbuiltins\n{extra}\n.".encode(), snapshot_classes(load_engine("neon")))


def test_the_payloads_above_would_run_with_plain_pickle(tmp_path: Path) -> None:
    """The refusal test's payload does run when unpickled plainly (so that test can fail)."""
    marker = tmp_path / "ran"
    pickle.loads(_global("os", "system", f"touch {marker}"))
    assert marker.exists()


def test_engines_outside_the_games_package_allow_their_own_dataclasses_only() -> None:
    assert snapshot_classes(longgame.ENGINE) == {("bench.longgame", "State")}
    assert ("tests.support.toy", "State") in snapshot_classes(toy.ENGINE)
    assert set(STATE_CLASSES) == set(available())


# ---------------------------------------------------------------------------- tags

KEY = snapshot_key(Ed25519PrivateKey.from_private_bytes(bytes(range(32))))
ALLOWED = snapshot_classes(longgame.ENGINE)


def _state() -> Any:
    return longgame.State(goal=10, count=3, pips=(1, 2))


def test_a_tagged_snapshot_opens_and_any_other_blob_is_refused() -> None:
    state = _state()
    blob = snapshot_event("m1", 100, "v1", state, KEY).blob
    assert blob.startswith(SNAPSHOT_TAGGED)
    assert open_snapshot(KEY, ALLOWED, "m1", 100, "v1", blob) == state

    untagged = base64.b64encode(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)).decode()
    other_key = snapshot_key(Ed25519PrivateKey.generate())
    raw = bytearray(base64.b64decode(blob[len(SNAPSHOT_TAGGED):]))
    raw[0] ^= 1
    flipped_tag = SNAPSHOT_TAGGED + base64.b64encode(bytes(raw)).decode()
    raw = bytearray(base64.b64decode(blob[len(SNAPSHOT_TAGGED):]))
    raw[-3] ^= 1
    flipped_data = SNAPSHOT_TAGGED + base64.b64encode(bytes(raw)).decode()
    refused = {
        "untagged (before tags)": (KEY, "m1", 100, "v1", untagged),
        "another key": (other_key, "m1", 100, "v1", blob),
        "another match": (KEY, "m2", 100, "v1", blob),
        "another version": (KEY, "m1", 200, "v1", blob),
        "another engine version": (KEY, "m1", 100, "v2", blob),
        "a flipped tag bit": (KEY, "m1", 100, "v1", flipped_tag),
        "a flipped pickle bit": (KEY, "m1", 100, "v1", flipped_data),
        "not base64": (KEY, "m1", 100, "v1", SNAPSHOT_TAGGED + "!!"),
        "short": (KEY, "m1", 100, "v1", SNAPSHOT_TAGGED + "AAAA"),
    }
    for why, (key, match_id, n, version, text) in refused.items():
        with pytest.raises(SnapshotRefused):
            open_snapshot(key, ALLOWED, match_id, n, version, text)
            pytest.fail(f"{why}: opened")


def test_the_tag_is_checked_before_the_pickle_is_loaded(tmp_path: Path) -> None:
    """An untagged or forged blob is never unpickled, even one naming an allowed class."""
    marker = tmp_path / "ran"
    payload = _global("os", "system", f"touch {marker}")
    forged = SNAPSHOT_TAGGED + base64.b64encode(bytes(32) + payload).decode()
    for blob in (base64.b64encode(payload).decode(), forged):
        with pytest.raises(SnapshotRefused, match="tag"):
            open_snapshot(KEY, frozenset({("os", "system")}), "m1", 100, "v1", blob)
    assert not marker.exists()


def test_the_snapshot_key_is_the_signing_keys_and_no_other() -> None:
    seed = bytes(range(32))
    assert snapshot_key(Ed25519PrivateKey.from_private_bytes(seed)) == KEY
    assert snapshot_key(Ed25519PrivateKey.generate()) != KEY
