"""Turn clocks: pure, immutable bookkeeping of each seat's time.

No I/O and no clock reads: every transition takes ``now_ms``, wall-clock Unix time in
integer milliseconds, from the caller (the rules host). Deadlines are absolute Unix ms,
so clocks stored in a match record (``to_json``) keep running across a restart.

Kinds (chosen per match at creation, :class:`ClockConfig`):

``none``
    No clock (casual play): nothing runs, nothing expires, views show no clocks.
``per_decision``
    Each decision a seat owes gets ``per_decision_ms``; unused time is not kept.
``fischer``
    Each seat has a bank, ``bank_ms`` at the start. While a seat owes a decision its
    bank runs down; when it answers, the time it used is charged and ``increment_ms``
    added: ``bank = max(0, bank - used) + increment`` (only for a decision it owed: an
    any-time action outside its decisions earns nothing). A decision that is withdrawn
    without the seat answering (another seat's action took it away) stops the clock and
    charges the time used, without an increment. A seat's deadline is when its bank
    would reach zero.

A seat's clock runs exactly while it owes a decision: a seat owed nothing has no
running clock. A seat that is owed a decision and still owed one after a step that
it did not answer keeps its running deadline; the seat that answered starts afresh
(increment first, for Fischer) when it owes the next decision too.

Timeouts. When a seat's deadline passes, the host applies the decision's default
action as an ordinary recorded action of that seat, marked as a timeout, and calls
:meth:`Clocks.after_step` with ``timed_out=True``. The timeout counts like an answer
(a Fischer seat whose bank ran out still gets its increment, so it can act on its next
decision if it comes back), but it adds one to the seat's consecutive timeouts, which
any answer in time resets to zero. When the count reaches ``max_timeouts`` (0: never):

* policy ``default``: nothing more; the seat keeps getting its default actions.
* policy ``bot``: the seat is marked ``bot``; from then on a bot answers for it and
  its clock never runs again (no deadline).
* policy ``forfeit``: the step reports the seat in ``forfeit_due``; the host resigns
  the seat (the engine's resign decision) right after.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, cast, get_args

from services.genproto.neon.rules.v1 import rules_pb2

ClockKind = Literal["none", "per_decision", "fischer"]
TimeoutPolicy = Literal["default", "bot", "forfeit"]

MAX_TIME_MS = 24 * 60 * 60 * 1000
"""No time setting may exceed a day: a longer clock is almost surely a unit mistake."""
MAX_TIMEOUTS = 1000

_KIND_FROM_PROTO: dict[int, ClockKind] = {
    rules_pb2.CLOCK_KIND_NONE: "none",
    rules_pb2.CLOCK_KIND_PER_DECISION: "per_decision",
    rules_pb2.CLOCK_KIND_FISCHER: "fischer",
}
_POLICY_FROM_PROTO: dict[int, TimeoutPolicy] = {
    rules_pb2.TIMEOUT_POLICY_UNSPECIFIED: "default",
    rules_pb2.TIMEOUT_POLICY_DEFAULT_ACTION: "default",
    rules_pb2.TIMEOUT_POLICY_BOT: "bot",
    rules_pb2.TIMEOUT_POLICY_FORFEIT: "forfeit",
}
_KIND_TO_PROTO = {name: number for number, name in _KIND_FROM_PROTO.items()}
_POLICY_TO_PROTO = {
    "default": rules_pb2.TIMEOUT_POLICY_DEFAULT_ACTION,
    "bot": rules_pb2.TIMEOUT_POLICY_BOT,
    "forfeit": rules_pb2.TIMEOUT_POLICY_FORFEIT,
}


def _check_ms(name: str, value: int, *, positive: bool) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"clock.{name} must be a whole number of milliseconds, not {value!r}")
    if value < 0:
        raise ValueError(f"clock.{name} must not be negative (got {value} ms)")
    if positive and value == 0:
        raise ValueError(f"clock.{name} must be more than 0 ms")
    if value > MAX_TIME_MS:
        raise ValueError(
            f"clock.{name} is {value} ms, more than 24 hours ({MAX_TIME_MS} ms);"
            " times are in milliseconds"
        )


@dataclass(frozen=True)
class ClockConfig:
    """A match's clock settings; constructing one validates it (``ValueError``, in words)."""

    kind: ClockKind = "none"
    per_decision_ms: int = 0
    bank_ms: int = 0
    increment_ms: int = 0
    max_timeouts: int = 0
    policy: TimeoutPolicy = "default"

    def __post_init__(self) -> None:
        if self.kind not in get_args(ClockKind):
            raise ValueError(
                f"clock.kind must be one of {', '.join(get_args(ClockKind))}, not {self.kind!r}"
            )
        if self.policy not in get_args(TimeoutPolicy):
            raise ValueError(
                f"clock.policy must be one of {', '.join(get_args(TimeoutPolicy))},"
                f" not {self.policy!r}"
            )
        _check_ms("per_decision_ms", self.per_decision_ms, positive=self.kind == "per_decision")
        _check_ms("bank_ms", self.bank_ms, positive=self.kind == "fischer")
        _check_ms("increment_ms", self.increment_ms, positive=False)
        if isinstance(self.max_timeouts, bool) or not isinstance(self.max_timeouts, int):
            raise ValueError(f"clock.max_timeouts must be a whole number, not {self.max_timeouts!r}")
        if not 0 <= self.max_timeouts <= MAX_TIMEOUTS:
            raise ValueError(
                f"clock.max_timeouts must be between 0 (never) and {MAX_TIMEOUTS},"
                f" not {self.max_timeouts}"
            )
        if self.kind == "none":
            if self.per_decision_ms or self.bank_ms or self.increment_ms:
                raise ValueError("clock kind none takes no times; choose per_decision or fischer")
            if self.max_timeouts or self.policy != "default":
                raise ValueError("clock kind none has no timeouts; max_timeouts and policy need a clock")
        if self.kind == "per_decision" and (self.bank_ms or self.increment_ms):
            raise ValueError(
                "bank_ms and increment_ms belong to fischer clocks; a per_decision clock"
                " takes only per_decision_ms"
            )
        if self.kind == "fischer" and self.per_decision_ms:
            raise ValueError(
                "per_decision_ms belongs to per_decision clocks; a fischer clock takes"
                " bank_ms and increment_ms"
            )
        if self.policy != "default" and self.max_timeouts == 0:
            raise ValueError(
                f"clock.policy {self.policy} needs max_timeouts of at least 1"
                " (the number of timeouts in a row before it applies)"
            )

    @property
    def enabled(self) -> bool:
        return self.kind != "none"

    @classmethod
    def from_proto(cls, msg: rules_pb2.ClockConfig | None) -> ClockConfig:
        """The config of a ``CreateMatchRequest.clock``; unset or all zero means no clock."""
        if msg is None:
            return cls()
        if msg.kind == rules_pb2.CLOCK_KIND_UNSPECIFIED:
            if msg.per_decision_ms or msg.bank_ms or msg.increment_ms or msg.max_timeouts:
                raise ValueError(
                    "clock.kind is required when clock times are given"
                    " (CLOCK_KIND_PER_DECISION or CLOCK_KIND_FISCHER)"
                )
            if msg.policy not in (
                rules_pb2.TIMEOUT_POLICY_UNSPECIFIED,
                rules_pb2.TIMEOUT_POLICY_DEFAULT_ACTION,
            ):
                raise ValueError("clock.kind is required when a timeout policy is given")
            return cls()
        if msg.kind not in _KIND_FROM_PROTO:
            raise ValueError(f"clock.kind {msg.kind} is not a known clock kind")
        if msg.policy not in _POLICY_FROM_PROTO:
            raise ValueError(f"clock.policy {msg.policy} is not a known timeout policy")
        return cls(
            kind=_KIND_FROM_PROTO[msg.kind],
            per_decision_ms=msg.per_decision_ms,
            bank_ms=msg.bank_ms,
            increment_ms=msg.increment_ms,
            max_timeouts=msg.max_timeouts,
            policy=_POLICY_FROM_PROTO[msg.policy],
        )

    def to_proto(self) -> rules_pb2.ClockConfig:
        return rules_pb2.ClockConfig(
            kind=_KIND_TO_PROTO[self.kind],
            per_decision_ms=self.per_decision_ms,
            bank_ms=self.bank_ms,
            increment_ms=self.increment_ms,
            max_timeouts=self.max_timeouts,
            policy=_POLICY_TO_PROTO[self.policy],
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "per_decision_ms": self.per_decision_ms,
            "bank_ms": self.bank_ms,
            "increment_ms": self.increment_ms,
            "max_timeouts": self.max_timeouts,
            "policy": self.policy,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> ClockConfig:
        """Read :meth:`to_json`'s document; missing keys take their defaults."""
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise ValueError(f"clock config must be a JSON object, not {type(data).__name__}")
        unknown = set(data) - {f for f in cls.__dataclass_fields__}
        if unknown:
            raise ValueError(f"clock config has unknown keys: {', '.join(sorted(unknown))}")
        return cls(**dict(data))


@dataclass(frozen=True)
class SeatClock:
    """One seat's clock.

    ``bank_ms`` is the Fischer bank as of ``started_ms`` (unused by per_decision clocks).
    ``started_ms`` and ``deadline_ms`` are set exactly while the clock runs.
    """

    seat: int
    bank_ms: int = 0
    deadline_ms: int | None = None
    started_ms: int | None = None
    timeouts: int = 0
    bot: bool = False

    @property
    def running(self) -> bool:
        return self.deadline_ms is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "bank_ms": self.bank_ms,
            "deadline_ms": self.deadline_ms,
            "started_ms": self.started_ms,
            "timeouts": self.timeouts,
            "bot": self.bot,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatClock:
        if not isinstance(data, Mapping):
            raise ValueError(f"seat clock must be a JSON object, not {type(data).__name__}")
        try:
            clock = cls(
                seat=int(data["seat"]),
                bank_ms=int(data.get("bank_ms", 0)),
                deadline_ms=_optional_int(data.get("deadline_ms")),
                started_ms=_optional_int(data.get("started_ms")),
                timeouts=int(data.get("timeouts", 0)),
                bot=bool(data.get("bot", False)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"seat clock {dict(data)!r} is malformed: {exc}") from None
        if (clock.deadline_ms is None) != (clock.started_ms is None):
            raise ValueError(f"seat clock {clock.seat}: deadline_ms and started_ms go together")
        return clock


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


@dataclass(frozen=True)
class ClockStep:
    """What a transition did, for the host to record as clock events and act on."""

    clocks: Clocks
    started: tuple[int, ...] = ()
    """Seats whose clock started (or restarted after answering)."""
    stopped: tuple[int, ...] = ()
    """Seats whose clock stopped: they answered or no longer owe a decision."""
    now_bot: tuple[int, ...] = ()
    """Seats that reached max_timeouts under policy ``bot`` in this step."""
    forfeit_due: tuple[int, ...] = ()
    """Seats that reached max_timeouts under policy ``forfeit``: the host resigns them."""


@dataclass(frozen=True)
class Resumption:
    """What :meth:`Clocks.resume` did, for the host to keep and log."""

    clocks: Clocks
    paused_ms: int = 0
    """The downtime every running clock was paused for (0: none)."""
    paused: tuple[tuple[int, int], ...] = ()
    """``(seat, ms)`` of each running clock paused."""
    added: tuple[tuple[int, int], ...] = ()
    """``(seat, ms)`` of each clock given the grace on top of the pause."""
    basis: str = "no clock"
    """Why the pause is what it is: ``heartbeat`` (the downtime was known), or the reason
    it was not credited (``end of service unknown``, ``a clock started after the last
    heartbeat``, ``no running clock``)."""


@dataclass(frozen=True)
class Clocks:
    """The clock config of a match and one :class:`SeatClock` per seat, in seat order."""

    config: ClockConfig
    seats: tuple[SeatClock, ...] = field(default=())

    @classmethod
    def create(cls, config: ClockConfig, seat_count: int) -> Clocks:
        """Idle clocks for seats ``0 .. seat_count - 1`` (Fischer banks full)."""
        bank = config.bank_ms if config.kind == "fischer" else 0
        return cls(config, tuple(SeatClock(seat, bank_ms=bank) for seat in range(seat_count)))

    def seat(self, seat: int) -> SeatClock:
        if not 0 <= seat < len(self.seats):
            raise ValueError(f"seat {seat} has no clock (seats 0..{len(self.seats) - 1})")
        return self.seats[seat]

    # -- transitions -------------------------------------------------------------------

    def start(self, owed_seats: Iterable[int], now_ms: int) -> ClockStep:
        """Start the clocks of the seats that owe the first decisions."""
        return self.after_step(now_ms, set(owed_seats), None, False)

    def after_step(
        self,
        now_ms: int,
        owed_seats: Iterable[int],
        answered_seat: int | None,
        timed_out: bool,
    ) -> ClockStep:
        """The clocks after a step: ``answered_seat`` answered (by timeout if ``timed_out``),
        and ``owed_seats`` are the seats that owe a decision now."""
        owed_seats = frozenset(owed_seats)
        if timed_out and answered_seat is None:
            raise ValueError("a timeout needs the seat that timed out")
        for seat in owed_seats:
            self.seat(seat)
        if answered_seat is not None:
            self.seat(answered_seat)
        if not self.config.enabled:
            return ClockStep(self)
        started: list[int] = []
        stopped: list[int] = []
        now_bot: list[int] = []
        forfeit_due: list[int] = []
        updated: list[SeatClock] = []
        for clock in self.seats:
            if clock.seat == answered_seat:
                was_running = clock.running
                clock = self._answer(clock, now_ms, timed_out)
                if was_running:
                    stopped.append(clock.seat)
                if timed_out and self._limit_reached(clock):
                    if self.config.policy == "bot" and not clock.bot:
                        clock = replace(clock, bot=True)
                        now_bot.append(clock.seat)
                    elif self.config.policy == "forfeit":
                        forfeit_due.append(clock.seat)
            elif clock.running and (clock.seat not in owed_seats or clock.bot):
                clock = self._stop(clock, now_ms)
                stopped.append(clock.seat)
            if clock.seat in owed_seats and not clock.running and not clock.bot:
                clock = self._run(clock, now_ms)
                started.append(clock.seat)
            updated.append(clock)
        return ClockStep(
            replace(self, seats=tuple(updated)),
            started=tuple(started),
            stopped=tuple(stopped),
            now_bot=tuple(now_bot),
            forfeit_due=tuple(forfeit_due),
        )

    def _limit_reached(self, clock: SeatClock) -> bool:
        return self.config.max_timeouts > 0 and clock.timeouts >= self.config.max_timeouts

    def _answer(self, clock: SeatClock, now_ms: int, timed_out: bool) -> SeatClock:
        """Charge and credit the seat that answered; its clock stops.

        Only an answer to a decision the seat owed (its clock ran) earns the increment:
        an any-time action outside its decisions must not buy time."""
        if clock.running:
            clock = self._stop(clock, now_ms)
            if self.config.kind == "fischer":
                clock = replace(clock, bank_ms=clock.bank_ms + self.config.increment_ms)
        if timed_out:
            return replace(clock, timeouts=clock.timeouts + 1)
        if clock.bot:
            return clock
        return replace(clock, timeouts=0)

    def _stop(self, clock: SeatClock, now_ms: int) -> SeatClock:
        bank = clock.bank_ms
        if self.config.kind == "fischer" and clock.started_ms is not None:
            used = max(0, now_ms - clock.started_ms)
            bank = max(0, bank - used)
        return replace(clock, bank_ms=bank, deadline_ms=None, started_ms=None)

    def _run(self, clock: SeatClock, now_ms: int) -> SeatClock:
        return replace(clock, started_ms=now_ms, deadline_ms=now_ms + self._allowance(clock))

    def _allowance(self, clock: SeatClock) -> int:
        if self.config.kind == "fischer":
            return clock.bank_ms
        return self.config.per_decision_ms

    def resume(self, now_ms: int, grace_ms: int, served_until_ms: int | None = None) -> Resumption:
        """The clocks when a service takes them up again after they ran with nobody serving
        the match (a restart, an upgrade, a crash).

        **Pause.** ``served_until_ms`` is the latest time the match may still have been
        served before (the previous rules process's last heartbeat, see
        ``services/rules/clockwork.py``), or ``None`` when that is not known for sure. When
        known, every running clock is paused for the downtime ``now_ms - served_until_ms``
        (0 when that is not positive): its start and deadline both move by it, so the seat
        has the time it had when the service stopped, and a Fischer seat is charged none of
        the downtime. The pause is never more than the match's real downtime: when a running
        clock started after ``served_until_ms`` (someone else served the match after that
        beat: the beat is not its server's), no clock is paused at all.

        **Grace.** Then each running clock with less than the grace left gets exactly the
        grace from now, its start moved by as much, so a Fischer seat is charged none of the
        time added. The grace is ``grace_ms`` capped at what a fresh decision gets (the
        per-decision time, or a Fischer match's starting bank): a seat never comes back with
        more than a whole decision's time because of it. Without a known end of service
        (``served_until_ms`` None) the grace is all a seat gets, and the downtime beyond it
        counts: the conservative bound.

        Bot-played seats have no running clock; ``grace_ms`` 0 and no pause change nothing.
        Pure: ``now_ms`` and ``served_until_ms`` come from the caller."""
        if not self.config.enabled:
            return Resumption(self)
        running = [c for c in self.seats if c.deadline_ms is not None and c.started_ms is not None]
        paused_ms = 0
        why = "no running clock" if not running else "end of service unknown"
        if running and served_until_ms is not None:
            if any(cast(int, c.started_ms) > served_until_ms for c in running):
                why = "a clock started after the last heartbeat"
            else:
                paused_ms = max(0, now_ms - served_until_ms)
                why = "heartbeat"
        floor = 0 if grace_ms <= 0 else min(
            grace_ms, self.config.per_decision_ms if self.config.kind == "per_decision"
            else self.config.bank_ms)
        paused: list[tuple[int, int]] = []
        added: list[tuple[int, int]] = []
        updated = []
        for clock in self.seats:
            if clock.deadline_ms is not None and clock.started_ms is not None:
                if paused_ms:
                    clock = replace(clock, started_ms=clock.started_ms + paused_ms,
                                    deadline_ms=clock.deadline_ms + paused_ms)
                    paused.append((clock.seat, paused_ms))
                left = cast(int, clock.deadline_ms) - now_ms
                if floor > 0 and left < floor:
                    more = floor - left
                    clock = replace(clock, started_ms=cast(int, clock.started_ms) + more,
                                    deadline_ms=cast(int, clock.deadline_ms) + more)
                    added.append((clock.seat, more))
            updated.append(clock)
        if not paused and not added:
            return Resumption(self, basis=why)
        return Resumption(replace(self, seats=tuple(updated)), paused_ms, tuple(paused),
                          tuple(added), why)

    # -- queries -----------------------------------------------------------------------

    def expired(self, now_ms: int) -> tuple[int, ...]:
        """Seats whose deadline has come (``deadline <= now``), earliest first."""
        due = [
            (c.deadline_ms, c.seat)
            for c in self.seats
            if c.deadline_ms is not None and c.deadline_ms <= now_ms
        ]
        return tuple(seat for _, seat in sorted(due))

    def is_due(self, seat: int, deadline_ms: int, now_ms: int) -> bool:
        """Whether an expiry armed for ``(seat, deadline_ms)`` still applies now: the seat's
        clock runs with that very deadline and it has passed. A stale timer (the seat
        answered, or its clock restarted) gets ``False``, so no expiry applies twice."""
        clock = self.seat(seat)
        return clock.deadline_ms == deadline_ms and deadline_ms <= now_ms

    @property
    def bots(self) -> tuple[int, ...]:
        """Seats a bot plays after their timeouts."""
        return tuple(c.seat for c in self.seats if c.bot)

    @property
    def at_forfeit(self) -> tuple[int, ...]:
        """Seats at ``max_timeouts`` in a row under policy ``forfeit``: each is to resign
        (``forfeit_due`` of the step that got it there). The count stays until an answer in
        time, so it also names a seat whose resignation is recorded already: the host asks
        whether the seat still is in the game."""
        if self.config.policy != "forfeit":
            return ()
        return tuple(c.seat for c in self.seats if self._limit_reached(c))

    def next_deadline(self) -> tuple[int, int] | None:
        """``(deadline_ms, seat)`` of the earliest running clock, or ``None``."""
        running = [(c.deadline_ms, c.seat) for c in self.seats if c.deadline_ms is not None]
        return cast(tuple[int, int], min(running)) if running else None

    def remaining_ms(self, seat: int, now_ms: int) -> int:
        """Time the seat has left now: of its running decision, or its bank when idle."""
        clock = self.seat(seat)
        if clock.deadline_ms is not None:
            return max(0, clock.deadline_ms - now_ms)
        return self._allowance(clock) if self.config.enabled else 0

    def view(self, now_ms: int) -> list[dict[str, Any]]:
        """Every seat's clock as the fields of the proto ``SeatClock``; empty without a clock."""
        if not self.config.enabled:
            return []
        return [
            {
                "seat": c.seat,
                "remaining_ms": self.remaining_ms(c.seat, now_ms),
                "running": c.running,
                "deadline_unix_ms": c.deadline_ms or 0,
                "timeouts": c.timeouts,
                "bot": c.bot,
            }
            for c in self.seats
        ]

    # -- storage -----------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {"config": self.config.to_json(), "seats": [c.to_json() for c in self.seats]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Clocks:
        if not isinstance(data, Mapping):
            raise ValueError(f"clocks must be a JSON object, not {type(data).__name__}")
        config = ClockConfig.from_json(data.get("config"))
        seats = data.get("seats", [])
        if not isinstance(seats, list):
            raise ValueError("clocks.seats must be a list")
        clocks = tuple(SeatClock.from_json(s) for s in seats)
        if [c.seat for c in clocks] != list(range(len(clocks))):
            raise ValueError("clocks.seats must list seats 0, 1, ... in order")
        return cls(config, clocks)
