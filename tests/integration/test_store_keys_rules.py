"""JSON the match store cannot keep, over the real rules service (gRPC, dice, NATS, SQLite and
PostgreSQL), with a plug-in engine whose schemas take anything (tests/support/loose.py).

The store reads an object of exactly the keys ``_type_`` and ``_data_`` back as a value of
another type (services/platform/storable.py). Stored in a match's log, it made the match
unreadable from the next rebuild on: after a restart its view, actions and export failed.
A caller's options or action holding one is refused (INVALID_ARGUMENT, with where); an
engine's events or outcome holding one fail the step (FAILED_PRECONDITION, logged) with
nothing stored. Each test restarts the backend on the same store and reads and plays on.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.rules.verify import verify_export
from tests.integration.conftest import make_settings
from tests.support import loose
from tests.support.logcapture import captured_logs

TYPED = loose.TYPED


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_settings(request: pytest.FixtureRequest, tmp_path: Path, nats_url: str) -> Any:
    if request.param == "sqlite":
        return make_settings(tmp_path, nats_url)
    return dataclasses.replace(
        make_settings(tmp_path, nats_url, persistence="postgres"),
        database_url=request.getfixturevalue("postgres_url"),
        postgres_schema=request.getfixturevalue("postgres_schema"))


class Stack:
    """The loose engine's backend, restartable on the same store."""

    def __init__(self, settings: Any) -> None:
        self.settings = settings
        self.backend: Backend | None = None
        self.client: RulesClient | None = None

    async def start(self) -> RulesClient:
        self.backend = await start_backend(self.settings, games=[], embedded_nats=False,
                                           engines={"loose": loose.ENGINE})
        self.client = RulesClient(self.backend.address("rules-loose"))
        return self.client

    async def stop(self) -> None:
        if self.client is not None:
            await self.client.close()
            self.client = None
        if self.backend is not None:
            await self.backend.stop(1)
            self.backend = None

    async def restart(self) -> RulesClient:
        await self.stop()
        return await self.start()

    @property
    def organiser(self) -> str:
        assert self.backend is not None
        return self.backend.organiser_token()


@pytest.fixture
async def stack(store_settings: Any) -> AsyncIterator[Stack]:
    s = Stack(store_settings)
    await s.start()
    yield s
    await s.stop()


async def _refused(call: Any, code: grpc.StatusCode) -> str:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call
    assert info.value.code() == code, info.value.details()
    return str(info.value.details())


async def _exports(client: RulesClient, organiser: str, match_id: str) -> None:
    export = (await client.export(organiser, match_id)).export_jsonl
    report = verify_export(export, engine=loose.ENGINE)
    assert report.ok, report


async def test_a_callers_options_or_action_the_store_cannot_keep_is_refused(
        stack: Stack) -> None:
    """options_json (CreateMatch, CheckMatchConfig) and action_json holding such an object,
    at any depth, are INVALID_ARGUMENT naming where; text that only looks like one (an
    abandon's reason, a client seed, a note) is kept as text. After a restart every match
    reads, plays on and exports."""
    client = stack.client
    assert client is not None
    org = stack.organiser
    for options in ({"deck": TYPED}, {"a": [1, {"b": TYPED}]}, TYPED):
        why = await _refused(client.create(org, match_id="opt", mode="talk", seats=2,
                                           options=options), grpc.StatusCode.INVALID_ARGUMENT)
        assert "options_json" in why and "'_type_' and '_data_'" in why, why
        why = await _refused(client.call("CheckMatchConfig", rules_pb2.CheckMatchConfigRequest(
            mode="talk", seats=2, options_json=json.dumps(options))),
            grpc.StatusCode.INVALID_ARGUMENT)
        assert "'_type_' and '_data_'" in why, why
    await _refused(client.view("opt"), grpc.StatusCode.NOT_FOUND)  # nothing was made

    # an object with more keys, or text, is kept as it is
    created = await client.create(org, match_id="talk", mode="talk", seats=2,
                                  options={"deck": {**TYPED, "more": 1}}, dev_seed="1")
    tokens = {t.seat: t.token for t in created.seat_tokens}
    why = await _refused(client.submit(tokens[0], "talk", "c1",
                                       {"type": "say", "note": {"inner": TYPED}}),
                         grpc.StatusCode.INVALID_ARGUMENT)
    assert why.startswith("action_json.note.inner is an object of exactly the keys"), why
    for action in (TYPED, {"type": "say", "note": [1, TYPED]}):
        await _refused(client.submit(tokens[0], "talk", "c1", action),
                       grpc.StatusCode.INVALID_ARGUMENT)
    text = json.dumps(TYPED)
    answer = await client.submit(tokens[0], "talk", "c1", {"type": "say", "note": text})
    assert answer.version == 3

    waiting = await client.create(org, match_id="seeded", mode="talk", seats=2,
                                  await_client_seeds=True)
    seat_tokens = {t.seat: t.token for t in waiting.seat_tokens}
    await client.call("AddClientSeed", rules_pb2.AddClientSeedRequest(
        match_id="seeded", seed=text), seat_tokens[1])
    await client.call("StartMatch", rules_pb2.StartMatchRequest(match_id="seeded"), org)
    gone = await client.create(org, match_id="gone", mode="talk", seats=2)
    await client.abandon(org, "gone", text)

    client = await stack.restart()
    org = stack.organiser
    view = await client.view("talk", tokens[1])
    assert view.version == 3 and json.loads(view.view_json)["said"] == [repr(text)]
    await client.submit(tokens[1], "talk", "c2", {"type": "end"})
    assert (await client.view("seeded")).version == 2
    await client.submit(seat_tokens[0], "seeded", "s1", {"type": "end"})
    assert json.loads((await client.view("gone")).outcome_json)["reason"] == text
    for match_id in ("talk", "seeded", "gone"):
        await _exports(client, org, match_id)
    assert gone.seat_tokens


async def test_an_engines_result_the_store_cannot_keep_fails_the_step_storing_nothing(
        stack: Stack) -> None:
    """A plug-in engine's event data, outcome breakdown or carry holding such an object: the
    action is FAILED_PRECONDITION, its words naming the record and field only (the event was
    the other seat's secret), nothing is stored (the version stays), and the match plays on;
    an engine's exception (a bug quoting hidden state) is INTERNAL, its kind and frames
    logged without its words;
    after a restart it reads, ends and exports."""
    client = stack.client
    assert client is not None
    org = stack.organiser
    created = await client.create(org, match_id="eng", mode="talk", seats=2)
    tokens = {t.seat: t.token for t in created.seat_tokens}
    before = (await client.view("eng")).version
    with captured_logs("info") as stream:  # whatever an earlier test left configured
        for command, kind, field in (("e1", "emit", "events"), ("e2", "end-bad", "outcome"),
                                     ("e3", "end-carry", "outcome")):
            why = await _refused(client.submit(tokens[0], "eng", command, {"type": kind}),
                                 grpc.StatusCode.FAILED_PRECONDITION)
            assert f"'s {field} holds an object of exactly the keys" in why, why
            assert "nothing was stored" in why and "secret_plan" not in why, why
            assert (await client.view("eng")).version == before
        # an engine's bug quoting hidden state: INTERNAL, its words in no answer, no log line
        bug = await client.create(org, match_id="bug", mode="buggy", seats=2)
        bug_token = bug.seat_tokens[0].token
        why = await _refused(client.submit(bug_token, "bug", "b1", {"type": "crash"}),
                             grpc.StatusCode.INTERNAL)
        assert "ronin-7" not in why and "request id" in why, why
        await client.submit(bug_token, "bug", "b2", {"type": "pass"})  # it plays on
    logged = stream.getvalue()
    assert "ronin-7" not in logged  # the frames keep their code lines, not the words
    assert "KeyError" in logged and "loose.py" in logged and "withheld" in logged
    assert logged.count("an engine's result the match store cannot keep was refused") == 3
    assert '"field": "events"' in logged and '"field": "outcome"' in logged
    assert "secret_plan" not in logged and "uuid_hex" not in logged
    # the command ids of refused actions were never used
    answer = await client.submit(tokens[0], "eng", "e1", {"type": "pass"})
    assert answer.version == before + 1

    client = await stack.restart()
    org = stack.organiser
    assert (await client.view("eng")).version == before + 1
    await client.submit(tokens[1], "eng", "e4", {"type": "end"})
    view = await client.view("eng")
    assert json.loads(view.outcome_json)["reason"] == "talked out"
    await _exports(client, org, "eng")


def test_the_match_store_reads_such_an_object_back_as_another_type(tmp_path: Path) -> None:
    """What the checks keep out: a record holding such an object saves on a real (SQLite)
    match store, and then reads back changed (a UUID where an object was) or not at all (an
    unregistered type name): the match's rebuild, export and every later read fail."""
    from eventsourcing.persistence import MapperDeserialisationError

    from services.rules.app import RulesApplication
    from services.rules.matchlog import MatchLog, record_event

    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "r.db")}
    store = MatchLog(RulesApplication(env=env))
    changed = {"type": "MatchCreated", "n": 1, "options": {"deck": dict(TYPED)}}
    store.save([record_event("changed", changed)])
    assert store.records("changed")[0]["options"]["deck"] != TYPED  # a UUID now
    unread = {"type": "MatchCreated", "n": 1, "options": {"_type_": "ann", "_data_": 1}}
    store.save([record_event("unread", unread)])
    with pytest.raises(MapperDeserialisationError, match="not deserializable"):
        store.records("unread")
    store.app.close()
