"""A repeated command reads back only the records its answer is made of.

The answer to a repeat is its action's record and that action's own end (MatchEnded and
MatchSealed right after it); when those had left memory, the host read every record from
the action to the match's head, under the match's lock. A seat repeating its first command
id over and over in a long match had the whole log read back each time while every other
seat's action, and the clocks, waited for the lock. Now at most its three records are read.
The Hidden Race toy over real gRPC and the SQLite store; the in-memory window is cut to two
records so that a short match is long enough."""

from __future__ import annotations

from typing import Any

import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.rules import live as live_module


async def _round(client: RulesClient, tokens: dict[int, str], match_id: str, n: int) -> Any:
    answer = None
    for seat in (0, 1):
        answer = await client.submit(tokens[seat], match_id, f"r{n}-s{seat}",
                                     {"type": "pick", "step": 1})
    return answer


async def test_a_repeat_reads_its_own_records_only(toy_backend: Backend,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live_module, "RECENT", 2)
    host = toy_backend.services["rules-toy"].extra["host"]
    client = RulesClient(toy_backend.address("rules-toy"))
    for _ in range(5):  # three rounds of 1 + a d6 end the race (past 20) once in 108 matches
        created = await client.create(toy_backend.organiser_token(), mode="race", seats=2)
        match_id, tokens = created.match_id, {t.seat: t.token for t in created.seat_tokens}
        first = await client.submit(tokens[0], match_id, "first", {"type": "pick", "step": 1})
        await client.submit(tokens[1], match_id, "first-1", {"type": "pick", "step": 1})
        for n in range(2):
            answer = await _round(client, tokens, match_id, n)
        if answer.status == first.status:  # still running: nothing after "first" is its end
            break
    else:
        pytest.fail("five races in a row ended within three rounds")
    head = (await client.view(match_id)).version
    assert head >= first.version + 4
    reads: list[tuple[Any, ...]] = []
    records = host.store.records

    def counting(*args: Any) -> Any:
        reads.append(args)
        return records(*args)

    monkeypatch.setattr(host.store, "records", counting)
    again = await client.submit(tokens[0], match_id, "first", {"type": "pick", "step": 1})
    assert again.replayed and again.version == first.version
    assert [e.version for e in again.events] == [first.version]
    assert [e.chain_hash for e in again.events] == [e.chain_hash for e in first.events]
    assert reads and all(args[2] <= first.version + 2 for args in reads), reads
    await client.close()
