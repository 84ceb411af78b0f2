"""Offline verification of an audit export (used by ``neon verify``).

Checks, in order: the hash chain, the signed checkpoint, the revealed seed against its
commitment, every recorded draw recomputed from the seed, the command ids, and a full rules
replay to the same state hashes, engine events, decisions and outcome. The first failure
names the event.

What is checked, and what is not checked twice (issue 18):

- **Chain.** Every record's hash is recomputed over RFC 8785 bytes. Lines are parsed by
  orjson; when it reads a float anywhere (or refuses a line) the json module parses the
  export again and decides (``_parse``). When no line holds a float, those bytes come from
  orjson without the walk that looks for floats (``canonical_json_float_free``; equal to
  RFC 8785 for float-free values, a property test checks it); otherwise every record takes
  the general path (``records.check_chain``). A record hashed over any other spelling fails;
  one holding a number canonical JSON cannot encode (NaN, Infinity, 1e400 read as infinity,
  an integer beyond RFC 8785's range) fails as "event N: holds a value canonical JSON cannot
  encode (...)", and a line nested deeper than the json module parses as "line N is not
  JSON: nested too deeply" (never a traceback: ``neon verify`` goes on with other files).
- **Signature, seed, draws.** Unchanged: the checkpoint's Ed25519 signature over the final
  hash, the seed against its commitment (revealed by the one MatchSealed, the last record,
  as the host writes it), and every draw recomputed from the seed (one
  stream per match, positioned at each draw's first block, as ``replay_draw`` does).
  Each draw is parsed once, by ``DrawRecord.from_json``, which takes only the types the host
  writes (integers that are ints, not true, 1.0 or "1", which ``int()`` read as 1 and
  verified); the replay is handed exactly the draws checked here. The client seeds must
  have the types the host writes too, and the replay compares the stored outcome with its
  own in canonical JSON (``replay.step``; ``==`` took true for 1). Only MatchStarted and
  actions may hold draws (``DRAWING``): draws in MatchCreated, which no engine replays, once
  covered blocks skipped before the set-up, a deal the server chose, verified.
- **Replay.** Every action goes through the engine's own ``validate`` before ``apply``
  (the chain proves only that the organiser wrote the record, not that the action was
  legal: a re-signed export with an illegal action fails here), timeouts are checked
  against the decision's default, each step must use exactly its recorded draws, and the
  state hash of every record that stores one (MatchStarted, every ActionAccepted) is
  recomputed from the replayed state, keyed when the match's hashes are keyed. Nothing
  is deep-copied: engine states are immutable. Nothing but the seal may follow MatchEnded.
- **Abandoned matches.** A MatchEnded whose outcome is an abandon's (AbandonMatch:
  ``records.abandoned_outcome``, exactly that shape: a reason, who, no result) is taken on a
  state that is not over, after every step before it was checked as above; an abandon of a
  state that is over fails, and so does a normal outcome on a state that is not over. The
  report says abandoned, with the reason (``Report.abandoned``).
- **Order and end.** The records come as the host writes them (``_check_sequence``):
  MatchCreated once, MatchStarted at most once, one MatchEnded, then only the seal. A
  record doubled, or a log cut short and sealed there (its MatchEnded, and the result with
  it, gone), fails even re-signed: it verified before, with no outcome.
- **Creator and names.** MatchCreated's ``created_by`` (who created the match; none in
  exports from before it was recorded) is reported (``Report.created_by``); a MatchEnded
  that names another creator, or other players, game or mode than MatchCreated, fails (the
  signed result is made from MatchEnded alone; re-signed, other players verified before).
- **Dev seed.** A MatchEnded that holds ``dev_seed`` (every dev-seeded match's end since
  it was written, self-play's too: scoring rates no such result) must hold exactly ``true``,
  and the match must be dev-seeded (MatchCreated's dice ``dev`` true, or a dev stream id);
  a dev-seeded match's end without it is taken (a release before it wrote none).
- **No-move seats.** A MatchEnded that holds ``no_move_seats`` (every played end since it
  was written, self-play's too: the seats that never made a move of their own, which scoring does not rate)
  must name exactly the seats the records before it say (rules/noshow.py ``check``); one
  written before the field holds none and is taken.
- **What the records describe** (``Replayed.descriptions``, ``_check_commands``), checked
  where the rules host's writing of it can be recomputed, as it writes it (host.py ``_act``,
  ``_start_record``):

  - ``events`` (MatchStarted, ActionAccepted): the engine events of the step, the ones
    ``start`` or ``apply`` returned in the replay, as ``records.engine_events_json`` writes
    them: each event's kind, data and who may see it (``visible_to``, which decides what
    the host shows each seat). Compared exactly: orjson's bytes with sorted keys, and on a
    difference canonical JSON decides (in which the export is written).
  - ``decision`` and ``hidden`` (ActionAccepted): a decision the engine offered the seat in
    the state before the action (owed, or standing) of that kind and with that hidden flag
    (which decides whether the host shows the action to the other seats). Not which one of
    them: the host records the highest-priority decision listing the action (one in another
    form than listed: the one decision listing answers of its type; a clock's or a bot's
    move, the seat's first owed one), self-play the one its bot answered; telling them
    apart would compare the JSON of every legal action.
  - Both only for a match of the engine's current version. Engines changed the events and
    hidden flags of versions they keep without a new version (what a version keeps is its
    rules, the states; a hiding fix applies to every version: NEON 2-5's loot decisions
    became hidden and a private ``supply_tucked_private`` split off a public event, Neon
    Reign 1.2.0 gained ``drew_count`` events, releases before engines' ``start`` recorded no
    set-up events), so for an earlier version the first difference is a warning ("... not
    checked") and nothing after it is compared. A change of the current version's events or
    decisions fails its export in tests/fixtures/exports: it takes a new engine version.
  - ``command_id`` (ActionAccepted, every version): 1-128 characters of text, taken once per
    seat (the host answers a repeat from the log and never writes it again); the service's
    own actions (``timeout: true``, ``timeout: "forfeit"``, ``by: "bot"``) carry
    ``timeout:N``, ``forfeit:N`` or ``bot:N``, N their position. A seat's own id of that
    form is taken: releases before those prefixes were reserved took them from clients.
  - Cost, measured in process over 28 self-play exports on a loaded 2-core machine: Neon
    Reign about 22% fewer events/s per core, NEON about 13%. Most of it was the engine's
    ``pending`` of each state before an action (13% and 11% of verify's time; computed
    before ``validate``, which then reads the engine's remembered answer); the events 3%,
    the command ids 1%. The check now compares the contract's ``decision_labels``: NEON,
    Neon Knights and Neon Reign make theirs without the legal lists (NEON's ``validate``
    then lists only the answers the action can equal; Neon Reign's reads them off the
    phase, and its ``validate`` of a parsed action never read the pending made for them),
    Barbaric's come from its ``pending`` (NEON 1.06x and 1.15x events/s per core in two
    runs of ``bench/bench_verify.py``, three interleaved rounds each on a loaded machine, 6
    December 2026; Neon Reign's own labels with the draw check through ``draws.redraw``:
    -3.1% instructions per verify of Neon Reign exports under cachegrind, 1.05x events/s
    per core against main, load about 10).
- **Not checked:** the JSON Schema of actions (``validate`` checks every field the engine
  reads and refuses unknown ones); ``blind`` (random bits); the clocks (``clocks``,
  ``clock_events``: wall-clock times no replay recomputes; a timeout is checked against the
  decision's default); which of the decisions offered an action answered (above); views
  (not stored).
- **Garbage collector.** Paused while ``verify_export`` runs and switched back on after
  it, also on failure (measured over 70 self-play exports: with it on, 311 passes took
  about a tenth of verify's CPU and found some 500 objects in cycles per export). Those
  cycles were all the replay's ``ReplayRandomness``, one per step (it held its own bound
  method); it now makes none (platform/draws.py), so a verify leaves nothing to the collector (tests/unit/test_replay_draws.py) and
  each step's object is freed at once. Paused or not then measured the same (CPU 1.01x,
  range 0.79-1.20, 14 interleaved rounds on a loaded machine); the pause is kept.
- **Where the time goes** (issue 18, "verify fast"; 70 self-play exports at the bench's
  engine versions, each part timed inside ``verify_export``, load average about 10): the
  engines' ``apply`` 24%, the canonical state 16%, the decision check 13% (the engine's
  ``pending``; NEON's ``validate`` then reads it, 2%), the keyed state hash 4.5%, the
  engine events 5%, parsing 8% (a third of it the walk that looks for floats) and freeing
  the parsed records after it 3-4%, the chain 4%, the draws from the seed 4% (HMAC per
  64-bit block), the signature 1%, the order and command-id checks 1%, the replay's own
  steps the rest. Nothing in it is done twice but the stored engine events, encoded again
  to be compared with the engine's: each record is parsed once and canonicalised once for
  the chain, each draw parsed once, each state encoded and hashed once, and ``pending``
  computed once per state. What is left beyond the engines is the checks
  themselves; the engines' ``apply`` plus the canonical state are about 0.45 of verify.
"""

from __future__ import annotations

import gc
import hashlib
import json
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

import orjson

from services.platform.canonical import (
    CHAIN_DOMAIN,
    KEYED_SCHEME,
    canonical_json_float_free,
    chain_hash,
    float_free,
)
from services.platform.draws import DEV_STREAM_ID, DrawRecord, DrawStream, redraw, state_key
from services.platform.signing import verify as verify_signature
from services.rules import noshow
from services.rules import records as rec
from services.rules.export import checkpoint_message, parse_export
from services.rules.games import load_engine
from services.rules.games.contract import GameEngine, is_v2
from services.rules.replay import ReplayError, quoted, replay

SIGNATURE_CHECK = "checkpoint signature (Ed25519)"
"""The check a report lists once the chain and the checkpoint's signature hold (with the
key given, when one is)."""


@dataclass
class Report:
    ok: bool = True
    checks: list[str] = field(default_factory=list)
    failure: str = ""
    warnings: list[str] = field(default_factory=list)
    match_id: str = ""
    events: int = 0
    outcome: dict[str, Any] | None = None
    abandoned: dict[str, Any] | None = None
    """``{"reason", "by"}`` when the match was abandoned (AbandonMatch): it ended with no
    result, and the replay checked every step up to the abandon."""
    created_by: dict[str, Any] | None = None
    """Who created the match (MatchCreated's ``created_by``: role and name), ``None`` in
    exports of matches created before it was recorded."""
    signed_by: str = ""
    """The public key (hex) whose checkpoint signature held: with several keys pinned
    (``neon verify --public-key`` given more than once, across a rotation), which of them
    signed; "" when the signature was not checked or did not hold."""
    dev_seed: bool = False
    """The match drew from a dev seed (MatchCreated's dice: ``dev``, stream ``dev``): its
    server seed is the deployment's dev secret's hash of a text, the same for every dev match
    given that text there, and public once one of them is sealed. The draws check out, but
    anyone who knew the seed knew them ahead: a warning says so."""

    def fail(self, reason: str) -> Report:
        self.ok = False
        self.failure = reason
        return self


def pinned_keys(public_key: str | Collection[str] | None) -> tuple[str, ...]:
    """The keys a verifier pins, lower case: one (a text), several (a rotation's old and new
    keys: any of them may have signed), or none (None, empty: the key in the file)."""
    if not public_key:
        return ()
    keys = (public_key,) if isinstance(public_key, str) else tuple(public_key)
    return tuple(k.lower() for k in keys if k)


def verify_export(data: bytes, public_key: str | Collection[str] | None = None,
                  engine: GameEngine | None = None) -> Report:
    """Verify an export; ``public_key`` pins the key (or keys: any of them) its checkpoint
    must be signed with, ``engine`` overrides the built-in engine of the match's game.

    The cyclic garbage collector is paused while it runs (see the module docstring) and
    switched back on afterwards, also when verifying raises, when it was on before."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _verify_export(data, public_key, engine)
    finally:
        if enabled:
            gc.enable()


def _verify_export(data: bytes, public_key: str | Collection[str] | None,
                   engine: GameEngine | None) -> Report:
    report = Report()
    try:
        records, checkpoint, float_free = _parse(data)
    except ValueError as err:
        return report.fail(str(err))
    match_id = str(checkpoint.get("match_id", ""))
    report.match_id, report.events = match_id, len(records)
    if not records or records[0].get("type") != "MatchCreated":
        return report.fail("event 1: the export does not start with MatchCreated")
    hash_of = _float_free_chain_hash if float_free else chain_hash
    try:
        problem = rec.check_chain(match_id, records, hash_of)
    except (ValueError, RecursionError):  # rfc8785's CanonicalizationError is a ValueError
        problem = _unencodable(match_id, records, hash_of)
    if problem:
        return report.fail(problem)
    report.checks.append(f"hash chain of {len(records)} events")
    problem = _check_checkpoint(checkpoint, records, public_key, report)
    if problem:
        return report.fail(problem)
    draws: list[list[DrawRecord]] = []
    problem = _check_draws(records, report, draws) or _check_sequence(records) \
        or _check_end(records, report) or _check_commands(records) or _check_no_moves(records, report)
    if problem:
        return report.fail(problem)
    created = records[0]
    try:
        engine = engine or load_engine(str(created.get("game")))
    except (KeyError, ModuleNotFoundError) as err:
        return report.fail(f"event 1: {err}")
    version = str(created.get("engine_version"))
    # the descriptions of a match of the engine's current version must be the engine's own;
    # an earlier version's were written by earlier releases (see the module docstring)
    current = engine.engine_version
    descriptions = "check" if version == current else "note"
    try:
        engine = engine_at(engine, version)
    except KeyError:
        return report.fail(f"event 1: engine version {version} of this match cannot be "
                           f"replayed by engine {engine.engine_version}")
    if version != engine.engine_version:  # an engine that keeps no earlier versions
        report.warnings.append(f"exported with engine {version}, replayed with {engine.engine_version}")
    key = state_key_of(records)
    try:
        replayed = replay(engine, records, key, draws, descriptions)
    except ReplayError as err:
        return report.fail(str(err))
    if key is not None:
        report.checks.append("state hashes keyed with the match's revealed state key")
    ended = records[-2]  # the one MatchEnded, before the seal (_check_sequence)
    report.checks.append(f"rules replay: {len(replayed.state_hashes)} state hashes match")
    if replayed.described:
        report.warnings.append(f"{replayed.described}: engine events and decisions of engine "
                               f"{version} as an earlier release wrote them, not checked (only "
                               f"those of the current engine, {current}, are)")
    else:
        report.checks.append("engine events and decisions match the replay")
    report.outcome = ended["outcome"]
    if replayed.abandoned is not None:
        report.abandoned = replayed.abandoned
        report.checks.append(f"abandoned by {replayed.abandoned['by']} before the end, with no "
                             f"result: {replayed.abandoned['reason']}")
    else:
        report.checks.append("outcome matches the replay")
    return report


def _check_sequence(records: list[dict[str, Any]]) -> str | None:
    """The records in the order the rules host writes them: MatchCreated once (the first,
    checked before), MatchStarted at most once, one MatchEnded, and nothing after it but the
    seal, which ``_check_draws`` found once and last. A second MatchCreated or MatchStarted
    (one doubled, re-signed) and a log cut short and sealed there (its end, and with it the
    result, dropped) fail; the replay checks what it can only check in order (no action
    before MatchStarted, MatchEnded on a state that is over)."""
    started = ended = False
    for n, record in enumerate(records[:-1], start=1):
        kind = record.get("type")
        if ended:
            return f"event {n}: {kind} after the match ended"
        if kind == "MatchCreated" and n > 1:
            return f"event {n}: a second MatchCreated"
        if kind == "MatchStarted":
            if started:
                return f"event {n}: a second MatchStarted"
            started = True
        ended = kind == "MatchEnded"
    if not ended:
        return (f"event {len(records)}: MatchSealed with no MatchEnded before it: the match's "
                "end is missing (a log cut short and sealed there)")
    return None


def _check_commands(records: list[dict[str, Any]]) -> str | None:
    """Every ActionAccepted's ``command_id`` as the rules host writes it. A seat's command
    id is 1-128 characters and taken once per seat (``LiveMatch.commands``: a repeat is
    answered from the log, never written again; releases before command ids were per seat
    took each once per match, which is stricter); the host's own actions (a clock's
    timeout, a forfeit, a bot's move) are ``timeout:N``, ``forfeit:N`` or ``bot:N`` with N
    the record's position, unique by it. A seat's id in that form is taken as a seat's:
    releases before the prefixes were reserved took them from clients."""
    seen: set[tuple[Any, str]] = set()
    for record in records:
        if record.get("type") != "ActionAccepted":
            continue
        n, command = record.get("n"), record.get("command_id")
        if type(command) is not str or not 1 <= len(command) <= rec.MAX_COMMAND_ID:
            return f"event {n}: command id {quoted(command)} is not 1-{rec.MAX_COMMAND_ID} characters of text"
        for prefix, (mark, marker) in rec.SERVICE_COMMANDS.items() \
                if not _MARKS.isdisjoint(record) else ():  # no mark held: a seat's own
            value = record.get(mark)
            if type(value) is type(marker) and value == marker:
                if command != f"{prefix}{n}":
                    return (f"event {n}: the service's own action (its {mark} {quoted(marker)}) "
                            f"has command id {quoted(command)}, not {quoted(prefix + str(n))}")
                break
        else:
            if (record.get("seat"), command) in seen:
                return (f"event {n}: command id {quoted(command)} of seat {record.get('seat')} "
                        "was taken before (the host writes a seat's command once)")
            seen.add((record.get("seat"), command))
    return None


_MARKS = frozenset(mark for mark, _ in rec.SERVICE_COMMANDS.values())
"""The fields that mark a record as the service's own action (``timeout``, ``by``)."""


def _check_no_moves(records: list[dict[str, Any]], report: Report) -> str | None:
    """MatchEnded's ``no_move_seats`` (the seats that never moved themselves: scoring rates
    no such result) recomputed from the actions before it (rules/noshow.py); an end
    written before the field holds none and is taken."""
    problem = noshow.check(records)
    if problem is None and noshow.FIELD in records[-2]:  # _check_sequence: MatchEnded, seal
        report.checks.append("no-move seats named by MatchEnded match the actions")
    return problem


END_NAMES = ("players", "game", "mode")
"""What MatchEnded repeats of MatchCreated besides the creator (the signed result, made from
MatchEnded alone, names the players by them)."""


def _check_end(records: list[dict[str, Any]], report: Report) -> str | None:
    """MatchEnded (the one ``_check_sequence`` found, before the seal) repeats MatchCreated's
    players, game, mode and ``created_by``: the signed result scoring rates by is made from
    MatchEnded alone. One that names others fails; a field it does not hold is taken (an end
    written by a release from before it was recorded). Its ``dev_seed`` (scoring rates no
    result that holds it) must be exactly true and the match dev-seeded (:func:`dev_seeded`);
    a dev-seeded match's end without it is taken (written before the field)."""
    created, ended = records[0], records[-2]
    creator = created.get("created_by")
    report.created_by = creator if isinstance(creator, dict) else None
    if "created_by" in ended and ended["created_by"] != creator:
        return f"event {ended.get('n')}: MatchEnded names another creator than MatchCreated"
    for name in END_NAMES:
        if name in ended and ended[name] != created.get(name):
            return f"event {ended.get('n')}: MatchEnded names other {name} than MatchCreated"
    if rec.DEV_SEED in ended:
        said = ended[rec.DEV_SEED]
        if said is not True:
            return (f"event {ended.get('n')}: MatchEnded's dev_seed is {quoted(said)}, not true "
                    "(the host writes it only as true, on a dev-seeded match's end)")
        if not dev_seeded(created.get("dice")):
            return (f"event {ended.get('n')}: MatchEnded says the match drew from a dev seed, "
                    "but MatchCreated's dice are no dev seed's")
        report.checks.append("MatchEnded says the match drew from a dev seed, as its dice do")
    return None


def _unencodable(match_id: str, records: list[dict[str, Any]],
                 hash_of: Callable[[str, int, str, dict[str, Any]], str]) -> str:
    """The first record canonical JSON cannot encode (NaN, Infinity or an overflowing
    number such as 1e400, an integer beyond RFC 8785's range beside a float, nesting
    deeper than the encoder recurses), in words. Only called when the chain check raised,
    so the records before it were hashed without error."""
    for n, record in enumerate(records, start=1):
        try:
            hash_of(match_id, n, str(record.get("prev")), record)
        except (ValueError, RecursionError) as err:
            reason = str(err) or type(err).__name__
            return f"event {n}: holds a value canonical JSON cannot encode ({reason})"
    return "the hash chain cannot be encoded as canonical JSON"


def engine_at(engine: GameEngine, version: str) -> GameEngine:
    """``engine`` as it was at ``version`` (the match's ``engine_version``): the ruleset it
    keeps for that version (``for_version``, contract v2), else ``engine`` itself. Raises
    ``KeyError`` when the engine keeps versions but not that one."""
    if version != engine.engine_version and is_v2(engine):
        return engine.for_version(version)  # type: ignore[attr-defined,no-any-return]
    return engine


def state_key_of(records: list[dict[str, Any]]) -> bytes | None:
    """The key of a match's hiding state hashes, from its revealed seed (None: unkeyed).
    Raises ``StopIteration``, ``KeyError`` or ``ValueError`` when a keyed match is not
    sealed (or its seal has no seed)."""
    if records[0].get("state_hash_scheme") != KEYED_SCHEME:
        return None
    seal = next(r for r in records if r.get("type") == "MatchSealed")
    dice = records[0].get("dice") or {}
    if not isinstance(dice, dict):
        raise ValueError("the match's dice are not an object")
    return state_key(bytes.fromhex(str(seal["seed"])), str(dice.get("stream_id")))


def replay_key(records: list[dict[str, Any]]) -> bytes | None:
    """``state_key_of`` for a step-through (the public replay, ``neon replay``): a
    ``ValueError`` saying, in words, why there is no key."""
    try:
        return state_key_of(records)
    except StopIteration:
        raise ValueError("the match is not sealed: its state hashes cannot be checked "
                         "yet") from None
    except (KeyError, ValueError) as err:  # a seal without its seed, dice of another shape
        raise ValueError(f"the seal and dice do not give the state key "
                         f"({type(err).__name__}: {err})") from None


def _check_checkpoint(checkpoint: dict[str, Any], records: list[dict[str, Any]],
                      public_key: str | Collection[str] | None, report: Report) -> str | None:
    if checkpoint.get("event_count") != len(records):
        return f"checkpoint: counts {checkpoint.get('event_count')} events, the file holds {len(records)}"
    if checkpoint.get("final_hash") != records[-1]["hash"]:
        return "checkpoint: final hash does not match the last event"
    key = str(checkpoint.get("public_key", ""))
    pinned = pinned_keys(public_key)
    if pinned and key.lower() not in pinned:
        return ("checkpoint: signed with another key than the one given" if len(pinned) == 1
                else "checkpoint: signed with none of the keys given")
    message = checkpoint_message(report.match_id, str(checkpoint.get("game", "")),
                                 len(records), records[-1]["hash"])
    if str(checkpoint.get("game")) != records[0].get("game"):
        return "checkpoint: names another game than the match"
    if not verify_signature(key, message, str(checkpoint.get("signature", ""))):
        return "checkpoint: the Ed25519 signature is invalid"
    report.checks.append(SIGNATURE_CHECK)
    report.signed_by = key.lower()
    if not pinned:
        report.warnings.append("signature checked with the key in the file; pass --public-key to pin it")
    return None


def _parse(data: bytes, fallback: Callable[[bytes], Any] | None = None
           ) -> tuple[list[dict[str, Any]], dict[str, Any], bool]:
    """The export's records and checkpoint, and whether they hold no float (which picks
    the chain's encoder, see ``_float_free_chain_hash``).

    orjson parses every line; when the values it read hold a float, or a line is not JSON
    to it, the whole export is parsed again by :class:`_Decoder` (the json module), which
    gives the values and messages verify always gave. When orjson's values hold no float,
    json reads the same values: a number with a fraction or an exponent is a float to both,
    and orjson reads an integer beyond 64 bits as a float (json: an int) and refuses NaN,
    Infinity, lone surrogates and invalid UTF-8, all of which send the export to the json
    module (tests/unit/test_verify_parse.py). (A float overwritten by a later duplicate key
    is now not noted: the values hold none, so both encoders give the same bytes.)
    ``fallback`` parses instead of :class:`_Decoder` (``campaign_links``: ``json.loads``),
    and the answer is then False.
    """
    try:
        records, checkpoint = parse_export(data, orjson.loads)
    except ValueError:
        pass
    else:
        if float_free([records, checkpoint]):
            return records, checkpoint, True
    if fallback is not None:
        records, checkpoint = parse_export(data, fallback)
        return records, checkpoint, False
    decoder = _Decoder()
    records, checkpoint = parse_export(data, decoder.loads)
    return records, checkpoint, decoder.float_free


class _Decoder:
    """Parses export lines like ``json.loads`` and notes whether any number was a float."""

    def __init__(self) -> None:
        self.float_free = True
        self._decoder = json.JSONDecoder(parse_float=self._float, parse_constant=self._constant)

    def _float(self, text: str) -> float:
        self.float_free = False
        return float(text)

    def _constant(self, text: str) -> float:
        self.float_free = False
        return float(text)  # NaN, Infinity, -Infinity: as json.loads reads them

    def loads(self, line: bytes) -> Any:
        return self._decoder.decode(line.decode())


def _float_free_chain_hash(match_id: str, n: int, prev: str, body: dict[str, Any]) -> str:
    """``chain_hash`` for records parsed without a float: the same hash over the same
    RFC 8785 bytes, encoded without the walk that looks for floats
    (``canonical_json_float_free``)."""
    encoded = canonical_json_float_free([CHAIN_DOMAIN, match_id, n, prev, body])
    return hashlib.sha256(encoded).hexdigest()


def _check_draws(records: list[dict[str, Any]], report: Report,
                 parsed: list[list[DrawRecord]] | None = None) -> str | None:
    """Every draw recomputed from the revealed seed; ``parsed`` receives each record's
    draws (for the replay, which then hands the engine exactly the draws checked here)."""
    sealed = [r for r in records if r.get("type") == "MatchSealed"]
    if not sealed:
        return "the match is not sealed: its seed is not revealed, so draws cannot be checked"
    seal = sealed[0]  # the one the state key comes from (state_key_of)
    if seal is not records[-1]:  # the host seals once, last
        return f"event {seal['n']}: MatchSealed is not the last record"
    if "seed" not in seal:
        return f"event {seal['n']}: the seal reveals no seed"
    dice = records[0].get("dice") or {}
    if not isinstance(dice, dict):
        return f"event 1: malformed dice ({type(dice).__name__}, not an object)"
    try:
        seed = bytes.fromhex(str(seal["seed"]))
    except ValueError:
        return f"event {seal['n']}: the revealed seed is not hex"
    if hashlib.sha256(seed).hexdigest() != dice.get("commitment") or seal.get("commitment") != dice.get("commitment"):
        return f"event {seal['n']}: the revealed seed does not match the commitment"
    report.checks.append("seed matches its SHA-256 commitment")
    if dev_seeded(dice):
        report.dev_seed = True
        report.warnings.append(DEV_SEED_WARNING)
    started = [r for r in records if r.get("type") == "MatchStarted"]
    client_seeds = _client_seeds(started[0]) if started else []
    if client_seeds is None:
        return (f"event {started[0]['n']}: malformed client seeds (not a list of [seat, "
                "seed] pairs, a seat an integer and a seed text)")
    seated = [s for s, _ in client_seeds]
    if len(set(seated)) != len(seated) or not all(0 <= s < _seats(records[0]) for s in seated):
        # a seed for a seat nobody holds, added after the players' seeds were seen, would
        # choose the draws as surely as the server's own seed
        return (f"event {started[0]['n']}: client seeds of seats {seated}: at most one per "
                f"seat of the match's {_seats(records[0])}")
    counter = 0
    total = 0
    from_json = DrawRecord.from_json
    stream = DrawStream(seed, str(dice.get("stream_id")), client_seeds)
    for record in records:
        mine: list[DrawRecord] = []
        if parsed is not None:
            parsed.append(mine)
        if "draws" in record and record.get("type") not in DRAWING:
            # the replay hands these to no engine: draws there would count toward the blocks
            # used, and blocks skipped before the set-up (the server knows the seed: a
            # skip is a chosen deal) would pass as drawn
            return (f"event {record['n']}: {quoted(record.get('type'))} holds draws; only "
                    "MatchStarted and actions draw")
        stored_draws = record.get("draws", [])
        if not isinstance(stored_draws, list):
            return f"event {record['n']}: malformed draws (not a list)"
        for draw in stored_draws:
            try:
                stored = from_json(draw)  # the types the host writes (MalformedDraw)
                # as replay_draw: the stream from the draw's first block, perform's record
                again = redraw(stream, stored)
            except ValueError as err:  # a malformed draw, or a bound perform refuses
                return f"event {record['n']}: malformed draw ({err})"
            mine.append(stored)
            if stored.first < counter:
                return f"event {record['n']}: draw reuses block {stored.first} (already at {counter})"
            if stored.first > counter:
                # the server knows the seed: skipping blocks to the roll it wants is choosing it
                return (f"event {record['n']}: draw starts at block {stored.first}, not "
                        f"{counter}: blocks skipped")
            if again is not None:
                return f"event {record['n']}: a draw does not match the seed (stored {list(stored.result)[:8]}, recomputed {list(again.result)[:8]})"
            counter = stored.next
            total += 1
    report.checks.append(f"{total} draws recomputed from the seed")
    return None


def dev_seeded(dice: Any) -> bool:
    """Whether MatchCreated's dice drew from a dev seed: ``dev`` true, or a dev stream id
    (``dev``, ``dev:<seed>``), which tells it though the flag was taken out."""
    if not isinstance(dice, dict):
        return False
    stream = dice.get("stream_id")
    return dice.get("dev") is True or stream == DEV_STREAM_ID or (
        isinstance(stream, str) and stream.startswith(DEV_STREAM_ID + ":"))


DEV_SEED_WARNING = ("dev seed: the draws come from a seed shared by every match given the same "
                    "dev seed on its deployment, known ahead to whoever knew it; not a result "
                    "to rate or rank by")
DRAWING = frozenset({"MatchStarted", "ActionAccepted"})
"""The records that hold draws: the set-up's and each action's, each replayed with exactly
its own (the rules host writes draws in no other record)."""


def _client_seeds(started: dict[str, Any]) -> list[tuple[int, str]] | None:
    """MatchStarted's client seeds as the host writes them (a list of ``[seat, seed]``, the
    seat an integer, the seed text), or None: "1", 1.0, true or "" read as a seat, or a
    value that is not a list read as no seeds, was taken before."""
    seeds = started.get("client_seeds", [])
    if not isinstance(seeds, list):
        return None
    out = []
    for pair in seeds:
        if not (isinstance(pair, list) and len(pair) == 2 and type(pair[0]) is int
                and isinstance(pair[1], str)):
            return None
        out.append((pair[0], pair[1]))
    return out


def _seats(created: dict[str, Any]) -> int:
    seats = created.get("seats")
    return seats if isinstance(seats, int) and not isinstance(seats, bool) else 0


def campaign_links(exports: list[bytes], names: list[str] | None = None) -> list[str]:
    """Check the links between the matches of a campaign, given all their exports.

    Each match that continues an earlier one (``MatchCreated.campaign``) must name a
    match among ``exports`` with that final chain hash, and start from exactly what that
    match's outcome carried on. Returns the problems in words (empty: every link holds);
    an export that does not parse is one (named by ``names``, the exports' file names,
    when given), and the others' links are still checked. Each export on its own is
    checked by :func:`verify_export`.
    """
    ends: dict[str, tuple[str, object]] = {}
    starts: list[tuple[str, dict[str, Any]]] = []
    problems = []
    for index, data in enumerate(exports):
        try:
            records, _, _ = _parse(data, json.loads)  # json.loads' values and errors
        except ValueError as err:  # named, and the other exports' links still checked
            problems.append(f"{names[index]}: {err}" if names else str(err))
            continue
        if not records:
            continue
        match_id = str(records[0].get("match_id"))
        ended = next((r for r in records if r.get("type") == "MatchEnded"), None)
        outcome = (ended or {}).get("outcome")
        ends[match_id] = (records[-1].get("hash", ""),
                          outcome.get("carry") if isinstance(outcome, dict) else None)
        if records[0].get("campaign"):
            starts.append((match_id, records[0]["campaign"]))
    for match_id, link in starts:
        if not isinstance(link, dict):
            problems.append(f"{match_id}: its campaign link is not a JSON object")
            continue
        previous = str(link.get("previous_match_id"))
        if previous not in ends:
            problems.append(f"{match_id}: continues {previous}, whose export was not given")
            continue
        final, carry = ends[previous]
        if link.get("previous_final_hash") != final:
            problems.append(f"{match_id}: names another final hash than {previous} ends with")
        elif link.get("carried") != carry:
            problems.append(f"{match_id}: starts from other carried state than {previous} carried on")
    return problems
