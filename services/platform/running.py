"""A started service: its gRPC server plus what must be closed after it, in order."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from services.platform.grpc_kit import ServerHandle
from services.platform.logs import get_logger
from services.platform.waiting import within

log = get_logger("running")


@dataclass
class RunningService:
    name: str
    handle: ServerHandle
    address: str
    closers: list[Callable[[], Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    async def stop(self, grace: float = 5.0) -> None:
        """NOT_SERVING, finish calls in flight within ``grace``, then close the rest."""
        await self.handle.stop(grace)
        for close in self.closers:
            try:
                result = close()
                if inspect.isawaitable(result):
                    await within(result, timeout=grace)
            except Exception as err:  # shutting down: report and go on closing
                log.warning("error while stopping", service=self.name, error=repr(err))
        log.info("service stopped", service=self.name)
