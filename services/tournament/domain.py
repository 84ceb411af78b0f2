"""The Tournament aggregate: one per organiser-chosen tournament id, every step an event.

The events are the tournament's log: the audit bundle carries them (as public records,
see :mod:`services.tournament.log`), and ``neon verify`` recomputes the pairings and the
standings from them. Nothing secret is stored here: seat tokens are asked again from the
rules service (``CreateMatch`` is idempotent per match id) and held in memory only.

Statuses: created -> registration -> running -> finished | force-ended.
"""

from __future__ import annotations

import uuid
from typing import Any

from eventsourcing.domain import Aggregate, event

NAMESPACE = uuid.UUID("6a0f2d3c-7e41-4b59-a8c2-1d9e5f3b7a60")
OPEN = ("created", "registration", "running")
ENDED = ("finished", "force-ended")


def tournament_uuid(tournament_id: str) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, f"tournament:{tournament_id}")


MAX_REMATCHES = 5
"""RematchTable's limit per table."""


def match_id_of(tournament_id: str, round_number: int, table: int, attempt: int = 1) -> str:
    """Deterministic: a restart re-finds the match of a table instead of making another.
    A rematch (``attempt`` 2 and on) adds ``-g<attempt>``."""
    base = f"{tournament_id}-r{round_number}-t{table}"
    return base if attempt == 1 else f"{base}-g{attempt}"


def attempt_of(rnd: dict[str, Any], table: int) -> int:
    """The attempt of the table's current (or next) match: 1 plus its earlier matches."""
    return 1 + len(rnd.get("earlier", {}).get(str(table), []))


class Tournament(Aggregate):
    @event("Created")
    def __init__(self, tournament_id: str, settings: dict[str, Any], created_by: str) -> None:
        self.tournament_id = tournament_id
        self.settings = settings
        """name, game, mode, format (FormatConfig dict), clock, no_show, check_in_seconds,
        options, seed_from_ratings, and ``unrated`` (only when set)."""
        self.created_by = created_by
        self.status = "created"
        self.reason = ""
        self.players: dict[str, dict[str, Any]] = {}
        """player id -> {"status", "order", "rating", "late"}."""
        self.entrants: list[dict[str, Any]] = []
        self.rounds: list[dict[str, Any]] = []
        self.dropped: list[list[Any]] = []
        self.late: list[list[Any]] = []
        self.standings: list[dict[str, Any]] | None = None

    @staticmethod
    def create_id(tournament_id: str, *args: Any, **kwargs: Any) -> uuid.UUID:
        return tournament_uuid(tournament_id)

    # -- queries ------------------------------------------------------------------

    @property
    def game(self) -> str:
        return str(self.settings["game"])

    @property
    def unrated(self) -> bool:
        """Created unrated (CreateTournament ``unrated``): its matches are created on its
        organiser's behalf, so scoring records their results without rating them, and player
        tokens an organiser minted may take their seats."""
        return bool(self.settings.get("unrated"))

    @property
    def is_open(self) -> bool:
        return self.status in OPEN

    def round(self, number: int) -> dict[str, Any]:
        return self.rounds[number - 1]

    def _changing(self, number: int, *parts: str) -> dict[str, Any]:
        """Round ``number`` made anew for a change, with its ``parts`` (the maps an event
        changes: matches, results, ...) copied, in place of the round it replaces. Each
        event changes a round this way, never the round itself: a round, once made, is never
        changed, so the copies of the tournament that each read hands out share them
        (``app._copied``: the rounds are most of a big event, and copying them made every
        read cost more with each round). A shallow copy of a round's map of 128 tables
        costs microseconds."""
        rnd = dict(self.rounds[number - 1])
        for part in parts:
            if part in rnd:
                rnd[part] = dict(rnd[part])
        self.rounds[number - 1] = rnd
        return rnd

    @property
    def current(self) -> dict[str, Any] | None:
        return self.rounds[-1] if self.rounds else None

    @staticmethod
    def round_complete(rnd: dict[str, Any]) -> bool:
        return all(t["bye"] or str(t["number"]) in rnd["results"] for t in rnd["tables"])

    # -- registration -------------------------------------------------------------

    @event("RegistrationOpened")
    def open_registration(self) -> None:
        self.status = "registration"

    @event("Registered")
    def register(self, player_id: str, by: str) -> None:
        # After every order given so far: a player who withdrew and registers again keeps
        # their key, so len(self.players) would hand the next player the same number (and
        # seed order would go by player id between the two).
        self.players[player_id] = {
            "status": "registered",
            "order": 1 + max((int(v["order"]) for v in self.players.values()), default=-1),
            "rating": 0.0,
            "late": False,
        }

    @event("Withdrawn")
    def withdraw(self, player_id: str, by: str) -> None:
        self.players[player_id]["status"] = "withdrawn"

    @event("CheckedIn")
    def check_in(self, player_id: str, by: str) -> None:
        self.players[player_id]["status"] = "checked-in"

    @event("Started")
    def start(self, entrants: list[dict[str, Any]], left_out: list[str] | None = None) -> None:
        """``entrants``: player_id, rating, registered (the core's Entrant). ``left_out``:
        the registered players the start leaves out (they did not check in; sorted by id):
        they stay ``registered``, not playing. A Started recorded before the event named
        them (``None``) left out every registered player who is not an entrant."""
        self.status = "running"
        self.entrants = entrants
        playing = {e["player_id"] for e in entrants}
        if left_out is None:
            left_out = sorted(p for p, v in self.players.items()
                              if v["status"] in ("registered", "checked-in") and p not in playing)
        self.left_out = list(left_out)
        for e in entrants:
            self.players[e["player_id"]].update(status="playing", rating=e["rating"])

    # -- rounds -------------------------------------------------------------------

    @event("RoundPaired")
    def pair_round(self, round: int, tables: list[dict[str, Any]]) -> None:
        """``tables``: number, seats, bye, note (the core's Table)."""
        self.rounds.append(
            {
                "number": round,
                "tables": tables,
                "matches": {},
                "ready": {},
                "started": {},
                "results": {},
                "sealed": {},
                "checkpoint": None,
            }
        )

    @event("MatchCreated")
    def match_created(
        self,
        round: int,
        table: int,
        match_id: str,
        rules_address: str,
        dice_commitment: str,
        deadline: float,
    ) -> None:
        """``deadline``: when the check-in window closes (Unix seconds); the match starts
        then without the seats that are not ready."""
        self._changing(round, "matches")["matches"][str(table)] = {
            "match_id": match_id,
            "rules_address": rules_address,
            "dice_commitment": dice_commitment,
            "deadline": deadline,
        }

    @event("SeatReady")
    def seat_ready(self, round: int, table: int, seat: int, player_id: str) -> None:
        ready = self.round(round)["ready"].get(str(table), [])
        if seat not in ready:
            self._changing(round, "ready")["ready"][str(table)] = [*ready, seat]

    @event("MatchStarted")
    def match_started(self, round: int, table: int, absent: list[int]) -> None:
        self._changing(round, "started")["started"][str(table)] = {"absent": absent}

    @event("ResultRecorded")
    def record_result(
        self, round: int, table: int, result: dict[str, Any], signed: dict[str, Any]
    ) -> None:
        """``result``: the core's TableResult as a dict; ``signed``: the rules service's
        signed result message it was taken from."""
        self._changing(round, "results")["results"][str(table)] = result

    @event("ResultCorrected")
    def correct_result(
        self, round: int, table: int, result: dict[str, Any], reason: str, by: str
    ) -> None:
        """A result the organiser set: it stands even if the table's match never ends
        (a broken match, a game played on paper); such a match is left out of the round's
        Merkle tree. A correction of a table whose match had no result yet (recorded, not
        abandoned: playing, or waiting for its seats) decides that match: it is
        ``stopped`` (table -> match id). The director abandons it on its rules service
        (a match waiting for its seats is never started then: its abandon ends it where
        it waits) until the log shows it stopped (MatchAbandoned, or its seal). The
        round's checkpoint waits for the seal of a started one; one that never started is
        never sealed (no leaf of the round's Merkle tree), its abandon recorded all the
        same."""
        rnd = self._changing(round, "results", "stopped", "corrected")
        key = str(table)
        match = rnd["matches"].get(key)
        if (match is not None and key not in rnd["results"]
                and key not in rnd.get("abandoned", {})):
            rnd.setdefault("stopped", {})[key] = match["match_id"]
        rnd["results"][key] = result
        rnd.setdefault("corrected", {})[key] = reason

    @event("MatchAbandoned")
    def match_abandoned(self, round: int, table: int, match_id: str, reason: str, by: str) -> None:
        """The table's match was abandoned on its rules service (AbandonMatch): it ended
        with no result. The table waits for the organiser's CorrectResult."""
        rnd = self._changing(round, "abandoned")
        rnd.setdefault("abandoned", {})[str(table)] = {"reason": reason, "by": by}

    @event("TableRematched")
    def table_rematched(self, round: int, table: int, match_id: str, final_hash: str,
                        event_count: int, reason: str, by: str) -> None:
        """The organiser has the table play again: its abandoned match ``match_id``, sealed
        with ``final_hash``, becomes one of the table's earlier matches, and the table waits
        for its next match (the driver creates it: MatchCreated)."""
        rnd = self._changing(round, "abandoned", "earlier", "matches", "ready", "started",
                             "sealed")
        key = str(table)
        abandoned = rnd.get("abandoned", {}).pop(key, {})
        earlier = rnd.setdefault("earlier", {})
        earlier[key] = [*earlier.get(key, []), {
            "match_id": match_id,
            "final_hash": final_hash,
            "event_count": event_count,
            "abandoned": abandoned.get("reason", ""),
            "reason": reason,
        }]
        for part in ("matches", "ready", "started", "sealed"):
            rnd[part].pop(key, None)

    @event("MatchSealed")
    def match_sealed(
        self, round: int, table: int, match_id: str, final_hash: str, event_count: int
    ) -> None:
        self._changing(round, "sealed")["sealed"][str(table)] = {
            "final_hash": final_hash,
            "event_count": event_count,
        }

    @event("CheckpointPublished")
    def publish_checkpoint(self, round: int, checkpoint: dict[str, Any]) -> None:
        self._changing(round)["checkpoint"] = checkpoint

    @event("PlayerDropped")
    def drop(self, player_id: str, after_round: int, reason: str, by: str) -> None:
        self.players[player_id]["status"] = "dropped"
        self.dropped.append([player_id, after_round])

    @event("NoShowDropped")
    def drop_no_show(self, player_id: str, after_round: int, table: int, match_id: str,
                     reason: str) -> None:
        """The format drops no-shows (``drop_no_shows``): ``player_id`` never came to table
        ``table`` of round ``after_round`` (its match ``match_id`` started with their seat
        absent, and the result forfeited them). NextRound records it before it pairs the next
        round; from then on the player is dropped as by PlayerDropped."""
        self.players[player_id]["status"] = "dropped"
        self.dropped.append([player_id, after_round])

    @event("PlayerReinstated")
    def reinstate(self, player_id: str, from_round: int, reason: str, by: str) -> None:
        """The organiser reinstates a dropped player (PlayerDropped or NoShowDropped; Swiss
        and multiplayer only): paired again from round ``from_round``, the next one to be
        paired; the rounds missed count as unplayed, as after a drop. ``reason`` is
        required; a player may be dropped and reinstated again."""
        self.players[player_id]["status"] = "playing"

    @event("LateEntry")
    def late_entry(self, player_id: str, first_round: int, rating: float, registered: int) -> None:
        self.players[player_id] = {
            "status": "playing",
            "order": registered,
            "rating": rating,
            "late": True,
        }
        self.entrants.append({"player_id": player_id, "rating": rating, "registered": registered})
        self.late.append([player_id, first_round])

    # -- the end ------------------------------------------------------------------

    @event("StandingsPublished")
    def publish_standings(self, rows: list[dict[str, Any]], final: bool) -> None:
        self.standings = rows

    @event("Finished")
    def finish(self) -> None:
        self.status = "finished"

    @event("ForceEnded")
    def force_end(self, reason: str, by: str) -> None:
        self.status = "force-ended"
        self.reason = reason

    @event("AbandonsConfirmed")
    def abandons_confirmed(self, matches: list[str]) -> None:
        """Every match the force-end left without a result (``matches``) was answered by
        its rules service: abandoned now or before, ended before, or unknown to it. A
        start abandons again only the force-ended tournaments without this event."""
        self.confirmed = True

    left_out = ()
    """The registered players the start left out, sorted by id: a list once started (a
    class default, as ``confirmed``: a snapshot taken before Started recorded them holds no
    such attribute)."""

    confirmed = False
    """Whether the force-end's abandons were confirmed (a class default: snapshots taken
    before the event existed hold no such attribute)."""
