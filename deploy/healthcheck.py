"""Container health check: exit 0 when the service's gRPC health check answers SERVING.

Usage: ``python healthcheck.py [SERVICE | HOST:PORT]``. Without an argument the service is the
last word of PID 1's command line (the image runs ``neon serve SERVICE``); its port is
``NEON_<SERVICE>_PORT`` or the default of ``services/platform/settings.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path


def target(argv: list[str]) -> str:
    arg = argv[1] if len(argv) > 1 else ""
    if ":" in arg:
        return arg
    if not arg:
        words = Path("/proc/1/cmdline").read_bytes().split(b"\0")
        arg = next(w for w in reversed(words) if w).decode()
    from services.platform.settings import load

    settings = load()
    return f"127.0.0.1:{settings.ports.get(arg, 0)}"


def main() -> int:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    address = target(sys.argv)
    with grpc.insecure_channel(address) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=2)
        except grpc.RpcError as err:
            print(f"{address}: {err.code().name}", file=sys.stderr)
            return 1
    serving = reply.status == health_pb2.HealthCheckResponse.SERVING
    print(f"{address}: {health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)}")
    return 0 if serving else 1


if __name__ == "__main__":
    sys.exit(main())
