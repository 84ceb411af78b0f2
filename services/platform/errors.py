"""Domain errors that map to gRPC status codes (ARCHITECTURE.md, Errors)."""

from __future__ import annotations

import grpc


class ServiceError(Exception):
    """An expected failure answered with a status code and a reason in words."""

    code: grpc.StatusCode = grpc.StatusCode.INTERNAL

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class InvalidArgument(ServiceError):
    code = grpc.StatusCode.INVALID_ARGUMENT


class FailedPrecondition(ServiceError):
    code = grpc.StatusCode.FAILED_PRECONDITION


class NotFound(ServiceError):
    code = grpc.StatusCode.NOT_FOUND


class AlreadyExists(ServiceError):
    code = grpc.StatusCode.ALREADY_EXISTS


class Aborted(ServiceError):
    code = grpc.StatusCode.ABORTED


class Unauthenticated(ServiceError):
    code = grpc.StatusCode.UNAUTHENTICATED


class PermissionDenied(ServiceError):
    code = grpc.StatusCode.PERMISSION_DENIED


class Unavailable(ServiceError):
    code = grpc.StatusCode.UNAVAILABLE
