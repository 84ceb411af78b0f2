"""The seat loop's decoding of v2 decisions: defaults, standing options and priorities."""

from __future__ import annotations

from services.genproto.neon.rules.v1 import rules_pb2
from services.platform.playing import _split, command_id, decode_decision


def test_a_decision_is_decoded_with_its_default_and_standing_options_come_apart() -> None:
    owed = rules_pb2.Decision(seat=1, kind="defend", legal_json=['{"type":"pass"}', '{"type":"block"}'],
                              default_json='{"type":"pass"}', optional=True, priority=1)
    any_time = rules_pb2.Decision(seat=1, kind="exchange", legal_json=['{"type":"swap"}'],
                                  standing=True, priority=5)
    urgent = rules_pb2.Decision(seat=1, kind="counter", legal_json=['{"type":"counter"}'], priority=9)
    other = rules_pb2.Decision(seat=0, kind="attack", legal_json=['{"type":"hit"}'])
    d = decode_decision(owed)
    assert d.legal == ({"type": "pass"}, {"type": "block"}) and d.default == {"type": "pass"}
    assert d.optional and not d.standing and d.priority == 1
    assert decode_decision(other).default is None
    decisions, standing = _split(1, [owed, any_time, urgent, other])
    assert [x.kind for x in decisions] == ["counter", "defend"], "highest priority first"
    assert [x.kind for x in standing] == ["exchange"]


def test_command_ids_name_the_seat_and_the_version() -> None:
    assert command_id("seat", 2, 17) == "seat2-v17"
    assert command_id("mm-bot-", 0, 3) == "mm-bot-0-v3"


def test_an_answer_names_the_turn_at_its_position_version() -> None:
    """A repeated command (a retry after a lost answer) answered after the match moved on
    carries the position of the match now: the next command must expect that version, not
    the version the repeated command made."""
    from services.platform.playing import _Seat

    seat = _Seat(stub=None, token="", match_id="m1", seat=1, call_timeout=1.0, retry_for=0.0,
                 wait=0.1)
    owed = rules_pb2.Decision(seat=1, kind="move", legal_json=['{"type":"pass"}'])
    running = rules_pb2.MATCH_STATUS_RUNNING
    replayed = rules_pb2.SubmitActionResponse(version=5, position_version=9, status=running,
                                              replayed=True, decisions=[owed], view_json="{}")
    turn = seat.answered(replayed)
    assert turn is not None and turn.version == 9 and turn.owes
    fresh = rules_pb2.SubmitActionResponse(version=5, position_version=5, status=running,
                                           decisions=[owed], view_json="{}")
    assert seat.answered(fresh).version == 5
    older = rules_pb2.SubmitActionResponse(version=5, status=running, decisions=[owed],
                                           view_json="{}")  # a rules service before the field
    assert seat.answered(older).version == 5
