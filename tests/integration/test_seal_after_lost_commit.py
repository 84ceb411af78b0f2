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
"""

from __future__ import annotations

import json

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
