"""Found by the fault campaign (bench/campaign.py, PostgreSQL stopped mid-run): a match whose
final action was in flight when its store failed can never finish.

The rules host closes the dice session (the seal reveals the seed) before its own commit of
the final action, MatchEnded and MatchSealed. When that commit fails, the match is dropped
from memory; the client's retry (same command id) rebuilds it and asks dice for the blocks
of the final action again, and dice refuses: FAILED_PRECONDITION "dice session is closed".
The match stays unsealed and unscored for ever. Same path after a rules SIGKILL between the
dice close and the commit, or a dice commit whose answer was lost.

Fixed: dice reads the blocks it reserved before a close again (up to its high-water mark;
nothing new once the seed is public), so the retry draws what the first try drew and the
match seals; a commit whose outcome is unknown drops the live match, so the retry rebuilds
it from the store.

Later (the tests below the first): the host no longer reveals the seed before the end is
stored. MatchEnded is committed with the final action, then the dice session is closed and
MatchSealed committed on its own; a seal that fails waits for the next call or a restart.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.rules.host import MatchHost


def _host(backend: Backend, game: str) -> MatchHost:
    host = backend.services[f"rules-{game}"].extra["host"]
    assert isinstance(host, MatchHost)
    return host


async def test_a_final_action_whose_commit_failed_finishes_on_retry(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    host = _host(backend, "toy")
    real_commit = host.committer.commit
    failed: list[int] = []

    async def commit(events: list) -> None:  # type: ignore[type-arg]
        if not failed and any(type(e).__name__ == "MatchSealed" for e in events):
            failed.append(len(events))
            raise TimeoutError("the store went away")  # as a stopped PostgreSQL does
        await real_commit(events)

    monkeypatch.setattr(host.committer, "commit", commit)
    rules = RulesClient(backend.address("rules-toy"), timeout=5)
    try:
        created = await rules.create(backend.organiser_token(), match_id="seal-retry", mode="race",
                                     seats=2)
        tokens = {t.seat: t.token for t in created.seat_tokens}
        for step in range(200):
            view = await rules.view("seal-retry")
            if not view.pending:
                break
            seat = view.pending[0].seat
            action = json.loads((await rules.legal(tokens[seat], "seal-retry")).decisions[0].legal_json[0])
            for _ in range(5):
                try:
                    await rules.submit(tokens[seat], "seal-retry", f"c{step}", action)
                    break
                except grpc.aio.AioRpcError as err:
                    assert err.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED), (
                        err.code(), err.details())
        assert failed, "the seal's commit was never attempted: the test did not reach the end"
        export = await rules.export(backend.organiser_token(), "seal-retry")
        kinds = [json.loads(line)["type"] for line in export.export_jsonl.splitlines()]
        assert kinds[-3:] == ["MatchEnded", "MatchSealed", "Checkpoint"]
    finally:
        await rules.close()


async def _play_to_the_end(rules: RulesClient, tokens: dict[int, str], match_id: str,
                           tries: int = 5) -> list[grpc.StatusCode]:
    """Every seat plays its first legal action until nothing is owed; each action is retried
    with its command id on UNAVAILABLE or ABORTED. The codes of the failed tries."""
    codes: list[grpc.StatusCode] = []
    for step in range(200):
        view = await rules.view(match_id)
        if not view.pending:
            return codes
        seat = view.pending[0].seat
        action = json.loads((await rules.legal(tokens[seat], match_id)).decisions[0].legal_json[0])
        for _ in range(tries):
            try:
                await rules.submit(tokens[seat], match_id, f"c{step}", action)
                break
            except grpc.aio.AioRpcError as err:
                assert err.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED), (
                    err.code(), err.details())
                codes.append(err.code())
    raise AssertionError("the match did not end in 200 actions")


async def _race(backend: Backend, match_id: str, tries: int = 5,
                before: Callable[[], Awaitable[None]] | None = None) -> list[grpc.StatusCode]:
    """A toy race of two seats, created (then ``before()``) and played to its end."""
    rules = RulesClient(backend.address("rules-toy"), timeout=5)
    try:
        created = await rules.create(backend.organiser_token(), match_id=match_id, mode="race",
                                     seats=2)
        if before is not None:
            await before()
        tokens = {t.seat: t.token for t in created.seat_tokens}
        return await _play_to_the_end(rules, tokens, match_id, tries)
    finally:
        await rules.close()


async def _seed_public(backend: Backend, dice_key: str) -> bool:
    """Whether the dice service reveals the seed of the session ``dice_key`` to anyone."""
    from services.genproto.neon.dice.v1 import dice_pb2
    from tests.support.client import dice_stub

    channel, dice = dice_stub(backend.address("dice"))
    try:
        await dice.RevealSeed(dice_pb2.RevealSeedRequest(match_id=dice_key), timeout=5)
        return True
    except grpc.aio.AioRpcError as err:
        assert err.code() == grpc.StatusCode.FAILED_PRECONDITION, err.details()
        return False
    finally:
        await channel.close()


async def _ends_sealed(backend: Backend, match_id: str) -> bool:
    """Whether the match's export ends with its end, its seal and the checkpoint."""
    rules = RulesClient(backend.address("rules-toy"), timeout=5)
    try:
        export = await rules.export(backend.organiser_token(), match_id)
    finally:
        await rules.close()
    kinds = [json.loads(line)["type"] for line in export.export_jsonl.splitlines()]
    return kinds[-3:] == ["MatchEnded", "MatchSealed", "Checkpoint"]


async def test_the_seed_stays_secret_while_the_final_action_is_not_stored(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    """The host closed the dice session (revealing the seed) before it stored the final
    action. When that store failed, the match went on running with its seed public: every
    later draw and the state-hash key were known, and after an ABORTED ("fetch the view and
    retry") a seat may well send another action than the one that would have ended it. Now
    the end is stored first and the seed revealed after it."""
    host = _host(backend, "toy")
    real_commit = host.committer.commit
    seen: list[bool] = []
    key: list[str] = []

    async def commit(events: list) -> None:  # type: ignore[type-arg]
        if key and not seen and any(type(e).__name__ == "MatchEnded" for e in events):
            seen.append(await _seed_public(backend, key[0]))
            raise TimeoutError("the store went away")
        await real_commit(events)

    monkeypatch.setattr(host.committer, "commit", commit)

    async def note_key() -> None:
        key.append((await host.live_match("seal-order")).dice_key)

    codes = await _race(backend, "seal-order", before=note_key)
    assert seen == [False], "the seed was public while the final action was not stored"
    assert grpc.StatusCode.UNAVAILABLE in codes
    assert await _seed_public(backend, key[0])  # and revealed once the end is stored
    assert await _ends_sealed(backend, "seal-order")


async def test_a_match_whose_seal_failed_is_sealed_on_its_next_call(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    """The dice service does not answer at the end: the final action is stored and answered
    (the match has ended, nobody can act), the seal waits, and the next call on the match
    (here the export) seals it."""
    from services.platform.errors import Unavailable

    host = _host(backend, "toy")
    real_close = host.dice.close_session
    refused: list[str] = []

    async def close_session(match_id: str):  # type: ignore[no-untyped-def]
        if not refused:
            refused.append(match_id)
            raise Unavailable("dice: the service does not answer")
        return await real_close(match_id)

    monkeypatch.setattr(host.dice, "close_session", close_session)
    assert await _race(backend, "seal-later", tries=1) == []
    assert refused, "the test did not reach the end"
    rules = RulesClient(backend.address("rules-toy"), timeout=5)
    try:
        view = await rules.view("seal-later")
        assert not view.pending and view.outcome_json  # ended, with its result
    finally:
        await rules.close()
    assert await _ends_sealed(backend, "seal-later")  # the export's call sealed it
    assert await _seed_public(backend, (await host.live_match("seal-later")).dice_key)


async def test_a_restart_seals_the_matches_that_ended_unsealed(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rules process that stops between the end's commit and the seal's: at its next start
    (``rearm_clocks``) it seals the match without waiting for a call on it."""
    from services.platform.errors import Unavailable

    host = _host(backend, "toy")
    real_close = host.dice.close_session

    async def down(match_id: str):  # type: ignore[no-untyped-def]
        raise Unavailable("dice: the service does not answer")

    monkeypatch.setattr(host.dice, "close_session", down)
    await _race(backend, "seal-restart", tries=1)
    stored = host.store.records("seal-restart")
    assert stored[-1]["type"] == "MatchEnded"
    host.live.drop("seal-restart")  # as after a restart: nothing in memory
    monkeypatch.setattr(host.dice, "close_session", real_close)
    await host.rearm_clocks()
    assert [r["type"] for r in host.store.records("seal-restart")][-2:] == ["MatchEnded",
                                                                           "MatchSealed"]


async def test_a_seal_that_failed_is_tried_again_without_any_call(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nobody calls on the match after its end (no view, no export, no restart): the host
    tries the seal again by itself, on a timer, until the dice service answers."""
    from services.platform.errors import Unavailable

    host = _host(backend, "toy")
    monkeypatch.setattr(host, "seal_retry_ms", 100)
    real_close = host.dice.close_session
    refused: list[str] = []

    async def close_session(match_id: str):  # type: ignore[no-untyped-def]
        if len(refused) < 3:
            refused.append(match_id)
            raise Unavailable("dice: the service does not answer")
        return await real_close(match_id)

    monkeypatch.setattr(host.dice, "close_session", close_session)
    await _race(backend, "seal-timer", tries=1)
    for _ in range(100):
        if host.store.records("seal-timer")[-1]["type"] == "MatchSealed":
            break
        await asyncio.sleep(0.05)
    # tries at the end and at the last view (the only calls after it) failed, then a timed
    # one, and the next timed one sealed: without the timer it would never seal
    assert len(refused) == 3
    assert host.store.records("seal-timer")[-1]["type"] == "MatchSealed"
