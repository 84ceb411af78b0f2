"""The tournament director: every command of the API, and the driver of each running round.

Commands take the tournament's lock, check, and save one or a few events; every check
that can fail says why (INVALID_ARGUMENT, FAILED_PRECONDITION, NOT_FOUND, ...). The
pairings and standings come from the pure core, fed from the tournament's own log
(:func:`services.tournament.log.replay_log`), so the service computes exactly what an
offline verifier recomputes from the exported log.

A round, once paired, is driven by one task per tournament:

1. create each table's match on the game's rules service (deterministic match id, so a
   restart finds the match rather than making another; seats must add client seeds;
   never a dev seed) and record ``MatchCreated``; a creation runs to its end, recorded or
   abandoned, whatever befalls the task that asked for it (a ForceEnd between a match's
   creation and its record abandons it: no match is left waiting with nobody to play it);
2. start each match when every seat said it is ready, or when the check-in window ran
   out (``MatchStarted`` names the absent seats: the rules service's clock then forfeits
   them or hands them to a bot, as the organiser chose);
3. results arrive from the signed results on NATS (:mod:`services.tournament.results`);
4. export each finished match for its final chain hash (``MatchSealed``);
5. when every table has its result and hash: the round checkpoint, a Merkle root over
   the sealed hashes and the log's head, signed with the organiser's key.

Every step looks at what is stored first, so a restart mid-round resumes it without
losing or doubling anything.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import os
import re
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import grpc
from eventsourcing.persistence import IntegrityError

from services.platform.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ServiceError,
    Unauthenticated,
    Unavailable,
)
from services.platform.grpc_kit import CLIENT_MAX_RECEIVE
from services.platform.logs import bind_contextvars, bound_contextvars, get_logger
from services.platform.players import player_id_refused
from services.platform.settings import switch
from services.platform.tasks import held_task, run_to_end
from services.platform.tokens import BOT_RESERVED, Claims, is_bot
from services.platform.waiting import within
from services.rules.records import is_abandoned
from services.tournament import formats, noshows, proofs
from services.tournament import log as tlog
from services.tournament.app import StatusCounts, TournamentApplication
from services.tournament.core import bracket as core_bracket
from services.tournament.core import (
    late_entries_refused,
    reinstatement_refused,
    too_many_rounds,
)
from services.tournament.core import planned_rounds as core_planned_rounds
from services.tournament.core.model import FormatConfig, TableResult, TournamentError
from services.tournament.domain import (
    ENDED,
    MAX_REMATCHES,
    Tournament,
    attempt_of,
    match_id_of,
)
from services.tournament.rules_port import RulesGateway

# A status in the words of a refusal: "the tournament is running now, not in registration".
_STATUS_WORDS = {"created": "created (registration not open yet)",
                 "registration": "in registration", "force-ended": "force-ended"}


def _is(status: str) -> str:
    """``status`` as a refusal says it: "the tournament is {_is(status)}"."""
    return _STATUS_WORDS.get(status, status)

log = get_logger("tournament")
TOURNAMENT_ID = re.compile(r"^[A-Za-z0-9_]{1,40}\Z")
MATCH_OF = re.compile(
    r"^(?P<t>[A-Za-z0-9_]{1,40})-r(?P<r>[0-9]{1,4})-t(?P<k>[0-9]{1,4})(?:-g(?P<g>[0-9]{1,2}))?\Z")
"""A tournament's match id (``domain.match_id_of``): tournament, round, table, and the
attempt of a rematch."""
DEFAULT_CLOCK = {"kind": "per_decision", "per_decision_ms": 60_000, "max_timeouts": 2}
DEFAULT_CHECK_IN = 300
MAX_CHECK_IN = 24 * 3600
MAX_PLAYERS = 4096
LIST_DEFAULT, LIST_MAX = 50, 200
"""ListTournaments: how many when the caller does not say, and at most."""


@dataclass(frozen=True)
class Options:
    poll: float = 0.5
    """Longest the round driver sleeps before it looks again."""
    abandon_retries: tuple[float, ...] = (1, 2, 5, 10, 30, 60, 120)
    """Seconds between the tries to abandon a force-ended tournament's unfinished matches
    on a rules service that did not answer; after the last, a repeat ForceEnd or the next
    start of this service tries again."""
    trust_minted_tokens: bool = False
    """NEON_TOURNAMENT_TRUST_MINTED_TOKENS: let a player token an organiser minted
    (MintPlayerToken, ``minted_by``) take its player's seats in a rated tournament's matches
    (:func:`refuse_minted_seat`). Off by default: nothing tells a token handed to its player
    from one its organiser kept, and the organiser would play rated games as that player."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Options:
        """The settings read from the environment (NEON_TOURNAMENT_TRUST_MINTED_TOKENS)."""
        e = os.environ if environ is None else environ
        return cls(trust_minted_tokens=switch(e, "NEON_TOURNAMENT_TRUST_MINTED_TOKENS"))


WATCH_RECHECK = 5.0
"""Seconds a watch waits for a save before it reads the tournament again anyway."""
STANDINGS_KEPT = 32
"""How many computed standings, and brackets, (tournament, version) the director keeps
(GetStandings; GetTournament and WatchTournament of an elimination event)."""
CREATING_AT_ONCE = 8
"""The round's matches asked of their rules service at once (:meth:`Director._create_matches`):
one after another, with a save each, a round of 128 tables took 2.7 s in round 1 and 7.5 s in
round 7 of a 256-player Swiss. A few in flight keep the rules service busy without a burst of
a whole round's calls; their records are saved together (:meth:`Director._record_created`)."""
RECORD_AT_MOST = 64
"""MatchCreated records waiting for a save at which the first of them waits no longer for
more (:meth:`Director._others_answered`)."""
RECORD_LINGER = 0.25
"""Seconds at most the first record of a save waits for the creations still asked of the
rules service, to record them with it: the players of a match recorded wait that much more
for it, and a round's records take a save per this many of them rather than one each."""
WATCH_TOKEN_EXPIRED = "player token expired; watch your matches again with a new player token"
"""How a WatchMyMatches stream ends at its player token's expiry."""


def refuse_minted_seat(who: Claims, t: Tournament, trust_minted_tokens: bool) -> None:
    """PERMISSION_DENIED for a player token an organiser minted (MintPlayerToken names it in
    ``minted_by``) asking for, or readying, its player's seat in a rated tournament's match.

    A tournament's matches are created by the tournament service and rated, and an organiser
    registers any player: with a token it minted for that player it would play the player's
    rated games itself. So such a token takes no seat unless the tournament is unrated (its
    matches are then recorded as made on the organiser's behalf, and scoring rates none of
    them) or the deployment trusts its organisers' tokens
    (NEON_TOURNAMENT_TRUST_MINTED_TOKENS). The player's own token (the identity provider's,
    or one minted with the deployment's keys, which names no organiser) always does."""
    if who.minted_by is None or trust_minted_tokens or t.unrated:
        return
    log.warning("a player token an organiser minted was refused a rated tournament's seat",
                tournament_id=t.tournament_id, player=who.player, minted_by=who.minted_by)
    minter = f"the organiser {who.minted_by!r}" if who.minted_by else "an organiser"
    raise PermissionDenied(
        f"this player token was minted by {minter}, not handed to {who.player!r} by the "
        f"deployment: it takes no seat of a rated tournament's match (tournament "
        f"{t.tournament_id!r} is rated). Play with {who.player}'s own token (the deployment's "
        "identity provider, or `neon token player` where its keys are), or have the organiser "
        "run an unrated tournament")


def _player(claims: Claims | None) -> Claims:
    if claims is None:
        raise Unauthenticated("this call needs a bearer token")
    if claims.role != "player":
        raise PermissionDenied(f"this call needs a player token, not {claims.role}")
    return claims


def _result_key(t: Tournament, mine: dict[str, Any] | None) -> str | None:
    """The recorded result of the caller's done table (``mine``, :meth:`Director.my_match`)
    as a comparable text, None for any other table: WatchMyMatches sends an update when it
    changes (the organiser set the result by hand, once or again), not only the status."""
    if mine is None or mine["status"] != "done" or t.current is None:
        return None
    result = t.current["results"].get(str(mine["table"]))
    return json.dumps(result, sort_keys=True, default=str)


def _organiser(claims: Claims | None) -> Claims:
    if claims is None:
        raise Unauthenticated("this call needs a bearer token")
    if claims.role != "organiser":
        raise PermissionDenied(f"this call needs an organiser token, not {claims.role}")
    return claims


def _organiser_or_player(claims: Claims | None, player_id: str) -> tuple[Claims, str]:
    """The caller and the player it acts for: organisers name any player, a player only itself."""
    if claims is None:
        raise Unauthenticated("this call needs a bearer token")
    if claims.role == "organiser":
        if not player_id:
            raise InvalidArgument("player_id is required")
        return claims, player_id
    if claims.role == "player":
        if player_id and player_id != claims.player:
            raise PermissionDenied("a player token acts only for its own player")
        return claims, claims.player
    raise PermissionDenied(f"this call needs an organiser or player token, not {claims.role}")


def _check_id(tournament_id: str) -> None:
    if not TOURNAMENT_ID.match(tournament_id or ""):
        raise InvalidArgument("tournament_id must be 1-40 letters, digits or '_'")


def _check_player_id(player_id: str) -> None:
    if (why := player_id_refused(player_id)) is not None:
        raise InvalidArgument(why)
    if is_bot(player_id):
        raise InvalidArgument(BOT_RESERVED)


def _unruled(settings: Mapping[str, Any]) -> dict[str, Any]:
    """A tournament's settings but the version of the rules its log is recorded under
    (log.LOG_VERSION): a CreateTournament repeated after an upgrade finds a tournament
    created before it with the same settings, not other ones."""
    return {k: v for k, v in settings.items() if k != tlog.LOG_VERSION}


def clock_settings(clock: dict[str, Any] | None, no_show: str) -> dict[str, Any]:
    """The stored clock: the default unless given; ``none`` only when asked for. Checked as
    the rules service checks a match's clock (``ClockConfig``: at most 24 hours, 0-1000
    timeouts): a clock it would refuse fails CreateTournament, not every CreateMatch of
    round 1 (which left the round waiting for ever)."""
    stored = _clock_settings(clock, no_show)
    if stored["kind"] != "none":
        from services.rules.clocks import ClockConfig

        try:
            ClockConfig(**stored)
        except (TypeError, ValueError) as err:
            raise InvalidArgument(str(err)) from None
    return stored


def _clock_settings(clock: dict[str, Any] | None, no_show: str) -> dict[str, Any]:
    policy = "bot" if no_show == "bot" else "forfeit"
    c = dict(clock or {})
    if c.get("none"):
        return {"kind": "none"}
    max_timeouts = int(c.get("max_timeouts") or DEFAULT_CLOCK["max_timeouts"])
    if c.get("bank_ms"):
        if int(c["bank_ms"]) <= 0 or int(c.get("increment_ms", 0)) < 0:
            raise InvalidArgument("clock: bank_ms must be positive and increment_ms not negative")
        return {
            "kind": "fischer",
            "bank_ms": int(c["bank_ms"]),
            "increment_ms": int(c.get("increment_ms", 0)),
            "max_timeouts": max_timeouts,
            "policy": policy,
        }
    per = int(c.get("per_decision_ms") or DEFAULT_CLOCK["per_decision_ms"])
    if per <= 0:
        raise InvalidArgument("clock: per_decision_ms must be positive")
    return {
        "kind": "per_decision",
        "per_decision_ms": per,
        "max_timeouts": max_timeouts,
        "policy": policy,
    }


def check_options(options_json: str, game: str, schema_json: str) -> None:
    """Refuse (InvalidArgument naming ``options_json``) match options the game's rules
    service would refuse with every CreateMatch of the event: JSON it does not take (not an
    object, NaN, an integer past 2**53, more than its 64 KiB: ``parse_json_object``, the
    rules service's own reading) or options its config schema (GetGameInfo
    ``config_schema_json``) does not allow. Such options used to be stored, and the first
    round paired with no table ever getting its match: it waited for ever. A ``required``
    option is not asked for here (the rules service fills some from the mode and seats
    first); what its engine's set-up refuses of a schema-valid config is not known here."""
    from services.rules.host import parse_json_object

    try:
        value = parse_json_object(options_json, "options_json")
    except InvalidArgument:
        raise
    except Exception as err:  # anything else it could raise: still the caller's input
        raise InvalidArgument(f"options_json must be a JSON object ({err})") from None
    if not schema_json:
        return
    import jsonschema

    try:
        validator = jsonschema.Draft202012Validator(json.loads(schema_json))
    except (ValueError, jsonschema.SchemaError) as err:  # the rules service's to mend
        log.warning("a game's config schema does not read: options not checked", game=game,
                    error=str(err)[:200])
        return
    errors = sorted((e for e in validator.iter_errors(value) if e.validator != "required"),
                    key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        where = "/".join(str(p) for p in errors[0].absolute_path)
        raise InvalidArgument(
            f"options_json{' ' + where if where else ''}: {errors[0].message[:300]} (the "
            f"rules service of {game} would refuse every match of the tournament)")


def check_set_up(options_json: str, game: str, mode: str, table_sizes: Collection[int],
                 engine_version: str) -> None:
    """Refuse (InvalidArgument) schema-valid options the game's engine refuses to set up at
    one of the event's table sizes (Neon Reign's ``decks`` of one deck for two seats): its
    rules service would refuse every such CreateMatch, and the round wait for ever. Only
    where this build has the engine of the version the rules service runs (GetGameInfo
    ``engine_version``), set up as the rules service does (``RulesHost._check_create``:
    the options the mode and seats derive added, then ``setup``); otherwise not checked."""
    from services.platform.draws import SeededRandomness
    from services.rules.games import load_engine
    from services.rules.games.contract import ConfigError, MatchConfig
    from services.rules.host import add_derived_options

    try:
        engine = load_engine(game)
    except Exception:  # noqa: BLE001 - not in this build (or not loadable here): not checked
        return
    if not engine_version or getattr(engine, "engine_version", None) != engine_version:
        return
    for seats in sorted(set(table_sizes)):
        options = json.loads(options_json)
        try:
            add_derived_options(engine, mode, seats, options, None)
            engine.setup(MatchConfig(mode=mode, seats=seats, options=options),
                         SeededRandomness(0))
        except ConfigError as err:
            raise InvalidArgument(
                f"options_json: {str(err)[:300]} (tables of {seats}: the rules service of "
                f"{game} would refuse every such match of the tournament)") from None
        except Exception as err:  # the engine's own failure: the rules service's to answer
            log.warning("a game's set-up failed on checked options: not checked further",
                        game=game, error=repr(err)[:200])
            return


def _played_table(t: Tournament, number: int, table: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The round and its table ``table`` that is not a bye, or why there is none."""
    if not 1 <= number <= len(t.rounds):
        raise NotFound(f"no round {number} (rounds paired: {len(t.rounds)})")
    rnd = t.round(number)
    found = [k for k in rnd["tables"] if k["number"] == table]
    if not found:
        raise NotFound(f"round {number} has no table {table}")
    if found[0]["bye"]:
        raise FailedPrecondition(f"table {table} of round {number} is a bye")
    return rnd, found[0]


def _playing(rnd: dict[str, Any], key: str) -> str | None:
    """The id of the match table ``key`` of the round plays now (None before its first)."""
    match = rnd["matches"].get(key)
    return None if match is None else str(match["match_id"])


def _waiting(rnd: dict[str, Any]) -> str:
    """What the round still waits for ("round 2 still waits for the results of table(s)
    1, 3"), or "" when every table has its result."""
    missing = [k["number"] for k in rnd["tables"]
               if not k["bye"] and str(k["number"]) not in rnd["results"]]
    if not missing:
        return ""
    return (f"round {rnd['number']} still waits for the results of table(s) "
            f"{', '.join(map(str, missing))}")


def _ends_sealed(reply: Any) -> bool:
    """Whether a match's export (:class:`~services.tournament.rules_port.MatchExport`) ends
    with the match's seal (then its checkpoint)."""
    last = bytes(reply.export_jsonl).rstrip(b"\n").rsplit(b"\n", 2)  # the last two lines
    return len(last) >= 2 and b'"MatchSealed"' in last[-2]



MAX_UNARY_BUNDLE_BYTES = CLIENT_MAX_RECEIVE
"""The largest bundle ExportTournament answers in its one message (read at each call):
what a client of this project takes in one message (``grpc_kit.CLIENT_MAX_RECEIVE``),
so it counts the whole answer: the bundle and the answer's other fields (the service checks
the answer's size). Past it the call is RESOURCE_EXHAUSTED (:class:`BundleTooLarge`), having
held at most this much and one match's export; ExportTournamentChunks streams a bundle of any size, holding
one match's export at a time."""


class BundleTooLarge(ServiceError):
    """The bundle is larger than ExportTournament answers in one message."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED

    def __init__(self, tournament_id: str, size: int, limit: int, answer: bool = False) -> None:
        at_least = (f"{size:,} with the answer's other fields" if answer
                    else f"at least {size:,}")
        super().__init__(
            f"the audit bundle of {tournament_id} is more than {limit:,} bytes ({at_least}), "
            "the most ExportTournament answers in one message "
            "(MAX_UNARY_BUNDLE_BYTES): ask ExportTournamentChunks, which streams it in "
            "chunks (neon tournament export does)")
        self.size, self.limit = size, limit


@dataclass(frozen=True)
class BundleSummary:
    """What :meth:`Director.export_parts` ends with: the matches and round checkpoints
    the bundle holds, and its size in bytes."""

    matches: int
    checkpoints: int
    size: int


def _bundled_matches(replayed: tlog.Replayed) -> dict[str, tuple[str, Any]]:
    """Every match a bundle may hold, by match id, from the log the bundle carries
    (:func:`~services.tournament.log.replay_log` of its records, never the tournament as
    found a moment before: a match sealed in between would be sealed in the bundle's log
    and missing its export): ("current", (the final hash it was sealed with or None,
    whether it was abandoned)) for a table's match, ("earlier", the final hash recorded at
    the rematch) for an abandoned match a rematch replaced."""
    out: dict[str, tuple[str, Any]] = {}
    for rnd in replayed.rounds:
        for table, match_id in rnd["matches"].items():
            out[match_id] = ("current", (rnd["sealed"].get(table),
                                         table in rnd.get("abandoned", {})))
        for earlier in rnd.get("earlier", {}).values():
            for match in earlier:
                out[match["match_id"]] = ("earlier", match["final_hash"])
    return out


def _next_part(parts: Any, answer: bytes | None) -> Any:
    """The next item of a :func:`~services.tournament.bundle.bundle_parts` generator, sent
    ``answer`` (None: the first, or after a piece); None when it is done (a StopIteration
    cannot cross a thread's future)."""
    try:
        return parts.send(answer)
    except StopIteration:
        return None


RECORDED_RULES_ADDRESS = ""
"""The ``rules_address`` a MatchCreated records (since 6 December 2026): none. The log goes
into the audit bundle, which organisers publish, and is hash-chained, so what it records
stays in every bundle for good; a rules service's gRPC address is internal infrastructure
(the gateway blanks it for web clients), stale after a move, and nothing checks it: players
are handed the address the service has now (``Director._served``), and the bundle's check
never reads it. The field stays, blank, so the record keeps its shape; logs of earlier
releases keep theirs (their chain covers it) and verify as before."""

NAMED = 40
"""A refused start names at most this many players left out (a status's details travel in
gRPC's trailers, whose size is limited); GetTournament lists every player's status."""


def _left_out_reason(left_out: list[str]) -> str:
    """Why StartTournament without checked_in_only refuses: how many registered players did
    not check in, and which (sorted by id)."""
    n = len(left_out)
    names = ", ".join(left_out[:NAMED]) + (f" and {n - NAMED} more" if n > NAMED else "")
    return (f"{n} registered player{'s' if n != 1 else ''} did not check in: {names}. "
            "Once anyone has checked in, a start takes the checked-in players only: have "
            "them check in (CheckIn), or pass checked_in_only to start without them")


def _unfinished(t: Tournament) -> list[str]:
    """The tournament's matches with no result recorded."""
    return [match["match_id"] for rnd in t.rounds
            for key, match in rnd["matches"].items() if key not in rnd["results"]]


def _unrecorded(t: Tournament) -> list[str]:
    """The matches the round driver may have created on a rules service without recording
    them: for each table of a round not yet complete (no checkpoint), not a bye, the
    (deterministic) id of its current attempt, when the round records no match of that id.
    A stop between a match's creation and its record (or an answer that never came back)
    leaves such a match waiting for its seats; a ForceEnd abandons each by its id (an id
    never created is answered NOT_FOUND: nothing to stop)."""
    return [mid for rnd in t.rounds if rnd["checkpoint"] is None
            for table in rnd["tables"] if not table["bye"]
            if (mid := match_id_of(t.tournament_id, rnd["number"], table["number"],
                                   attempt_of(rnd, table["number"])))
            != rnd["matches"].get(str(table["number"]), {}).get("match_id")]


def _stopping(t: Tournament) -> list[tuple[int, int, str]]:
    """(round, table, match id) of each match a correction decided (the round's
    ``stopped``, :meth:`Tournament.correct_result`: it played, it was started as the
    correction came, or it was still waiting for its seats) that the log does not show
    stopped yet: its abandon not recorded (MatchAbandoned), nor the match sealed.
    Abandoned again at each start, by FinishTournament, and by a ForceEnd. A match that
    waited for its seats is never started after the correction (nor handed to its seats);
    its abandon ends it on its rules service, so that nobody following it (a seat that
    readied, a spectator, a client asking after it) waits for ever."""
    return [(rnd["number"], int(key), match_id) for rnd in t.rounds
            for key, match_id in rnd.get("stopped", {}).items()
            if key not in rnd.get("abandoned", {})
            and key not in rnd["sealed"] and _playing(rnd, key) == match_id]


def _stopped_waiting(rnd: dict[str, Any], key: str) -> bool:
    """Whether table ``key``'s match was decided by a correction while it waited for its
    seats (stopped, never started). Such a match is not sealed, and the round's checkpoint
    does not wait for it, as before: a table decided on paper while its rules service is
    away must not hold the round, and a seal that raced the checkpoint would make the
    round's Merkle tree depend on timing; it is no leaf of it. Its abandon is recorded
    (MatchAbandoned) whenever it comes before the tournament ends, and the bundle carries
    its export then (an abandoned match's), which the check sees ended abandoned."""
    return key in rnd.get("stopped", {}) and key not in rnd["started"]


def _abandoned(t: Tournament, number: int, table: int, match_id: str,
               outcome: Mapping[str, Any]) -> None:
    """Record in ``t`` that its table's match ended abandoned, with the ``outcome``'s
    reason and who abandoned it (as long as the log keeps them)."""
    t.match_abandoned(number, table, match_id, str(outcome.get("reason", ""))[:500],
                      str(outcome.get("by", ""))[:200])


def _stop_reason(t: Tournament, number: int, table: int) -> str:
    """The reason a correction's abandon gives the table's match (the correction's own)."""
    reason = t.round(number).get("corrected", {}).get(str(table), "")
    return f"the organiser set the table's result: {reason}"


class _MatchesFailed(Exception):
    """A pass of the round driver in which some matches failed (each logged with its match
    id) while the others went on; the driver looks again after its backoff."""

    def __init__(self, match_ids: list[str]) -> None:
        super().__init__(f"{len(match_ids)} match(es) failed this pass: {', '.join(match_ids)}")
        self.match_ids = match_ids


@contextlib.contextmanager
def _per_match(tournament_id: str, match_id: str, failed: list[str], what: str,
               **fields: Any) -> Iterator[None]:
    """One match's step of a driver pass, with the tournament and match ids bound: its
    exception is logged (``what``, the error and ``fields``), the match id added to
    ``failed``, and swallowed, so the pass goes on with the round's other matches.
    Cancellation passes through."""
    with bound_contextvars(tournament_id=tournament_id, match_id=match_id):
        try:
            yield
        except Exception as err:
            log.warning(what, error=_reason(err), **fields)
            failed.append(match_id)


def _reason(err: Exception) -> str:
    """An error in words for a log line: a gRPC error's code and details, a service error's
    reason, or its repr."""
    if isinstance(err, grpc.aio.AioRpcError):
        return f"{err.code().name}: {err.details()}"
    reason = getattr(err, "reason", None)
    return f"{type(err).__name__}: {reason}" if isinstance(reason, str) else repr(err)


def _checkpoint_due(rnd: dict[str, Any]) -> bool:
    """Whether the round's checkpoint may be published: not yet published, every table with
    its result, and every match that will be sealed sealed."""
    if rnd["checkpoint"] is not None:
        return False
    for table in rnd["tables"]:
        key = str(table["number"])
        if table["bye"]:
            continue
        if key not in rnd["results"]:
            return False
        if key in rnd["matches"] and key not in rnd["sealed"] \
                and not _stopped_waiting(rnd, key) and (
                key not in rnd.get("corrected", {}) or key in rnd.get("abandoned", {})
                or key in rnd.get("stopped", {})):
            # an abandoned match ends, so it is sealed: wait for it; so is a started one a
            # correction stopped (abandoned, or ended as it came); one that never started
            # is not waited for (_stopped_waiting)
            return False
    return True


def _retrieved(future: asyncio.Future[Any]) -> None:
    """A shared read's failure is its waiters' (each raises it), never "never retrieved"
    when the last of them went away before it ended."""
    if not future.cancelled():
        future.exception()


MISSING: Any = object()
"""What :meth:`Recent.get` answers for a key it does not keep (None may be a value)."""


class Recent:
    """Values computed once per key (a tournament and its version) for every caller that
    asks for them, the ``size`` most recently used kept: standings, brackets and
    WatchTournament updates of a big event are the same for every call of one version."""

    __slots__ = ("_values", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        self._values: OrderedDict[Any, Any] = OrderedDict()

    def get(self, key: Any) -> Any:
        """The value kept for ``key`` (now the most recently used), else :data:`MISSING`."""
        value = self._values.get(key, MISSING)
        if value is not MISSING:
            self._values.move_to_end(key)
        return value

    def keep(self, key: Any, value: Any) -> Any:
        """Keep ``value`` for ``key``, dropping the least recently used past ``size``;
        returns ``value``."""
        self._values[key] = value
        while len(self._values) > self.size:
            self._values.popitem(last=False)
        return value


class _Room:
    """What the director keeps of one tournament while anything uses it (:meth:`Director._room`):
    its lock, the condition its watches and round driver wait on, and the count of the saves
    they were told of. Dropped once nothing holds it: a lock nobody holds or waits for, a
    condition nobody waits on, and a count no watch compares with are the same made anew."""

    __slots__ = ("changed", "lock", "reading", "saves", "users", "version")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.changed = asyncio.Condition()
        self.saves = 0
        """Saves notified (:meth:`Director.notify`), so a watch that was away from its wait
        when one was made reads it, rather than wait."""
        self.version = 0
        """The newest version notified: a wake-up of another replica for a version this one
        was told of already (its own save, heard back) wakes nobody."""
        self.users = 0
        self.reading: tuple[int, asyncio.Future[Tournament]] | None = None
        """The watches' read of the tournament (:meth:`Director._watched`): the count of
        saves when it began, and the read, shared by every watch that wants one as new."""


@dataclass
class _Retries:
    """The background abandons of one force-ended tournament (:meth:`Director._abandon_in_background`)."""

    left: list[str]
    """The matches still to abandon; a match found later joins them."""
    maybe: set[str]
    """Those of ``left`` that may never have been created (:func:`_unrecorded`): NOT_FOUND
    for them is as expected."""
    every: list[str]
    """What AbandonsConfirmed records once none is left."""
    task: asyncio.Task[None] | None = field(default=None, repr=False)


@dataclass
class _Created:
    """A match its rules service created for a table, waiting for its record
    (:meth:`Director._record_created`)."""

    number: int
    table: dict[str, Any]
    match_id: str
    commitment: str
    recorded: asyncio.Future[Tournament] = field(init=False, repr=False)
    """The tournament as saved with it (or as read, when it was not recorded)."""

    def record(self, t: Tournament) -> bool:
        """Record the match in ``t`` (MatchCreated, not saved), when it still holds: the
        tournament not ended, the table with no match nor result (decided meanwhile), and
        this its current attempt. Whether it was recorded."""
        rnd = t.round(self.number)
        number, key = self.table["number"], str(self.table["number"])
        if (t.status in ENDED or key in rnd["matches"] or key in rnd["results"]
                or self.match_id != match_id_of(t.tournament_id, self.number, number,
                                                attempt_of(rnd, number))):
            return False
        deadline = round(time.time() + float(t.settings["check_in_seconds"]), 3)
        t.match_created(self.number, number, self.match_id, RECORDED_RULES_ADDRESS,
                        self.commitment, deadline)
        return True


class Director:
    def __init__(
        self,
        app: TournamentApplication,
        rules: RulesGateway,
        ratings: Any,
        signing_key: Any,
        options: Options | None = None,
        on_saved: Callable[[], None] = lambda: None,
    ) -> None:
        self.app, self.rules, self.ratings = app, rules, ratings
        self.signing_key = signing_key
        self.options = options or Options()
        self.on_saved = on_saved
        self._rooms: dict[str, _Room] = {}
        """Per tournament in use (a lock held or waited for, a watch, a round driver): its
        :class:`_Room`, dropped when the last use ends."""
        self._tokens: dict[str, dict[str, dict[int, str]]] = {}
        """Seat tokens by tournament, then match id, in memory only (asked again after a
        restart); dropped when the tournament ends."""
        self._drivers: dict[str, asyncio.Task[None]] = {}
        """The round driver of each tournament that has one running."""
        self._creating: dict[str, set[asyncio.Task[bool]]] = {}
        """Per tournament: the matches being created (asked of their rules service, not yet
        recorded or abandoned), each a task that runs to its end whoever awaited it
        (:meth:`_create_one`); ForceEnd waits for them before its abandons."""
        self._recording: dict[str, list[_Created]] = {}
        """Per tournament: the created matches waiting for the save that records them
        (:meth:`_record_created`), the first of them the one that saves."""
        self._asking: dict[str, int] = {}
        """Per tournament: its creations waiting for their rules service's answer."""
        self._answers: dict[str, asyncio.Event] = {}
        """Per tournament: set at each answer of its rules service to a creation, while the
        first record of a save waits for them (:meth:`_others_answered`)."""
        self._ending: set[asyncio.Task[None]] = set()
        """ForceEnd's abandons under way (:meth:`_end_matches`), each run to its end
        whoever awaited it."""
        self._abandoning: dict[str, _Retries] = {}
        """Per force-ended tournament: the abandons still being tried again."""
        self._correcting: set[asyncio.Task[None]] = set()
        """CorrectResult's abandons of the matches it decided (:meth:`_stop_corrected`),
        each run to its end whoever awaited it."""
        self._stop_retries: dict[str, asyncio.Task[None]] = {}
        """Per match id: a correction's abandon being tried again
        (:meth:`_stop_in_background`)."""
        self._sweep: asyncio.Task[None] | None = None
        self._closing = False
        self._standings = Recent(STANDINGS_KEPT)
        """Standings computed from the log (:meth:`standings`), by tournament and version."""
        self._brackets = Recent(STANDINGS_KEPT)
        """Elimination brackets computed from the log (:meth:`bracket`), the same way."""
        self.result_keys: tuple[str, ...] = ()
        """The rules services' public keys whose signed results count (set by main)."""
        self.previous_keys: tuple[str, ...] = ()
        """The organiser's keys before a rotation (NEON_PREVIOUS_PUBLIC_KEYS, set by main):
        named in the bundle, whose earlier round checkpoints they signed."""
        self.statuses: StatusCounts | None = None
        """Told every save's events, to count tournaments by status (main sets it when the
        process serves metrics)."""
        self.wakeups: Any = None
        """Told every save (tournament id, version), to wake the watches of the other
        replicas (:class:`~services.tournament.wakeups.Wakeups`; main sets it with NATS)."""

    # -- plumbing -----------------------------------------------------------------

    @contextlib.contextmanager
    def _room(self, tournament_id: str) -> Iterator[_Room]:
        """The tournament's :class:`_Room`, held (made if none is) until the block ends;
        dropped when it was its last user. Never suspends: a lock released, or a watch
        ended, with nobody else at it leaves nothing behind."""
        room = self._rooms.get(tournament_id)
        if room is None:
            room = self._rooms[tournament_id] = _Room()
        room.users += 1
        try:
            yield room
        finally:
            room.users -= 1
            if not room.users and self._rooms.get(tournament_id) is room:
                del self._rooms[tournament_id]

    @contextlib.asynccontextmanager
    async def lock(self, tournament_id: str) -> AsyncIterator[None]:
        """The tournament's lock, held for the block: its commands and the round driver's
        steps one at a time."""
        with self._room(tournament_id) as room:
            async with room.lock:
                yield

    async def notify(self, tournament_id: str, version: int | None = None) -> None:
        """Wake the tournament's watches and round driver here, if it has any: a save of
        this process, or (with its ``version``) one another replica heard of
        (:mod:`~services.tournament.wakeups`), once per version."""
        room = self._rooms.get(tournament_id)
        if room is None:  # nobody here waits for it
            return
        if version is not None:
            if version <= room.version:
                return
            room.version = version
        room.saves += 1
        async with room.changed:
            room.changed.notify_all()

    async def heard(self, tournament_id: str, version: int) -> None:
        """Another replica saved ``version`` of the tournament (:mod:`~services.tournament.
        wakeups`): wake the watches here; and when this replica keeps seat tokens of it (its
        players asked MyNextMatch here) but does not drive it, let them go once it has ended
        there (the driving replica drops its own as it ends it)."""
        await self.notify(tournament_id, version)
        if (tournament_id in self._tokens and tournament_id not in self._drivers
                and (await self._find(tournament_id)).status in ENDED):
            self._tokens.pop(tournament_id, None)

    async def _find(self, tournament_id: str) -> Tournament:
        _check_id(tournament_id)
        found = await asyncio.to_thread(self.app.find, tournament_id)
        if found is None:
            raise NotFound(f"no tournament {tournament_id!r}")
        return found

    async def _save(self, t: Tournament) -> None:
        statuses = self.statuses
        events = [type(e).__name__ for e in t.pending_events] if statuses is not None else ()
        try:
            await asyncio.to_thread(self.app.save, t)
        except IntegrityError:
            raise Unavailable("the tournament changed under this call; try again") from None
        if statuses is not None:
            statuses.saved(t.id, events)
        self.on_saved()
        await self.notify(t.tournament_id, t.version)
        if self.wakeups is not None:
            await self.wakeups.saved(t.tournament_id, t.version)

    async def records(self, tournament_id: str, upto: int | None = None) -> list[dict[str, Any]]:
        return await asyncio.to_thread(self.app.records, tournament_id, upto)

    async def replayed(self, tournament_id: str, upto: int | None = None) -> tlog.Replayed:
        """The log replayed (up to version ``upto``, else whole)."""
        return tlog.replay_log(await self.records(tournament_id, upto))

    async def recover(self) -> None:
        """Resume the driver of every running tournament's last round."""
        ids = await asyncio.to_thread(self.app.open_ids)
        stops: list[Tournament] = []
        for uid in ids:
            t = await asyncio.to_thread(self.app.repository.get, uid)
            if t.status == "running" and t.rounds:
                self._drive(t.tournament_id)
            if _stopping(t):
                stops.append(t)
        # A stop between a ForceEnd's save and its abandons (or a rules service that never
        # answered them) left matches playing: every force-ended tournament's matches with
        # no result are abandoned again (a repeat is answered "already abandoned"); so are
        # the matches corrections decided whose stop the log does not show.
        self._sweep = asyncio.get_running_loop().create_task(self._abandon_force_ended(stops))
        log.info("tournaments recovered", open=len(ids))

    async def awaiting_results(self) -> list[tuple[str, str]]:
        """(game, match id) of every match a table of a driven round plays with no result
        recorded yet: what the results consumer looks for on the stream by its subject now
        and then (results.py, ``ResultConsumer.sweep``), in case its delivery never came (a
        store restored from a backup: its consumer had acked results the store lost)."""
        out: list[tuple[str, str]] = []
        for tournament_id in list(self._drivers):
            t = await self._find(tournament_id)
            rnd = t.current
            if t.status in ENDED or rnd is None or rnd["checkpoint"] is not None:
                continue
            for table in rnd["tables"]:
                key = str(table["number"])
                match_id = _playing(rnd, key)
                if table["bye"] or match_id is None or key in rnd["results"] \
                        or key in rnd.get("abandoned", {}):
                    continue
                out.append((t.game, match_id))
        return out

    async def _abandon_force_ended(self, stops: Collection[Tournament] = ()) -> None:
        """In the background of a start: the matches corrections decided in the open
        tournaments ``stops`` that the log does not show stopped (:func:`_stopping`), then
        every force-ended tournament's matches with no result, abandoned again, one
        tournament after another."""
        for t in stops:
            if not self._closing:
                await self._stop_corrected(t, _stopping(t))
        ended = await asyncio.to_thread(self.app.force_ended_ids)
        for uid in ended:
            t = await asyncio.to_thread(self.app.repository.get, uid)
            if not self._closing:
                await self._abandon_all(t)
        log.info("force-ended tournaments' matches abandoned again", tournaments=len(ended))

    async def close(self) -> None:
        self._closing = True
        # a creation cut here is a stop between a match's creation and its record: the next
        # start's driver re-finds the match (its id is deterministic) and records it, or a
        # ForceEnd abandons it by that id (_unrecorded)
        tasks = [*self._drivers.values(), *self._ending, *self._correcting,
                 *self._stop_retries.values(),
                 *(r.task for r in self._abandoning.values() if r.task is not None),
                 *(task for tasks in self._creating.values() for task in tasks),
                 *([self._sweep] if self._sweep is not None else [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # -- organiser: set-up --------------------------------------------------------

    async def create(
        self, claims: Claims | None, tournament_id: str, settings: dict[str, Any]
    ) -> Tournament:
        who = _organiser(claims)
        _check_id(tournament_id)
        resolved = await self._resolve(settings)
        async with self.lock(tournament_id):
            existing = await asyncio.to_thread(self.app.find, tournament_id)
            if existing is not None:
                if _unruled(existing.settings) != _unruled(resolved):
                    raise AlreadyExists(f"tournament {tournament_id!r} exists with other settings")
                return existing
            t = Tournament(tournament_id, resolved, who.player)
            await self._save(t)
            log.info(
                "tournament created",
                tournament_id=tournament_id,
                game=resolved["game"],
                format=resolved["format"]["format"],
            )
            return t

    async def _resolve(self, s: dict[str, Any]) -> dict[str, Any]:
        game = str(s.get("game") or "")
        if not game:
            raise InvalidArgument("game is required")
        try:
            config = FormatConfig.from_json(s.get("format_json") or "")
        except TournamentError as err:
            raise InvalidArgument(f"format_json: {err}") from None
        except (TypeError, ValueError) as err:
            raise InvalidArgument(f"format_json: {err}") from None
        if config.late_entry_until and (why := late_entries_refused(config)):
            raise InvalidArgument(f"format_json: late_entry_until {config.late_entry_until}: {why}")
        if not self.rules.address(game):
            # a bad argument, as matchmaking's CreateTicket says of a game it does not know
            raise InvalidArgument(f"unknown game {game!r}: no rules service for it is "
                                  "configured here")
        try:
            info = await self.rules.game_info(game)
        except grpc.aio.AioRpcError as err:
            raise Unavailable(
                f"the rules service of {game} does not answer: {err.code().name}"
            ) from None
        modes = {m.name: m for m in info.modes}
        mode = str(s.get("mode") or (info.modes[0].name if info.modes else ""))
        if mode not in modes:
            raise InvalidArgument(f"unknown mode {mode!r} of {game}; modes: {', '.join(modes)}")
        m = modes[mode]
        for size in config.table_sizes:
            if not m.min_seats <= size <= m.max_seats:
                raise InvalidArgument(
                    f"mode {mode} of {game} seats {m.min_seats}-{m.max_seats}, not tables of {size}"
                )
        no_show = str(s.get("no_show") or "forfeit")
        if no_show not in ("forfeit", "bot"):
            raise InvalidArgument("no_show must be forfeit or bot")
        if no_show == "forfeit" and getattr(info, "contract_version", 0) == 1:
            # a forfeit is the seat's resignation, which a contract-1 engine never offers: its
            # rules service refuses every match with such a clock (the round could not start).
            # 0 is a rules service that does not say: taken, as before
            raise InvalidArgument(
                f"no_show forfeit: the rules service of {game} runs engine "
                f"{info.engine_version or '?'} (contract version 1), "
                "which offers no resignation, so an absent player could never be forfeited; "
                "choose no_show bot")
        check_in = int(s.get("check_in_seconds") or DEFAULT_CHECK_IN)
        if not 0 < check_in <= MAX_CHECK_IN:
            raise InvalidArgument(f"check_in_seconds must be 1-{MAX_CHECK_IN}")
        options = str(s.get("options_json") or "")
        if options:
            check_options(options, game, getattr(info, "config_schema_json", ""))
        if not await self._rules_take(game, mode, config.table_sizes, options) and options:
            check_set_up(options, game, mode, config.table_sizes,
                         str(getattr(info, "engine_version", "") or ""))
        name = str(s.get("name") or "")
        if len(name) > 200:
            raise InvalidArgument("name is at most 200 characters")
        return {
            "name": name,
            "game": game,
            "mode": mode,
            "format": config.to_dict(),
            "clock": clock_settings(s.get("clock"), no_show),
            "no_show": no_show,
            "check_in_seconds": check_in,
            "options_json": options,
            "seed_from_ratings": bool(s.get("seed_from_ratings")),
            # only when set: a tournament stored before it has no such key, and a repeated
            # CreateTournament must find its settings the same
            **({"unrated": True} if s.get("unrated") else {}),
            # the rules its log is recorded under (log.LOG_VERSION)
            tlog.LOG_VERSION: tlog.CURRENT_LOG_VERSION,
        }

    async def _rules_take(self, game: str, mode: str, table_sizes: Collection[int],
                          options: str) -> bool:
        """Ask the game's rules service whether it takes the event's config at each of its
        table sizes (CheckMatchConfig: its own set-up of the engine it runs, whatever engine
        and version that is): InvalidArgument with its reason where it would refuse every
        such match. False: a rules service from before CheckMatchConfig, which cannot say
        (:func:`check_set_up` then checks with this build's engine, where it has the same)."""
        for seats in sorted(set(table_sizes)):
            try:
                if not await self.rules.check_config(game, mode, seats, options):
                    return False
            except InvalidArgument as err:
                raise InvalidArgument(
                    f"options_json: the rules service of {game} refuses tables of {seats} so "
                    f"set up ({err.reason[:400]}), and would refuse every such match of the "
                    "tournament") from None
            except grpc.aio.AioRpcError as err:
                raise Unavailable(
                    f"the rules service of {game} does not answer: {err.code().name}"
                ) from None
        return True

    async def open_registration(self, claims: Claims | None, tournament_id: str) -> Tournament:
        _organiser(claims)
        async with self.lock(tournament_id):
            t = await self._find(tournament_id)
            if t.status == "registration":
                return t
            if t.status != "created":
                raise FailedPrecondition(
                    f"registration cannot open: the tournament is {_is(t.status)}")
            t.open_registration()
            await self._save(t)
            return t

    async def register(
        self, claims: Claims | None, tournament_id: str, player_id: str
    ) -> Tournament:
        who, player_id = _organiser_or_player(claims, player_id)
        _check_player_id(player_id)
        async with self.lock(tournament_id):
            t = await self._find(tournament_id)
            current = t.players.get(player_id)
            if current is not None and current["status"] in ("registered", "checked-in"):
                return t
            if t.status != "registration":
                raise FailedPrecondition(
                    f"registration is not open (the tournament is {_is(t.status)})"
                    + ("; an organiser may add a late entry" if t.status == "running" else "")
                )
            if len(t.players) >= MAX_PLAYERS:
                raise FailedPrecondition(f"the tournament is full ({MAX_PLAYERS} players)")
            t.register(player_id, who.player)
            await self._save(t)
            return t

    async def withdraw(
        self, claims: Claims | None, tournament_id: str, player_id: str
    ) -> Tournament:
        who, player_id = _organiser_or_player(claims, player_id)
        async with self.lock(tournament_id):
            t = await self._find(tournament_id)
            current = t.players.get(player_id)
            if current is None:
                raise NotFound(f"{player_id!r} is not registered")
            if current["status"] == "withdrawn":
                return t
            if t.status == "running":
                raise FailedPrecondition("the tournament has started: drop the player instead")
            if t.status not in ("created", "registration"):  # nothing left to leave
                raise FailedPrecondition(f"the tournament is {_is(t.status)}")
            t.withdraw(player_id, who.player)
            await self._save(t)
            return t

    async def check_in(
        self, claims: Claims | None, tournament_id: str, player_id: str
    ) -> Tournament:
        who, player_id = _organiser_or_player(claims, player_id)
        async with self.lock(tournament_id):
            t = await self._find(tournament_id)
            current = t.players.get(player_id)
            if current is None or current["status"] == "withdrawn":
                raise NotFound(f"{player_id!r} is not registered")
            if current["status"] == "checked-in":
                return t
            if t.status != "registration":
                raise FailedPrecondition(f"check-in is over (the tournament is {_is(t.status)})")
            t.check_in(player_id, who.player)
            await self._save(t)
            return t

    async def start(self, claims: Claims | None, tournament_id: str,
                    checked_in_only: bool = False) -> Tournament:
        """Start with the checked-in players, or every registered player when nobody checked
        in. A start that would leave registered players out (some checked in, others not) is
        refused naming them unless ``checked_in_only``; the Started event records whom it
        left out (``t.left_out``). A repeat on a running tournament returns it unchanged."""
        return (await self.start_told(claims, tournament_id, checked_in_only))[0]

    async def start_told(self, claims: Claims | None, tournament_id: str,
                         checked_in_only: bool = False) -> tuple[Tournament, bool]:
        """:meth:`start`, and whether the tournament was running already (this call changed
        nothing: a repeat, or another organiser's start that came first)."""
        _organiser(claims)
        async with self.lock(tournament_id):
            t = await self._find(tournament_id)
            if t.status == "running":
                return t, True
            if t.status not in ("created", "registration"):
                raise FailedPrecondition(f"the tournament is {_is(t.status)}")
            checked = [p for p, v in t.players.items() if v["status"] == "checked-in"]
            registered = [p for p, v in t.players.items() if v["status"] == "registered"]
            left_out = sorted(registered) if checked else []
            if left_out and not checked_in_only:
                raise FailedPrecondition(_left_out_reason(left_out))
            playing = checked or registered
            if len(playing) < 2:
                raise FailedPrecondition(
                    f"a tournament needs at least 2 players, not {len(playing)}"
                )
            why = too_many_rounds(FormatConfig.from_stored(t.settings["format"]), len(playing))
            if why:
                raise FailedPrecondition(
                    f"{why}: register more players, or create the tournament with fewer rounds"
                )
            ratings: dict[str, float] = {}
            if t.settings["seed_from_ratings"] and self.ratings is not None:
                ratings = await self.ratings.ratings(t.game, playing)
            entrants = [
                {
                    "player_id": p,
                    "rating": float(ratings.get(p, 0.0)),
                    "registered": int(t.players[p]["order"]),
                }
                for p in sorted(playing, key=lambda p: t.players[p]["order"])
            ]
            t.start(entrants, left_out)
            await self._save(t)
            log.info("tournament started", tournament_id=tournament_id, players=len(entrants),
                     left_out=len(left_out))
            return t, False

    # -- rounds -------------------------------------------------------------------

    async def next_round(
        self, claims: Claims | None, tournament_id: str, number: int
    ) -> dict[str, Any]:
        """Pair the next round (``number`` 0, or the next one's number; an earlier one's
        number answers that round) once the last is complete and signed, and create its
        matches. When the format drops no-shows, the players who never came to their table
        in the last round are dropped first (NoShowDropped)."""
        _organiser(claims)
        if number < 0:
            raise InvalidArgument("round must not be negative")
        async with self.lock(tournament_id):
            t = await self._find(tournament_id)
            if number and number <= len(t.rounds):
                return await self.round_view(t, number)
            if t.status != "running":
                raise FailedPrecondition(f"the tournament is {_is(t.status)}, not running")
            if number and number != len(t.rounds) + 1:
                raise FailedPrecondition(f"the next round is {len(t.rounds) + 1}, not {number}")
            current = t.current
            if current is not None:
                if waiting := _waiting(current):
                    raise FailedPrecondition(waiting)
                if current["checkpoint"] is None:
                    raise FailedPrecondition(
                        f"round {current['number']} is complete but its checkpoint is not "
                        "published yet; try again shortly"
                    )
            replayed = await self.replayed(tournament_id)
            assert replayed.config is not None
            history = replayed.history()
            try:
                if formats.finished(replayed.config, history):
                    raise FailedPrecondition(
                        "every round of the format is played: finish the tournament"
                    )
                if await self._drop_no_shows(t, replayed):
                    replayed = await self.replayed(tournament_id)
                    assert replayed.config is not None
                    history = replayed.history()
                # in a thread: a big field's pairing (networkx, 0.2-0.4 s at 256 players)
                # held up every other call of the service on its event loop
                tables = await asyncio.to_thread(formats.pair, replayed.config, history)
            except TournamentError as err:
                raise FailedPrecondition(f"cannot pair round {len(t.rounds) + 1}: {err}") from None
            number = len(t.rounds) + 1
            t.pair_round(number, [tlog.table_json(k) for k in tables])
            await self._save(t)
            log.info("round paired", tournament_id=tournament_id, round=number, tables=len(tables))
        try:
            await self._create_matches(tournament_id, number)
        except Exception as err:  # the driver retries
            log.warning(
                "creating the round's matches failed; the driver retries",
                tournament_id=tournament_id,
                round=number,
                error=repr(err),
            )
        self._drive(tournament_id)
        return await self.round_view(await self._find(tournament_id), number)

    async def _drop_no_shows(self, t: Tournament, replayed: tlog.Replayed) -> bool:
        """Before the next round is paired: drop the players who never came to their table
        in the round just played, when the format drops no-shows (noshows.py says who).
        Saved before the pairing, which reads them from the log as a verifier does; they
        stay dropped even if no round can be paired. Whether any was dropped."""
        due = noshows.due(replayed)
        for n in due:
            t.drop_no_show(n.player_id, n.round, n.table, n.match_id, n.reason)
        if due:
            await self._save(t)
            log.info("no-shows dropped", tournament_id=t.tournament_id,
                     players=[n.player_id for n in due], after_round=due[0].round)
        return bool(due)

    def _drive(self, tournament_id: str) -> None:
        if self._closing:
            return
        task = self._drivers.get(tournament_id)
        if task is not None and not task.done():
            return
        # A Context of its own, empty: the driver outlives the call (or the result) that
        # started it, whose request id, method and claims are no part of its work.
        task = asyncio.create_task(self._driver(tournament_id), name=f"round-{tournament_id}",
                                   context=contextvars.Context())
        self._drivers[tournament_id] = task

        def ended(done: asyncio.Task[None]) -> None:
            if self._drivers.get(tournament_id) is done:
                del self._drivers[tournament_id]

        task.add_done_callback(ended)

    async def _driver(self, tournament_id: str) -> None:
        backoff = 0.1
        # The task's own Context: bound for its life, never unbound (nothing may set a
        # context variable from a finaliser; see platform/grpc_kit.py, _CallScope).
        bind_contextvars(tournament_id=tournament_id)
        with self._room(tournament_id) as room:  # woken by each save while it drives
            while not self._closing:
                wait = self.options.poll
                seen = room.saves  # a save during the pass: passed over again at once
                try:
                    done = await self._step(tournament_id)
                    backoff = 0.1
                except asyncio.CancelledError:
                    raise
                except _MatchesFailed:  # each logged with its match id; the others went on
                    done, wait = False, backoff
                    backoff = min(5.0, backoff * 2)
                except Exception as err:  # a rules service or the store is down: retry
                    log.warning("round driver step failed, retrying", error=repr(err))
                    await asyncio.sleep(backoff)
                    backoff = min(5.0, backoff * 2)
                    continue
                if done:
                    return
                async with room.changed:
                    try:
                        await within(
                            room.changed.wait_for(lambda seen=seen: room.saves != seen), wait)
                    except TimeoutError:
                        pass

    async def _step(self, tournament_id: str) -> bool:
        """One pass over the current round; True when there is nothing left to drive.

        Each match is a step of its own: one whose rules service fails it (a broken export
        stream, a call refused or timed out) is logged with its match id and tried again on
        the next pass, while the round's other matches go on being created, started and
        sealed (:class:`_MatchesFailed` then ends the pass, after the checkpoint's look)."""
        t = await self._find(tournament_id)
        rnd = t.current
        if t.status in ENDED:  # here, or on another replica
            self._tokens.pop(tournament_id, None)
            return True
        if rnd is None:
            return True
        if rnd["checkpoint"] is not None:
            return True
        number = rnd["number"]
        # each part decides from this one read (read-only), and reads again, under the
        # tournament's lock, only what it changes: a save since is passed over at once
        failed = await self._create_matches(tournament_id, number, t)
        failed += await self._start_due(tournament_id, number, t)
        failed += await self._seal(tournament_id, number, t)
        if await self._checkpoint(tournament_id, number, t):
            return True
        if failed:
            raise _MatchesFailed(failed)
        return False

    def _served(self, t: Tournament, match: dict[str, Any] | None) -> dict[str, Any] | None:
        """A table's match as players are told it: at the address the game's rules service
        has now. MatchCreated of an earlier release recorded the address of its day (kept
        in the log), which a restart on other ports or hosts (an upgrade, a move) leaves
        pointing nowhere; the director itself always reaches the rules service by game.
        Since 6 December 2026 MatchCreated records none (``RECORDED_RULES_ADDRESS``)."""
        if match is None:
            return None
        return {**match, "rules_address": self.rules.address(t.game) or match["rules_address"]}

    async def _create_matches(self, tournament_id: str, number: int,
                              t: Tournament | None = None) -> list[str]:
        """Create (or re-find) the match of every table of the round; record new ones. The
        match ids whose creation failed (each logged; the next pass tries again): one table's
        failure does not keep the others from their matches. ``t``: the tournament as the
        caller read it (the records read it again), else read now.

        :data:`CREATING_AT_ONCE` creations at a time; the records of those that end while
        another batch is being saved are saved together (:meth:`_record_created`). Once one
        finds the tournament ended, no other is begun (those under way run to their end and
        abandon their match)."""
        if t is None:
            t = await self._find(tournament_id)
        rnd = t.round(number)
        failed: list[str] = []
        if t.status in ENDED:
            return failed
        ended = False
        slots = asyncio.Semaphore(CREATING_AT_ONCE)

        async def create(table: dict[str, Any], match_id: str, known: bool) -> None:
            nonlocal ended
            await slots.acquire()
            held = True

            def answered() -> None:  # the rules service answered: the next may be asked
                nonlocal held
                if held:
                    held = False
                    slots.release()

            try:
                if ended:
                    return
                with _per_match(tournament_id, match_id, failed,
                                "creating a match failed; the next pass tries again",
                                round=number, table=table["number"]):
                    if await self._creation(t, number, table, match_id, known, answered):
                        ended = True  # force-ended meanwhile
            finally:
                answered()

        creations = []
        for table in rnd["tables"]:
            key = str(table["number"])
            if table["bye"] or key in rnd["results"]:
                continue  # a table the organiser decided needs no (next) match
            match_id = match_id_of(tournament_id, number, table["number"],
                                   attempt_of(rnd, table["number"]))
            known = key in rnd["matches"]
            if known and match_id in self._tokens.get(tournament_id, {}):
                continue
            creations.append(create(table, match_id, known))
        await asyncio.gather(*creations)
        return failed

    async def _creation(self, t: Tournament, number: int, table: dict[str, Any],
                        match_id: str, known: bool,
                        answered: Callable[[], None] = lambda: None) -> bool:
        """:meth:`_create_one` in a task of its own, awaited shielded: a caller cancelled
        (ForceEnd cancels the round driver; a client hangs up the call that created the
        match) leaves it to run to its end, so that a match the rules service created is
        recorded or abandoned, never left waiting with nobody to play it. Its answer (or
        error) once it ends."""
        tid = t.tournament_id
        creating = self._creating.setdefault(tid, set())
        task = held_task(creating, self._create_one(t, number, table, match_id, known,
                                                    answered),
                         name=f"create-{match_id}")

        def ended(done: asyncio.Task[bool]) -> None:
            # held_task's callback, first, took it out of ``creating``
            if not creating and self._creating.get(tid) is creating:
                del self._creating[tid]
            if not done.cancelled() and done.exception() is not None:
                # retrieved here too: its caller may be gone (its own pass logs it otherwise)
                log.debug("a match's creation failed", match_id=match_id,
                          error=_reason(done.exception()))  # type: ignore[arg-type]

        task.add_done_callback(ended)
        return await asyncio.shield(task)

    async def _create_one(self, t: Tournament, number: int, table: dict[str, Any],
                          match_id: str, known: bool,
                          answered: Callable[[], None] = lambda: None) -> bool:
        """Create (or re-find) the table's match on its rules service, then record it
        (MatchCreated) unless ``known``; when the tournament was force-ended meanwhile, or
        the table decided, abandon the match instead. True when the tournament has ended.
        ``answered`` is called once the rules service answered (or failed)."""
        tournament_id, s, key = t.tournament_id, t.settings, str(table["number"])
        self._asking[tournament_id] = self._asking.get(tournament_id, 0) + 1
        try:
            tokens, commitment = await self.rules.create_match(
                t.game, match_id, s["mode"], list(table["seats"]), s["options_json"],
                s["clock"], on_behalf_of_organiser=t.created_by if t.unrated else None,
            )
        finally:
            left = self._asking.pop(tournament_id) - 1
            if left:
                self._asking[tournament_id] = left
            waiting = self._answers.get(tournament_id)
            if waiting is not None:
                waiting.set()
            answered()
        self._tokens.setdefault(tournament_id, {})[match_id] = tokens
        if known:  # re-found for its seat tokens, which an ended tournament keeps none of
            if (await self._find(tournament_id)).status in ENDED:
                self._tokens.pop(tournament_id, None)
                return True
            return False
        t = await self._record_created(tournament_id, _Created(number, table, match_id,
                                                               commitment))
        rnd = t.round(number)
        if t.status in ENDED:  # force-ended meanwhile: its log is closed, and its
            # abandons may not have known this match, so it is abandoned here
            self._tokens.pop(tournament_id, None)
            await self._abandon_late(t, [match_id])
            return True
        if key in rnd["results"] and _playing(rnd, key) != match_id:
            # decided meanwhile: the match will never be played
            await self._abandon_unlogged(t, match_id)
        return False

    async def _record_created(self, tournament_id: str, created: _Created) -> Tournament:
        """Record ``created`` (MatchCreated), with the other creations that end meanwhile,
        in one save: the first to come saves, once the tournament's lock is its, every
        record that came by then (a group commit); the others wait for that save. Each is
        recorded only when it still holds (the tournament not ended, its table without a
        match nor a result, and this the table's current attempt): one save or none, so a
        stop at any point leaves each table with its match recorded or with none, and the
        next pass re-finds a created one by its id. The tournament as saved (or as read,
        when nothing was to record), which the caller only reads."""
        loop = asyncio.get_running_loop()
        created.recorded = loop.create_future()
        queue = self._recording.setdefault(tournament_id, [])
        queue.append(created)
        if len(queue) > 1:  # a save is due: this one joins it
            return await asyncio.shield(created.recorded)
        batch = queue
        try:
            await self._others_answered(tournament_id, queue)
            async with self.lock(tournament_id):
                # every record that came while the lock was waited for: this save's
                batch = self._recording.pop(tournament_id)
                t = await self._find(tournament_id)
                done = [c for c in batch if c.record(t)]
                if done:
                    await self._save(t)
                for c in done:
                    log.info("match created", match_id=c.match_id, round=c.number,
                             table=c.table["number"])
        except BaseException as err:
            if self._recording.get(tournament_id) is batch:
                del self._recording[tournament_id]
            failure = err if isinstance(err, Exception) else Unavailable(
                "the record of the round's matches was cut; the next pass makes it")
            for c in batch:
                if c is not created and not c.recorded.done():
                    c.recorded.set_exception(failure)
                    c.recorded.exception()  # retrieved: its waiter may be gone
            raise
        for c in batch:
            if not c.recorded.done():
                c.recorded.set_result(t)
        return t

    async def _others_answered(self, tournament_id: str, queue: list[_Created]) -> None:
        """Wait, :data:`RECORD_LINGER` seconds at most, until no other creation of the
        tournament waits for its rules service (each then waits in ``queue`` for its
        record), or ``queue`` holds :data:`RECORD_AT_MOST`."""
        deadline = asyncio.get_running_loop().time() + RECORD_LINGER
        while self._asking.get(tournament_id) and len(queue) < RECORD_AT_MOST:
            waiting = self._answers.setdefault(tournament_id, asyncio.Event())
            waiting.clear()
            try:
                await within(waiting.wait(), deadline - asyncio.get_running_loop().time())
            except TimeoutError:
                break
            finally:
                if self._answers.get(tournament_id) is waiting:
                    del self._answers[tournament_id]

    async def _start_due(self, tournament_id: str, number: int,
                         t: Tournament | None = None) -> list[str]:
        """Start every match whose seats are all ready or whose check-in window ran out; the
        match ids whose start failed (each logged; the next pass tries again). ``t``: as
        :meth:`_create_matches` (each start reads the tournament again)."""
        if t is None:
            t = await self._find(tournament_id)
        rnd = t.round(number)
        failed: list[str] = []
        for key, match in rnd["matches"].items():
            if key in rnd["started"] or key in rnd["results"] or key in rnd.get("abandoned", {}):
                continue  # an abandoned match waiting for its seats never starts
            table = next(k for k in rnd["tables"] if str(k["number"]) == key)
            ready = rnd["ready"].get(key, [])
            if len(ready) < len(table["seats"]) and time.time() < float(match["deadline"]):
                continue
            with _per_match(tournament_id, match["match_id"], failed,
                            "starting a match failed; the next pass tries again",
                            round=number, table=int(key)):
                await self._start(tournament_id, number, int(key), match["match_id"])
        return failed

    async def _start(self, tournament_id: str, number: int, table: int, match_id: str) -> bool:
        """Start the table's match ``match_id``; False when the table plays another match
        by now (a rematch replaced it) or the tournament has ended."""
        t = await self._find(tournament_id)
        rnd = t.round(number)
        key = str(table)
        if _playing(rnd, key) != match_id or t.status in ENDED:
            return False
        if key in rnd["started"]:
            return True
        if key in rnd["results"]:  # decided (CorrectResult) since its caller looked
            return False
        match = rnd["matches"][key]
        await self.rules.start_match(t.game, match["match_id"])
        stops: list[tuple[int, int, str]] = []
        async with self.lock(tournament_id):
            t = await self._find(tournament_id)
            rnd = t.round(number)
            if _playing(rnd, key) != match_id:
                return False  # replaced by a rematch while the rules service started it
            ended = t.status in ENDED
            if not ended:
                if key in rnd["started"]:
                    return True
                seats = next(k for k in rnd["tables"] if k["number"] == table)["seats"]
                ready = rnd["ready"].get(key, [])
                absent = [s for s in range(len(seats)) if s not in ready]
                t.match_started(number, table, absent)  # recorded, so a restart stops it
                await self._save(t)
                stops = [s for s in _stopping(t) if s[:2] == (number, table)]
        if not ended and stops:  # decided (CorrectResult) while the rules service started
            # it: the correction saw no match to stop, so it is stopped here
            await self._stop_corrected(t, stops)
            return False
        if ended:  # force-ended while the rules service started it: its log is closed, and
            # its abandon may have come before this start: the match is abandoned (again)
            await self._abandon_late(t, [match_id])
            return False
        log.info("match started", match_id=match["match_id"], absent=absent)
        return True

    async def _seal(self, tournament_id: str, number: int,
                    t: Tournament | None = None) -> list[str]:
        """Record the final hash of every ended match of the round whose export ends sealed;
        the match ids whose export failed (a broken stream, a rules service that did not
        answer: each logged, and asked again on the next pass), while the others are sealed
        all the same. ``t``: as :meth:`_create_matches` (each seal reads it again)."""
        if t is None:
            t = await self._find(tournament_id)
        rnd = t.round(number)
        failed: list[str] = []
        for key, result in list(rnd["results"].items()):
            if key in rnd["sealed"] or key not in rnd["matches"]:
                continue
            if result.get("kind") == "forfeit" and not result.get("match_id"):
                continue
            if _stopped_waiting(rnd, key):  # never started: not sealed, no leaf
                continue
            match_id = rnd["matches"][key]["match_id"]
            with _per_match(tournament_id, match_id, failed,
                            "sealing a match failed; the next pass asks for its export again",
                            round=number, table=int(key)):
                await self._seal_one(tournament_id, number, key, match_id, t.game)
        return failed

    async def _seal_one(self, tournament_id: str, number: int, key: str, match_id: str,
                        game: str) -> None:
        reply = await self.rules.export_match(game, match_id)
        if not _ends_sealed(reply):
            return  # ended but not sealed yet: look again
        async with self.lock(tournament_id):
            t = await self._find(tournament_id)
            if key in t.round(number)["sealed"]:
                return
            t.match_sealed(number, int(key), match_id, reply.final_hash, int(reply.event_count))
            await self._save(t)
        log.info("match sealed", round=number, table=int(key), final_hash=reply.final_hash,
                 events=int(reply.event_count))

    async def _checkpoint(self, tournament_id: str, number: int,
                          seen: Tournament | None = None) -> bool:
        """Publish the round's checkpoint once every table has its result and every match
        that will be sealed is; True once published. ``seen``: the tournament as the caller
        read it: a round it shows unready is left for the next pass (a save since brings
        one), without reading the tournament again under its lock."""
        if seen is not None and not _checkpoint_due(seen.round(number)):
            return seen.round(number)["checkpoint"] is not None
        async with self.lock(tournament_id):
            t = await self._find(tournament_id)
            rnd = t.round(number)
            if rnd["checkpoint"] is not None:
                return True
            if not _checkpoint_due(rnd):
                return False
            records = await self.records(tournament_id)
            leaves = proofs.round_leaves(rnd)
            checkpoint = proofs.round_checkpoint(
                tournament_id, number, leaves, len(records), tlog.head(records), self.signing_key
            )
            t.publish_checkpoint(number, checkpoint)
            await self._save(t)
            log.info("round checkpoint published", round=number, root=proofs.body(checkpoint)["root"])
            return True

    # -- results ------------------------------------------------------------------

    async def record_signed_result(self, result: dict[str, Any], signed: dict[str, Any]) -> str:
        """Record a verified MatchEnded of one of our matches: "recorded", "duplicate" or
        "ignored" (not ours, or not a table we know)."""
        found = MATCH_OF.match(str(result.get("match_id", "")))
        if found is None:
            return "ignored"
        tournament_id, number, table = found["t"], int(found["r"]), int(found["k"])
        async with self.lock(tournament_id):
            t = await asyncio.to_thread(self.app.find, tournament_id)
            if t is None or not 1 <= number <= len(t.rounds) or result.get("game") != t.game:
                return "ignored"
            if t.status in ENDED:  # the final standings are published: the log is closed
                rnd = t.round(number)
                if (is_abandoned(result.get("outcome") or {})
                        and str(table) in rnd.get("abandoned", {})
                        and result.get("match_id") == _playing(rnd, str(table))):
                    return "duplicate"  # its abandon, recorded (FinishTournament's)
                log.warning("a result after the tournament ended is left out",
                            match_id=result.get("match_id"), status=t.status)
                return "ignored"
            rnd = t.round(number)
            tables = [k for k in rnd["tables"] if k["number"] == table and not k["bye"]]
            if not tables:
                return "ignored"
            current = _playing(rnd, str(table))
            if result.get("match_id") != current:  # an earlier match of a rematched table
                log.info("a result of a match the table no longer plays is left out",
                         match_id=result.get("match_id"), current=current)
                return "ignored"
            outcome = result.get("outcome") or {}
            if str(table) in rnd["results"]:
                # the result stands (an organiser's correction, or the one recorded): a
                # match's result never overwrites it, nor counts twice. The abandon of a
                # match a correction decided (its end come back) is recorded, once: the log
                # then shows the match stopped, and the bundle carries its export.
                if (is_abandoned(outcome) and rnd.get("stopped", {}).get(str(table)) == current
                        and str(table) not in rnd.get("abandoned", {})):
                    _abandoned(t, number, table, str(current), outcome)
                    await self._save(t)
                    log.info("the abandon of a corrected table's match is recorded",
                             match_id=current)
                    return "recorded"
                return "duplicate"
            seats = list(tables[0]["seats"])
            if is_abandoned(outcome):  # AbandonMatch: ended with no result
                if str(table) in rnd.get("abandoned", {}):
                    return "duplicate"
                log.info("an abandoned match is no result; the organiser may correct the table",
                         match_id=result.get("match_id"),
                         reason=str(outcome.get("reason", ""))[:500])
                _abandoned(t, number, table, str(result.get("match_id")), outcome)
                await self._save(t)
                return "recorded"
            placements = [int(p) for p in outcome.get("placements", [])]
            if list(result.get("players") or []) != seats or len(placements) != len(seats):
                log.error("a result does not fit its table", match_id=result.get("match_id"))
                return "ignored"
            absent = rnd["started"].get(str(table), {}).get("absent", [])
            no_move = (tlog.no_move_of(result, len(seats))
                       if tlog.forfeits_by_moves(t.settings) else None)
            kind, forfeited, tiebreak = tlog.from_signed(
                seats, absent, t.settings["no_show"], outcome.get("scores") or [0] * len(seats),
                no_move)
            table_result = TableResult(
                table=table,
                seats=tuple(seats),
                placements=tuple(placements),
                kind=kind,
                forfeited=tuple(forfeited),
                game_tiebreak=tiebreak,
                match_id=str(result["match_id"]),
            )
            t.record_result(number, table, tlog.result_json(table_result), signed)
            await self._save(t)
            log.info("result recorded", match_id=result.get("match_id"), placements=placements)
            self._drive(tournament_id)
            return "recorded"

    async def correct_result(
        self,
        claims: Claims | None,
        tournament_id: str,
        number: int,
        table: int,
        placements: list[int],
        forfeited: bool,
        reason: str,
    ) -> dict[str, Any]:
        who = _organiser(claims)
        reason = reason.strip()[:500]  # as stored: the log line's too, not the whole request
        if not reason:
            raise InvalidArgument("a correction needs a reason")
        async with self.lock(tournament_id):
            t = await self._find(tournament_id)
            rnd, paired = _played_table(t, number, table)
            seats = list(paired["seats"])
            if len(placements) != len(seats) or any(p < 1 or p > len(seats) for p in placements):
                raise InvalidArgument(
                    f"placements must give 1-{len(seats)} for each of the {len(seats)} seats"
                )
            best = min(placements)
            losers = [seats[i] for i, p in enumerate(placements) if p > best] if forfeited else []
            if forfeited and not losers:  # nobody placed below another: nobody won, so
                losers = list(seats)  # every seat forfeits (a double forfeit), never all win
            previous = rnd["results"].get(str(table), {})
            result = TableResult(
                table=table,
                seats=tuple(seats),
                placements=tuple(placements),
                kind="forfeit" if forfeited and len(seats) == 2 else "played",
                forfeited=tuple(losers),
                game_tiebreak=tuple(previous.get("game_tiebreak", ())),
                match_id=str(
                    previous.get("match_id", rnd["matches"].get(str(table), {}).get("match_id", ""))
                ),
            )
            same = (previous == tlog.result_json(result)
                    and rnd.get("corrected", {}).get(str(table)) == reason)
            if same:  # a repeat of the same correction (a retried call) changes nothing
                return await self.round_view(t, number)
            if t.status in ENDED:
                raise FailedPrecondition(
                    f"the tournament is {_is(t.status)}: its final standings are published"
                )
            t.correct_result(
                number, table, tlog.result_json(result), reason, who.player
            )
            await self._save(t)
            log.info("result corrected", round=number, table=table, reason=reason, by=who.player)
            stops = [s for s in _stopping(t) if s[:2] == (number, table)]
        if stops:
            # the table's match played on (or waited for its seats): the correction, saved,
            # decided it, so it is abandoned, as ForceEnd abandons, run to its end whatever
            # befalls this call (a miss is tried again; a stop before it, at the next start)
            await run_to_end(self._correcting, self._stop_corrected(t, stops),
                             name=f"stop-{stops[0][2]}", context=contextvars.Context())
        self._drive(tournament_id)
        return await self.round_view(await self._find(tournament_id), number)

    async def rematch(self, claims: Claims | None, tournament_id: str, number: int, table: int,
                      reason: str) -> dict[str, Any]:
        """Have an abandoned table play again (RematchTable): the abandoned match, sealed,
        stays in the log as one of the table's earlier matches (with its final hash, so the
        round's checkpoint commits to it through the log head), and the driver creates the
        table's next match, with a new check-in window."""
        who = _organiser(claims)
        reason = reason.strip()[:500]
        if not reason:
            raise InvalidArgument("a rematch needs a reason")
        t = await self._find(tournament_id)
        match_id = self._rematchable(t, number, table)["match_id"]
        reply = await self._export_or_unavailable(t.game, match_id)
        if reply is None or not _ends_sealed(reply):
            raise FailedPrecondition(f"{match_id!r} is not sealed yet (its seal follows its "
                                     "abandon within seconds): try again")
        async with self.lock(tournament_id):
            t = await self._find(tournament_id)
            if self._rematchable(t, number, table)["match_id"] != match_id:
                raise FailedPrecondition(f"table {table} of round {number} changed meanwhile")
            t.table_rematched(number, table, match_id, reply.final_hash, int(reply.event_count),
                              reason, who.player)
            await self._save(t)
            with bound_contextvars(tournament_id=tournament_id, match_id=match_id):
                log.info("table rematched", round=number, table=table, reason=reason,
                         by=who.player)
        try:  # the answer names the new match (the driver does it otherwise, retrying)
            await self._create_matches(tournament_id, number)
        except Exception as err:  # the rules service is down: the driver retries
            log.warning("the rematch's match is not created yet", error=repr(err))
        self._drive(tournament_id)
        return await self.round_view(await self._find(tournament_id), number)

    @staticmethod
    def _rematchable(t: Tournament, number: int, table: int) -> dict[str, Any]:
        """The table's abandoned match, or why the table cannot play again."""
        if t.status in ENDED:
            raise FailedPrecondition(f"the tournament is {_is(t.status)}")
        rnd, _ = _played_table(t, number, table)
        key = str(table)
        if rnd["checkpoint"] is not None:
            raise FailedPrecondition(f"round {number} is complete (its checkpoint is signed)")
        if key in rnd["results"]:
            raise FailedPrecondition(f"table {table} of round {number} has its result "
                                     "(CorrectResult changes a result)")
        if key not in rnd.get("abandoned", {}):
            raise FailedPrecondition(
                f"table {table} of round {number} has no abandoned match: abandon its match "
                "first (AbandonMatch, `neon abandon MATCH_ID --reason ...`)")
        if attempt_of(rnd, table) > MAX_REMATCHES:
            raise FailedPrecondition(f"table {table} of round {number} was rematched "
                                     f"{MAX_REMATCHES} times already: CorrectResult decides it")
        return dict(rnd["matches"][key])

    # -- players during the event -------------------------------------------------

    async def drop(
        self, claims: Claims | None, tournament_id: str, player_id: str, reason: str
    ) -> tuple[Tournament, bool]:
        """Drop a player from the next rounds (PlayerDropped); the tournament, and whether
        the player was dropped already (this call changed nothing: a repeat, or another
        caller's drop that came first)."""
        who, player_id = _organiser_or_player(claims, player_id)
        async with self.lock(tournament_id):
            t = await self._find(tournament_id)
            current = t.players.get(player_id)
            if current is None or current["status"] not in ("playing", "dropped"):
                raise NotFound(f"{player_id!r} does not play in this tournament")
            if current["status"] == "dropped":
                return t, True
            if t.status != "running":
                raise FailedPrecondition(f"the tournament is {_is(t.status)}")
            t.drop(player_id, len(t.rounds), reason[:500], who.player)
            await self._save(t)
            return t, False

    async def reinstate(
        self, claims: Claims | None, tournament_id: str, player_id: str, reason: str
    ) -> tuple[Tournament, bool]:
        """Reinstate a dropped player (PlayerDropped or NoShowDropped) of a running Swiss
        or multiplayer event: PlayerReinstated, from the next round to be paired. A repeat
        (the player plays again since their last reinstatement) returns the tournament
        unchanged, and True: the player was reinstated already."""
        who = _organiser(claims)
        reason = reason.strip()[:500]
        if not reason:
            raise InvalidArgument("a reinstatement needs a reason")
        async with self.lock(tournament_id):
            t = await self._find(tournament_id)
            current = t.players.get(player_id)
            if current is None or current["status"] not in ("playing", "dropped"):
                raise NotFound(f"{player_id!r} does not play in this tournament")
            if current["status"] == "playing":
                replayed = await self.replayed(tournament_id)
                if any(p == player_id for p, _ in replayed.reinstated):
                    return t, True
                raise FailedPrecondition(f"{player_id!r} is not dropped: it plays")
            if t.status != "running":
                raise FailedPrecondition(f"the tournament is {_is(t.status)}")
            why = reinstatement_refused(FormatConfig.from_stored(t.settings["format"]))
            if why:
                raise FailedPrecondition(why)
            first = len(t.rounds) + 1
            t.reinstate(player_id, first, reason, who.player)
            await self._save(t)
            log.info("player reinstated", player_id=player_id, from_round=first,
                     reason=reason, by=who.player)
            return t, False

    async def add_late(
        self, claims: Claims | None, tournament_id: str, player_id: str
    ) -> tuple[Tournament, bool]:
        """Add a player to a running tournament from the next round on (LateEntry); the
        tournament, and whether the player played in it already (this call changed
        nothing: a repeat, or an entrant)."""
        _organiser(claims)
        _check_player_id(player_id)
        async with self.lock(tournament_id):
            t = await self._find(tournament_id)
            if player_id in t.players and t.players[player_id]["status"] == "playing":
                return t, True
            if t.status != "running":
                raise FailedPrecondition(
                    f"late entries join a running tournament; this one is {_is(t.status)}"
                )
            if player_id in t.players and t.players[player_id]["status"] in ("dropped",):
                raise FailedPrecondition(
                    f"{player_id!r} was dropped from this tournament: a dropped player comes "
                    "back by ReinstatePlayer (`neon tournament reinstate`, Swiss and "
                    "multiplayer), not as a late entry"
                )
            config = FormatConfig.from_stored(t.settings["format"])
            first = len(t.rounds) + 1
            why = late_entries_refused(config)  # a tournament created before create refused it
            if why:
                raise FailedPrecondition(why)
            if config.late_entry_until < first:
                raise FailedPrecondition(
                    f"the format takes late entries until round {config.late_entry_until}; "
                    f"the next round is {first}"
                )
            rating = 0.0
            if t.settings["seed_from_ratings"] and self.ratings is not None:
                rating = float(
                    (await self.ratings.ratings(t.game, [player_id])).get(player_id, 0.0)
                )
            # After every order given so far: a player who withdrew before the start keeps
            # its key in t.players, so len(t.players) would be handed out twice.
            order = 1 + max((int(v["order"]) for v in t.players.values()), default=-1)
            t.late_entry(player_id, first, rating, order)
            await self._save(t)
            return t, False

    # -- the end ------------------------------------------------------------------

    async def finish(
        self, claims: Claims | None, tournament_id: str
    ) -> tuple[Tournament, list[dict[str, Any]], bool]:
        """Publish the final standings and finish, once the format's rounds are played and
        the last checkpoint is published. The matches corrections decided that the log
        does not show stopped (:func:`_stopping`: one that waited for its seats while its
        rules service was away) are abandoned first, and their abandons recorded: a
        finished log takes no more, and nothing is left waiting on a rules service. One
        its rules service does not answer makes the finish UNAVAILABLE, naming it (its
        abandon is tried again meanwhile); ForceEnd ends the tournament regardless. The
        answer's last: whether the tournament had ended already (this call changed nothing:
        a repeat, or another organiser's finish or force-end that came first; the rows are
        the standings it published)."""
        _organiser(claims)
        stopped: set[str] = set()
        while True:
            t, rows, stops, already = await self._finish_or_stops(tournament_id, stopped)
            if not stops:
                return t, rows, already
            # outside the lock, as CorrectResult's abandons, and run to their end
            missed = await run_to_end(self._correcting, self._stop_corrected(t, stops),
                                      name=f"finish-stops-{tournament_id}",
                                      context=contextvars.Context())
            if missed:
                raise Unavailable(
                    f"the rules service of {t.game} does not answer: the "
                    f"match(es) {', '.join(missed)}, whose table(s) the organiser decided "
                    "(CorrectResult) before they ended, could not be abandoned yet, and a "
                    "finished tournament could no longer record it. Finish again once it "
                    "answers (it is tried again meanwhile), or force-end the tournament")
            stopped.update(m for _, _, m in stops)

    async def _finish_or_stops(
        self, tournament_id: str, stopped: Collection[str]
    ) -> tuple[Tournament, list[dict[str, Any]], list[tuple[int, int, str]], bool]:
        """FinishTournament's checks and save: (the tournament, its final standings, [])
        once finished; or (the tournament, [], the matches to stop first): those of
        :func:`_stopping` not in ``stopped`` (answered by their rules service in this call:
        a match it knows no more, or that ended meanwhile, is not asked again)."""
        async with self.lock(tournament_id):
            t = await self._find(tournament_id)
            if t.status in ENDED:
                return t, list(t.standings or []), [], True
            if t.status != "running":
                raise FailedPrecondition(f"the tournament is {_is(t.status)}")
            replayed = await self.replayed(tournament_id)
            assert replayed.config is not None
            history = replayed.history()
            if not formats.finished(replayed.config, history):
                complete = sum(1 for r in t.rounds if t.round_complete(r))
                waiting = _waiting(t.current) if t.current is not None else ""
                raise FailedPrecondition(
                    f"{complete} of {formats.planned(replayed.config, history)} rounds are "
                    f"complete{f' ({waiting})' if waiting else ''}; play the rest or force-end "
                    "the tournament"
                )
            current = t.current
            if current is not None and current["checkpoint"] is None:
                raise FailedPrecondition("the last round's checkpoint is not published yet")
            stops = [s for s in _stopping(t) if s[2] not in stopped]
            if stops:
                return t, [], stops, False
            rows = [formats.row_json(r) for r in formats.standings(replayed.config, history)]
            t.publish_standings(rows, True)
            t.finish()
            await self._save(t)
            self._tokens.pop(tournament_id, None)
            log.info("tournament finished", tournament_id=tournament_id)
            return t, rows, [], False

    async def force_end(self, claims: Claims | None, tournament_id: str, reason: str,
                        expected: str = "") -> Tournament:
        """End the tournament now. ``expected``: the status the caller saw when it decided
        (ForceEndRequest.expected_status; "" for none, as before): a tournament not yet ended
        that is in another status now (started meanwhile by another organiser or the CLI)
        is refused FAILED_PRECONDITION and left as it is. A tournament that already ended
        (finished, or force-ended: a repeat) is answered as without it: nothing more is
        ended, and a retry whose first answer was lost still gets its answer."""
        who = _organiser(claims)
        if not reason.strip():
            raise InvalidArgument("force-ending needs a reason")
        async with self.lock(tournament_id):
            t = await self._find(tournament_id)
            if t.status == "finished":
                return t
            if expected and t.status not in ENDED and t.status != expected:
                raise FailedPrecondition(
                    f"the tournament is {_STATUS_WORDS.get(t.status, t.status)} now, not "
                    f"{_STATUS_WORDS.get(expected, expected)}: nothing was ended; look again "
                    "before ending it")
            if t.status not in ENDED:
                replayed = await self.replayed(tournament_id)
                rows: list[dict[str, Any]] = []
                if replayed.config is not None and replayed.entrants:
                    rows = [
                        formats.row_json(r)
                        for r in formats.standings(replayed.config, replayed.history())
                    ]
                t.publish_standings(rows, True)
                t.force_end(reason.strip()[:500], who.player)
                await self._save(t)
        task = self._drivers.get(tournament_id)
        if task is not None:
            task.cancel()
        # the abandons run to their end whatever befalls this call: a caller that gives up
        # or hangs up while a creation is waited for (as long as its rules service's call
        # deadline) used to cut them, leaving the recorded matches waiting for their seats
        # until a repeat ForceEnd or a restart; in a Context of its own, as the round
        # driver's (``_drive``), and cancelled by close() only
        await run_to_end(self._ending, self._end_matches(t), name=f"force-end-{tournament_id}",
                         context=contextvars.Context())
        return t

    async def _end_matches(self, t: Tournament) -> None:
        """ForceEnd's abandons (also on a repeat), once the creations under way have
        ended."""
        # the matches being created as the tournament ended: each is recorded (before the
        # save) or abandoned by its creation (after it); waited for, so that none is still
        # on its way to its rules service when the abandons below go there
        creating = self._creating.get(t.tournament_id)
        if creating:
            await asyncio.wait(set(creating))
        # also on a repeat: the abandons a rules service missed the first time are tried again
        retrying = self._abandoning.pop(t.tournament_id, None)
        if retrying is not None and retrying.task is not None:  # this try takes over
            retrying.task.cancel()  # from the earlier one's retries
        await self._abandon_all(t)
        self._tokens.pop(t.tournament_id, None)  # the creations waited for above kept theirs

    async def _abandon_all(self, t: Tournament) -> None:
        """Abandon the tournament's matches with no result; those a rules service missed
        are tried again in the background. Once every one was answered, the log records
        it (AbandonsConfirmed), and later starts leave the tournament alone."""
        # with the matches corrections decided that the log does not show stopped
        matches = _unfinished(t) + [m for _, _, m in _stopping(t)]
        unrecorded = _unrecorded(t)
        missed = await self._abandon_unfinished(t, matches + unrecorded, set(unrecorded))
        if missed:
            self._abandon_in_background(t, missed, matches, set(unrecorded))
        else:
            await self._confirm_abandons(t.tournament_id, matches)

    async def _confirm_abandons(self, tournament_id: str, matches: list[str]) -> None:
        """Record, once, that the force-end's abandons were all answered."""
        async with self.lock(tournament_id):
            t = await self._find(tournament_id)
            if t.confirmed:
                return
            t.abandons_confirmed(matches)
            await self._save(t)
        with bound_contextvars(tournament_id=tournament_id):
            log.info("every match of the force-ended tournament is stopped", matches=len(matches))

    async def _abandon_unfinished(self, t: Tournament, matches: list[str],
                                  maybe: Collection[str] = (), reason: str | None = None,
                                  of: str = "of the force-ended tournament",
                                  answers: dict[str, Any] | None = None) -> list[str]:
        """Abandon, on the rules service, each of ``matches`` (the tournament's matches with
        no result yet: running, or waiting for their seats) with the force-end's reason:
        players stop playing and clocks stop. A match that ended meanwhile is logged and
        passed over: the tournament has ended either way, and a result that arrives later
        is left out of its closed log. ``maybe``: those of ``matches`` that may never have
        been created (:func:`_unrecorded`), whose rules service knowing none is as
        expected. ``reason``: the abandon's, when not the force-end's (a correction's, with
        ``of`` saying whose matches in the log lines). ``answers``: given, it is told each
        AbandonMatch answer by match id (abandoned now or before). Returns the matches
        whose rules service did not answer (or had no address), to be tried again."""

        async def abandon(match_id: str) -> str | None:
            with bound_contextvars(tournament_id=t.tournament_id, match_id=match_id):
                try:
                    reply = await self.rules.abandon_match(
                        t.game, match_id, t.reason if reason is None else reason)
                except grpc.aio.AioRpcError as err:
                    if err.code() == grpc.StatusCode.FAILED_PRECONDITION:
                        log.info("match ended before it could be abandoned", reason=err.details())
                        return None
                    if err.code() == grpc.StatusCode.NOT_FOUND:  # no such match: nothing plays
                        if match_id in maybe:
                            log.debug("no unrecorded match to abandon", reason=err.details())
                        else:
                            log.warning("the rules service knows no such match",
                                        reason=err.details())
                        return None
                    log.warning(f"could not abandon a match {of}",
                                code=err.code().name, reason=err.details())
                    return match_id
                except Exception as err:  # no address for the game, a channel error...
                    log.warning(f"could not abandon a match {of}", error=repr(err))
                    return match_id
                log.info("match abandoned", already=bool(reply.already_abandoned))
                if answers is not None:
                    answers[match_id] = reply
                return None

        missed = await asyncio.gather(*(abandon(m) for m in matches))
        return [m for m in missed if m is not None]

    async def _stop_corrected(self, t: Tournament,
                              stops: list[tuple[int, int, str]]) -> list[str]:
        """Abandon, on its rules service, each match a correction decided (``stops``, of
        :func:`_stopping`): its seats play no more, its clock stops, and a result it would
        have had never comes; a match that waited for its seats ends there, so that whoever
        follows it stops waiting. One the rules service missed is tried again in the
        background (:meth:`_stop_in_background`); its answers, whatever they are, are the
        same as ForceEnd's (already abandoned, ended meanwhile, unknown: nothing more to
        do). An answer that shows the match abandoned is recorded (MatchAbandoned,
        :meth:`_record_stopped`), as its signed end would be. Returns the match ids
        missed."""
        missed_all: list[str] = []
        for number, table, match_id in stops:
            answers: dict[str, Any] = {}
            missed = await self._abandon_unfinished(
                t, [match_id], reason=_stop_reason(t, number, table),
                of="whose table the organiser decided", answers=answers)
            if missed:
                missed_all += missed
                self._stop_in_background(t.tournament_id, number, table, match_id)
                continue
            log.info("the match of a corrected table is stopped", match_id=match_id,
                     tournament_id=t.tournament_id, round=number, table=table)
            if match_id in answers:
                await self._record_stopped(t.tournament_id, number, table, match_id,
                                           answers[match_id])
        return missed_all

    async def _record_stopped(self, tournament_id: str, number: int, table: int,
                              match_id: str, reply: Any) -> None:
        """Record (MatchAbandoned) the abandon of a match a correction decided, from its
        rules service's AbandonMatch answer (``outcome_json``), unless the log shows it
        stopped already (its signed end came first) or the tournament has ended. The signed
        end that follows is then a duplicate. Not needed for the match to stop (the rules
        service ended it): a failure is logged, and its signed end (or the next start's
        abandon) records it."""
        try:
            outcome = json.loads(str(getattr(reply, "outcome_json", "") or "{}"))
        except ValueError:
            outcome = {}
        if not isinstance(outcome, dict) or not is_abandoned(outcome):
            return
        with bound_contextvars(tournament_id=tournament_id, match_id=match_id):
            try:
                async with self.lock(tournament_id):
                    t = await self._find(tournament_id)
                    if t.status in ENDED or (number, table, match_id) not in _stopping(t):
                        return
                    _abandoned(t, number, table, match_id, outcome)
                    await self._save(t)
                log.info("the abandon of a corrected table's match is recorded")
            except Exception as err:  # the store is down: its signed end records it
                log.warning("could not record the abandon of a corrected table's match",
                            error=_reason(err))

    def _stop_in_background(self, tournament_id: str, number: int, table: int,
                            match_id: str) -> None:
        """Try a correction's abandon of ``match_id`` again, after each of
        ``Options.abandon_retries``, until its rules service answers or the log shows the
        match stopped (:meth:`_retry_abandon`). After the last try, the next start of this
        service tries again (:meth:`recover`)."""

        async def attempt() -> bool:
            try:
                t = await self._find(tournament_id)
            except Exception as err:  # the store is down: the next try reads it again
                log.warning("a corrected table's abandon waits for the store",
                            match_id=match_id, error=_reason(err))
                return False
            if (number, table, match_id) not in _stopping(t):
                return True  # its abandon's end (or its seal) is recorded by now
            # a miss asks no other retry: this one is running (_stop_retries)
            return not await self._stop_corrected(t, [(number, table, match_id)])

        self._retry_abandon(match_id, attempt, "gave up abandoning the match of a corrected "
                            "table for now; the next start tries again", tournament_id)

    def _retrying(self, match_id: str) -> bool:
        """Whether :meth:`_retry_abandon` runs for ``match_id``."""
        running = self._stop_retries.get(match_id)
        return running is not None and not running.done()

    def _retry_abandon(self, match_id: str, attempt: Callable[[], Awaitable[bool]],
                       gave_up: str, tournament_id: str) -> None:
        """Call ``attempt`` (True: done) again after each of ``Options.abandon_retries`` until
        it is done, in the background: one task per match (``_stop_retries``, cancelled at
        close); a repeat joins the one running. ``gave_up`` is logged after the last try."""
        if self._closing or self._retrying(match_id):
            return

        async def retry() -> None:
            for delay in self.options.abandon_retries:
                await asyncio.sleep(delay)
                if await attempt():
                    return
            with bound_contextvars(tournament_id=tournament_id, match_id=match_id):
                log.error(gave_up)

        task = asyncio.get_running_loop().create_task(retry(), context=contextvars.Context())
        self._stop_retries[match_id] = task

        def ended(done: asyncio.Task[None]) -> None:
            if self._stop_retries.get(match_id) is done:
                del self._stop_retries[match_id]
            if not done.cancelled() and done.exception() is not None:
                log.warning("retrying a match's abandon failed", match_id=match_id,
                            error=_reason(done.exception()))  # type: ignore[arg-type]

        task.add_done_callback(ended)

    async def _abandon_unlogged(self, t: Tournament, match_id: str) -> None:
        """Abandon, on its rules service, a match created for a table of ``t`` the organiser
        decided before the match was logged: it never starts (no seat is handed its token),
        but would wait there for ever, for whoever follows it. A rules service that does not
        answer is asked again in the background (:meth:`_retry_abandon`: the log does not
        name the match, so no later start of this service knows it); a match it does not
        know, or that has ended, is done with."""
        if self._retrying(match_id):  # a pass before asked: its retries go on
            return

        async def attempt() -> bool:
            return not await self._abandon_unfinished(
                t, [match_id], maybe=[match_id],
                reason="the organiser decided the table before this match was recorded",
                of="the tournament did not record")

        if not await attempt():
            self._retry_abandon(match_id, attempt, "gave up abandoning a match the tournament "
                                "did not record; it waits for its seats on its rules service "
                                "(neon abandon ends it)", t.tournament_id)

    async def _abandon_late(self, t: Tournament, matches: list[str]) -> None:
        """Abandon ``matches`` of the ended ``t`` that its ForceEnd may not have known (a
        creation or a start it did not wait for); one its rules service did not answer joins
        the background retries, rather than stay waiting for its seats or playing."""
        missed = await self._abandon_unfinished(t, matches)
        if missed:
            self._abandon_in_background(t, missed, _unfinished(t))

    def _abandon_in_background(self, t: Tournament, matches: list[str], every: list[str],
                               maybe: Collection[str] = ()) -> None:
        """Try the abandons of ``matches`` again, after each of ``Options.abandon_retries``,
        until none is missed, then confirm ``every`` match (one task per tournament: while
        one runs, ``matches`` join its own; a repeat ForceEnd cancels it first, and tries
        every match itself). ``maybe``: those of ``matches`` that may never have been
        created (:func:`_unrecorded`), whose NOT_FOUND is as expected."""
        if self._closing:
            return
        tid = t.tournament_id
        running = self._abandoning.get(tid)
        if running is not None and running.task is not None and not running.task.done():
            running.left += [m for m in matches if m not in running.left]
            running.maybe = (running.maybe - set(matches)) | set(maybe)
            return
        retries = _Retries(list(matches), set(maybe), list(every))

        async def retry() -> None:
            for delay in self.options.abandon_retries:
                await asyncio.sleep(delay)
                trying = list(retries.left)
                missed = await self._abandon_unfinished(t, trying, retries.maybe)
                retries.left = missed + [m for m in retries.left if m not in trying]
                if not retries.left:
                    await self._confirm_abandons(tid, retries.every)
                    if not retries.left:  # none joined meanwhile
                        return
            with bound_contextvars(tournament_id=tid):
                log.error("gave up abandoning the force-ended tournament's matches for now; "
                          "a repeat ForceEnd or the next start tries again", matches=retries.left)

        # in a Context of its own, as the round driver (``_drive``): not the ForceEnd call's
        task = asyncio.get_running_loop().create_task(retry(), context=contextvars.Context())
        retries.task = task
        self._abandoning[tid] = retries

        def ended(done: asyncio.Task[None]) -> None:
            held = self._abandoning.get(tid)
            if held is not None and held.task is done:
                del self._abandoning[tid]

        task.add_done_callback(ended)

    # -- the audit bundle ---------------------------------------------------------

    async def export(self, claims: Claims | None, tournament_id: str) -> tuple[bytes, int, int]:
        """The bundle in one piece (ExportTournament): the pieces of :meth:`export_parts`,
        joined, up to ``MAX_UNARY_BUNDLE_BYTES``; a larger bundle is :class:`BundleTooLarge`
        (its pieces are not fetched further): ExportTournamentChunks streams any size."""
        limit = MAX_UNARY_BUNDLE_BYTES
        parts: list[bytes] = []
        size = 0
        async for part in self.export_parts(claims, tournament_id):
            if isinstance(part, BundleSummary):
                return b"".join(parts), part.matches, part.checkpoints
            size += len(part)
            if size > limit:
                raise BundleTooLarge(tournament_id, size, limit)
            parts.append(part)
        raise AssertionError("export_parts ends with its summary")  # pragma: no cover

    async def export_parts(self, claims: Claims | None,
                           tournament_id: str) -> AsyncIterator[bytes | BundleSummary]:
        """The bundle (the log, every match export, the checkpoints and inclusion proofs)
        in pieces of whole lines, in order, then its :class:`BundleSummary`. Each match's
        export is asked of its rules service just before its line, so one is held at a
        time, whatever the tournament's size. A match whose export changed since the
        tournament sealed it is FAILED_PRECONDITION, one past the export limit
        RESOURCE_EXHAUSTED: raised where it is met (a stream's pieces before it were
        sent; its reader keeps none of them)."""
        from services.tournament.bundle import Wanted, bundle_parts

        _organiser(claims)
        t = await self._find(tournament_id)
        records = await self.records(tournament_id)
        replayed = await asyncio.to_thread(tlog.replay_log, records)
        wanted = _bundled_matches(replayed)
        parts = bundle_parts(tournament_id, t.game, records, self.signing_key,
                             list(self.result_keys), previous_keys=self.previous_keys)
        matches = size = 0
        item = await asyncio.to_thread(_next_part, parts, None)
        while item is not None:
            if isinstance(item, Wanted):
                export = await self._bundled_export(t, wanted.get(item.match_id), item.match_id)
                matches += export is not None
                item = await asyncio.to_thread(_next_part, parts, export)
                del export
                continue
            size += len(item)
            yield item
            item = await asyncio.to_thread(_next_part, parts, None)
        checkpoints = sum(1 for r in replayed.rounds if r["checkpoint"] is not None)
        log.info("tournament exported", tournament_id=tournament_id, matches=matches,
                 bytes=size)
        yield BundleSummary(matches, checkpoints, size)

    async def _bundled_export(self, t: Tournament, which: tuple[str, Any] | None,
                              match_id: str) -> bytes | None:
        """The export of a match of the bundle, or None when it has no place there: its
        rules service knows no such match, or it is neither sealed by the tournament nor an
        abandoned match whose export ends sealed. ``which``: :func:`_bundled_matches`'s."""
        if which is None:
            return None
        reply = await self._export_or_unavailable(t.game, match_id)
        if reply is None:
            return None
        kind, info = which
        if kind == "earlier":  # abandoned and replaced: sealed before the rematch
            if reply.final_hash != info:
                raise FailedPrecondition(
                    f"match {match_id} now ends with another hash than the "
                    "tournament recorded at its rematch: its store was changed")
            return bytes(reply.export_jsonl)
        sealed, abandoned = info
        if sealed is not None and reply.final_hash != sealed:
            raise FailedPrecondition(
                f"match {match_id} now ends with another hash than the "
                "tournament sealed: its store was changed"
            )
        if sealed is not None or (abandoned and _ends_sealed(reply)):
            # abandoned and not decided (yet, or ever: a ForceEnd): the bundle
            # check asks for its export, which shows the abandon
            return bytes(reply.export_jsonl)
        return None

    # -- queries ------------------------------------------------------------------

    async def _export_or_unavailable(self, game: str, match_id: str) -> Any:
        """The match's export from its rules service (streamed in chunks, see
        :meth:`RulesGateway.export_match`); None when it knows no such match (the bundle
        check then says the export is missing). A broken stream is Unavailable, an export
        past the limit RESOURCE_EXHAUSTED (``MatchExportTooLarge``)."""
        try:
            return await self.rules.export_match(game, match_id)
        except grpc.aio.AioRpcError as err:
            if err.code() == grpc.StatusCode.NOT_FOUND:
                return None
            raise Unavailable(
                f"the rules service of {game} could not export {match_id}: {err.code().name}"
            ) from None

    async def get(self, tournament_id: str) -> Tournament:
        return await self._find(tournament_id)

    async def newest(self, limit: int) -> list[Tournament]:
        if limit < 0:
            raise InvalidArgument(f"limit must be 0 (the default, {LIST_DEFAULT}) or more")
        wanted = min(limit or LIST_DEFAULT, LIST_MAX)
        return await asyncio.to_thread(self.app.newest, wanted)

    async def standings(self, tournament_id: str) -> tuple[list[dict[str, Any]], bool]:
        """The standings now: the published ones once ended, else computed from the log as
        of the tournament's version, once per version (:data:`STANDINGS_KEPT` kept): every
        GetStandings of a 256-player event replayed its whole log."""
        t = await self._find(tournament_id)
        if t.status in ENDED and t.standings is not None:
            return list(t.standings), True
        key = (tournament_id, t.version)
        rows = self._standings.get(key)
        if rows is MISSING:
            replayed = await self.replayed(tournament_id, t.version)
            if replayed.config is None or not replayed.entrants:
                return [], False
            rows = self._standings.keep(key, [
                formats.row_json(r) for r in formats.standings(replayed.config,
                                                               replayed.history())])
        return [dict(r) for r in rows], False

    async def bracket(self, t: Tournament) -> dict[str, Any] | None:
        """The elimination bracket (core ``bracket``), None for other formats or before the start."""
        if not t.entrants or not FormatConfig.from_stored(t.settings["format"]).is_elimination:
            return None
        key = (t.tournament_id, t.version)
        found = self._brackets.get(key)  # once per version, not per watcher and call
        if found is MISSING:
            replayed = await self.replayed(t.tournament_id, t.version)
            assert replayed.config is not None
            try:
                found = dict(core_bracket(replayed.config, replayed.history()))
            except TournamentError as err:
                log.warning("no bracket", error=str(err))
                found = None
            self._brackets.keep(key, found)
        return None if found is None else dict(found)

    async def planned_rounds(self, t: Tournament) -> int:
        """The rounds the format plans for the tournament's entrants (late entries
        included): from the tournament as it is, as the log's replay says it (the format of
        its Created, the entrants of its Started and LateEntry records), without replaying
        the log on every GetTournament and every WatchTournament update."""
        if not t.entrants:
            return 0
        try:
            return int(core_planned_rounds(FormatConfig.from_stored(t.settings["format"]),
                                           len(t.entrants)))
        except TournamentError:
            return 0

    async def round_view(self, t: Tournament, number: int) -> dict[str, Any]:
        if number == 0:
            number = len(t.rounds)
        if not 1 <= number <= len(t.rounds):
            raise NotFound(f"no round {number} (rounds paired: {len(t.rounds)})")
        rnd = t.round(number)
        tables = []
        abandoned = {k: v["reason"] for k, v in rnd.get("abandoned", {}).items()}
        for table in rnd["tables"]:
            key = str(table["number"])
            match = rnd["matches"].get(key)
            if t.status == "force-ended" and match is not None and key not in rnd["results"]:
                abandoned.setdefault(key, t.reason)  # ForceEnd abandons every such match
            if table["bye"]:
                status = "bye"
            elif key in rnd["results"]:
                status = "done"
            elif key in abandoned:
                status = "abandoned"
            elif key in rnd["started"]:
                status = "running"
            elif match is not None:
                status = "awaiting"
            else:
                status = "paired"
            tables.append(
                {
                    **table,
                    "match": self._served(t, match),
                    "status": status,
                    "result": rnd["results"].get(key),
                    "corrected": rnd.get("corrected", {}).get(key),  # CorrectResult's reason
                    "final_hash": rnd["sealed"].get(key, {}).get("final_hash", ""),
                    "abandoned": abandoned.get(key),
                    "earlier": list(rnd.get("earlier", {}).get(key, [])),
                }
            )
        return {
            "tournament_id": t.tournament_id,
            "number": number,
            "tables": tables,
            "complete": rnd["checkpoint"] is not None,
            "checkpoint": rnd["checkpoint"],
        }

    # -- players: their matches ---------------------------------------------------

    async def my_match(
        self, claims: Claims | None, tournament_id: str, t: Tournament | None = None
    ) -> tuple[dict[str, Any] | None, Tournament]:
        """The caller's table in the current round; of ``t`` when given (a watch's read,
        read-only), else as the tournament is now."""
        who = _player(claims)
        if t is None:
            t = await self._find(tournament_id)
        refuse_minted_seat(who, t, self.options.trust_minted_tokens)
        if who.player not in t.players:
            raise NotFound(f"{who.player!r} is not registered in {tournament_id!r}")
        rnd = t.current
        if rnd is None or t.status in ENDED:
            if t.status in ENDED:  # ended on another replica, maybe: no seat token is kept
                self._tokens.pop(tournament_id, None)
            return None, t
        for table in rnd["tables"]:
            if who.player not in table["seats"]:
                continue
            key = str(table["number"])
            base = {
                "tournament_id": tournament_id,
                "round": rnd["number"],
                "table": table["number"],
                "game": t.game,
                "mode": t.settings["mode"],
                "seats": list(table["seats"]),
                "bye": table["bye"],
                "match_id": "",
                "rules_address": "",
                "seat": 0,
                "seat_token": "",
                "check_in_seconds_left": 0.0,
            }
            if table["bye"]:
                return {**base, "status": "bye"}, t
            if key in rnd["results"]:
                return {
                    **base,
                    "status": "done",
                    "match_id": rnd["matches"].get(key, {}).get("match_id", ""),
                }, t
            match = rnd["matches"].get(key)
            if match is None:
                return {**base, "status": "paired"}, t
            if key in rnd.get("abandoned", {}):
                return {**base, "status": "abandoned", "match_id": match["match_id"]}, t
            seat = table["seats"].index(who.player)
            tokens = self._tokens.get(tournament_id, {}).get(match["match_id"])
            if tokens is None:
                await self._create_matches(tournament_id, rnd["number"])
                tokens = self._tokens.get(tournament_id, {}).get(match["match_id"], {})
            left = 0.0
            if key not in rnd["started"]:
                left = max(0.0, float(match["deadline"]) - time.time())
            return {
                **base,
                "match_id": match["match_id"],
                "rules_address": self._served(t, match)["rules_address"],
                "seat": seat,
                "seat_token": tokens.get(seat, ""),
                "status": "running" if key in rnd["started"] else "awaiting",
                "check_in_seconds_left": left,
            }, t
        return None, t

    async def ready(
        self, claims: Claims | None, tournament_id: str, match_id: str
    ) -> tuple[int, bool]:
        """The caller's seat at ``match_id`` is ready (stored); the seats ready now, and
        whether the match is started. The call that makes every seat ready starts it; a
        start the rules service refuses or misses is logged and left to the round driver's
        next pass, not the caller's error: its seat is ready either way."""
        who = _player(claims)
        found = MATCH_OF.match(match_id or "")
        if found is None or found["t"] != tournament_id:
            raise InvalidArgument(f"{match_id!r} is not a match of tournament {tournament_id!r}")
        number, table = int(found["r"]), int(found["k"])
        async with self.lock(tournament_id):
            t = await self._find(tournament_id)
            refuse_minted_seat(who, t, self.options.trust_minted_tokens)
            if not 1 <= number <= len(t.rounds):  # round 0 read as the last round
                raise NotFound(f"no round {number}")
            rnd = t.round(number)
            key = str(table)
            tables = [k for k in rnd["tables"] if k["number"] == table and not k["bye"]]
            if not tables or key not in rnd["matches"]:
                raise NotFound(f"no match {match_id!r} yet")
            if _playing(rnd, key) != match_id:
                raise FailedPrecondition(
                    f"{match_id!r} is not the table's match: the table plays "
                    f"{_playing(rnd, key)!r} (MyNextMatch names it)")
            seats = tables[0]["seats"]
            if who.player not in seats:
                raise PermissionDenied(f"{who.player!r} has no seat at {match_id!r}")
            if key in rnd["started"]:
                return len(rnd["ready"].get(key, [])), True
            if t.status in ENDED:
                raise FailedPrecondition(f"the tournament is {_is(t.status)}")
            if key in rnd.get("abandoned", {}) or key in rnd["results"]:
                raise FailedPrecondition(f"{match_id!r} was abandoned or has its result: "
                                         "it will not start")
            seat = seats.index(who.player)
            if seat not in rnd["ready"].get(key, []):
                t.seat_ready(number, table, seat, who.player)
                await self._save(t)
            count = len(t.round(number)["ready"].get(key, []))
            everyone = count == len(seats)
        if not everyone:
            return count, False
        # every seat's readiness is stored: a start that fails is logged as a driver pass's,
        # and the round driver's next pass starts the match (_start_due), not the caller
        with _per_match(tournament_id, match_id, [],
                        "starting a match failed; the next pass tries again",
                        round=number, table=table):
            return count, await self._start(tournament_id, number, table, match_id)
        await self.notify(tournament_id)
        return count, False

    async def watch(self, tournament_id: str) -> AsyncIterator[Tournament]:
        """The tournament, then again after each change, until it ends. It waits for a save
        only when none was made since its last read: one made while it was away (handing
        out the last one, a slow reader's stream) is read at once, not missed until the next
        save or the re-read every ``WATCH_RECHECK`` seconds."""
        with self._room(tournament_id) as room:  # held while it watches: its count stays
            seen = room.saves
            t = await self._watched(room, tournament_id)
            version = -1
            while True:
                if t.version != version:
                    version = t.version
                    yield t
                if t.status in ENDED:
                    return
                async with room.changed:
                    try:
                        await within(
                            room.changed.wait_for(lambda seen=seen: room.saves != seen),
                            WATCH_RECHECK)
                    except TimeoutError:
                        pass
                seen = room.saves
                t = await self._watched(room, tournament_id, version)

    async def _watched(self, room: _Room, tournament_id: str, have: int = -1) -> Tournament:
        """The tournament for a watch: one read shared by every watch of the room that wants
        it, read-only (never changed: each stream builds its messages from it). A read begun
        after the last save notified here holds that save (it was stored before it was
        notified), so a watch woken by it joins that read instead of making its own: 256
        watchers made 256 copies of the whole tournament after every save. ``have``: the
        version the watch has."""
        reading = room.reading
        shared = reading is not None and reading[0] == room.saves and (
            not reading[1].done()  # under way: it holds every save notified here
            or (have >= 0 and not reading[1].cancelled() and not reading[1].exception()
                and reading[1].result().version > have))  # done, and news to this watch
        if not shared:
            # none begun since the last save here; a watch's first read; or the watch has
            # it already: its re-read when no save was heard of (WATCH_RECHECK: another
            # replica's save whose wake-up never came) reads anew
            future = asyncio.ensure_future(self._find(tournament_id))
            future.add_done_callback(_retrieved)
            reading = room.reading = (room.saves, future)
        return await asyncio.shield(reading[1])

    async def watch_mine(
        self, claims: Claims | None, tournament_id: str
    ) -> AsyncIterator[tuple[dict[str, Any] | None, Tournament]]:
        """The caller's match (:meth:`my_match`, with its seat token) each time it changes,
        until the tournament ends, or the caller's player token expires: then
        UNAUTHENTICATED (``WATCH_TOKEN_EXPIRED``), as a rules service's streams end. A seat
        token is never sent to a token past its expiry."""
        who = _player(claims)
        loop = asyncio.get_running_loop()
        ends = loop.time() + max(0.0, who.refused_from - time.time())
        updates = aiter(self.watch(tournament_id))
        last: Any = object()
        try:
            while True:
                try:
                    t = await within(anext(updates), max(0.0, ends - loop.time()))
                except StopAsyncIteration:
                    return
                except TimeoutError:
                    log.info(
                        "a player's watch of their matches ended: its token expired",
                        tournament_id=tournament_id,
                    )
                    raise Unauthenticated(WATCH_TOKEN_EXPIRED) from None
                mine, t = await self.my_match(claims, tournament_id, t)
                if time.time() >= who.refused_from:  # expired while my_match was awaited
                    raise Unauthenticated(WATCH_TOKEN_EXPIRED)
                key = (
                    None if mine is None else (mine["round"], mine["status"], mine["match_id"]),
                    # a done table's result set by hand again (a correction of a result, or
                    # of a correction) is news to its players: the status alone stays "done"
                    _result_key(t, mine),
                    t.status,
                    # a player with no table (left out at the start, dropped) hears of each
                    # round paired without them: they may never be paired again
                    len(t.rounds) if mine is None else 0,
                )
                if key != last:
                    last = key
                    yield mine, t
        finally:
            await updates.aclose()
