"""The public API the gateway serves, read from the generated descriptors (one source: protos/).

Every method of the public services is served, except the ones a browser cannot use over
HTTP/1.1 (``Play``, a bidirectional stream: clients use ``SubmitAction``, whose answer carries
the next decisions and view, and ``WatchMatch``) and the dice service's internal calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format
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

    @property
    def path(self) -> str:
        return "/" + self.full_name

    def decode_json(self, body: bytes) -> bytes:
        """A JSON body as the protobuf bytes gRPC sends; bad JSON is ``invalid_argument``."""
        message = self.request()
        try:
            text = body.decode("utf-8") if body.strip() else "{}"
            json_format.Parse(text, message)
        except (UnicodeDecodeError, json_format.ParseError) as err:
            raise ConnectError(
                "invalid_argument",
                f"{self.request.DESCRIPTOR.full_name}: not valid JSON for this message: {err}",
            ) from None
        return message.SerializeToString()

    def check_binary(self, body: bytes) -> bytes:
        try:
            self.request.FromString(body)
        except DecodeError as err:
            raise ConnectError(
                "invalid_argument",
                f"{self.request.DESCRIPTOR.full_name}: not a valid protobuf message: {err}",
            ) from None
        return body

    def encode_json(self, raw: bytes) -> bytes:
        """Proto3 JSON with default values included (seat 0 and empty lists stay visible)."""
        return json_format.MessageToJson(
            self.response.FromString(raw), always_print_fields_with_no_presence=True, indent=None
        ).encode()


def _methods(
    file: Any, service_name: str, service: str, only: set[str] | None = None
) -> list[Method]:
    descriptor = file.DESCRIPTOR.services_by_name[service_name]
    out = []
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
