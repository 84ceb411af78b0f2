"""The scoring Application: score a match once, answer queries from the board."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.persistence import IntegrityError

from services.platform.cached_reads import SerialReads
from services.platform.errors import Aborted, InvalidArgument, NotFound
from services.platform.logs import get_logger
from services.platform.topics import TrustedTopics
from services.scoring import results as res
from services.scoring.board import LEADERBOARD_ROWS, Board
from services.scoring.domain import LEDGER_ID, Ledger, MatchRecord, Standing, standing_id
from services.scoring.results import MatchOutcome
from services.scoring.skill import Skill, default_skill, rate

SAVE_ATTEMPTS = 5
log = get_logger("scoring")


@dataclass(frozen=True)
class Scored:
    data: dict[str, Any]
    new: bool


@dataclass(frozen=True)
class Resume:
    """Where to read a stream from, as :meth:`ScoringApplication.follow_stream` decided."""

    position: int
    """The stream sequence handled up to (0: read the stream from its first message)."""
    restarted: str = ""
    """Why the stored position was dropped, in words ("" when it was kept)."""
    adopted: bool = False
    """A ledger stored before streams were named took this stream as its own."""


class StreamChanged(Exception):
    """The ledger follows another stream than the result's: the stream was made again and
    another instance has moved the ledger to it. Nothing was saved; find our place again."""


class ScoringApplication(SerialReads, TrustedTopics, Application):
    name = "scoring"
    snapshotting_intervals: ClassVar[dict[type[Any], int]] = {Ledger: 500}

    def __init__(self, env: dict[str, str] | None = None, games: Iterable[str] = (),
                 refresh: float = 0.1) -> None:
        super().__init__(env)
        self.known_games = set(games)
        self.board = Board(self, refresh)
        self._write = threading.Lock()
        self.board.catch_up()

    # -- commands ---------------------------------------------------------------------

    def score(self, outcome: MatchOutcome, stream_seq: int = 0, *,
              rate_organiser_matches: bool = False, stream_id: str = "") -> Scored:
        """Record ``outcome`` and move ratings, once per match id whatever the calls.

        A match an organiser created is recorded but rated and counted nowhere unless
        ``rate_organiser_matches`` (NEON_SCORING_RATE_ORGANISER_MATCHES): see
        :func:`results.creator_refusal`. A dev-seeded match is recorded but rated and counted
        nowhere, whatever the setting (:func:`results.dev_seed_refusal`). The decision is
        stored with the result (``rated``).

        With ``stream_id`` (the stream ``stream_seq`` counts in), a ledger that follows another
        stream raises :class:`StreamChanged` and nothing is saved: a position is only ever
        stored in the stream the ledger names."""
        with self._write:
            for _ in range(SAVE_ATTEMPTS):
                self.board.catch_up()
                existing = self.board.result(outcome.game, outcome.match_id)
                if existing is not None:
                    return Scored(existing, False)
                aggregates, data = self._score(outcome, stream_seq, rate_organiser_matches,
                                               stream_id)
                try:
                    self.save(*aggregates)
                except IntegrityError:
                    continue  # another writer got there first: look again
                self.board.catch_up()
                return Scored(data, True)
        raise Aborted(f"could not record match {outcome.match_id!r}: the store kept changing")

    def follow_stream(self, stream_id: str, last_seq: int) -> Resume:
        """Where to resume reading the live stream (identity ``stream_id``, ``last_seq`` its
        last sequence), recorded in the ledger before anything of the stream is read.

        The stored position is kept when the ledger follows this very stream and the position
        is not beyond its last sequence. Otherwise the stream was made again (deleted and
        recreated, JetStream's data lost, another NATS): its sequences started again at 1, so
        the ledger follows it from 0 and the whole stream is read again (results already
        recorded are found so and change nothing). A ledger stored before streams were named
        adopts the live stream, unless its position is beyond the stream's end. An unknown
        identity ("") is compared by position alone."""
        with self._write:
            for _ in range(SAVE_ATTEMPTS):
                ledger = self.find(LEDGER_ID)
                stored_id = ledger.stream_id if ledger is not None else ""
                position = ledger.stream_seq if ledger is not None else 0
                restarted = ""
                if stored_id and stream_id and stored_id != stream_id:
                    restarted = (f"the stream was made again (created {stream_id}; the stored "
                                 f"position {position} counts in the one created {stored_id})")
                elif position > last_seq:
                    restarted = (f"the stored position {position} is beyond the stream's last "
                                 f"sequence {last_seq}")
                keep = position if not restarted else 0
                if (stored_id == stream_id or not stream_id) and keep == position:
                    return Resume(position)  # nothing new to record
                adopted = ledger is not None and not stored_id and not restarted
                ledger = ledger or Ledger()
                ledger.follow(stream_id or stored_id, keep)
                try:
                    self.save(ledger)
                except IntegrityError:
                    continue  # another writer saved first: decide again on what it saved
                return Resume(keep, restarted, adopted)
        raise Aborted("could not record the stream followed: the store kept changing")

    def find(self, aggregate_id: Any) -> Any:
        try:
            return self.repository.get(aggregate_id)
        except AggregateNotFoundError:
            return None

    def _score(self, outcome: MatchOutcome, stream_seq: int, rate_organiser_matches: bool = False,
               stream_id: str = "") -> tuple[list[Any], dict[str, Any]]:
        ledger = self.find(LEDGER_ID) or Ledger()
        if stream_id and ledger.stream_id != stream_id:
            raise StreamChanged(f"the ledger follows the stream created {ledger.stream_id or '?'}, "
                                f"not the one created {stream_id}")
        # a seat that never moved (a no-show, a forfeit) is left out of the sides like a bot,
        # with its team (res.left_out, computed once here for the sides and the standings): a
        # duel with one is not rated (res.sides says why), a free-for-all that two human sides
        # played on is rated and counted among them, on their order among themselves
        absent = res.left_out(outcome)
        sides, unrated = res.sides(outcome, absent=absent)
        # a dev-seeded match's draws were known ahead to whoever knew the seed: never rated,
        # whatever the setting (its reason first: no setting changes it)
        refusal = res.dev_seed_refusal(outcome) or \
            res.creator_refusal(outcome.created_by, rate_organiser_matches)
        if refusal:
            # recorded (its result and the players' histories show it, with the reason) but
            # counted in no standing: no rating, no win or loss, no best score
            sides, unrated = [], refusal
        # one player in several seats plays against themselves: counted nowhere either, or
        # the wins and best-score boards could be farmed alone; so could they with a second
        # account that never moves: a result left unrated by a no-move seat counts nowhere,
        # and a no-move seat itself counts in no standing
        counted = not refusal and not res.in_several_seats(outcome) \
            and not (absent and not sides)
        keys = [""] + ([outcome.mode] if outcome.mode else [])
        seats = {}
        for seat, player in enumerate(outcome.players):
            if player and not res.is_bot(player) and player not in seats and counted \
                    and seat not in absent:
                seats[player] = seat
        standings: dict[tuple[str, str], Standing] = {}
        fresh = default_skill()
        for key in keys:
            for player in seats:
                standings[(key, player)] = self.find(standing_id(outcome.game, key, player)) or \
                    Standing(outcome.game, key, player, fresh.mu, fresh.sigma)
        ratings = []
        for key in keys:
            after: dict[str, Skill] = {}
            if sides:
                after = rate(sides, {p: standings[(key, p)].skill for p in seats})
            for player, seat in seats.items():
                standing = standings[(key, player)]
                new = after.get(player)
                if new is not None:
                    ratings.append({"player": player, "mode": key, "seat": seat,
                                    "before": standing.skill.to_json(), "after": new.to_json()})
                standing.count(outcome.match_id, res.result_of(outcome, seat, absent),
                               outcome.scores[seat], new.to_json() if new else None)
        ledger.apply(outcome.match_id, stream_seq)
        data = {
            **outcome.to_json(), "sequence": ledger.sequence, "stream_seq": stream_seq,
            "bots": [res.is_bot(p) for p in outcome.players] or [False] * outcome.seats,
            "rated": bool(sides), "unrated_reason": unrated, "ratings": ratings,
            "ranking": res.RANKING,
        }
        if not outcome.players:
            data["players"] = [""] * outcome.seats
        return [ledger, MatchRecord(outcome.match_id, data), *standings.values()], data

    # -- queries ----------------------------------------------------------------------

    def check_game(self, game: str) -> None:
        if not res.GAME_ID.match(game or ""):
            raise InvalidArgument("game must be a game id such as 'neon-reign'")
        self.board.catch_up(force=False)
        if game not in self.known_games and game not in self.board.games():
            known = sorted(self.known_games | self.board.games())
            raise NotFound(f"unknown game {game!r}; games: {', '.join(known) or 'none yet'}")

    def standing(self, game: str, mode: str, player: str) -> Standing:
        found = self.board.standing(game, mode, player)
        if found is not None:
            return found
        fresh = default_skill()
        return Standing(game, mode, player, fresh.mu, fresh.sigma)

    def result(self, match_id: str, game: str = "") -> dict[str, Any]:
        """The result of ``match_id`` in ``game``; without a game, the one game that has it."""
        if not res.MATCH_ID.match(match_id or ""):
            raise InvalidArgument("match_id must be 1-64 letters, digits, '-' or '_'")
        if game and not res.GAME_ID.match(game):
            raise InvalidArgument("game must be a game id such as 'neon-reign'")
        self.board.catch_up(force=False)
        found = self.board.results_of(match_id)
        if game:
            found = [r for r in found if r["game"] == game]
        if not found:
            raise NotFound(f"no result for match {match_id!r}{f' of {game}' if game else ''} "
                           "(unknown, still running, or not scored yet)")
        if len(found) > 1:
            games = ", ".join(r["game"] for r in found)
            raise InvalidArgument(f"match id {match_id!r} was played in several games ({games}): "
                                  "name the game")
        return found[0]

    def leaderboard(self, game: str, mode: str, by_score: bool | None) -> tuple[list[Standing], bool]:
        """The top LEADERBOARD_ROWS standings in leaderboard order; ``by_score`` None picks
        (ordinal unless none rated)."""
        rows, _, by_score = self.leaderboard_page(game, mode, by_score)
        return rows, by_score

    def leaderboard_page(self, game: str, mode: str, by_score: bool | None, first: int = 0,
                         count: int = LEADERBOARD_ROWS) -> tuple[list[Standing], int, bool]:
        """``count`` standings of a leaderboard from its ``first`` (0 the top), how many the
        whole leaderboard has, and its order (``by_score`` None picks: ordinal unless none
        rated)."""
        self.check_game(game)
        if by_score is None:
            by_score = not self.board.size(game, mode, False) and \
                bool(self.board.size(game, mode, True))
        rows, total = self.board.page(game, mode, by_score, first, count)
        return rows, total, by_score

    def history(self, game: str, player: str, before_sequence: int) -> list[dict[str, Any]]:
        if game:
            self.check_game(game)
        else:
            self.board.catch_up(force=False)
        found = [
            r for r in self.board.player_history(player)
            if (not game or r["game"] == game)
            and (before_sequence <= 0 or r["sequence"] < before_sequence)
        ]
        found.reverse()
        return found

    def replay_ratings(self, game: str, mode: str = "") -> dict[str, Skill]:
        """Ratings recomputed from the stored results alone, in sequence order (an audit).

        Each result is replayed as it was decided when stored: one stored unrated (``rated``
        false: an organiser's match while NEON_SCORING_RATE_ORGANISER_MATCHES was off, a solo
        match, a seat that made no move, ...) moves nothing, whatever the setting is now; one
        stored rated before results named their no-move seats is replayed as rated then."""
        ratings: dict[str, Skill] = {}
        self.board.catch_up()
        stored = sorted((r for r in self.board.results.values() if r["game"] == game),
                        key=lambda r: r["sequence"])
        for data in stored:
            if (mode and data["mode"] != mode) or not data.get("rated", True):
                continue
            sides, _ = res.sides(MatchOutcome.from_json(data), int(data.get("ranking", 1)))
            if sides:
                ratings.update(rate(sides, ratings))
        return ratings
