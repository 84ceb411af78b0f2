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
