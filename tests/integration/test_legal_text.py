"""ListLegalActions with ``with_text``: the legal actions in words, one line per entry of
``legal_json`` in the same order, equal to what the CLI labels them (``neon play``'s menu:
services/cli/screen.py, the game's present.py from the seat's own view) for every position
of a whole match of each game; nothing without the flag; generic words for a game without a
present module; bad input still a clear status."""

from __future__ import annotations

import json
import uuid
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.screen import GenericPresentation, load_presentation
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.grpc_kit import call_metadata
from services.platform.playing import SeatTurn, play_table, random_choice
from services.rules.games import available, load_engine

pytestmark = pytest.mark.timeout(300)
GAMES = ["neon-reign", "neon", "neon-knights-2086", "barbaric"]


def two_seat_mode(game: str) -> str:
    return next(name for name, mode in load_engine(game).modes().items()
                if mode.min_seats <= 2 <= mode.max_seats)


async def create(backend: Backend, stub: Any, game: str, mode: str) -> tuple[str, dict[int, str]]:
    created = await stub.CreateMatch(
        rules_pb2.CreateMatchRequest(match_id=f"words-{uuid.uuid4().hex[:10]}", mode=mode, seats=2,
                                     dev_seed=f"words-{game}"),
        metadata=call_metadata(backend.organiser_token()), timeout=10)
    return created.match_id, {t.seat: t.token for t in created.seat_tokens}


async def legal(stub: Any, match_id: str, token: str, with_text: bool) -> Any:
    return await stub.ListLegalActions(
        rules_pb2.ListLegalActionsRequest(match_id=match_id, with_text=with_text),
        metadata=call_metadata(token), timeout=10)


@pytest.mark.parametrize("game", GAMES)
async def test_legal_text_is_the_cli_menu_for_every_position_of_a_match(
        games_backend: Backend, game: str) -> None:
    if game not in available():
        pytest.skip(f"no {game} engine")
    presenter = load_presentation(game)
    assert presenter.from_game, f"{game} has its own present.py"
    async with grpc.aio.insecure_channel(games_backend.address(f"rules-{game}")) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        match_id, tokens = await create(games_backend, stub, game, two_seat_mode(game))
        positions = 0
        labels = 0
        bot = random_choice(f"words-{game}")

        async def choose(turn: SeatTurn) -> Any:
            nonlocal positions, labels
            token = tokens[turn.seat]
            texted = await legal(stub, match_id, token, True)
            plain = await legal(stub, match_id, token, False)
            view = await stub.GetView(rules_pb2.GetViewRequest(match_id=match_id),
                                      metadata=call_metadata(token), timeout=10)
            assert texted.version == plain.version == view.version == turn.version
            assert view.viewer == turn.seat
            seat_view = json.loads(view.view_json)
            assert [list(d.legal_json) for d in texted.decisions] == \
                [list(d.legal_json) for d in plain.decisions]
            for decision in plain.decisions:
                assert list(decision.legal_text) == [], "no words without with_text"
            for decision in texted.decisions:
                assert len(decision.legal_text) == len(decision.legal_json)
                menu = [presenter.describe_action(json.loads(a), seat_view)
                        for a in decision.legal_json]
                assert list(decision.legal_text) == menu
                assert all(line.strip() and not line.lstrip().startswith("{")
                           for line in decision.legal_text), decision.legal_text
                labels += len(menu)
            positions += 1
            return bot(turn)

        outcome = await play_table(stub, match_id, tokens, choose, command_prefix="words-")
        assert outcome is not None
        assert positions >= 2 and labels >= positions
        # the match is over: nobody owes anything, with words or without
        final = await legal(stub, match_id, tokens[0], True)
        assert list(final.decisions) == []


async def test_a_game_without_a_present_module_gets_generic_words(games_backend: Backend) -> None:
    assert not load_presentation("toy").from_game
    generic = GenericPresentation()
    async with grpc.aio.insecure_channel(games_backend.address("rules-toy")) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        match_id, tokens = await create(games_backend, stub, "toy", "race")
        seen = 0
        for token in tokens.values():
            texted = await legal(stub, match_id, token, True)
            for decision in texted.decisions:
                actions = [json.loads(a) for a in decision.legal_json]
                assert list(decision.legal_text) == [generic.describe_action(a, None)
                                                     for a in actions]
                seen += len(actions)
        assert seen > 0


async def test_with_text_keeps_the_access_rules_and_bad_input_gets_a_status(
        games_backend: Backend) -> None:
    async with grpc.aio.insecure_channel(games_backend.address("rules-neon-reign")) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        match_id, tokens = await create(games_backend, stub, "neon-reign", "single")
        request = rules_pb2.ListLegalActionsRequest(match_id=match_id, with_text=True)
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await stub.ListLegalActions(request, timeout=10)
        assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await stub.ListLegalActions(request, metadata=call_metadata("v1.not.a-token"),
                                        timeout=10)
        assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await stub.ListLegalActions(
                rules_pb2.ListLegalActionsRequest(match_id="someone-else", with_text=True),
                metadata=call_metadata(tokens[0]), timeout=10)
        assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED
        call = channel.unary_unary("/neon.rules.v1.RulesService/ListLegalActions")
        base = rules_pb2.ListLegalActionsRequest(match_id=match_id).SerializeToString()
        # with_text cut off after its tag: malformed, a clear INVALID_ARGUMENT, not a crash
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await call(base + b"\x10", metadata=call_metadata(tokens[0]), timeout=10)
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "malformed" in (info.value.details() or "")

        async def texts(raw: bytes) -> list[list[str]]:
            answer = rules_pb2.ListLegalActionsResponse.FromString(
                await call(raw, metadata=call_metadata(tokens[0]), timeout=10))
            assert any(d.legal_json for d in answer.decisions)
            return [list(d.legal_text) for d in answer.decisions]

        # any non-zero varint is true in proto3; field 2 of another wire type is an unknown
        # field (protobuf's rule), so no words
        assert all(await texts(base + b"\x10\x07"))
        assert not any(await texts(base + b"\x12\x03yes"))
