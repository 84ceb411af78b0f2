"""What the HTTP/JSON gateway adds to a call (issue 16): the same unary call, direct over
gRPC and through the gateway, interleaved, in one run.

Usage: python bench/bench_gateway.py [--calls 2000] [--rounds 5] [--method GetView]

Starts `neon serve dice`, `neon serve rules-neon-reign` and `neon serve gateway` as separate
processes (a fresh var dir; the bundled nats-server unless NATS_URL is set), creates one Neon
Reign match, then in each round makes ``--calls`` calls one at a time, in turn: direct gRPC
(grpc.aio), the gateway with JSON, the gateway with binary protobuf (HTTP/1.1 keep-alive,
aiohttp). Prints p50 and p99 of each path as the median and range over the rounds, the
gateway's added p50 against the direct call of the same round, and the load average before
and after. The target is at most +2 ms p50.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402
import grpc  # noqa: E402

from services.cli.processes import http_serving, serving  # noqa: E402
from services.genproto.neon.rules.v1 import rules_pb2, rules_pb2_grpc  # noqa: E402
from services.platform.natsrv import EmbeddedNats, free_port  # noqa: E402
from services.platform.tokens import TokenIssuer  # noqa: E402

SECRET = "bench-token-secret-0123456789abcdef"
SIGNING = "33" * 32
GAME = "neon-reign"
PATH = f"/games/{GAME}/neon.rules.v1.RulesService"


def start(service: str, env: dict[str, str], log_dir: Path) -> subprocess.Popen[bytes]:
    log = open(log_dir / f"{service}.log", "wb")  # noqa: SIM115 - the child keeps it
    return subprocess.Popen(
        [sys.executable, "-m", "services.cli.main", "serve", service],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=ROOT,
    )


def wait(check: Any, address: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check(address):
            return
        time.sleep(0.1)
    raise SystemExit(f"{address} did not come up")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def measure(
    args: argparse.Namespace, rules: str, gateway: str
) -> dict[str, list[tuple[float, float]]]:
    organiser = TokenIssuer(SECRET.encode()).issue("organiser", "*")
    channel = grpc.aio.insecure_channel(rules)
    stub = rules_pb2_grpc.RulesServiceStub(channel)
    created = await stub.CreateMatch(
        rules_pb2.CreateMatchRequest(mode="single", seats=2, dev_seed="bench"),
        metadata=[("authorization", f"Bearer {organiser}")],
    )
    match_id = created.match_id
    method = getattr(stub, args.method)
    request_class = getattr(rules_pb2, f"{args.method}Request")
    request = (
        request_class(match_id=match_id)
        if "match_id" in request_class.DESCRIPTOR.fields_by_name
        else request_class()
    )
    body_json = json.dumps(
        {"matchId": match_id} if "match_id" in request_class.DESCRIPTOR.fields_by_name else {}
    ).encode()
    body_proto = request.SerializeToString()
    url = f"http://{gateway}{PATH}/{args.method}"
    results: dict[str, list[tuple[float, float]]] = {
        "grpc direct": [],
        "gateway json": [],
        "gateway proto": [],
    }
    connector = aiohttp.TCPConnector(limit=1)
    async with aiohttp.ClientSession(connector=connector) as http:

        async def direct() -> None:
            await method(request, timeout=5)

        async def via(body: bytes, ctype: str) -> None:
            async with http.post(url, data=body, headers={"Content-Type": ctype}) as r:
                await r.read()
                assert r.status == 200, r.status

        paths = {
            "grpc direct": direct,
            "gateway json": lambda: via(body_json, "application/json"),
            "gateway proto": lambda: via(body_proto, "application/proto"),
        }
        for call in paths.values():  # warm up channels, connections and caches
            for _ in range(200):
                await call()
        for _ in range(args.rounds):
            for name, call in paths.items():
                times = []
                for _ in range(args.calls):
                    t0 = time.perf_counter()
                    await call()
                    times.append((time.perf_counter() - t0) * 1000)
                results[name].append((percentile(times, 0.5), percentile(times, 0.99)))
    await channel.close()
    return results


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):6.3f} ms  [{min(values):.3f}-{max(values):.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--method", default="GetView", help="a unary RulesService call taking a match id"
    )
    args = parser.parse_args()
    load_before = os.getloadavg()
    folder = Path(tempfile.mkdtemp(prefix="bench-gateway-"))
    nats = None
    nats_url = os.environ.get("NATS_URL", "")
    if not nats_url:
        nats = EmbeddedNats(folder / "nats", port=free_port()).start()
        nats_url = nats.url
    ports = {"dice": free_port(), "rules": free_port(), "gateway": free_port()}
    env = {
        **os.environ,
        "NEON_VAR_DIR": str(folder / "var"),
        "NATS_URL": nats_url,
        "NEON_PERSISTENCE": "sqlite",
        "NEON_TOKEN_SECRET": SECRET,
        "NEON_SIGNING_KEY": SIGNING,
        "NEON_LOG_LEVEL": "warning",
        "NEON_DICE_PORT": str(ports["dice"]),
        "NEON_RULES_NEON_REIGN_PORT": str(ports["rules"]),
        "NEON_GATEWAY_PORT": str(ports["gateway"]),
        "PYTHONPATH": str(ROOT),
        # what the gateway adds to a call, not a deployment's policy of calls a second
        "NEON_MAX_CALLS_PER_SECOND": "0", "NEON_MAX_ANONYMOUS_CALLS_PER_SECOND": "0",
    }
    env.pop("DATABASE_URL", None)
    procs = []
    try:
        procs.append(start("dice", env, folder))
        wait(serving, f"127.0.0.1:{ports['dice']}")
        procs.append(start(f"rules-{GAME}", env, folder))
        wait(serving, f"127.0.0.1:{ports['rules']}")
        procs.append(start("gateway", env, folder))
        wait(http_serving, f"127.0.0.1:{ports['gateway']}")
        results = asyncio.run(
            measure(args, f"127.0.0.1:{ports['rules']}", f"127.0.0.1:{ports['gateway']}")
        )
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in procs:
            proc.wait(30)
        if nats is not None:
            nats.stop()
    print(
        f"{args.method} on {GAME}, one call at a time, {args.calls} calls x {args.rounds} rounds "
        f"(median [range] over rounds)"
    )
    print(f"load average before: {' '.join(f'{x:.2f}' for x in load_before)}")
    for name, rounds in results.items():
        print(
            f"  {name:<14} p50 {spread([r[0] for r in rounds])}   p99 {spread([r[1] for r in rounds])}"
        )
    direct = results["grpc direct"]
    for name in ("gateway json", "gateway proto"):
        added = [g[0] - d[0] for g, d in zip(results[name], direct)]
        ratio = [g[0] / d[0] for g, d in zip(results[name], direct)]
        print(f"  {name} adds p50 {spread(added)}  (x{statistics.median(ratio):.2f} of direct)")
    worst = max(g[0] - d[0] for g, d in zip(results["gateway json"], direct))
    print(
        f"target: gateway json adds at most 2 ms p50: {'met' if worst <= 2.0 else 'NOT met'} "
        f"(worst round +{worst:.3f} ms)"
    )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
