"""The log processor that keeps an action's refusal words out of every log line (they quote
the action, a card of a hand): the line keeps its code and the kind of refusal."""

from __future__ import annotations

import io
import json

from services.platform import logs


def _line(**fields: object) -> dict[str, object]:
    out = io.StringIO()
    logs.configure("debug", "json", stream=out)
    try:
        logs.get_logger("t").info("call refused", **fields)
    finally:
        logs.configure("info", "json")
    return json.loads(out.getvalue())


def test_refusal_words_quoting_an_action_are_not_logged() -> None:
    line = _line(code="FAILED_PRECONDITION",
                 reason="illegal action: snake-3 is not in your hand",
                 nested={"details": ["action does not match the neon schema: {'top': 'ronin-2'}"]},
                 error="action_json: 1e400 is beyond a double")
    text = json.dumps(line)
    assert "snake-3" not in text and "ronin-2" not in text and "1e400" not in text
    assert line["code"] == "FAILED_PRECONDITION"
    assert str(line["reason"]).startswith("illegal action: ")


def test_other_words_are_kept() -> None:
    line = _line(reason="not your turn: waiting for seat(s) [1]", seat=0)
    assert line["reason"] == "not your turn: waiting for seat(s) [1]" and line["seat"] == 0


def test_a_traceback_keeps_its_frames_but_not_the_action() -> None:
    out = io.StringIO()
    logs.configure("debug", "json", stream=out)
    try:
        try:
            raise ValueError("illegal action: katana-3 is not in your hand")
        except ValueError:
            logs.get_logger("t").exception("unexpected error")
    finally:
        logs.configure("info", "json")
    line = json.loads(out.getvalue())
    assert "katana-3" not in line["exception"] and "Traceback" in line["exception"]


def test_the_strings_of_the_call_s_action_are_hidden_in_its_context_alone() -> None:
    import contextvars

    out = io.StringIO()
    logs.configure("debug", "json", stream=out)
    log = logs.get_logger("t")

    def call() -> None:
        logs.hide_in_logs(["ronin-2", "left", 7, "ab"])
        log.error("play action failed", match_id="m-left", error="KeyError('ronin-2')",
                  cover="left", short="ab")
        logs.hide_in_logs(["snake-4"])  # the stream's next action: it replaces the last
        log.info("again", error="ronin-2 snake-4")

    try:
        contextvars.copy_context().run(call)
        log.info("another call", error="ronin-2")  # not in that call's context
    finally:
        logs.configure("info", "json")
    first, second, other = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["error"] == "KeyError('[hidden]')" and first["cover"] == "[hidden]"
    assert first["match_id"] == "m-left" and first["short"] == "ab"  # names kept; short words
    assert second["error"] == "ronin-2 [hidden]"
    assert other["error"] == "ronin-2"


def test_also_adds_to_what_the_call_hides() -> None:
    import contextvars

    out = io.StringIO()
    logs.configure("debug", "json", stream=out)
    log = logs.get_logger("t")

    def call() -> None:
        logs.hide_in_logs(["ronin-2"])
        logs.hide_in_logs(["akari-5"], also=True)  # a timeout applied ahead of the action
        log.error("x", error="ronin-2 akari-5")

    try:
        contextvars.copy_context().run(call)
    finally:
        logs.configure("info", "json")
    assert json.loads(out.getvalue())["error"] == "[hidden] [hidden]"


def test_an_engine_s_words_on_a_stored_action_that_does_not_replay_are_not_logged() -> None:
    line = _line(reason="the stored match does not replay: event 7: action of seat 0 is "
                        "illegal: snake-3 is not in your hand",
                 why="the log does not fold on it: KeyError('ronin-2')",
                 error="event 9: does not replay (KeyError: 'katana-3')")
    text = json.dumps(line)
    assert "snake-3" not in text and "ronin-2" not in text and "katana-3" not in text
    assert "event 7" in text and "event 9" in text
