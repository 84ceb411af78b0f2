"""The CLI's one line for UNAVAILABLE: gRPC's own "nobody answered" (a refused or closed
connection) is "no X answers on ADDRESS; start one", while a service that answered
UNAVAILABLE with a reason of its own (a rules service's broken export, a store down) is shown
with that reason, not as a service that is not there."""

from __future__ import annotations

import grpc
import pytest

from services.cli import errors


def _error(code: grpc.StatusCode, details: str) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details=details)


@pytest.fixture(autouse=True)
def _state(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(errors, "state", errors.State())
    errors.target("tournament service", "127.0.0.1:7004")


@pytest.mark.parametrize("details", [
    "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:7004: Failed to "
    "connect to remote host: Connection refused",
    "Socket closed",
    "recvmsg:Connection reset by peer",
    "DNS resolution failed for nowhere:1",
    "",
])
def test_no_service_answering_is_said_so(details: str) -> None:
    said = errors.explain(_error(grpc.StatusCode.UNAVAILABLE, details))
    assert said is not None and said.code == errors.UNREACHABLE
    assert said.message == "no tournament service answers on 127.0.0.1:7004; start one with " \
                           "./dev up"


def test_a_services_own_unavailable_reason_is_shown() -> None:
    reason = ("the export of cup-r1-t1 arrived broken (the stream ended after 10 of the 20 "
              "bytes announced); try again shortly")
    said = errors.explain(_error(grpc.StatusCode.UNAVAILABLE, reason))
    assert said is not None and said.code == errors.UNREACHABLE
    assert said.message == f"UNAVAILABLE: {reason}"
    assert (said.status, said.detail) == ("UNAVAILABLE", reason)
    assert "no tournament service answers" not in said.message


@pytest.mark.parametrize("code, details", [
    (grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded"),
    (grpc.StatusCode.UNAVAILABLE, "failed to connect to all addresses; last error: UNKNOWN: "
     "ipv4:127.0.0.1:7004: connection attempt timed out before receiving SETTINGS frame"),
    (grpc.StatusCode.UNAVAILABLE, "failed to connect to all addresses; last error: UNKNOWN: "
     "ipv4:127.0.0.1:7004: Failed to connect to remote host: connect() timed out"),
])
def test_no_answer_in_time_says_the_service_may_be_busy(code: grpc.StatusCode,
                                                       details: str) -> None:
    """A deadline, or a connection that timed out, is no answer too, but not proof that no
    service runs there (on a loaded machine one may be too busy to answer in time): said so,
    where a refused connection says the service is not there."""
    said = errors.explain(_error(code, details))
    assert said is not None and said.code == errors.UNREACHABLE
    assert said.message == ("no tournament service answered on 127.0.0.1:7004 in time (busy, "
                            "or not running); start one with ./dev up")
