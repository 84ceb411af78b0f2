"""The Connect protocol's wire pieces of the gateway (pure functions)."""

from __future__ import annotations

import json

import grpc
import pytest

from services.gateway import connect
from services.gateway.config import load_config
from services.gateway.connect import ConnectError
from services.gateway.methods import public_methods
from services.genproto.neon.rules.v1 import rules_pb2


def test_every_grpc_status_has_a_connect_name_and_an_http_status() -> None:
    for code in grpc.StatusCode:
        if code == grpc.StatusCode.OK:
            continue
        name = connect.code_name(code)
        assert name in connect.HTTP_STATUS, code
    assert connect.code_name(grpc.StatusCode.CANCELLED) == "canceled"
    assert ConnectError("failed_precondition", "not your turn").http_status == 400
    assert ConnectError("unauthenticated", "").http_status == 401
    assert ConnectError("unavailable", "").http_status == 503


def test_an_envelope_round_trips_and_the_end_of_stream_carries_the_error() -> None:
    framed = connect.envelope(b'{"a":1}')
    assert framed[:5] == b"\x00\x00\x00\x00\x07"
    assert connect.single_envelope(framed, 100) == b'{"a":1}'
    end = connect.end_of_stream(ConnectError("not_found", "no such match"))
    assert end[0] == connect.FLAG_END_STREAM
    assert json.loads(end[5:]) == {
        "metadata": {},
        "error": {"code": "not_found", "message": "no such match"},
    }
    assert json.loads(connect.end_of_stream()[5:]) == {"metadata": {}}


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"", "invalid_argument"),
        (b"\x00\x00\x00", "invalid_argument"),
        (b"\x00\x00\x00\x00\x05{}", "invalid_argument"),
        (b"\x00\x00\x00\x00\x01{}", "invalid_argument"),
        (b"\x01\x00\x00\x00\x02{}", "unimplemented"),
        (b"\x02\x00\x00\x00\x02{}", "invalid_argument"),
        (b"\x00\x7f\xff\xff\xff", "resource_exhausted"),
        # a message without its envelope: its first bytes read as flags and a length
        (b'{"matchId": "m1"}', "invalid_argument"),
        (b"\x0a\x02m1\x10\x05", "invalid_argument"),
    ],
)
def test_a_bad_stream_request_is_refused_with_a_reason(body: bytes, code: str) -> None:
    with pytest.raises(ConnectError) as err:
        connect.single_envelope(body, 1024)
    assert err.value.code == code and err.value.message


def test_the_public_api_is_read_from_the_protos_without_internal_or_bidi_calls() -> None:
    methods = public_methods()
    assert "/neon.rules.v1.RulesService/ListMatches" in methods
    assert methods["/neon.rules.v1.RulesService/WatchMatch"].server_streaming
    assert methods["/neon.matchmaking.v1.MatchmakingService/WatchTicket"].server_streaming
    assert "/neon.rules.v1.RulesService/Play" not in methods
    assert "/neon.dice.v1.DiceService/Draw" not in methods
    assert "/neon.dice.v1.DiceService/RevealSeed" in methods
    view = methods["/neon.rules.v1.RulesService/GetView"]
    assert view.decode_json(b'{"matchId": "m1"}') == view.decode_json(b'{"match_id": "m1"}')
    with pytest.raises(ConnectError, match="not valid JSON"):
        view.decode_json(b'["m1"]')


def test_cors_is_off_unless_origins_are_configured() -> None:
    assert load_config({}).cors_origins == () and not load_config({}).allows("http://x")
    config = load_config({"NEON_GATEWAY_CORS_ORIGINS": "http://a, http://b"})
    assert config.allows("http://b") and not config.allows("http://c") and not config.allows("")
    assert load_config({"NEON_GATEWAY_CORS_ORIGINS": "*"}).allows("http://anything")
    assert load_config({"NEON_GATEWAY_PORT": "9090"}).port == 9090


@pytest.mark.parametrize("raw", ["\u00b2", "1\u00b2", "\u0663", "-1", "1.5", "12345678901"])
def test_a_connect_timeout_that_is_not_ascii_digits_is_invalid_argument(raw: str) -> None:
    # "²".isdigit() is true but int("²") raises: that was a 500, not invalid_argument
    from aiohttp.test_utils import make_mocked_request

    from services.gateway.app import _timeout

    request = make_mocked_request("POST", "/", headers={"connect-timeout-ms": raw})
    with pytest.raises(ConnectError) as info:
        _timeout(request, 5.0)
    assert info.value.code == "invalid_argument"


def test_content_codings_and_decompression() -> None:
    import gzip
    import zlib

    assert connect.content_coding(None) == "identity"
    assert connect.content_coding(" GZip ") == "gzip"
    for bad in ("br", "zstd", "gzip, gzip", "\u00e9"):
        with pytest.raises(ConnectError) as refused:
            connect.content_coding(bad)
        assert refused.value.code == "unimplemented" and "gzip" in refused.value.message
    assert connect.decompress(gzip.compress(b"abc"), "gzip", 3) == b"abc"
    assert connect.decompress(zlib.compress(b"abc"), "deflate", 3) == b"abc"
    assert connect.decompress(b"", "gzip", 3) == b"", "empty content is never decompressed"
    with pytest.raises(ConnectError) as big:
        connect.decompress(gzip.compress(b"abcd"), "gzip", 3)
    assert big.value.code == "resource_exhausted"
    for broken in (b"xx", gzip.compress(b"abc")[:-4], gzip.compress(b"a") + b"junk"):
        with pytest.raises(ConnectError) as bad_data:
            connect.decompress(broken, "gzip", 100)
        assert bad_data.value.code == "invalid_argument"


def test_a_connect_get_query() -> None:
    import base64

    assert connect.get_message({"encoding": "json", "message": '{"a":1}'}, 100) == (
        "json",
        b'{"a":1}',
    )
    packed = base64.urlsafe_b64encode(b"\xfb\xff").decode().rstrip("=")
    assert connect.get_message(
        {"connect": "v1", "encoding": "proto", "base64": "1", "message": packed}, 100
    ) == ("proto", b"\xfb\xff")
    assert connect.get_message({"encoding": "json"}, 100) == ("json", b""), "no message: empty"
    with pytest.raises(ConnectError) as big:
        connect.get_message({"encoding": "json", "message": "x" * 101}, 100)
    assert big.value.code == "resource_exhausted"
    with pytest.raises(ConnectError) as codec:
        connect.get_message({"encoding": "yaml", "message": ""}, 100)
    assert codec.value.http_status == 415


def test_read_only_methods_and_the_answers_that_are_blanked() -> None:
    methods = public_methods()
    reads = {p.rsplit("/", 1)[1] for p, m in methods.items() if m.read_only}
    assert {"GetView", "ListMatches", "GetRatings", "GetLeaderboard", "GetStandings"} <= reads
    assert not reads & {
        "CreateMatch",
        "SubmitAction",
        "ExportMatch",
        "ExportTournament",
        "MyNextMatch",
        "CancelTicket",
        "WatchMatch",
        "AbandonMatch",
    }
    assert all(m.read_only <= (not m.server_streaming) for m in methods.values())
    blanked = {p.rsplit("/", 1)[1] for p, m in methods.items() if m.blanks}
    assert {"GetTicket", "WatchTicket", "MyNextMatch", "GetRound", "WatchMyMatches"} <= blanked
    assert "GetView" not in blanked, "answers without the field pass untouched"


def test_unknown_json_fields_are_left_out_at_every_depth_and_nothing_else_is() -> None:
    create = public_methods()["/neon.rules.v1.RulesService/CreateMatch"]
    sent = {
        "mode": "single",
        "seats": 2,
        "newTopLevel": 1,
        "clock": {"perDecisionMs": "5000", "newInner": [1, 2]},
        "teams": [{"seats": [0, 1], "newInList": {}}],
    }
    request = rules_pb2.CreateMatchRequest.FromString(create.decode_json(json.dumps(sent).encode()))
    assert (request.mode, request.seats, request.clock.per_decision_ms) == ("single", 2, 5000)
    assert list(request.teams[0].seats) == [0, 1]
    with pytest.raises(ConnectError, match="newTopLevel"):
        create.decode_json(json.dumps(sent).encode(), ignore_unknown=False)
    for bad in (
        b'["m1"]',
        b'{"mode": ["x"]}',
        b'{"clock": ["x"]}',
        b'{"teams": {"a": 1}}',
        b'{"mode": "a", "mode": "b"}',
        b"{",
        b'{"clock": {"perDecisionMs": "soon"}}',
        b'{"clock": {"kind": "CLOCK_KIND_FROM_THE_FUTURE"}}',
    ):
        with pytest.raises(ConnectError, match="not valid JSON"):
            create.decode_json(bad)


@pytest.mark.parametrize("sent", [
    {"matchId": "m1", "match_id": "m2"},
    {"match_id": "m2", "matchId": "m1"},
    {"mode": "single", "clock": {"perDecisionMs": "5000", "per_decision_ms": "1"}},
    {"teams": [{"seats": [0]}], "extra": {"teams": 1}, "options_json": "{}",
     "optionsJson": "{}"},
])
def test_a_field_named_by_both_its_spellings_is_refused_at_every_depth(
    sent: dict[str, object],
) -> None:
    """protobuf's Python parser took the last of ``matchId`` and ``match_id`` silently (its
    duplicate check compares keys, not fields); protojson refuses both, and so does the
    gateway, in either mode of unknown fields."""
    create = public_methods()["/neon.rules.v1.RulesService/CreateMatch"]
    for ignore_unknown in (True, False):
        with pytest.raises(ConnectError, match="named twice") as refused:
            create.decode_json(json.dumps(sent).encode(), ignore_unknown=ignore_unknown)
        assert refused.value.code == "invalid_argument"


def test_an_enum_is_taken_by_its_name_or_its_number_only_at_every_depth() -> None:
    create = public_methods()["/neon.rules.v1.RulesService/CreateMatch"]
    for policy, said in ((True, "a boolean"), (1.5, "a number"), ("3", "'3'"),
                         ("timeout_policy_bot", "'timeout_policy_bot'"), ({}, "an object"),
                         ([2], "an array")):
        with pytest.raises(ConnectError, match="TIMEOUT_POLICY_BOT") as refused:
            create.decode_json(json.dumps({"clock": {"policy": policy}}).encode())
        assert refused.value.code == "invalid_argument"
        assert f"policy: {said} is not a value of TimeoutPolicy" in refused.value.message
    for policy, number in (("TIMEOUT_POLICY_BOT", 2), (3, 3), (1.0, 1), (None, 0)):
        raw = create.decode_json(json.dumps({"clock": {"policy": policy}}).encode())
        assert rules_pb2.CreateMatchRequest.FromString(raw).clock.policy == number


def test_an_integer_as_a_string_is_its_decimal_digits_only_at_every_depth() -> None:
    """int64 comes as a string in proto3 JSON ("30000"); Python's parser also took what
    int() takes ("3_0000", " 30000 ", "+30000", other scripts' digits): refused, so what a
    proxy or a log reads of the field is what the service is sent."""
    create = public_methods()["/neon.rules.v1.RulesService/CreateMatch"]
    for bad in ("3_0000", " 30000", "30000 ", "+30000", "３００００", "0x10", "1e4", ""):
        for sent in ({"seats": bad}, {"clock": {"bankMs": bad}}):
            with pytest.raises(ConnectError, match="is not an integer") as refused:
                create.decode_json(json.dumps(sent).encode())
            assert refused.value.code == "invalid_argument"
    for good, number in (("30000", 30000), ("-1", -1), (30000, 30000), ("007", 7)):
        raw = create.decode_json(json.dumps({"clock": {"bankMs": good}}).encode())
        assert rules_pb2.CreateMatchRequest.FromString(raw).clock.bank_ms == number
