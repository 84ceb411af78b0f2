"""The vocabulary of the tournament core: entrants, tables, results, rounds and formats.

Everything here is an immutable value; the functions of this package compute pairings and
standings from these values alone (no I/O, no clock, no randomness), so that a verifier
recomputes exactly what the service published.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields
from typing import Any

FORMATS = ("swiss", "round-robin", "single-elimination", "double-elimination", "multiplayer")
TIEBREAKS = (
    "buchholz",
    "median-buchholz",
    "sonneborn-berger",
    "head-to-head",
    "wins",
    "placement-points",
    "game-tiebreak",
)
WITHDRAWAL_RULES = ("void-if-under-half", "keep")
LATE_ENTRY_POINTS = ("zero", "bye")
PAIRING_VERSIONS = (1, 2)
PAIRING_VERSION = 2
"""The pairing search new events get (``FormatConfig.pairing_version``, see core/swiss.py):
1, the promising edges only, at every field size (releases before 2); 2, the complete
graph for fields of up to ``swiss.COMPLETE_UP_TO`` players."""
SCORING_VERSIONS = (1, 2)
SCORING_VERSION = 2
"""How a played table scores new events (``FormatConfig.scoring_version``, see
core/ledger.py ``share_points``): 1, a tie of two seats scores ``draw_points`` whenever two
seats are left to place (a multiplayer table where the others forfeited too: releases
before 2); 2, only at a two-seat table, and the seats left at a bigger table share the
places they tie on, as at a full table."""
MAX_POINTS = 1e6
"""The largest points (or bye, draw, forfeit points) a format may give: sums of them stay
exact enough and encodable (canonical JSON has no infinity)."""
MAX_ROUNDS = 9999
"""The most ``rounds`` (and ``late_entry_until``) a format may ask for: a round's number is
answered as an int32 (``Tournament.planned_rounds``) and written into its match ids, of which
ReadyForMatch reads at most 4 digits (``director.MATCH_OF``); more was stored, and every
answer carrying the started tournament failed."""
INT_SETTINGS = ("rounds", "late_entry_until", "pairing_version", "scoring_version")
BOOL_SETTINGS = ("double_rounds", "grand_final_reset")
POINT_SETTINGS = ("draw_points", "bye_points", "forfeit_win_points")
RESULT_KINDS = ("played", "forfeit", "bye")
NO_SHOW_DROP_FORMATS = ("swiss", "multiplayer")
"""The formats that may drop no-shows (``FormatConfig.drop_no_shows``): those that pair each
round from the results, where a player who is not there would be paired again and could get
the bye. A round robin's schedule and an elimination bracket are fixed: an absent player
loses each of their games by forfeit as it comes."""
REINSTATE_FORMATS = ("swiss", "multiplayer")
"""The formats that may reinstate a dropped player (``History.reinstated``): those that
pair each round from the results, as for late entries. A round robin's schedule and an
elimination bracket are fixed: a player who left them is gone."""

OPPONENT_WITHDRAWN = "opponent-withdrawn"
"""Note on a bye table of a round robin: the scheduled opponent had withdrawn."""


class TournamentError(ValueError):
    """No legal pairing exists, the event is finished, or the input is inconsistent."""


@dataclass(frozen=True)
class Entrant:
    """A registered player: ``rating`` from scoring (openskill ordinal), ``registered`` the
    registration order. Seed order is rating (highest first), then registration."""

    player_id: str
    rating: float = 0.0
    registered: int = 0


@dataclass(frozen=True)
class Table:
    """One table of a round. Seat order matters (seat 0 = first player / white). A bye is a
    table with one seat and ``bye=True``; ``note`` says why when it is not a plain pairing
    bye (:data:`OPPONENT_WITHDRAWN`, naming the withdrawn opponent in ``absent``)."""

    number: int
    seats: tuple[str, ...]
    bye: bool = False
    note: str = ""
    absent: tuple[str, ...] = ()


@dataclass(frozen=True)
class TableResult:
    """The result of one table. ``placements[i]`` is the place of ``seats[i]`` (1 = first,
    equal numbers = tie). ``kind``: "played"; "forfeit" (no game: the seats in
    ``forfeited`` lost by forfeit, the others win by forfeit); "bye". A "played" result may
    also name ``forfeited`` seats (a multiplayer seat that never showed up): they score
    nothing and that table is not a game for them."""

    table: int
    seats: tuple[str, ...]
    placements: tuple[int, ...]
    kind: str = "played"
    forfeited: tuple[str, ...] = ()
    game_tiebreak: tuple[float, ...] = ()
    match_id: str = ""


@dataclass(frozen=True)
class RoundRecord:
    number: int
    tables: tuple[Table, ...]
    results: tuple[TableResult, ...] = ()


@dataclass(frozen=True)
class FormatConfig:
    """How a tournament pairs and scores. Stored in the tournament's events as JSON.

    ``rounds`` 0 means the format's natural number (round robin: every pairing once;
    elimination: until one is left; Swiss: ceil(log2 n)). ``placement_points[i]`` is what
    place i+1 scores; tied places share the average of the places they cover (two seats:
    ``draw_points`` each). ``withdrawal_rule`` (round robin): "void-if-under-half" (FIDE:
    the results of a player who withdraws before playing half their games are annulled,
    else kept and the rest forfeited) or "keep". ``late_entry_until``: the last round a late
    entry may first play in (0: none allowed); ``late_entry_points``: "zero" or "bye"
    (bye_points for each round missed). ``grand_final_reset``: double elimination plays a
    second final when the losers-bracket winner wins the first. ``pairing_version``: the
    Swiss pairing search (:data:`PAIRING_VERSION`); a stored format without it was written
    by a release that knew only version 1 (:meth:`from_stored`). ``drop_no_shows``: a player
    who lost a round by never coming to their table (the match started without them and
    forfeited their seat) is dropped before the next round is paired, as FIDE withdraws a
    player absent without notice; on by default in :data:`NO_SHOW_DROP_FORMATS`, refused
    elsewhere, off for a format stored without it (:meth:`from_stored`). The core pairs from
    ``History.dropped`` alone: the service records the drops (services/tournament/noshows.py
    says who is a no-show). ``scoring_version``: how a played table scores
    (:data:`SCORING_VERSION`; a stored format without it scored with version 1). Settings
    of the wrong kind are refused when an event is created (:func:`check_kinds`)."""

    format: str
    rounds: int = 0
    table_sizes: tuple[int, ...] = (2,)
    placement_points: tuple[float, ...] = (1.0, 0.0)
    draw_points: float = 0.5
    bye_points: float = 1.0
    forfeit_win_points: float = 1.0
    tiebreaks: tuple[str, ...] = ()
    withdrawal_rule: str = "void-if-under-half"
    double_rounds: bool = False
    late_entry_until: int = 0
    late_entry_points: str = "zero"
    grand_final_reset: bool = True
    pairing_version: int = PAIRING_VERSION
    drop_no_shows: bool | None = None
    """None: the format's default (on where it applies); always a bool once made."""
    scoring_version: int = SCORING_VERSION

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise TournamentError(f"unknown format {self.format!r}; one of {', '.join(FORMATS)}")
        for name in self.tiebreaks:
            if name not in TIEBREAKS:
                raise TournamentError(f"unknown tie-break {name!r}; one of {', '.join(TIEBREAKS)}")
        if self.withdrawal_rule not in WITHDRAWAL_RULES:
            raise TournamentError(f"unknown withdrawal rule {self.withdrawal_rule!r}")
        if self.late_entry_points not in LATE_ENTRY_POINTS:
            raise TournamentError(f"unknown late entry points {self.late_entry_points!r}")
        if not self.table_sizes or any(s < 2 or s > 6 for s in self.table_sizes):
            raise TournamentError("table sizes must be between 2 and 6 seats")
        if self.format != "multiplayer" and tuple(self.table_sizes) != (2,):
            raise TournamentError(f"{self.format} is for two-seat tables")
        if self.rounds < 0:
            raise TournamentError("rounds must not be negative")
        if self.pairing_version not in PAIRING_VERSIONS:
            raise TournamentError(
                f"unknown pairing_version {self.pairing_version!r}; one of "
                f"{', '.join(map(str, PAIRING_VERSIONS))}"
            )
        if self.scoring_version not in SCORING_VERSIONS:
            raise TournamentError(
                f"unknown scoring_version {self.scoring_version!r}; one of "
                f"{', '.join(map(str, SCORING_VERSIONS))}"
            )
        self._resolve_drop_no_shows()

    def _resolve_drop_no_shows(self) -> None:
        applies = self.format in NO_SHOW_DROP_FORMATS
        if self.drop_no_shows is None:
            object.__setattr__(self, "drop_no_shows", applies)
        elif not isinstance(self.drop_no_shows, bool):
            raise TournamentError(f"drop_no_shows must be true or false, not "
                                  f"{self.drop_no_shows!r}")
        elif self.drop_no_shows and not applies:
            raise TournamentError(
                f"drop_no_shows is for {' and '.join(NO_SHOW_DROP_FORMATS)} events: "
                f"{self.format} keeps its fixed schedule, and a player who does not come "
                "loses each game by forfeit")

    @property
    def is_elimination(self) -> bool:
        return self.format in ("single-elimination", "double-elimination")

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for key, value in out.items():
            if isinstance(value, tuple):
                out[key] = list(value)
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FormatConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise TournamentError(f"unknown format setting(s): {', '.join(unknown)}")
        args = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
        if "format" not in args:
            raise TournamentError("a format config needs 'format'")
        return cls(**args)

    @classmethod
    def from_stored(cls, data: dict[str, Any]) -> FormatConfig:
        """A format as a tournament's log stores it. Every release stores every field it
        knows; one without ``pairing_version`` predates it and paired with version 1, one
        without ``drop_no_shows`` paired its no-shows again, one without
        ``scoring_version`` scored with version 1, so its published rounds and standings
        recompute the same."""
        return cls.from_dict({"pairing_version": 1, "drop_no_shows": False,
                              "scoring_version": 1, **data})

    @classmethod
    def from_json(cls, text: str | bytes) -> FormatConfig:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as err:  # RecursionError: nested past the limit
            raise TournamentError(f"format config is not JSON: {err}") from err
        if not isinstance(data, dict):
            raise TournamentError("format config must be a JSON object")
        check_kinds(data)
        return cls.from_dict(data)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_points(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and abs(value) <= MAX_POINTS)


def check_kinds(data: dict[str, Any]) -> None:
    """A new format's settings are of their kind (:class:`TournamentError` naming the one
    that is not): whole numbers (not negative), true or false, finite points of at most
    :data:`MAX_POINTS`, lists where lists belong. Checked when an event is created
    (:meth:`FormatConfig.from_json`), not on a stored log, which is read as published: a
    NaN, a string for points or 2.5 seats would otherwise break the event later (a log
    canonical JSON cannot hash, standings that cannot be summed, a pairing of 2.5 seats)."""
    for name in INT_SETTINGS:
        if name in data and (not _is_int(data[name]) or data[name] < 0):
            raise TournamentError(f"{name} must be a whole number, 0 or more, not "
                                  f"{data[name]!r}")
    for name in ("rounds", "late_entry_until"):  # round numbers (late_entry_until past
        # 2**53 also made a Created that canonical JSON cannot hash: no chain, no export)
        if name in data and data[name] > MAX_ROUNDS:
            raise TournamentError(f"{name} must be at most {MAX_ROUNDS}, not {data[name]!r}")
    for name in BOOL_SETTINGS:
        if name in data and not isinstance(data[name], bool):
            raise TournamentError(f"{name} must be true or false, not {data[name]!r}")
    for name in POINT_SETTINGS:
        if name in data and not _is_points(data[name]):
            raise TournamentError(f"{name} must be a number of at most {MAX_POINTS:g} "
                                  f"either way, not {data[name]!r}")
    if "placement_points" in data:
        value = data["placement_points"]
        if not isinstance(value, list) or not value or not all(map(_is_points, value)):
            raise TournamentError(f"placement_points must be a list of numbers of at most "
                                  f"{MAX_POINTS:g} either way, not {value!r}")
    if "table_sizes" in data:
        value = data["table_sizes"]
        if not isinstance(value, list) or not all(map(_is_int, value)):
            raise TournamentError(f"table_sizes must be a list of whole numbers, not {value!r}")
    if "tiebreaks" in data and not (isinstance(data["tiebreaks"], list)
                                    and all(isinstance(n, str) for n in data["tiebreaks"])):
        raise TournamentError(f"tiebreaks must be a list of names, not {data['tiebreaks']!r}")


@dataclass(frozen=True)
class History:
    """Everything that happened so far. ``dropped``: (player, round after which they left);
    ``late``: (player, first round they play); ``absent``: (player, one round they sit
    out and come back after: FIDE's zero-point bye, not paired, 0 points, no game);
    ``reinstated``: (player, first round they play again after a drop; Swiss and
    multiplayer only, :data:`REINSTATE_FORMATS`).

    Drops and reinstatements of one player alternate, each tuple in the order they
    happened: a player's k-th reinstatement ends their k-th drop (see
    ``ledger.away_spans``), so a player may be dropped and reinstated more than once."""

    entrants: tuple[Entrant, ...]
    rounds: tuple[RoundRecord, ...] = ()
    dropped: tuple[tuple[str, int], ...] = ()
    late: tuple[tuple[str, int], ...] = ()
    absent: tuple[tuple[str, int], ...] = ()
    reinstated: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class StandingRow:
    rank: int
    player_id: str
    points: float
    games: int
    wins: int
    tiebreaks: tuple[tuple[str, float], ...]
    dropped: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "player_id": self.player_id,
            "points": self.points,
            "games": self.games,
            "wins": self.wins,
            "tiebreaks": [[name, value] for name, value in self.tiebreaks],
            "dropped": self.dropped,
        }


def seed_order(entrants: tuple[Entrant, ...] | list[Entrant]) -> list[Entrant]:
    """Rating (highest first), then registration order, then player id."""
    return sorted(entrants, key=lambda e: (-e.rating, e.registered, e.player_id))
