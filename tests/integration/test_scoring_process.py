"""``neon serve scoring`` as its own OS process, SIGKILLed while results flow, then restarted:
the ratings equal those of a run that was never killed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from pathlib import Path
from typing import Any

import grpc
from nats.js.errors import NotFoundError

from services.genproto.neon.scoring.v1 import scoring_pb2, scoring_pb2_grpc
from services.platform import bus
from services.scoring.app import ScoringApplication
from services.scoring.results import parse_match_ended
from tests.e2e.procs import ServiceProcess, listen_port, service_env
from tests.integration.test_scoring import (  # noqa: F401
    RULES_PUBLIC,
    _drop_schemas,
    _new_schema,
    new_game,
    publish,
    season,
)


async def test_sigkill_mid_stream_then_restart_gives_the_unbroken_ratings(
        tmp_path: Path, nats_url: str, nats_client: Any) -> None:
    game = new_game()
    port = listen_port(set())
    env = {"NATS_URL": nats_url, "NEON_VAR_DIR": str(tmp_path / "var"), "NEON_SCORING_PORT": str(port),
           "NEON_SCORING_FILTER": f"{bus.subject_prefix()}.rules.{game}.>", "NEON_LOG_LEVEL": "warning",
           "NEON_SCORING_BATCH": "8", "NEON_TRUSTED_RESULT_KEYS": RULES_PUBLIC}
    if os.environ.get("DATABASE_URL"):
        env.update(DATABASE_URL=os.environ["DATABASE_URL"], POSTGRES_PASSWORD="",
                   NEON_POSTGRES_SCHEMA=_new_schema(os.environ["DATABASE_URL"]))
    else:
        env["NEON_PERSISTENCE"] = "sqlite"
    address = f"127.0.0.1:{port}"
    proc = ServiceProcess("scoring", service_env(env), address, tmp_path).start()
    results = season(game, 120)
    js = nats_client.jetstream()
    ch = grpc.aio.insecure_channel(address)
    stub = scoring_pb2_grpc.ScoringServiceStub(ch)
    try:
        for payload in results[:40]:
            await publish(js, payload)
        await _wait_result(stub, results[20]["match_id"])
        publishing = asyncio.create_task(_publish_all(js, results[40:]))
        await asyncio.sleep(0.3)
        proc.kill()  # SIGKILL while results are flowing
        await publishing
        proc.start()
        await _wait_result(stub, results[-1]["match_id"], timeout=60)

        reference = ScoringApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
        for payload in results:
            reference.score(parse_match_ended(payload))
        players = [f"p{i}" for i in range(1, 7)]
        reply = await stub.GetRatings(scoring_pb2.GetRatingsRequest(game=game, players=players), timeout=5)
        got = {r.player: (r.mu, r.sigma, r.matches) for r in reply.ratings}
        expected = {p: (s.mu, s.sigma, s.matches) for p in players
                    for s in [reference.standing(game, "", p)]}
        assert got == expected
        last = await stub.GetMatchResult(
            scoring_pb2.GetMatchResultRequest(match_id=results[-1]["match_id"]), timeout=5)
        assert last.result.sequence == len(results)
    finally:
        await ch.close()
        proc.stop()
        for name in await consumers_filtering(nats_client, bus.stream_name(),
                                              env["NEON_SCORING_FILTER"]):
            with contextlib.suppress(NotFoundError):  # gone meanwhile
                await js.delete_consumer(bus.stream_name(), name)


async def consumers_filtering(nc: Any, stream: str, subject: str) -> list[str]:
    """The names of ``stream``'s consumers whose filter is ``subject``, from every page of
    JetStream's consumer list. Not nats-py's ``consumers_info``: on a JetStream shared with
    other tests' consumers, one removed while the server lists (deleted, or reaped when
    inactive) comes as a null entry, which it fails on (AttributeError), and it reads only
    the first page (256)."""
    names: list[str] = []
    offset = 0
    while True:
        msg = await nc.request(f"$JS.API.CONSUMER.LIST.{stream}",
                               json.dumps({"offset": offset}).encode(), timeout=10)
        page = json.loads(msg.data)
        assert "error" not in page, page
        listed = page.get("consumers") or []
        for c in listed:
            if c and (c.get("config") or {}).get("filter_subject") == subject:
                names.append(c["name"])
        offset += len(listed)
        if not listed or offset >= page.get("total", 0):
            return names


async def _publish_all(js: Any, payloads: list[dict[str, Any]]) -> None:
    for payload in payloads:
        await publish(js, payload)
        await asyncio.sleep(0.005)


async def _wait_result(stub: Any, match_id: str, timeout: float = 30) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        try:
            await stub.GetMatchResult(scoring_pb2.GetMatchResultRequest(match_id=match_id), timeout=2)
            return
        except grpc.aio.AioRpcError:
            if loop.time() > deadline:
                raise
            await asyncio.sleep(0.1)
