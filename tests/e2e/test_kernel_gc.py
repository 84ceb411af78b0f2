"""The gRPC kernel under refused calls with the garbage collector running all the time.

A refusal used to abort the call inside the kernel's ``__aenter__``, leaving structlog's
``bound_contextvars`` generator open; the collector closed it later, and its reset of the
log binding ran inside another call's ``ContextVar.set``, which frees the HAMT that set is
walking (CPython gh-148891). The rules service segfaulted under the fuzzer in CI. Here the
collector runs every few allocations (a ``sitecustomize`` of the test's own lowers its
threshold in the service process), so that crash came within a few hundred calls.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import grpc
import pytest

from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc
from services.platform.settings import DEFAULT_PORTS
from services.platform.tokens import TokenIssuer
from tests.e2e.procs import Cluster, port_env, service_env

pytestmark = pytest.mark.timeout(180)

SECRET = "kernel-gc-token-secret-0123456789ab"
CALLS = 1200
"""The crash this guards against came within a few hundred calls (it was 3000: the longest
test of the suite, for no more cover)."""
THREADS = 8


def test_refused_calls_with_the_collector_always_running_never_crash_the_service(
        tmp_path: Path, nats_url: str) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import gc\ngc.set_threshold(2, 1, 1)\n")
    env = service_env({
        "NATS_URL": nats_url, "NEON_VAR_DIR": str(tmp_path / "var"), "NEON_TOKEN_SECRET": SECRET,
        "NEON_SIGNING_KEY": "33" * 32, "NEON_PERSISTENCE": "sqlite", "NEON_LOG_LEVEL": "warning",
        "PYTHONFAULTHANDLER": "1", **port_env(list(DEFAULT_PORTS)),
    })
    env["PYTHONPATH"] = f"{site}:{env['PYTHONPATH']}"
    env["NEON_DICE_ADDR"] = f"127.0.0.1:{env['NEON_DICE_PORT']}"
    cluster = Cluster(["dice", "rules-neon-reign"], env, tmp_path).start()
    try:
        rules = cluster["rules-neon-reign"]
        good = TokenIssuer(SECRET.encode()).issue("organiser", "*")
        tokens = ["garbage", good, None, good + "x"]
        codes: dict[str, int] = {}
        sent = [0]
        lock = threading.Lock()

        def caller(index: int) -> None:
            with grpc.insecure_channel(rules.address) as channel:
                stub = rules_pb2_grpc.RulesServiceStub(channel)
                for n in range(index, CALLS, THREADS):
                    token = tokens[n % len(tokens)]
                    metadata = [("authorization", f"Bearer {token}")] if token else []
                    try:
                        stub.GetView(rules_pb2.GetViewRequest(match_id=f"none-{n}"),
                                     metadata=metadata, timeout=10)
                        code = "OK"
                    except grpc.RpcError as err:
                        code = err.code().name
                    with lock:
                        codes[code] = codes.get(code, 0) + 1
                        sent[0] += 1
                    if code == "UNAVAILABLE":
                        return

        started = time.monotonic()
        threads = [threading.Thread(target=caller, args=(i,)) for i in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        proc = rules.proc
        assert proc is not None
        alive = proc.poll() is None
        log = rules.log_path.read_text()
        assert alive, f"rules died (exit {proc.poll()}) after {sent[0]} calls in " \
                      f"{time.monotonic() - started:.1f} s:\n{log[log.find('Current thread'):][:2000]}"
        assert sent[0] == CALLS
        # Refusals and not-found only: every call was answered, none INTERNAL.
        assert set(codes) <= {"UNAUTHENTICATED", "NOT_FOUND", "INVALID_ARGUMENT"}, codes
        assert codes.get("UNAUTHENTICATED", 0) >= CALLS // 2
    finally:
        cluster.stop()
