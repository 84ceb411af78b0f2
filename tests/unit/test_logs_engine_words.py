"""An exception raised in a game engine's code may quote the state it was working on (a
deck's order, another seat's hand): its words never reach a log line, its kind and its frames
(file, line, function) do. The match's own log replays it for whoever may see the state."""

from __future__ import annotations

import io
import json
import sys
import types

import pytest

from services.platform import logs

SECRET = "deck order s1c3,s1c0,s1c4"


def _engine_module(name: str) -> types.ModuleType:
    """A module named ``name`` whose ``apply`` fails quoting the state, as a buggy engine's."""
    module = types.ModuleType(name)
    exec(compile("def apply(state):\n    raise KeyError(f'no card after {state}')\n",
                 f"/engines/{name.replace('.', '/')}.py", "exec"), module.__dict__)
    sys.modules[name] = module
    return module


@pytest.fixture
def capture():
    out = io.StringIO()
    logs.configure("debug", "json", stream=out)
    yield out
    logs.configure("info", "json")


def _lines(out: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_a_built_in_engine_s_exception_keeps_its_kind_and_frames_not_its_words(capture) -> None:
    engine = _engine_module("services.rules.games.fake_for_logs")
    try:
        engine.apply(SECRET)
    except KeyError:
        logs.get_logger("t").exception("unexpected error", match_id="m-1")
    [line] = _lines(capture)
    text = json.dumps(line)
    assert "s1c3" not in text and "no card after" not in text
    exception = str(line["exception"])
    assert "KeyError" in exception and "fake_for_logs.py" in exception and "in apply" in exception
    assert "withheld" in exception and line["match_id"] == "m-1"


def test_a_plug_in_engine_is_withheld_once_registered(capture) -> None:
    engine = _engine_module("plugin_for_logs.rules")
    log = logs.get_logger("t")
    try:
        engine.apply(SECRET)
    except KeyError as err:
        log.exception("before", error=logs.error_words(err))
    logs.withhold_words_of("plugin_for_logs.rules")
    try:
        engine.apply(SECRET)
    except KeyError as err:
        log.exception("after", error=logs.error_words(err))
    before, after = _lines(capture)
    assert "s1c3" in str(before["exception"]) and "s1c3" in str(before["error"])
    assert "s1c3" not in json.dumps(after)
    assert str(after["error"]).startswith("KeyError") and "withheld" in str(after["error"])


def test_a_service_error_raised_from_an_engine_s_error_is_withheld_too(capture) -> None:
    engine = _engine_module("services.rules.games.fake_chain")
    try:
        try:
            engine.apply(SECRET)
        except KeyError as err:
            raise RuntimeError(f"fold failed: {err}") from err
    except RuntimeError as err:
        logs.get_logger("t").error("fold failed", exc_info=True, error=logs.error_words(err))
    [line] = _lines(capture)
    assert "s1c3" not in json.dumps(line)
    assert "RuntimeError" in str(line["exception"]) and "KeyError" in str(line["exception"])


def test_other_errors_keep_their_words(capture) -> None:
    try:
        raise ConnectionError("postgres at 10.0.0.5:5432 refused")
    except ConnectionError as err:
        logs.get_logger("t").exception("store failed", error=logs.error_words(err))
    [line] = _lines(capture)
    assert "10.0.0.5:5432" in str(line["exception"]) and "10.0.0.5:5432" in str(line["error"])
    assert logs.error_words(ValueError()) == "ValueError"
