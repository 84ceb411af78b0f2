"""The kernel's call scope sets its context variables once and leaves nothing behind that
sets one later: not on a refusal, not on the way out.

Anything that sets a context variable from a finaliser can run inside another
``ContextVar.set`` when the garbage collector interrupts it, and free the HAMT that set is
walking (CPython gh-148891): a refused call used to leave structlog's ``bound_contextvars``
generator open, and the rules service segfaulted under the fuzzer.
(tests/e2e/test_kernel_gc.py drives a running service the same way.)
"""

from __future__ import annotations

import asyncio
import contextvars
import gc
from typing import Any

import grpc
import structlog

from services.platform.grpc_kit import _CallScope, claims
from services.platform.tokens import TokenIssuer


class FakeContext:
    """The two parts of a grpc.aio.ServicerContext the scope uses."""

    def __init__(self, metadata: list[tuple[str, str]]) -> None:
        self.metadata = metadata
        self.aborted: tuple[Any, str] | None = None

    def invocation_metadata(self) -> list[tuple[str, str]]:
        return self.metadata

    async def abort(self, code: Any, details: str) -> None:
        self.aborted = (code, details)
        raise grpc.aio.AbortError()


class Request:
    match_id = "m-1"


ISSUER = TokenIssuer(b"call-scope-secret-0123456789abcdef")


def collect_in_fresh_context(drop: list[Any]) -> contextvars.Context:
    """Drop the last references to ``drop``'s items (the caller holds none) and collect, in
    a Context of its own: whatever their finalisers set lands there."""
    probe = contextvars.Context()

    def run() -> None:
        drop.clear()
        gc.collect()

    probe.run(run)
    return probe


async def test_a_refused_call_leaves_nothing_that_sets_a_context_variable_later() -> None:
    context = FakeContext([("authorization", "Bearer not-a-token")])
    scope = _CallScope(ISSUER, "/neon.rules.v1.RulesService/GetView", Request(), context)
    own = contextvars.Context()
    refused = False
    try:
        await asyncio.create_task(scope.__aenter__(), context=own)
    except grpc.aio.AbortError:
        refused = True  # (the exception, its traceback and the scope's frame go here)
    assert refused
    assert context.aborted is not None and context.aborted[0] == grpc.StatusCode.UNAUTHENTICATED
    # The call's own Context carries its binding ...
    bound = own.run(structlog.contextvars.get_contextvars)
    assert bound["match_id"] == "m-1" and bound["method"].endswith("/GetView")
    # ... and nothing left of the call sets a variable anywhere when it is collected.
    held = [scope]
    del scope
    for _ in range(2):  # the loop lets go of the finished task once its callbacks ran
        await asyncio.sleep(0)
    probe = collect_in_fresh_context(held)
    assert dict(probe) == {}


async def test_a_finished_call_sets_nothing_on_the_way_out() -> None:
    token = ISSUER.issue("organiser", "*")
    context = FakeContext([("authorization", f"Bearer {token}"), ("x-request-id", "req-7")])
    scope = _CallScope(ISSUER, "/neon.rules.v1.RulesService/GetView", Request(), context)

    async def call(scope: _CallScope) -> dict[str, Any]:
        async with scope as ok:
            assert ok
            seen = {"claims": claims(), **structlog.contextvars.get_contextvars()}
        return seen

    own = contextvars.Context()
    seen = await asyncio.create_task(call(scope), context=own)
    assert seen["request_id"] == "req-7" and seen["claims"] is not None
    assert seen["claims"].role == "organiser"
    after = dict(own)
    # Exiting reset nothing (the Context goes with the call) and left nothing to finalise.
    assert own.run(claims) is not None
    held = [scope]
    del scope
    probe = collect_in_fresh_context(held)
    assert dict(probe) == {}
    assert dict(own) == after


async def test_a_tournament_call_binds_its_tournament_id() -> None:
    """Every log line of a tournament call names its tournament, as a rules call's names its
    match."""

    class TournamentRequest:
        tournament_id = "spring26"

    token = ISSUER.issue("organiser", "*")
    context = FakeContext([("authorization", f"Bearer {token}"), ("x-request-id", "req-8")])
    scope = _CallScope(ISSUER, "/neon.tournament.v1.TournamentService/NextRound",
                       TournamentRequest(), context)

    async def call(scope: _CallScope) -> dict[str, Any]:
        async with scope as ok:
            assert ok
            return dict(structlog.contextvars.get_contextvars())

    seen = await asyncio.create_task(call(scope), context=contextvars.Context())
    assert seen["tournament_id"] == "spring26" and seen["request_id"] == "req-8"
    assert "match_id" not in seen
