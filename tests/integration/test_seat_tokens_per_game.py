"""A seat token names the game of its match. Match ids are per game (two games may each hold
a match "final"), and every rules service checks tokens with the deployment's one secret: a
seat of one game's "final" read the same seat's hand in another game's "final" and played for
it, on every seat call (views, legal actions, actions, client seeds, WatchMatch, Play)."""

from __future__ import annotations

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2


def _metadata(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


async def test_a_seat_token_of_one_games_match_is_refused_by_another_games_match(
        backend: Backend) -> None:
    organiser = backend.organiser_token()
    toy = RulesClient(backend.address("rules-toy"))
    reign = RulesClient(backend.address("rules-neon-reign"))
    await toy.create(organiser, match_id="final", mode="race", seats=2)
    played = await reign.create(organiser, match_id="final", mode="single", seats=2)
    reign_tokens = {t.seat: t.token for t in played.seat_tokens}
    toy_tokens = {t.seat: t.token for t in (await toy.create(
        organiser, match_id="final", mode="race", seats=2)).seat_tokens}
    legal = await reign.legal(reign_tokens[0], "final")
    action = legal.decisions[0].legal_json[0]
    stub = reign.stub
    calls = {
        "GetView": lambda m: stub.GetView(rules_pb2.GetViewRequest(match_id="final"),
                                          metadata=m, timeout=5),
        "ListLegalActions": lambda m: stub.ListLegalActions(
            rules_pb2.ListLegalActionsRequest(match_id="final"), metadata=m, timeout=5),
        "SubmitAction": lambda m: stub.SubmitAction(rules_pb2.SubmitActionRequest(
            match_id="final", command_id="c1", action_json=action), metadata=m, timeout=5),
        "AddClientSeed": lambda m: stub.AddClientSeed(
            rules_pb2.AddClientSeedRequest(match_id="final", seed="x"), metadata=m, timeout=5),
    }
    for name, call in calls.items():
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await call(_metadata(toy_tokens[0]))
        assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED, name
        assert "another game" in (info.value.details() or ""), name
    with pytest.raises(grpc.aio.AioRpcError) as info:
        async for _ in stub.WatchMatch(rules_pb2.WatchMatchRequest(match_id="final"),
                                       metadata=_metadata(toy_tokens[0]), timeout=5):
            break
    assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED

    async def opened():  # type: ignore[no-untyped-def]
        yield rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id="final"))

    with pytest.raises(grpc.aio.AioRpcError) as info:
        async for _ in stub.Play(opened(), metadata=_metadata(toy_tokens[0]), timeout=5):
            break
    assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED
    # nothing was played for seat 0 of Neon Reign's "final", and each token still works at home
    assert (await reign.view("final", reign_tokens[0])).version == played.version
    assert (await toy.view("final", toy_tokens[0])).viewer == 0
    await toy.close()
    await reign.close()
