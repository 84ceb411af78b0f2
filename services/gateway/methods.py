"""The public API the gateway serves, read from the generated descriptors (one source: protos/).

Every method of the public services is served, except the ones a browser cannot use over
HTTP/1.1 (``Play``, a bidirectional stream: clients use ``SubmitAction``, whose answer carries
the next decisions and view, and ``WatchMatch``) and the dice service's internal calls.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import DecodeError, Message
from google.protobuf.message_factory import GetMessageClass

from services.gateway.connect import ConnectError
from services.genproto.neon.dice.v1 import dice_pb2
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2
from services.genproto.neon.rules.v1 import rules_pb2
from services.genproto.neon.scoring.v1 import scoring_pb2
from services.genproto.neon.tournament.v1 import tournament_pb2

PUBLIC_DICE = {"GetCommitment", "RevealSeed"}
"""Dice calls anyone may make (the commitment, the revealed seed); the rest are internal."""

READ_ONLY = {
    "neon.rules.v1.RulesService": {"GetGameInfo", "CheckMatchConfig", "GetView", "ListMatches",
                                   "ListLegalActions"},
    "neon.matchmaking.v1.MatchmakingService": {"GetTicket", "ListMyInvitations"},
    "neon.scoring.v1.ScoringService": {
        "GetRatings",
        "GetLeaderboard",
        "GetPlayerHistory",
        "GetMatchResult",
    },
    "neon.tournament.v1.TournamentService": {
        "GetTournament",
        "GetRound",
        "GetStandings",
        "ListTournaments",
    },
    "neon.dice.v1.DiceService": {"GetCommitment", "RevealSeed"},
}
"""The unary calls with no side effects, which the gateway also serves as Connect GET requests
(``?encoding=json&message=...``): reads only. The exports (``ExportMatch``,
``ExportTournament``) are reads too but stay POST-only: they are an organiser's, never cached
and never for a URL; ``MyNextMatch`` hands out a seat token."""

BLANKED_FIELDS = frozenset({"rules_address"})
"""Fields of answers the gateway sends blank to web clients: a rules service's internal gRPC
address (matchmaking's ``Assignment``, the tournament's ``TableInfo`` and
``MatchAssignment``). A web client reaches a game's rules service through the gateway
(``/games/<game>/neon.rules.v1.RulesService/...``), never at that address."""


@dataclass(frozen=True)
class Method:
    service: str
    """The upstream service in settings terms: "rules", "matchmaking", "scoring", "tournament",
    "dice"."""
    full_name: str
    """neon.rules.v1.RulesService/GetView"""
    request: type[Message]
    response: type[Message]
    server_streaming: bool
    read_only: bool = False
    """Served as a Connect GET request too (``READ_ONLY``)."""
    blanks: bool = False
    """The answer holds a field of ``BLANKED_FIELDS`` somewhere: decoded and blanked before
    it is sent on (the other answers pass as they came)."""

    @property
    def path(self) -> str:
        return "/" + self.full_name

    def decode_json(self, body: bytes, ignore_unknown: bool = True) -> bytes:
        """A JSON body as the protobuf bytes gRPC sends; bad JSON is ``invalid_argument``.
        A field this build does not know is ignored, as protobuf's binary form does and
        Connect servers do, unless ``ignore_unknown`` is false; then it is
        ``invalid_argument``. An enum value's name it does not know is ``invalid_argument``
        either way."""
        message = self.request()
        try:
            text = body.decode("utf-8") if body.strip() else "{}"
            js = json.loads(text, object_pairs_hook=_no_duplicates)
            if not isinstance(js, dict):
                # json_format takes [] for an empty message and raises TypeError on null or
                # a number: a message is an object
                raise ValueError(f"a message is a JSON object, not {_json_kind(js)}")
            # known_fields also refuses a field named twice ({"matchId": .., "match_id": ..})
            known = known_fields(js, self.request.DESCRIPTOR)
            if ignore_unknown:
                # not json_format's ignore_unknown_fields: it ignores far more (a list where
                # the message should be, ["m1"], parsed as an empty message)
                json_format.ParseDict(known, message)
            else:
                json_format.Parse(text, message)
        except (UnicodeDecodeError, ValueError, json_format.ParseError) as err:
            raise ConnectError(
                "invalid_argument",
                f"{self.request.DESCRIPTOR.full_name}: not valid JSON for this message: "
                f"{shortened(str(err))}",
            ) from None
        except RecursionError:  # json.loads, known_fields or ParseDict past Python's depth
            raise ConnectError(
                "invalid_argument",
                f"{self.request.DESCRIPTOR.full_name}: not valid JSON for this message: "
                "nested too deeply",
            ) from None
        return message.SerializeToString()

    def check_binary(self, body: bytes) -> bytes:
        try:
            self.request.FromString(body)
        except DecodeError as err:
            raise ConnectError(
                "invalid_argument",
                f"{self.request.DESCRIPTOR.full_name}: not a valid protobuf message: "
                f"{shortened(str(err))}",
            ) from None
        return body

    def encode_json(self, raw: bytes) -> bytes:
        """Proto3 JSON with default values included (seat 0 and empty lists stay visible),
        ``BLANKED_FIELDS`` blank."""
        message = self.response.FromString(raw)
        if self.blanks:
            blank(message)
        return json_format.MessageToJson(
            message, always_print_fields_with_no_presence=True, indent=None
        ).encode()

    def encode_binary(self, raw: bytes) -> bytes:
        """The upstream's protobuf answer as sent on: ``BLANKED_FIELDS`` blank."""
        if not self.blanks:
            return raw
        message = self.response.FromString(raw)
        blank(message)
        return message.SerializeToString()


REASON_CHARS = 240
"""The most of a parser's reason an answer (and the log line of its refusal) holds."""


def shortened(reason: str, limit: int = REASON_CHARS) -> str:
    """A parser's ``reason`` in at most ``limit`` characters: a longer one keeps its start
    (the field: "Failed to parse limit field: ...") and its end (protobuf's path to it,
    "at GetLeaderboardRequest.limit."), the middle left out. protobuf's reasons quote the
    value they could not take whole: a 4 MiB string went back in the answer and into the
    log line of its refusal, each request."""
    if len(reason) <= limit:
        return reason
    head = limit * 2 // 3
    return f"{reason[:head]} ... {reason[-(limit - head - 5):]}"


def _json_kind(value: Any) -> str:
    """What a JSON value is, in words: "null", "a number", ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, dict):
        return "an object"
    return "a string" if isinstance(value, str) else "an array"


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise json_format.ParseError(f"Failed to load JSON: duplicate key {key}.")
        out[key] = value
    return out


@functools.cache
def _fields_by_json_key(descriptor: Descriptor) -> dict[str, FieldDescriptor]:
    """A message's fields by the keys JSON may name them by (lowerCamelCase, proto name)."""
    return {f.json_name: f for f in descriptor.fields} | {f.name: f for f in descriptor.fields}


def known_fields(value: Any, descriptor: Descriptor) -> Any:
    """The JSON ``value`` of a ``descriptor`` message without the keys that name no field of
    it (or of the messages it holds): protobuf's binary form skips unknown fields, and so
    does the gateway's JSON. A field named by two keys, its lowerCamelCase name and its proto
    name (``{"matchId": "m1", "match_id": "m2"}``), is a ``json_format.ParseError``, as
    protojson (connect-go) refuses it: protobuf's Python parser took the last one silently,
    so a proxy or log that read one spelling saw another match than the service was sent.
    An enum field's value that is neither one of its names nor a number is one too
    (``_check_enum``). Everything else is left for the parser to judge (a value of the wrong
    type: ``invalid_argument``)."""
    if not isinstance(value, dict) or descriptor.full_name.startswith("google.protobuf."):
        return value
    fields = _fields_by_json_key(descriptor)
    out = {}
    named: dict[str, str] = {}
    for key, item in value.items():
        field = fields.get(key)
        if field is None:
            continue
        if field.name in named:
            raise json_format.ParseError(
                f"field {field.name} is named twice, as {_shown_key(named[field.name])} "
                f"and {_shown_key(key)}: send one")
        named[field.name] = key
        for one in item if field.is_repeated and isinstance(item, list) else [item]:
            if field.enum_type is not None:
                _check_enum(field, key, one)
            elif field.cpp_type in _INTEGERS:
                _check_integer(key, one)
        if field.message_type is not None:
            if field.message_type.GetOptions().map_entry:
                inner = field.message_type.fields_by_name["value"].message_type
                if inner is not None and isinstance(item, dict):
                    item = {k: known_fields(v, inner) for k, v in item.items()}
            elif field.is_repeated and isinstance(item, list):
                item = [known_fields(v, field.message_type) for v in item]
            elif not field.is_repeated:
                item = known_fields(item, field.message_type)
        out[key] = item
    return out


_INTEGERS = frozenset({FieldDescriptor.CPPTYPE_INT32, FieldDescriptor.CPPTYPE_INT64,
                       FieldDescriptor.CPPTYPE_UINT32, FieldDescriptor.CPPTYPE_UINT64})
_DECIMAL = re.compile(r"-?[0-9]+")


def _check_integer(key: str, value: Any) -> None:
    """An integer field's JSON string is ASCII decimal digits with an optional minus, as proto3
    JSON writes one (int64 as ``"123"``); protobuf's Python parser took whatever ``int()``
    takes, ``"1_000"``, ``" 7 "``, ``"+5"`` and digits of other scripts among them: a
    ``ParseError``, so a proxy or log that reads the field reads what the service is sent.
    Numbers are left to the parser."""
    if isinstance(value, str) and not _DECIMAL.fullmatch(value):
        shown = repr(value) if len(value) <= 32 else "a string"
        raise json_format.ParseError(f"{key}: {shown} is not an integer: send its decimal "
                                     "digits (a number, or a string of them)")


def _check_enum(field: FieldDescriptor, key: str, value: Any) -> None:
    """An enum field's JSON ``value`` is one of its names or an integer (proto3 JSON, as
    protojson takes it), or null (the default); anything else is a ``ParseError``. protobuf's
    Python parser took any value ``int()`` takes: ``true`` as 1, ``1.5`` as 1, ``"2"`` and
    ``" 2 "`` as 2, so a careless client's ``"policy": true`` chose a policy silently."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)) \
            or (isinstance(value, float) and value.is_integer()):  # 2.0, 2e0: a JSON integer
        return
    if isinstance(value, str) and value in field.enum_type.values_by_name:
        return
    shown = f"{value!r}" if isinstance(value, str) and len(value) <= 64 else _json_kind(value)
    names = [v.name for v in field.enum_type.values]
    raise json_format.ParseError(
        f"{key}: {shown} is not a value of {field.enum_type.name}: send one of its names "
        f"({', '.join(names[:6])}{', ...' if len(names) > 6 else ''}) or its number")


def _shown_key(key: str) -> str:
    """A JSON key as a reason quotes it: a known field's name, at most 64 characters."""
    return repr(key if len(key) <= 64 else key[:64] + "...")


def blank(message: Message) -> None:
    """Clear every field of ``BLANKED_FIELDS`` in ``message`` and the messages it holds."""
    for field, value in message.ListFields():
        if field.name in BLANKED_FIELDS:
            message.ClearField(field.name)
        elif field.type != field.TYPE_MESSAGE:
            continue
        elif field.message_type.GetOptions().map_entry:
            if field.message_type.fields_by_name["value"].type == field.TYPE_MESSAGE:
                for item in value.values():
                    blank(item)
        elif field.is_repeated:
            for item in value:
                blank(item)
        else:
            blank(value)


def holds_blanked(descriptor: Descriptor, seen: frozenset[str] = frozenset()) -> bool:
    """Whether messages of ``descriptor`` may hold a field of ``BLANKED_FIELDS``."""
    if descriptor.full_name in seen:
        return False
    seen = seen | {descriptor.full_name}
    return any(
        f.name in BLANKED_FIELDS
        or (f.message_type is not None and holds_blanked(f.message_type, seen))
        for f in descriptor.fields
    )


def _methods(
    file: Any, service_name: str, service: str, only: set[str] | None = None
) -> list[Method]:
    descriptor = file.DESCRIPTOR.services_by_name[service_name]
    out = []
    reads = READ_ONLY.get(descriptor.full_name, set())
    for m in descriptor.methods:
        if m.client_streaming or (only is not None and m.name not in only):
            continue
        out.append(
            Method(
                service,
                f"{descriptor.full_name}/{m.name}",
                GetMessageClass(m.input_type),
                GetMessageClass(m.output_type),
                m.server_streaming,
                read_only=m.name in reads and not m.server_streaming,
                blanks=holds_blanked(m.output_type),
            )
        )
    return out


def public_methods() -> dict[str, Method]:
    """By path: /neon.rules.v1.RulesService/GetView -> Method."""
    methods = (
        _methods(rules_pb2, "RulesService", "rules")
        + _methods(matchmaking_pb2, "MatchmakingService", "matchmaking")
        + _methods(scoring_pb2, "ScoringService", "scoring")
        + _methods(tournament_pb2, "TournamentService", "tournament")
        + _methods(dice_pb2, "DiceService", "dice", PUBLIC_DICE)
    )
    return {m.path: m for m in methods}
