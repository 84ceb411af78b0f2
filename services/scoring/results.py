"""Match results as the scoring service reads them from the public MatchEnded event.

The rules host publishes each MatchEnded record on ``neon.events.rules.<game>.<match id>``
and again on ``neon.events.results.<game>.<match id>``
with ``game``, ``mode``, ``players`` (one id per seat, or empty when the match was
created without them) and ``outcome`` (placements, scores, reason, draw, breakdown,
teams); the signed result on the results subject also carries ``created_by`` (who created
the match: ``{"role", "name"}``, with ``via`` and ``names`` for a match a service made on
organisers' behalf; none on results of matches created before it was recorded), and
``dev_seed`` (true) when the match drew from a dev seed. This module turns that payload into
a :class:`MatchOutcome`, splits it into the sides that openskill rates, and says whether its
creator lets it be rated (:func:`creator_refusal`) and whether its seed does
(:func:`dev_seed_refusal`). Pure code: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Set
from dataclasses import dataclass, field
from typing import Any

from services.platform.storable import unstorable_reason
from services.platform.tokens import is_bot
from services.rules.records import is_abandoned

GAME_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}\Z")
MATCH_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")
MAX_SEATS = 16
MAX_PLAYER_ID = 128
INT32 = range(-(2**31), 2**31)
"""Placements and scores travel as int32 in the replies (scoring.proto)."""


class MalformedResult(ValueError):
    """The event cannot be scored; the message says why."""



@dataclass(frozen=True)
class MatchOutcome:
    match_id: str
    game: str
    mode: str
    players: tuple[str, ...]
    placements: tuple[int, ...]
    scores: tuple[int, ...]
    reason: str = ""
    draw: bool = False
    breakdown: Mapping[str, Any] = field(default_factory=dict)
    teams: tuple[tuple[int, ...], ...] = ()
    created_by: Mapping[str, Any] | None = None
    """Who created the match (``{"role", "name"}``, and ``via``, ``names`` when a service
    made it on organisers' behalf), ``None`` when the result names no one (published before
    the rules service recorded it)."""
    no_move_seats: tuple[int, ...] | None = None
    """The seats that never made a move of their own (rules/noshow.py), ``None`` when the
    result does not say (published, or stored, before the rules service wrote it)."""
    dev_seed: bool = False
    """The match drew from a dev seed (the result's ``dev_seed``: true; absent, or false,
    otherwise and on results from before the rules service wrote it): :func:`dev_seed_refusal`."""

    @property
    def seats(self) -> int:
        return len(self.placements)

    def to_json(self) -> dict[str, Any]:
        """``created_by`` only when the result named its creator, ``dev_seed`` only when
        true (stored results from before have no such keys)."""
        data = {
            "match_id": self.match_id, "game": self.game, "mode": self.mode,
            "players": list(self.players), "placements": list(self.placements),
            "scores": list(self.scores), "reason": self.reason, "draw": self.draw,
            "breakdown": dict(self.breakdown), "teams": [list(t) for t in self.teams],
        }
        if self.created_by is not None:
            data["created_by"] = dict(self.created_by)
        if self.no_move_seats is not None:
            data["no_move_seats"] = list(self.no_move_seats)
        if self.dev_seed:  # only then: results stored without it read as before
            data["dev_seed"] = True
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MatchOutcome:
        created_by = data.get("created_by")
        return cls(
            match_id=data["match_id"], game=data["game"], mode=data["mode"],
            players=tuple(data["players"]), placements=tuple(data["placements"]),
            scores=tuple(data["scores"]), reason=data["reason"], draw=data["draw"],
            breakdown=dict(data["breakdown"]), teams=tuple(tuple(t) for t in data["teams"]),
            created_by=dict(created_by) if created_by is not None else None,
            no_move_seats=tuple(data["no_move_seats"]) if "no_move_seats" in data else None,
            dev_seed=data.get("dev_seed") is True,
        )


def _ints(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise MalformedResult(f"{what} must be a list of integers")
    if not all(v in INT32 for v in value):
        raise MalformedResult(f"{what} must be 32-bit integers")
    return tuple(value)


def _text(payload: Mapping[str, Any], key: str, pattern: re.Pattern[str] | None = None) -> str:
    value = payload.get(key, "")
    if not isinstance(value, str):
        raise MalformedResult(f"{key} must be a string")
    if pattern is not None and not pattern.match(value):
        raise MalformedResult(f"{key} {value!r} is not a valid id")
    return value


def _check_storable(value: Any) -> None:
    """Refuse a breakdown holding an object of exactly the keys ``_type_`` and ``_data_``,
    at any depth: the store writes it as it is and reads it back as another type (a UUID, a
    decimal, ...), or fails to read it at all, and then the board and every later result with
    it (services/platform/storable.py, the check every service's edge makes)."""
    why = unstorable_reason(value, "outcome.breakdown")
    if why is not None:
        raise MalformedResult(why)


def _teams(value: Any, seats: int) -> tuple[tuple[int, ...], ...]:
    if value in (None, []):
        return ()
    if not isinstance(value, list):
        raise MalformedResult("outcome.teams must be a list of seat lists")
    teams = tuple(_ints(t, "each team") for t in value)
    covered = sorted(s for t in teams for s in t)
    if covered != list(range(seats)) or any(not t for t in teams):
        raise MalformedResult("outcome.teams must cover every seat exactly once")
    return teams


MAX_ROLE = 64


def _creator(value: Any) -> dict[str, Any] | None:
    """A result's ``created_by``: absent (``None``), or an object with a role (a token role)
    and a name (strings), and, for a match a service made on organisers' behalf, ``via`` (that
    service: "matchmaking", "tournament") and ``names`` (the organisers one by one, when there
    were several: ``name`` then joins them with ", ", which a name may hold too). What else
    it may hold, a later release's, is not kept. The name is taken whatever its length: it
    comes from a token the deployment signed, and a result refused for it would be lost, not
    merely left unrated."""
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("role"), str) \
            or not isinstance(value.get("name"), str):
        raise MalformedResult("created_by must be an object of a role and a name (strings)")
    if not 1 <= len(value["role"]) <= MAX_ROLE:
        raise MalformedResult(f"created_by: the role is 1-{MAX_ROLE} characters")
    creator: dict[str, Any] = {"role": value["role"], "name": value["name"]}
    if "via" in value:
        if not isinstance(value["via"], str):
            raise MalformedResult("created_by: via must be a string (the service's name)")
        creator["via"] = value["via"]
    if "names" in value:
        names = value["names"]
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise MalformedResult("created_by: names must be a list of strings")
        creator["names"] = list(names)
    return creator


RATED_CREATORS = "only matches made by matchmaking, a tournament or the server's own tools are rated"
RATE_SETTING = "NEON_SCORING_RATE_ORGANISER_MATCHES=1 rates them"


def organisers_named(created_by: Mapping[str, Any]) -> str:
    """The organisers of ``created_by`` in words, each name quoted, so that a name holding
    ", " reads as one: "the organiser 'olga'", "the organisers 'olga' and 'oscar, jr'". A
    result with no ``names`` names one organiser (matchmaking's ", "-joined names before it
    sent them apart read as one)."""
    names = created_by.get("names")
    if not isinstance(names, list) or not names:
        names = [created_by.get("name", "")]
    quoted = [repr(str(n)) for n in names]
    if len(quoted) == 1:
        return f"the organiser {quoted[0]}" if names[0] else "an organiser (no name)"
    return f"the organisers {', '.join(quoted[:-1])} and {quoted[-1]}"


def creator_refusal(created_by: Mapping[str, Any] | None, rate_organiser_matches: bool) -> str:
    """Why a match's creator keeps its result from being rated, in words; "" when it may be.

    Rated: a match a service created (matchmaking, the tournament service, the ``neon``
    tools run where the deployment's keys are), and a result that names no creator (from
    before the rules service recorded it: rated as it always was). Not rated: a match an
    organiser created (an organiser holds every seat token of its matches, so it could play
    "victim against me"), nor one a service made on organisers' behalf (``via``: matchmaking,
    when an organiser queued or accepted a ticket of it or acted with a player token it
    minted), unless ``rate_organiser_matches`` (NEON_SCORING_RATE_ORGANISER_MATCHES); never
    an unrated tournament's match (``via`` "tournament": its organiser asked for it unrated),
    nor one of any other role. The reason says which.
    """
    if created_by is None or created_by.get("role") == "service":
        return ""
    role, name = created_by.get("role", ""), created_by.get("name", "")
    named = f" ({name})" if name else ""
    via = created_by.get("via")
    if role == "organiser" and via == "tournament":
        return (f"made by the tournament service on behalf of {organisers_named(created_by)}, "
                "for an unrated tournament: its matches are recorded, never rated")
    if role == "organiser":
        if rate_organiser_matches:
            return ""
        if via is None:
            return f"created by an organiser{named}: {RATED_CREATORS}; {RATE_SETTING}"
        if via == "matchmaking":
            why = (f"made by matchmaking on behalf of {organisers_named(created_by)} (who "
                   "queued a ticket of it, accepted it for its players or acted with a player "
                   "token they minted)")
        else:
            why = f"made by the service {via!r} on behalf of {organisers_named(created_by)}"
        return f"{why}: an organiser's matches are not rated; {RATE_SETTING}"
    return f"created with a {role} token{named}: {RATED_CREATORS}"


DEV_SEED_REASON = ("drawn from a dev seed: its dice come from a seed shared by every match "
                   "given that dev seed on its deployment, known ahead to whoever knew it; "
                   "a dev-seeded match is recorded, never rated")


def dev_seed_refusal(outcome: MatchOutcome) -> str:
    """Why a dev-seeded match (``neon play --seed N``, CreateMatch ``dev_seed``) is not
    rated, in words; "" for any other. Its server seed is the same for every match given
    that dev seed on the deployment, known to the operator and public once any of them is
    sealed: whoever knew it knew every hand and roll ahead. No setting rates it (its
    creator's role does not matter: a service token creates ``neon play``'s matches)."""
    return DEV_SEED_REASON if outcome.dev_seed else ""


def _dev_seed(payload: Mapping[str, Any]) -> bool:
    """A result's ``dev_seed``: absent (False: no dev seed, or a result from before the
    rules service wrote it), or a boolean."""
    if "dev_seed" not in payload:
        return False
    value = payload["dev_seed"]
    if not isinstance(value, bool):
        raise MalformedResult("dev_seed must be a boolean (true: the match drew from a dev seed)")
    return value


def _no_move_seats(value: Any, seats: int) -> tuple[int, ...] | None:
    """A result's ``no_move_seats``: absent (``None``: a result from before the rules
    service wrote it), or the seats, each once, ascending."""
    if value is None:
        return None
    found = _ints(value, "no_move_seats")
    if list(found) != sorted(set(found)) or not all(0 <= s < seats for s in found):
        raise MalformedResult(f"no_move_seats must list seats of the match's {seats}, each "
                              "once, ascending")
    return found


def no_move_refusal(outcome: MatchOutcome) -> str:
    """Why a result with a seat that never made a move of its own is not rated, in words;
    "" when every seat moved (or the result does not say: one from before, rated as then).

    The ruling (rules/noshow.py): a seat *made a move* when the match log holds an action
    the seat sent itself, any action, its own resignation too, even as its only action
    (the ruling and why: services/scoring/__init__.py). The rules service's own
    actions for a seat (a clock's timeout, the forfeit after repeated timeouts, a bot's
    move for a seat the clock gave to a bot) are not its moves. A seat the service acted
    for that never moved is a no-show: rating practice (FIDE's rating regulations: a game
    won by forfeit, or in which a player made no move, is not rated) rates no such game,
    for either side. A seat the service never acted for did not owe a move (its opponent
    resigned at once): it is no no-show. In a match of three or more seats the seats that
    moved are still rated among themselves when at least two human sides of them are left
    (:func:`sides`): they played a game; the no-move seats are neither rated nor counted."""
    if not outcome.no_move_seats:
        return ""
    named = [f"{s} ({outcome.players[s]})" if outcome.players and outcome.players[s] else str(s)
             for s in outcome.no_move_seats]
    which = f"seat {named[0]}" if len(named) == 1 else \
        f"seats {', '.join(named[:-1])} and {named[-1]}"
    return f"{which} made no move: a forfeit, or a game a player made no move in, is not rated"


def abandoned(payload: Mapping[str, Any]) -> bool:
    """Whether a public MatchEnded payload ends an abandoned match (the rules service's
    AbandonMatch: ``outcome.abandoned`` true, no placements). It is no result: nothing to
    record or rate."""
    return is_abandoned(payload.get("outcome"))


def parse_match_ended(payload: Mapping[str, Any]) -> MatchOutcome:
    """The outcome of a public MatchEnded payload, or :class:`MalformedResult`."""
    if payload.get("type") != "MatchEnded":
        raise MalformedResult(f"not a MatchEnded event: {payload.get('type')!r}")
    outcome = payload.get("outcome")
    if not isinstance(outcome, dict):
        raise MalformedResult("outcome must be an object")
    placements = _ints(outcome.get("placements"), "outcome.placements")
    seats = len(placements)
    if not 1 <= seats <= MAX_SEATS:
        raise MalformedResult(f"a result needs 1-{MAX_SEATS} seats, not {seats}")
    if any(p < 1 for p in placements):
        raise MalformedResult("placements start at 1")
    scores = _ints(outcome.get("scores", [0] * seats), "outcome.scores")
    if len(scores) != seats:
        raise MalformedResult(f"{len(scores)} scores for {seats} seats")
    players_raw = payload.get("players") or []
    if not isinstance(players_raw, list) or not all(isinstance(p, str) for p in players_raw):
        raise MalformedResult("players must be a list of strings")
    if players_raw and len(players_raw) != seats:
        raise MalformedResult(f"{len(players_raw)} players for {seats} seats")
    if any(len(p) > MAX_PLAYER_ID for p in players_raw):
        raise MalformedResult(f"player ids are at most {MAX_PLAYER_ID} characters")
    breakdown = outcome.get("breakdown") or {}
    if not isinstance(breakdown, dict):
        raise MalformedResult("outcome.breakdown must be an object")
    _check_storable(breakdown)
    draw = outcome.get("draw", False)
    reason = outcome.get("reason", "")
    if not isinstance(draw, bool) or not isinstance(reason, str):
        raise MalformedResult("outcome.draw must be a boolean and outcome.reason a string")
    return MatchOutcome(
        match_id=_text(payload, "match_id", MATCH_ID), game=_text(payload, "game", GAME_ID),
        mode=_text(payload, "mode"), players=tuple(players_raw), placements=placements,
        scores=scores, reason=reason, draw=draw, breakdown=breakdown,
        teams=_teams(outcome.get("teams"), seats), created_by=_creator(payload.get("created_by")),
        no_move_seats=_no_move_seats(payload.get("no_move_seats"), seats),
        dev_seed=_dev_seed(payload),
    )


@dataclass(frozen=True)
class Side:
    """Seats rated as one openskill team, with their rank (1 best; equal ranks tie)."""

    players: tuple[str, ...]
    rank: int


RANKING = 3
"""How a result becomes rated sides, stored with each result (``MatchRecord`` data,
``ranking``) so the audit's :meth:`ScoringApplication.replay_ratings` recomputes what was
rated then. 1 (the results stored before it, which have no ``ranking``): a draw ranked every
side 1st, also the seats below a shared first place in a free-for-all. 2: placements are the
ranks. 3: as 2, and a team with a no-move seat is left out whole (:func:`left_out`); 2 rated
its other members as a smaller side. The ranks of the sides left when seats are left out
became their places among themselves (:func:`places`) within 3: openskill reads only the
order of the ranks, which is the placements' order, so every rating is what it was and no
new number was needed (a test holds the two equal). A seat whose only action was its own
resignation counts as having moved in every one (services/scoring/__init__.py)."""


def sides(outcome: MatchOutcome, ranking: int = RANKING,
          absent: Set[int] | None = None) -> tuple[list[Side], str]:
    """The human sides to rate, or ``([], reason)`` when the result is not rated.

    ``absent`` is :func:`left_out` of the result at ``ranking``, when the caller has it
    already (scoring's app computes it once for the sides and the standings); computed here
    when not given.

    Teams come from ``outcome.teams`` (else each seat alone); a side's rank is its best
    place (:func:`places`: the placement, or with seats left out the place among the
    others). A draw needs no exception: the engines place the drawn seats equal (every
    seat 1st in a duel's draw or double KO), and in a free-for-all whose first place is
    shared (``draw`` set) the other seats keep their lower places. Bot seats are dropped,
    so humans are rated on their order among themselves; bots never get a rating. So are
    the seats that made no move (``no_move_seats``, :func:`no_move_refusal`), with their
    whole team (:func:`left_out`): the others are rated on their order among themselves
    when at least two human sides are left (a free-for-all played on without an absent
    seat); with fewer, the reason is the no-move one.
    """
    players = outcome.players
    if not players or any(not p for p in players):
        return [], "the match has no player ids"
    if in_several_seats(outcome):
        return [], "one player held several seats"
    groups = outcome.teams or tuple((seat,) for seat in range(outcome.seats))
    if absent is None:
        absent = left_out(outcome, ranking)
    placed = places(outcome, absent)
    found = []
    for team in groups:
        members = tuple(players[s] for s in team if not is_bot(players[s]) and s not in absent)
        if members:
            rank = 1 if ranking < 2 and outcome.draw else min(
                placed[s] for s in team if s not in absent)
            found.append(Side(members, rank))
    if len(found) < 2:
        if absent:
            return [], no_move_refusal(outcome)
        return [], "fewer than two human sides" if outcome.seats > 1 else "a solo match"
    return found, ""


def left_out(outcome: MatchOutcome, ranking: int = RANKING) -> set[int]:
    """The seats a result's no-move seats leave out of its rated sides and of every
    standing: those seats and, from ``ranking`` 3, every seat of a team one of them is on.

    Such a team did not play as the side the game pits: the service played the absent
    seat for it (a clock's defaults, a bot), and the team's result is its members' and
    that seat's together. Rated as a smaller side, its members would be credited alone
    with what the service's play won for them (openskill: one player beating two gains
    more than a duel's win) or charged for their partner's absence, and the other team
    rated against a side that was not there. Like the no-move seat itself, its partners
    count in no standing of the match."""
    absent = set(outcome.no_move_seats or ())
    if not absent or ranking < 3:
        return absent
    return absent | {s for team in outcome.teams if absent.intersection(team) for s in team}


def places(outcome: MatchOutcome, absent: Set[int] = frozenset()) -> tuple[int, ...]:
    """Each seat's place among the seats not ``absent`` (:func:`left_out`): one more than
    the number of them placed strictly better, so ties stay ties (placements 2, 3, 3 of the
    seats that moved, behind a no-move seat placed 1st, are places 1, 2, 2). With no seat
    left out, the placements as they are. An absent seat keeps its placement (nothing reads
    it). openskill reads only the order of the ranks, so these rate exactly as the
    placements among the same seats would: results stored at ``ranking`` 3 replay the same."""
    if not absent:
        return outcome.placements
    counted = [p for s, p in enumerate(outcome.placements) if s not in absent]
    return tuple(p if s in absent else 1 + sum(1 for q in counted if q < p)
                 for s, p in enumerate(outcome.placements))


def in_several_seats(outcome: MatchOutcome) -> bool:
    """Whether one player (not a bot) held several of the match's seats."""
    humans = [p for p in outcome.players if p and not is_bot(p)]
    return len(set(humans)) != len(humans)


def result_of(outcome: MatchOutcome, seat: int, absent: Set[int] = frozenset()) -> str:
    """"win" (first place, no draw), "draw" (a first place shared in a draw) or "loss".

    ``absent``: the seats :func:`left_out` of the result (no-move seats and their teams),
    which count in no standing; the others' results are read on their order among
    themselves. When no seat left out is placed at or above the best of the others, the
    engine's result stands as it is. When one is (a bot played an absent seat to first
    place, or an absent seat shares the first place), the engine's first place and its
    ``draw`` flag describe a table the standings do not count: the best of the others wins
    alone (with its teammates) or, sharing that place with another side, draws; every other
    seat loses. A first place the others share with each other as well as with the absent
    seat keeps the engine's word on it, its ``draw`` flag (without it, as Neon Knights places
    co-winners, each wins, as when the absent seat is placed below them). Without this a mover placed 2nd behind an absent seat was counted a loss in
    a match it won among those who played."""
    placements = outcome.placements
    counted = [s for s in range(outcome.seats) if s not in absent]
    if not absent or not counted:
        return _engine_result(outcome, seat)
    best = min(placements[s] for s in counted)
    if placements[seat] != best:
        return "loss"
    if all(placements[s] > best for s in absent):
        return _engine_result(outcome, seat)
    team = next((t for t in outcome.teams if seat in t), (seat,))
    shared = any(placements[s] == best for s in counted if s not in team)
    if shared and best == 1:  # the engine's own word on the first place they share
        return "draw" if outcome.draw else "win"
    return "draw" if shared else "win"


def _engine_result(outcome: MatchOutcome, seat: int) -> str:
    if outcome.placements[seat] != 1:
        return "loss"
    return "draw" if outcome.draw else "win"
