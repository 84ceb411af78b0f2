"""A third-party client written from ``protos/`` alone: it imports nothing of ``services/``.

Run as a program (the integration test runs it with ``python -I``, so nothing of the project
is on its path)::

    python -I tests/support/proto_client.py --protos protos --out DIR --rules HOST:PORT \\
        --token ORGANISER --mode MODE --players ann,bob --report report.json

It generates Python code from the protos into ``--out`` with ``grpc_tools.protoc``, imports
that code and grpc, and then, using only what the rules service serves:

* reads ``GetGameInfo``: the content pack (``content_json``) it names cards with;
* creates a match with the organiser token and plays every seat to the end, each seat from
  its own seat token: the first owed decision answered with a random legal action, the seat's
  next position taken from ``SubmitAction``'s answer (``decisions``, ``view_json``); only
  when no seat owes by what it last heard does it ask the others where they stand
  (``ListLegalActions`` and ``GetView``: an answer tells only the seat that acted);
* draws each seat's hand by card name from the content pack (the ``hand`` lists of a seat's
  view: the view schemas say only the seat's own hand is in its view);
* prints served messages as proto3 JSON with fields at their default values included.

The report (JSON) says what it held, what it could not name, the outcome, and which modules
of the project it had imported (none, if it is honest).
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def generate(protos: Path, out: Path) -> None:
    """Python code and gRPC stubs for every ``.proto`` under ``protos``, into ``out``."""
    from grpc_tools import protoc

    include = Path(protoc.__file__).parent / "_proto"
    files = sorted(str(p.relative_to(protos)) for p in protos.rglob("*.proto"))
    out.mkdir(parents=True, exist_ok=True)
    code = protoc.main(["protoc", f"-I{protos}", f"-I{include}", f"--python_out={out}",
                        f"--grpc_python_out={out}", *files])
    if code != 0:
        raise SystemExit(f"protoc failed ({code})")


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def card_names(content: Any) -> dict[str, str]:
    """Every card id of the content pack with its name (``cards`` as a map or a list)."""
    cards = content.get("cards", {}) if isinstance(content, dict) else {}
    rows = cards.values() if isinstance(cards, dict) else cards
    return {str(c["id"]): str(c["name"]) for c in rows if isinstance(c, dict) and "name" in c}


def hands(view: Any) -> Iterator[list[str]]:
    """Every ``hand`` list in a view."""
    if isinstance(view, dict):
        for key, value in view.items():
            if key == "hand" and isinstance(value, list):
                yield [str(card) for card in value]
            else:
                yield from hands(value)
    elif isinstance(view, list):
        for item in view:
            yield from hands(item)


def to_json(message: Any, json_format: Any) -> str:
    """Proto3 JSON with every field, defaults included (seat 0, viewer 0, empty lists)."""
    try:
        return str(json_format.MessageToJson(message, always_print_fields_with_no_presence=True))
    except TypeError:  # protobuf before 5.26
        return str(json_format.MessageToJson(message, including_default_value_fields=True))


class Seat:
    """One seat's last known position: what it owes and sees at ``version``."""

    def __init__(self, seat: int, token: str) -> None:
        self.seat, self.token = seat, token
        self.version = -1
        self.decisions: list[Any] = []
        self.view: Any = None

    def owed(self) -> list[dict[str, Any]]:
        """The legal actions of the seat's first owed decision (highest priority first)."""
        mine = sorted((d for d in self.decisions if d.seat == self.seat and not d.standing
                       and d.legal_json), key=lambda d: -d.priority)
        return [json.loads(a) for a in mine[0].legal_json] if mine else []


def play(args: argparse.Namespace) -> dict[str, Any]:
    generate(Path(args.protos), Path(args.out))
    sys.path.insert(0, str(Path(args.out)))
    import grpc
    from google.protobuf import json_format

    pb = importlib.import_module("neon.rules.v1.rules_pb2")
    pb_grpc = importlib.import_module("neon.rules.v1.rules_pb2_grpc")
    channel = grpc.insecure_channel(args.rules)
    rules = pb_grpc.RulesServiceStub(channel)
    organiser = bearer(args.token)
    info = rules.GetGameInfo(pb.GetGameInfoRequest(), metadata=organiser, timeout=10)
    names = card_names(json.loads(info.content_json))
    players = args.players.split(",")
    created = rules.CreateMatch(pb.CreateMatchRequest(
        mode=args.mode, seats=len(players), players=players, dev_seed=args.seed),
        metadata=organiser, timeout=10)
    seats = {t.seat: Seat(t.seat, t.token) for t in created.seat_tokens}
    first_view = rules.GetView(pb.GetViewRequest(match_id=created.match_id),
                               metadata=bearer(seats[0].token), timeout=10)
    report: dict[str, Any] = {
        "game_id": info.game_id, "match_id": created.match_id, "cards_in_content": len(names),
        "json_with_defaults": {"create": to_json(created, json_format),
                               "view": to_json(first_view, json_format)},
        "json_without_defaults": {"create": json_format.MessageToJson(created),
                                  "view": json_format.MessageToJson(first_view)},
        "schemas": {"view": bool(info.view_schema_json), "event": bool(info.event_schema_json)},
    }
    rng = random.Random(args.seed)
    held: set[str] = set()
    drawn: list[str] = []
    texts = actions = from_queries = most_hands = 0
    version = created.version
    outcome: Any = None
    for _ in range(args.max_actions):
        owing = [s for s in seats.values() if s.version == version and s.owed()]
        if not owing:  # no seat owes by what it last heard: ask the stale ones where they stand
            for seat in seats.values():
                if seat.version != version:
                    from_queries += 1
                    legal = rules.ListLegalActions(pb.ListLegalActionsRequest(
                        match_id=created.match_id), metadata=bearer(seat.token), timeout=10)
                    view = rules.GetView(pb.GetViewRequest(match_id=created.match_id),
                                         metadata=bearer(seat.token), timeout=10)
                    if legal.version != view.version:
                        break  # the match moved between the two calls: look again
                    seat.version, seat.decisions = view.version, list(legal.decisions)
                    seat.view = json.loads(view.view_json or "null")
                    version = max(version, view.version)
            continue
        seat = owing[0]
        seen = list(hands(seat.view))
        most_hands = max(most_hands, len(seen))
        for hand in seen:
            held.update(hand)
            drawn.append(f"seat {seat.seat} holds: " + ", ".join(names.get(c, f"?{c}")
                                                                  for c in hand))
        legal_actions = seat.owed()
        action = legal_actions[rng.randrange(len(legal_actions))]
        answer = rules.SubmitAction(pb.SubmitActionRequest(
            match_id=created.match_id, command_id=f"c{seat.seat}-{seat.version}",
            action_json=json.dumps(action), expected_version=seat.version),
            metadata=bearer(seat.token), timeout=10)
        actions += 1
        texts += sum(1 for e in answer.events if list(e.text))
        version = seat.version = answer.version
        seat.decisions = list(answer.decisions)
        seat.view = json.loads(answer.view_json or "null")
        if answer.status == pb.MATCH_STATUS_ENDED:
            outcome = json.loads(answer.outcome_json or "null")
            break
    else:
        raise SystemExit(f"the match did not end within {args.max_actions} actions")
    channel.close()
    report.update(
        actions=actions, outcome=outcome, held=sorted(held),
        unnamed=sorted(c for c in held if c not in names), hands_drawn=drawn[:40],
        events_with_text=texts, positions_from_queries=from_queries, most_hands_in_a_view=most_hands,
        project_modules=sorted(m for m in sys.modules if m.split(".")[0] in ("services", "tests")),
    )
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--protos", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--rules", required=True, help="the rules service's host:port")
    parser.add_argument("--token", required=True, help="an organiser token")
    parser.add_argument("--mode", required=True)
    parser.add_argument("--players", required=True, help="player ids, one per seat")
    parser.add_argument("--seed", default="7")
    parser.add_argument("--max-actions", type=int, default=20_000)
    parser.add_argument("--report", required=True)
    args = parser.parse_args()
    Path(args.report).write_text(json.dumps(play(args), indent=1))


if __name__ == "__main__":
    main()
