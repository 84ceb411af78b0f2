"""``with_text`` on SubmitAction and on the Play stream: the decisions a seat is answered or
pushed carry ``legal_text`` exactly as ListLegalActions with ``with_text`` gives them for that
seat and version, and none without the flag. ``with_text`` is no part of a command: a repeat
that differs only in it is the same command (applied once, answered as ``replayed``, with
words when the repeat asks), and no word ever reaches the stored events or the export."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.grpc_kit import call_metadata
from services.platform.playing import paced, play_table, random_choice
from services.rules.games import available
from tests.integration.test_legal_text import GAMES, create, legal, two_seat_mode

pytestmark = pytest.mark.timeout(300)
GAME = "neon-reign"
"""The game of the tests of one match (one with words of its own)."""
WORD_KEYS = {"legal_text", "legalText", "with_text", "withText"}


def legal_json(decisions: Any) -> list[list[str]]:
    return [list(d.legal_json) for d in decisions]


def worded(decisions: Any, with_text: bool) -> int:
    """The lines of words in ``decisions``: one per legal action with ``with_text``, none
    without (checked)."""
    for d in decisions:
        assert len(d.legal_text) == (len(d.legal_json) if with_text else 0), d
        assert all(line.strip() for line in d.legal_text)
    return sum(len(d.legal_text) for d in decisions)


class Doubled:
    """The rules stub :func:`play_table` drives, whose every SubmitAction is sent twice, with
    and without ``with_text`` (which first alternates by position); each answer is checked
    against ListLegalActions asked the same way by the same seat at the answer's version."""

    def __init__(self, stub: Any) -> None:
        self.stub = stub
        self.commands: list[str] = []
        self.lines: set[str] = set()
        self.words = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stub, name)

    async def SubmitAction(self, request: Any, **kw: Any) -> Any:
        first = request.expected_version % 2 == 0
        answer = await self._submit(request, first, kw)
        again = await self._submit(request, not first, kw)
        assert (answer.replayed, again.replayed) == (False, True)
        assert again.version == answer.version and again.state_hash == answer.state_hash
        assert legal_json(again.decisions) == legal_json(answer.decisions)
        self.commands.append(request.command_id)
        return answer

    async def _submit(self, request: Any, with_text: bool, kw: dict[str, Any]) -> Any:
        sent = rules_pb2.SubmitActionRequest()
        sent.CopyFrom(request)
        sent.with_text = with_text
        # each call paced on its own (seven calls an action, four of them here, pass the
        # default rate now and then): play_table's retry never re-enters the pair
        answer = await paced(lambda: self.stub.SubmitAction(sent, **kw))
        listed = await paced(lambda: self.stub.ListLegalActions(
            rules_pb2.ListLegalActionsRequest(match_id=request.match_id, with_text=with_text),
            **kw))
        assert listed.version == answer.version
        assert list(answer.decisions) == list(listed.decisions)
        self.words += worded(answer.decisions, with_text)
        self.lines |= {line for d in answer.decisions for line in d.legal_text}
        return answer


def strings_and_keys(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings_and_keys(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings_and_keys(v)
    elif isinstance(value, str):
        yield value


async def assert_stored_once_and_wordless(backend: Backend, stub: Any, game: str, match_id: str,
                                          commands: list[str], lines: set[str]) -> None:
    """Each command is one ActionAccepted, in the store and in the export, and neither holds
    a line of ``lines`` (those of several words: one word, "roll", is also an action's own
    name) or a key naming words."""
    lines = {line for line in lines if " " in line.strip()}
    assert lines
    exported = await stub.ExportMatch(rules_pb2.ExportMatchRequest(match_id=match_id),
                                      metadata=call_metadata(backend.organiser_token()), timeout=10)
    host = backend.services[f"rules-{game}"].extra["host"]
    stored = await asyncio.to_thread(host.store.records, match_id)
    for records in ([json.loads(line) for line in exported.export_jsonl.splitlines()], stored):
        accepted = [r["command_id"] for r in records if r.get("type") == "ActionAccepted"]
        assert sorted(accepted) == sorted(commands), "every command applied once, none twice"
        said = set(strings_and_keys(records))
        assert not said & WORD_KEYS
        assert not said & lines, said & lines


@pytest.mark.parametrize("game", GAMES)
async def test_submit_action_answers_carry_the_words_of_list_legal_actions_at_every_position(
        games_backend: Backend, game: str) -> None:
    if game not in available():
        pytest.skip(f"no {game} engine")
    async with grpc.aio.insecure_channel(games_backend.address(f"rules-{game}")) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        match_id, tokens = await create(games_backend, stub, game, two_seat_mode(game))
        doubled = Doubled(stub)
        outcome = await play_table(doubled, match_id, tokens, random_choice(f"said-{game}"),
                                   command_prefix="said-")
        assert outcome is not None
        assert len(doubled.commands) >= 2 and doubled.words >= len(doubled.commands) // 2
        await assert_stored_once_and_wordless(games_backend, stub, game, match_id,
                                              doubled.commands, doubled.lines)


@asynccontextmanager
async def reign_match(backend: Backend) -> AsyncIterator[tuple[Any, Any, str, dict[int, str]]]:
    """A new two-seat Neon Reign match: the channel, a stub, the match id and seat tokens."""
    if GAME not in available():
        pytest.skip(f"no {GAME} engine")
    async with grpc.aio.insecure_channel(backend.address(f"rules-{GAME}")) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        match_id, tokens = await create(backend, stub, GAME, "single")
        yield channel, stub, match_id, tokens


async def owed_action(stub: Any, match_id: str, tokens: dict[int, str]) -> tuple[int, str]:
    """A seat that owes a decision now, and the first legal answer to it."""
    for seat, token in sorted(tokens.items()):
        owed = [d for d in (await legal(stub, match_id, token, False)).decisions
                if not d.standing and d.legal_json]
        if owed:
            return seat, owed[0].legal_json[0]
    raise AssertionError("nobody owes a decision")


async def test_a_repeat_differing_only_in_with_text_is_the_same_command(
        games_backend: Backend) -> None:
    async with reign_match(games_backend) as (channel, stub, match_id, tokens):
        lines: set[str] = set()

        async def submit(seat: int, command_id: str, action: str, with_text: bool) -> Any:
            answer = await stub.SubmitAction(rules_pb2.SubmitActionRequest(
                match_id=match_id, command_id=command_id, action_json=action,
                with_text=with_text), metadata=call_metadata(tokens[seat]), timeout=10)
            listed = await legal(stub, match_id, tokens[seat], with_text)
            assert list(answer.decisions) == list(listed.decisions)
            worded(answer.decisions, with_text)
            lines.update(line for d in answer.decisions for line in d.legal_text)
            return answer

        # without words first, then the repeat with them; then the reverse
        done = []
        for first in (False, True):
            seat, action = await owed_action(stub, match_id, tokens)
            command_id = f"c-{len(done)}"
            answer = await submit(seat, command_id, action, first)
            again = await submit(seat, command_id, action, not first)
            assert (answer.replayed, again.replayed) == (False, True)
            assert again.version == answer.version
            assert legal_json(again.decisions) == legal_json(answer.decisions)
            assert any(d.legal_json for d in answer.decisions), "a position with choices"
            done.append((seat, command_id, action, answer.version))
        assert lines, "words were asked for and given"
        # the same command id for another action is still refused, words or not
        seat, command_id, _, _ = done[0]
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await submit(seat, command_id, json.dumps({"type": "nothing"}), True)
        assert info.value.code() == grpc.StatusCode.ALREADY_EXISTS
        # after the match moved on, a repeat answers the command's own version with the
        # seat's decisions (and words) as of now
        mover, action = await owed_action(stub, match_id, tokens)
        moved = await submit(mover, "c-moved", action, False)
        seat, command_id, action, version = done[0]
        late = await submit(seat, command_id, action, True)
        assert late.replayed and late.version == version < moved.version
        now = await legal(stub, match_id, tokens[seat], True)
        assert now.version == moved.version and list(late.decisions) == list(now.decisions)
        # position_version says which version those are, for the next expected_version
        assert late.position_version == moved.version == moved.position_version
        assert answer.position_version == answer.version  # a fresh answer: its own version
        next_seat, next_action = await owed_action(stub, match_id, tokens)
        onward = await stub.SubmitAction(rules_pb2.SubmitActionRequest(
            match_id=match_id, command_id="c-onward", action_json=next_action,
            expected_version=late.position_version), metadata=call_metadata(tokens[next_seat]),
            timeout=10)
        assert not onward.replayed and onward.version > late.position_version  # not ABORTED
        await assert_stored_once_and_wordless(
            games_backend, stub, GAME, match_id, [c for _, c, _, _ in done] + ["c-moved", "c-onward"], lines)


async def test_play_streams_push_words_only_when_opened_with_text(games_backend: Backend) -> None:
    async with reign_match(games_backend) as (channel, stub, match_id, tokens):
        listed: dict[tuple[int, int, bool], list[Any]] = {}

        async def note(seat: int) -> None:
            for with_text in (False, True):
                answer = await legal(stub, match_id, tokens[seat], with_text)
                listed[(seat, answer.version, with_text)] = list(answer.decisions)

        async def follow(seat: int, with_text: bool) -> list[Any]:
            async def requests() -> AsyncIterator[Any]:
                yield rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id=match_id,
                                                                    with_text=with_text))
                await asyncio.sleep(120)

            updates = []
            async for message in stub.Play(requests(), metadata=call_metadata(tokens[seat]),
                                           timeout=120):
                if message.WhichOneof("kind") == "update":
                    updates.append(message.update)
                    if message.update.outcome_json:
                        return updates
            return updates

        for seat in tokens:
            await note(seat)
        streams = {(seat, with_text): asyncio.create_task(follow(seat, with_text))
                   for seat in tokens for with_text in (False, True)}

        def answered(answer: Any) -> None:
            assert not any(d.legal_text for d in answer.decisions), "SubmitAction asked no words"

        class Noting:
            """The stub, noting both seats' legal actions (with and without words) after
            every action, before the next one."""

            def __getattr__(self, name: str) -> Any:
                return getattr(stub, name)

            async def SubmitAction(self, request: Any, **kw: Any) -> Any:
                answer = await stub.SubmitAction(request, **kw)
                for seat in tokens:
                    await note(seat)
                return answer

        outcome = await play_table(Noting(), match_id, tokens, random_choice("streamed"),
                                   on_answer=answered, command_prefix="streamed-")
        assert outcome is not None
        pushed = {key: await asyncio.wait_for(task, 60) for key, task in streams.items()}
        for (seat, with_text), updates in pushed.items():
            assert len(updates) >= 2 and updates[-1].outcome_json
            words = 0
            for update in updates:
                assert list(update.decisions) == listed[(seat, update.version, with_text)]
                words += worded(update.decisions, with_text)
            assert bool(words) == with_text, (seat, with_text, words)


async def test_bad_input_with_text_gets_a_clear_status(games_backend: Backend) -> None:
    async with reign_match(games_backend) as (channel, stub, match_id, tokens):
        seat, action = await owed_action(stub, match_id, tokens)
        metadata = call_metadata(tokens[seat])
        submit = channel.unary_unary("/neon.rules.v1.RulesService/SubmitAction")
        base = rules_pb2.SubmitActionRequest(
            match_id=match_id, command_id="raw", action_json=action).SerializeToString()
        for garbage in (base + b"\x28", base + b"\xff\xff\xff"):  # with_text cut off; no field
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await submit(garbage, metadata=metadata, timeout=10)
            assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "malformed" in (info.value.details() or "")
        # any non-zero varint is true; field 5 of another wire type is an unknown field
        answer = rules_pb2.SubmitActionResponse.FromString(
            await submit(base + b"\x28\x09", metadata=metadata, timeout=10))
        assert any(d.legal_json for d in answer.decisions)
        worded(answer.decisions, True)
        again = rules_pb2.SubmitActionResponse.FromString(
            await submit(base + b"\x2a\x03yes", metadata=metadata, timeout=10))
        assert again.replayed and again.version == answer.version
        assert legal_json(again.decisions) == legal_json(answer.decisions)
        worded(again.decisions, False)
        # a Play stream whose open is cut off inside with_text
        play = channel.stream_stream("/neon.rules.v1.RulesService/Play")
        opened = rules_pb2.PlayOpen(match_id=match_id).SerializeToString() + b"\x18"
        broken = b"\x0a" + bytes([len(opened)]) + opened

        async def one() -> AsyncIterator[bytes]:
            yield broken
            await asyncio.sleep(30)

        with pytest.raises(grpc.aio.AioRpcError) as info:
            async for _ in play(one(), metadata=metadata, timeout=10):
                pass
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert info.value.details()
