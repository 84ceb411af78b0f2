"""The matchmaker: ticket commands, the matchmaking cycle, proposals and assignments.

Open tickets (waiting or proposed) live in memory as their aggregates; every change is
saved to the event store before anyone is told about it. After a restart
:meth:`Matchmaker.recover` reloads every open ticket from the store, so waiting tickets
keep waiting (with their original queue time) and proposals keep their acceptances.

One asyncio lock orders every mutation. Calls to other services (ratings, match creation)
are made outside it.

Acceptance: a proposal waits ``accept_timeout`` seconds. At its deadline every ticket with
a player who has not accepted ends (status expired, with the reason), and the others go
back to the queue with their original waiting time. A proposal restored after a restart
gets at least a fresh ``accept_timeout``, since nobody could accept while the service was
down.

Consent: a player token acts for its own player only. It accepts for that player alone, and
auto-accept (``Config.auto_accept``) accepts a proposal only for the players the ticket's
creator was authenticated as (:func:`self_accepted`): the creator's own id for a player
token, every player for an organiser or service token. The other players of a party accept
with their own tokens. A matched ticket holds the seat tokens of all its players, but a
player token is shown only its own (:func:`shown_to`); an organiser or service token is shown
them only on a ticket it queued itself, never on one players queued (a seat token lets its
holder play the seat).

Organisers: an organiser token acts for every player of a ticket (it queues parties, accepts
for them), and a player token an organiser minted (MintPlayerToken, ``Claims.minted_by``) lets
that organiser act as the player. So whichever organiser queued a ticket, accepted its match
for its players, or queued or accepted with a token it minted (:func:`organiser_acting`; minted
tokens count unless ``Config.trust_minted_tokens``) is recorded on the ticket
(``Ticket.organisers``: its creator's token, ``ActedFor`` events), and a match with such a
ticket is created on their behalf (CreateMatchRequest.on_behalf_of_organiser): the rules
service records it as the organisers' (``created_by`` role "organiser", "via" matchmaking),
and scoring leaves it unrated, as any organiser's match, unless
NEON_SCORING_RATE_ORGANISER_MATCHES=1. The other players of such a match lose nothing but its
rating: an organiser holding a seat could otherwise feed or farm them.

A ticket holds only the players who consented to it (``Ticket.consented``): its creator (a
player token's own player; every player when an organiser or a service queued it) and those
who accepted one of its matches. A player waits in at most one ticket that holds them
(``player_ticket``: queueing or accepting elsewhere meanwhile is FAILED_PRECONDITION, naming
that ticket, which is their own). With several replicas, each knows only the tickets of the
queues it owns, so a ticket that comes to hold a player also records it on the player's
:class:`Holding` in the shared store (same transaction), which a replica reads before holding
the player: a ticket of another replica's queue still open and holding them refuses it the
same way (two replicas holding one player at once write the same version of it: the store
takes one). Whoever else a party names is only invited (``invited``):
they queue, or accept another party's match, as if it did not name them, and CreateTicket
never looks at them, so a party learns nothing of its invited players but what they do with
its own match (accept it, or "dropped: X did not accept"). A player in several open tickets
(``shared``) may be proposed in several matches at once, never twice in one: the waiting
tickets of a game that share a player are grouped apart (grouping.group_apart), the ticket
that holds them first. They can accept only the match of the ticket that holds them, or, when
none does, one match: accepting holds them there.

Declining: a player a party names without holding them may decline its invitation
(:meth:`Matchmaker.decline_invite`, DeclineInvite), with their own player token only (an
organiser or a service acts for players; it never declines for one). They leave the party: the
ticket's ``Declined`` event takes them out of its players, and the party waits on without
them. The ruling, and why: the players who did agree to play (its creator, and any who
accepted) asked for a match, and one friend's "no" should neither end their party (cancelling
did) nor cost them their place in the queue, while a party held back until its creator said
whether to go on would need a step the API does not have and would let any invitee stall it.
So the ticket keeps its waiting time, modes and seat limits, which the smaller party always
still fits (its creator is always left in it, and fewer players fit every table more did):
there is no case where it cannot go on. A match proposed to it falls through, as it seated the
player who declined: the ticket goes back to the queue (``Requeued`` then ``Declined``, one
transaction), and the match's other tickets too, told "match M fell through: a player of it
declined" (strangers learn neither who nor which ticket). A creator who wanted that friend or
nobody cancels on seeing the decline (an invited player's own CancelTicket is
FAILED_PRECONDITION, pointing to DeclineInvite: their "no" leaves the party, never ends
it); with auto-accept on, their next match is accepted for them as any other.

What each side learns: the party's players see "X declined the invitation" (the reason) and
``declined``: X's id, which the creator chose, and nothing else of X (a decline never looks at
the ticket that holds X, so whether X waits elsewhere, and where, stays theirs). X is shown
only that they declined (:func:`declined_view`, status "declined"): in the answer, and in each
later GetTicket, WatchTicket (which then ends), repeated CreateTicket and CancelTicket (which
cancels nothing) of theirs on that ticket, never the party's progress since. A ticket that
does not name the caller is NOT_FOUND, the same answer as for a ticket nobody queued; its
creator, the players of a ticket an organiser or a service queued and a player who accepted
one of its matches (consent binds) have no invitation to decline, nor has anyone on a ticket
that ended (FAILED_PRECONDITION, with the reason). A repeat is answered as the first, whatever
the ticket has become since, and stores nothing.

Invitations: a player learns which parties invited them with :meth:`Matchmaker.invitations`
(ListMyInvitations; WatchMyInvitations sends the list again each time it changes), their own
player token only: the open tickets that name them without holding them (``invited``, rebuilt
from the stored tickets after a restart), oldest first, at most 200 in one answer, with how many
there are. Each shows its ticket id, game and modes, who queued it (always a player: a party an
organiser or a service queues holds every player it names, so it invites nobody) and the
party's size, and whether a match waits for their accept (its id and time left): the mirror of
what a party learns of its invitees, who it is and how many, not its other players nor what
they did (GetTicket, which any player a ticket names may call, shows the party as its players
see it). A ticket leaves the list when the player accepts one of its matches (it holds them),
declines it, or it ends. With several replicas the replica asked answers for every queue,
asking the others for theirs; one that does not answer is left out of a ListMyInvitations
or a WatchMyInvitations, which then says it is ``partial`` and which games are missing (the
watch takes it back in when it answers again: routing.py).

A player may have at most ``Config.max_invites_per_player`` open invitations
(NEON_MATCHMAKING_MAX_INVITES_PER_PLAYER, 20 by default): a CreateTicket that would name them
past it is RESOURCE_EXHAUSTED "player X cannot be invited to another party now", and stores
nothing. A player creator waits in one ticket at a time, so each of those invitations is a
different player's, and declining frees a place. The ruling on what the refusal tells: that X
is at the limit, which a limit cannot hide from the creator it stops, and nothing else (not
how many, by whom, which tickets, nor whether X waits anywhere); without a limit anyone with a
few accounts could fill a player's list. The limit is checked by the replica that owns the
game's queue, against the invitations of the queues it owns: with R replicas a player may be
named by up to R times the limit.

Client seeds: with ``Config.client_seeds`` (NEON_MATCHMAKING_CLIENT_SEEDS, on by default) a
match is created waiting for its seats' client seeds (CreateMatch with await_client_seeds),
so that no ladder player has to trust the server's seed alone (the dice service commits to
its seed at creation; each client seed added before the start is mixed into every draw, and
``neon verify`` recomputes them all). The tickets' ``Matched`` events and a :class:`Kickoff`
(its human seats, the seed window's deadline, ``Config.seed_window`` from creation) are saved
in one transaction. Each human seat's client adds a client seed on the rules service with its
own seat token, then says so (:meth:`Matchmaker.ready_for_match`, ReadyForMatch): a player
token for its own player, the organiser or service token that queued the ticket (it holds the
seat tokens) for all of its players. The match is started (StartMatch, the service token) as
soon as every human seat is ready, or when the window ends, ready or not: a seat that added no
seed plays with the others' and the server's, and the tickets say who was not ready (bots add
none and are not waited for). A StartMatch that fails transiently is tried again (backoff, up
to RETRY_START_MAX s apart) until it succeeds; one the rules service refuses for good (the
match was abandoned meanwhile) ends the window without a start, with the reason. Kickoffs are
loaded again after a restart: a window that ended while the service was down starts its match
at once, and a start made before a crash that was not yet stored is answered "already
started" by the rules service, so the match starts once and its end is stored once. Ticket
answers and WatchTicket show the window (``seed_window``) and ``match_started``; a watch of a
matched ticket goes on until its match started (or its window ended).

Queueing limits: each player has a :class:`Standing` per game (stored, event-sourced, written
by the replica that owns the game's queue only; read from the store when not held here, so a
restart keeps it), and a CreateTicket with a player token (the caller's own player) is
refused while either limit holds; a refusal stores nothing, and a repeated CreateTicket of a
ticket already queued is answered as ever (it queues nothing):
- Cooldown: a proposed match falls through because of a player (``Struck``) when a ticket
  that holds them (a ticket a player token queued: its creator, and whoever accepted one of
  its matches) times out without their accept, or they cancel it with their player token
  while a match is proposed. ``Config.decline_limit`` of those within ``decline_window``
  seconds (NEON_MATCHMAKING_DECLINE_LIMIT, _WINDOW, _COOLDOWN: 3 in 600 s) and their
  CreateTicket for the game is FAILED_PRECONDITION for ``decline_cooldown`` seconds (300)
  from the last, the reason saying in how many seconds and at what time they may queue
  again. An invited player who does not accept, or declines (DeclineInvite), is not struck:
  a party names them without asking, and anyone could otherwise cool a stranger down by
  inviting them. The party's creator is instead (a player who queued it with their own
  token, once per fall-through): they chose whom to queue with, and a second account of
  theirs, invited and declining or not accepting each match they did not want, would
  otherwise dodge every match without a strike. Nor is a missing accept on a ticket an
  organiser or a service queued (whoever queued it accepts for its players); a player's own
  CancelTicket of it while proposed is.
  Joining a party is queueing: a player cooling down in the game is refused AcceptMatch, with
  their own token, of a party that only invited them (the same FAILED_PRECONDITION), else a
  friend's party naming them would seat them anyway; the match falls through as any an
  invited player did not accept.
- Churn: at most ``Config.join_limit`` tickets per player and game within ``join_window``
  seconds (NEON_MATCHMAKING_JOIN_LIMIT, _WINDOW: 20 in 60 s): one more is
  RESOURCE_EXHAUSTED, saying in how many seconds they may queue again (each ticket, and each
  cancel, is a stored event: a loop of CreateTicket and CancelTicket filled the store).
Organiser and service tokens are not limited (tournaments, simulations and bots queue many
tickets on purpose). Per game: a player queueing in G games may queue G times the limit.
"""

from __future__ import annotations

import asyncio
import gc
import math
import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import accumulate, chain, compress, repeat
from operator import attrgetter, itemgetter, ne, sub
from typing import Any

import grpc
from eventsourcing.domain import Aggregate

from services.matchmaking.app import MatchmakingApplication
from services.matchmaking.bot_driver import BotDriver
from services.matchmaking.catalogue import Catalogue, GameSpec
from services.matchmaking.config import Config, config_from_env
from services.matchmaking.domain import (
    BatchProposal,
    BotMatch,
    Holding,
    Kickoff,
    ProposalBatch,
    Queue,
    Standing,
    Ticket,
    bot_match_uuid,
    rows_of,
)
from services.matchmaking.grouping import (
    BOT_PREFIX,
    Formed,
    Groups,
    Tickets,
    group_apart,
    group_tickets,
)
from services.matchmaking.ratings import DEFAULT_ORDINAL, RatingSource, RatingsUnavailable
from services.matchmaking.requests import TicketRequest, check_shape, resolve
from services.matchmaking.rules_port import TRANSIENT, RulesGateway
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
from services.platform.logs import get_logger
from services.platform.tasks import held_task, outlast, run_to_end
from services.platform.tokens import Claims
from services.platform.waiting import within

INFO_REFRESH = 60.0
CREATE_ATTEMPTS = 12
"""Tries of an accepted match's CreateMatch that fail transiently before its tickets go back
to the queue: a try, then again after 0.2, 0.4, ... up to RETRY_START_MAX s (about 40 s in
all, a rules service's restart), never a cycle apart (five of those were 2.5 s)."""
ABANDON_ATTEMPTS = 6
"""Tries of the AbandonMatch of a match id given up that may have been created."""
RETRY_START_MAX = 5.0
"""Longest wait between two tries of a StartMatch that failed transiently."""
ENDED_KICKOFFS_KEPT = 4096
"""Kickoffs that ended, kept in memory for the answers about their (closed) tickets; older
ones are read from the store again when asked."""
ADMIN = ("organiser", "service")
STANDINGS_KEPT = 65536
"""Players' Standings held in memory (the most recently used); the others are read from the
store again when needed."""
MAX_INVITATIONS_LISTED = 200
WATCH_TOKEN_EXPIRED = "player token expired; watch your invitations again with a new player token"
"""How a WatchMyInvitations stream ends at its player token's expiry."""
TICKET_WATCH_TOKEN_EXPIRED = "token expired; watch the ticket again with a new token"
"""How a WatchTicket stream ends at its token's expiry."""
"""The most invitations one ListMyInvitations answer (or WatchMyInvitations message) holds."""
ENDED = ("matched", "cancelled", "expired", "declined")
"""The last status a watch sends: the ticket's end, or, to a player who declined it, that."""

__all__ = ["Config", "Matchmaker", "TicketRequest", "config_from_env"]

log = get_logger("matchmaking")


def on_behalf(organisers: Sequence[str]) -> str | None:
    """CreateMatch's ``on_behalf_of_organiser`` for a match of these organisers: their names
    one a line, leaving out empty ones (an organiser token with no name), which the rules
    service would record as an organiser named ""; "" when every one is empty (still an
    organiser's match, unrated); None when there are none."""
    if not organisers:
        return None
    return "\n".join(o for o in organisers if o)


class ResourceExhausted(ServiceError):
    code = grpc.StatusCode.RESOURCE_EXHAUSTED


@dataclass(slots=True)
class Proposal:
    match_id: str
    game: str
    mode: str
    record: Mapping[str, Any]
    """As stored: a ticket's proposal dict, or a row of a ProposalBatch."""
    deadline: float
    creating: bool = False
    attempts: int = 0
    batch_id: str = ""
    """The ProposalBatch that recorded it ("" for a proposal stored as Ticket events)."""

    @property
    def ticket_ids(self) -> Sequence[str]:
        return self.record["ticket_ids"]  # type: ignore[no-any-return]

    @property
    def seats(self) -> list[dict[str, Any]]:
        """Spelled out when asked (a cycle makes thousands of proposals; few are looked at)."""
        return list(self.record["seats"])


class RowProposal(BatchProposal):
    """A proposal a cycle made, as a :class:`Proposal` reads, and the row of its batch that its
    tickets hold (its own record): one object per match instead of two."""

    __slots__ = ("game", "mode", "deadline", "creating", "attempts")

    def __init__(self, batch: ProposalBatch, k: int, first_ticket: int, first_seat: int,
                 first_order: int = -1) -> None:
        super().__init__(batch, k, first_ticket, first_seat, first_order)
        self.game, self.mode = batch.game, batch.modes[batch.mode_of[k]]
        self.deadline = batch.deadline
        self.creating, self.attempts = False, 0

    @property
    def record(self) -> Mapping[str, Any]:
        return self

    @property
    def batch_id(self) -> str:
        return self.batch.batch_id  # type: ignore[no-any-return]

    @property
    def ticket_ids(self) -> Sequence[str]:
        b, first = self.batch, self.first_ticket
        return b.tickets[first:first + b.parties[self.k]]  # type: ignore[no-any-return]

    @property
    def seats(self) -> list[dict[str, Any]]:
        return list(self["seats"])


class Matchmaker:
    def __init__(
        self,
        app: MatchmakingApplication,
        rules: RulesGateway,
        ratings: RatingSource,
        config: Config,
        catalogue: Catalogue | None = None,
        clock: Callable[[], float] = time.time,
        on_saved: Callable[[], None] = lambda: None,
        owns: Callable[[str], bool] = lambda game: True,
        bot_secret: bytes = b"",
        replicated: bool = False,
    ) -> None:
        self.app, self.rules, self.ratings_source, self.config = app, rules, ratings, config
        self.catalogue = catalogue or Catalogue()
        self.clock, self.on_saved = clock, on_saved
        self.owns = owns
        self.replicated = replicated
        """Other replicas own other games' queues (routing.py): a player held here may be held
        by a ticket of theirs, which only the store tells (:class:`Holding`)."""
        """Whether this process owns a game's queue (services/matchmaking/routing.py): it holds,
        cycles and answers for the tickets of those games only."""
        self.tickets: dict[str, Ticket] = {}
        self.player_ticket: dict[str, str] = {}
        """The open ticket that holds each player (Ticket.consented): at most one."""
        self.invited: dict[str, set[str]] = {}
        """The open tickets that name a player without holding them (a party's creator named
        them; they have not accepted): any number, besides the one that holds them."""
        self.shared: set[str] = set()
        """Players in more than one open ticket: their waiting tickets are grouped apart."""
        self.proposals: dict[str, Proposal | RowProposal] = {}
        self.watchers: dict[str, set[asyncio.Queue[dict[str, Any]]]] = {}
        self.invite_watchers: dict[str, set[asyncio.Event]] = {}
        """WatchMyInvitations streams by player: set when that player's invitations may have
        changed (a ticket naming them was stored, proposed, or the queue reloaded)."""
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        self.bots = BotDriver(rules, self._bots_finished, config.bot_wait, bot_secret)
        self.stale = True
        """True until the open tickets are loaded, and again after a failed save."""
        self._info_checked: dict[str, float] = {}
        self._served: set[str] = set()
        """Games whose rules service has answered at least once: down now means try again."""
        self._creating: set[asyncio.Task[None]] = set()
        self._saving: set[asyncio.Task[None]] = set()
        """Saves in flight (:meth:`_save`): each runs to its end, whoever awaited it."""
        self._unsaved: dict[str, asyncio.Task[None]] = {}
        """Tickets changed in memory whose save is in flight, and that save: an answer about
        one waits for its end (:meth:`_as_stored`)."""
        self._create_slots = asyncio.Semaphore(config.create_concurrency)
        self.batches: dict[str, tuple[ProposalBatch, set[str]]] = {}
        """Open proposal batches and the match ids of their proposals still open."""
        self.queues: dict[str, Queue] = {}
        """Each game's Queue as of the last reload (or new since): its version orders cycles."""
        self._maybe_ready: set[str] = set()
        """Proposals that may have been accepted by everyone since the cycle last looked."""
        self._games: set[str] = set()
        self._rows: dict[str, _Rows] = {}
        """Each game's open tickets as the grouping's columns, kept between cycles."""
        self.cycles = 0
        self.last_cycle: dict[str, float] = {}
        self.on_cycle: Callable[[dict[str, float], dict[str, int]], None] = lambda stats, formed: None
        """Told each cycle's timings and the matches it formed by game (the metrics)."""
        self._dequeued = 0
        """Counts the ways a waiting ticket leaves the queue outside a cycle's own steps (a
        cancel, a decline, a reload): while it stands still, every group formed on a cycle's
        snapshot still has all its tickets waiting, and the cycle need not look at each again."""
        self._regrouped: set[str] = set()
        """Tickets whose party changed (a decline) since the cycle's snapshot: the groups formed
        from their rows as they were are not proposed."""
        self.kickoffs: dict[str, Kickoff] = {}
        """Matches waiting for client seeds, by match id (module docstring, "Client seeds")."""
        self.kickoff_tickets: dict[str, list[Ticket]] = {}
        """The (matched) tickets of each waiting match: their watchers are told of its changes."""
        self._ended_kickoffs: OrderedDict[str, Kickoff] = OrderedDict()
        self._starting: set[str] = set()
        """Matches whose StartMatch is in flight."""
        self._start_attempts: dict[str, tuple[int, float]] = {}
        """StartMatch calls that failed transiently: how many, and when to try again."""
        self._ratings_down: dict[str, float] = {}
        """Games whose ratings lookup has failed since then (cleared by one that answers)."""
        self._create_retry: dict[str, float] = {}
        """Accepted matches whose CreateMatch failed transiently: when to try again."""
        self._abandoning: set[asyncio.Task[None]] = set()
        """AbandonMatch calls of match ids given up after a try to create them."""
        self._tried: set[str] = set()
        """Open batches with CreateMatch tries not stored yet: the next cycle stores them, in
        one transaction (a rules service down with thousands of accepted matches would
        otherwise cost a transaction per try)."""
        self.standings: OrderedDict[tuple[str, str], Standing] = OrderedDict()
        """Players' Standings by (player, game), most recently used last (module docstring,
        "Queueing limits"): what the store has, or newer while a save is under way."""

    # ----------------------------------------------------------------- start-up

    async def recover(self) -> int:
        """Reload open tickets, their proposals and unfinished bot matches; returns how many tickets."""
        async with self.lock:
            return await self._reload()

    async def _reload(self) -> int:
        """Rebuild the in-memory queue from the store (the lock is held)."""
        self._dequeued += 1
        state = await asyncio.to_thread(self.app.load_open, self.owns)
        tickets = state.tickets
        now = self.clock()
        self.tickets.clear()
        self.player_ticket.clear()
        self.invited.clear()
        self.shared.clear()
        self.proposals.clear()
        self._create_retry.clear()
        self._tried.clear()
        self.standings.clear()  # memory may be ahead of the store (a refused save): read again
        self.batches.clear()
        self._rows.clear()
        self.queues = {q.game: q for q in state.queues}
        for t in tickets:
            self._remember(t)
        batch_of: dict[str, ProposalBatch] = {}
        matches_of: dict[str, list[str]] = {}
        latest: dict[str, tuple[BatchProposal, ProposalBatch]] = {}
        for batch in state.batches:  # oldest first: a later batch wins
            rows = batch.proposals()
            matches_of[batch.batch_id] = [p.match_id for p in rows]
            for p in rows:
                batch_of[p.match_id] = batch
                for i in p["ticket_ids"]:
                    latest[i] = (p, batch)
        for i, (p, batch) in latest.items():
            t = self.tickets.get(i)
            if t is not None and t.status == "waiting" and t.released != p["match_id"]:
                # auto-accepted (batch.accepted): for the players its creator acts for, and
                # whoever else accepted since
                _mark_proposed(t, p, sorted({*t.accepted, *self_accepted(t)}) if batch.accepted
                               else t.accepted)
        stale: list[Ticket] = []
        for t in tickets:
            if t.status != "proposed" or t.proposal is None:
                continue
            p = t.proposal
            if p["match_id"] in self.proposals:
                continue
            members = [self.tickets.get(i) for i in p["ticket_ids"]]
            if any(m is None or m.status != "proposed" or (m.proposal or {}).get("match_id")
                   != p["match_id"] for m in members):
                stale += [m for m in members if m is not None and m.status == "proposed"]
                continue
            batch = batch_of.get(p["match_id"])
            self.proposals[p["match_id"]] = Proposal(
                p["match_id"], t.game, p["mode"], p,
                max(float(p["deadline"]), now + self.config.accept_timeout),
                # the CreateMatch tries made before the restart count (ProposalBatch.tried)
                attempts=batch.tries.get(p["match_id"], 0) if batch is not None else 0,
                batch_id=batch.batch_id if batch is not None else "")
        changed: list[Aggregate] = []
        for t in stale:
            t.requeue(t.ticket_id, t.proposal["match_id"],  # type: ignore[index]
                      "the proposed match was lost in a restart")
            changed.append(t)
        for batch in state.batches:
            open_here = {m for m in matches_of[batch.batch_id] if m in self.proposals}
            if open_here:
                self.batches[batch.batch_id] = (batch, open_here)
            else:
                batch.close()
                changed.append(batch)
        if changed:
            await self._save(changed, reloading=True)
        self._maybe_ready = set(self.proposals)
        self.kickoffs = {k.match_id: k for k in state.kickoffs}
        self.kickoff_tickets = {
            k.match_id: [state.kickoff_tickets[i] for i in k.tickets if i in state.kickoff_tickets]
            for k in state.kickoffs}
        self.stale = False
        for events in self.invite_watchers.values():
            for e in events:
                e.set()
        for b in state.bots:
            self.bots.drive(b.game, b.match_id, {int(k): v for k, v in b.seats.items()})
        log.info("matchmaking state loaded", open_tickets=len(tickets),
                 proposals=len(self.proposals), open_batches=len(self.batches),
                 bot_matches=len(state.bots), awaiting_seeds=len(self.kickoffs))
        return len(tickets)

    def _remember(self, t: Ticket) -> None:
        self.tickets[t.ticket_id] = t
        self._games.add(t.game)
        ticket_id, held = t.ticket_id, t.consented
        holder, invited, shared = self.player_ticket, self.invited, self.shared
        for p in t.resolved["players"]:  # _recount, inlined: once per player queued
            if p in held:
                holder[p] = ticket_id
                if p in invited:
                    shared.add(p)
            else:
                named = invited.get(p)
                if named is None:
                    invited[p] = {ticket_id}
                    if p in holder:
                        shared.add(p)
                else:
                    named.add(ticket_id)
                    shared.add(p)
        rows = self._rows.get(t.game)
        if rows is None:
            rows = self._rows[t.game] = _Rows()
        rows.add(t)

    def _forget(self, t: Ticket) -> None:
        self.tickets.pop(t.ticket_id, None)
        rows = self._rows.get(t.game)
        if rows is not None and rows.remove(t.ticket_id):
            self._rows[t.game] = rows.rebuilt()
        for p in t.players:
            if self.player_ticket.get(p) == t.ticket_id:
                del self.player_ticket[p]
            self._uninvite(p, t.ticket_id)
            self._recount(p)

    def _leave(self, t: Ticket, player: str) -> None:
        """``player`` declined ``t``: no longer named by it, and the party's row of the
        grouping's columns is its players now (a new row, as rows are only ever appended; the
        ratings of the players left are kept)."""
        self._uninvite(player, t.ticket_id)
        self._recount(player)
        rows = self._rows.get(t.game)
        if rows is None or self.tickets.get(t.ticket_id) is not t:
            return
        slot = rows.slot.get(t.ticket_id)
        ratings = None
        if slot is not None and slot not in rows.unrated:
            columns = rows.columns
            kept = tuple(r for p, r in zip(columns.players[slot], columns.ratings[slot])
                         if p != player)
            ratings = kept if len(kept) == len(t.players) else None
        if rows.remove(t.ticket_id):
            rows = self._rows[t.game] = rows.rebuilt()
        rows.add(t, ratings)

    def _hold(self, p: str, ticket_id: str) -> None:
        """``p`` accepted a match of ``ticket_id``: the ticket holds them from now on."""
        self._uninvite(p, ticket_id)
        self.player_ticket[p] = ticket_id
        self._recount(p)

    def _uninvite(self, p: str, ticket_id: str) -> None:
        named = self.invited.get(p)
        if named is not None:
            named.discard(ticket_id)
            if not named:
                del self.invited[p]

    def _recount(self, p: str) -> None:
        if len(self.invited.get(p, ())) + (p in self.player_ticket) > 1:
            self.shared.add(p)
        else:
            self.shared.discard(p)

    def _apart(self) -> dict[str, tuple[dict[int, set[str]], set[int]]]:
        """Per game, the rows of waiting tickets that share a player with another waiting
        ticket of that game (with the players they share), and those of them that hold all
        their shared players (grouped first: group_apart)."""
        out: dict[str, tuple[dict[int, set[str]], set[int]]] = {}
        tickets = self.tickets
        for p in self.shared:
            holder = self.player_ticket.get(p)
            ids = [*self.invited.get(p, ()), *([holder] if holder is not None else [])]
            by_game: dict[str, list[str]] = {}
            for i in ids:
                t = tickets.get(i)
                if t is not None and t.status == "waiting":
                    by_game.setdefault(t.game, []).append(i)
            for game, same in by_game.items():
                rows = self._rows.get(game)
                if len(same) < 2 or rows is None:
                    continue
                shared, others = out.setdefault(game, ({}, set()))
                for i in same:
                    slot = rows.slot.get(i)
                    if slot is not None:
                        shared.setdefault(slot, set()).add(p)
                        if i != holder:
                            others.add(slot)
        return {game: (shared, set(shared) - others) for game, (shared, others) in out.items()}

    def _ready(self) -> None:
        if self.stale:
            raise Unavailable("matchmaking is reloading its queue from its store; try again")

    # ----------------------------------------------------------------- games

    async def game_spec(self, game: str) -> GameSpec | None:
        """The game's modes as its rules service describes them (refreshed every minute),
        or as registered for a game without a rules service.

        A game nobody knows is None. A game with a rules service that does not answer is
        UNAVAILABLE: its matches could not be created, so queueing for it would only churn.
        A game whose rules service has never answered since we started is FAILED_PRECONDITION:
        it is not served here (its engine is not in this build, or no rules service runs it).
        """
        now = time.monotonic()
        if now - self._info_checked.get(game, -math.inf) <= INFO_REFRESH:
            return self.catalogue.get(game)
        if not self.rules.address(game):
            return self.catalogue.get(game)
        live = await self.rules.modes(game)
        if live is None:
            if game not in self._served:
                raise FailedPrecondition(
                    f"game {game} is not served here: no rules service for it has answered")
            raise Unavailable(f"the rules service of {game} does not answer; try again later")
        self._served.add(game)
        self._info_checked[game] = now
        return self.catalogue.learn(game, live)

    # ----------------------------------------------------------------- commands

    async def create_ticket(self, claims: Claims | None, req: TicketRequest) -> dict[str, Any]:
        caller = _require(claims, "player", *ADMIN)
        players = check_shape(req)
        if caller.role == "player" and caller.player not in players:
            raise PermissionDenied("a player token may only queue a party the player is in")
        self._ready()
        await self._as_stored(req.ticket_id)  # a repeat while the first's save is under way
        existing = self.tickets.get(req.ticket_id) or await self._find(req.ticket_id)
        if existing is not None:
            return shown_to(caller, self._same_ticket(existing, req))
        spec = await self.game_spec(req.game) if req.game else None
        if spec is None:
            known = ", ".join(sorted(self.catalogue.games))
            raise InvalidArgument(f"unknown game {req.game!r}; games: {known}")
        resolved = resolve(spec, req, players)
        if not self.owns(req.game):
            raise Unavailable(f"this matchmaking replica does not own the queue of {req.game}; "
                              "try again")
        # read outside the lock, as _find: a first CreateTicket holds up no other call
        loaded = await self._standing(caller.player, req.game) if self._limited(caller) else None
        holdings = await self._holdings(acts_for(caller, players))
        async with self.lock:
            self._ready()
            raced = self.tickets.get(req.ticket_id)
            if raced is not None:  # the same id was queued while this call resolved the game
                return shown_to(caller, self._same_ticket(raced, req))
            now = self.clock()
            standing = self._keep(loaded) if loaded is not None else None
            if standing is not None:
                self._check_limits(standing, now)
            # only the players this ticket will hold (the caller's own, or every one for an
            # organiser or a service): whoever else it names may wait elsewhere, and nothing
            # here tells the caller whether they do (nor in which ticket)
            for p in acts_for(caller, players):
                other = self.player_ticket.get(p)
                if other is not None:
                    raise FailedPrecondition(f"player {p!r} already waits in ticket {other!r}")
            self._check_invitations(caller, players)
            claimed = self._claim(holdings, acts_for(caller, players), req.ticket_id, req.game,
                                  "")
            ticket = Ticket(req.ticket_id, req.requested(), resolved, now, queuer(caller))
            minter = organiser_acting(caller, self.config.trust_minted_tokens)
            if minter is not None and caller.role == "player":  # an organiser's: created_by
                ticket.act_for(req.ticket_id, minter)
            saved: list[Aggregate] = [ticket, *claimed]
            if standing is not None and self.config.join_limit:
                standing.joined(now, self.config.join_window)
                saved.append(standing)
            # remembered once stored, even if this call is cancelled meanwhile (else the stored
            # ticket would wait unseen by any cycle until a restart)
            await self._save(saved, then=lambda: self._remember(ticket))
        self.wake.set()
        log.info("ticket queued", ticket_id=req.ticket_id, game=req.game, players=len(players))
        return shown_to(caller, self.view(ticket))

    def _limited(self, caller: Claims) -> bool:
        """Whether a CreateTicket of ``caller`` is under the queueing limits: a player token's,
        when either limit is on (module docstring, "Queueing limits")."""
        c = self.config
        return caller.role == "player" and bool(c.decline_limit or c.join_limit)

    async def _standing(self, player: str, game: str) -> Standing:
        """The player's Standing in the game: the one held, else the store's (a new one for a
        player never seen there). UNAVAILABLE when the store does not answer."""
        key = (player, game)
        held = self.standings.get(key)
        if held is not None:
            self.standings.move_to_end(key)
            return held
        try:
            found = await asyncio.to_thread(self.app.find_standing, player, game)
        except Exception as err:
            log.error("standing lookup failed", game=game, error=repr(err))
            raise Unavailable("the matchmaking store does not answer; try again") from None
        return found if found is not None else Standing(player, game)

    def _keep(self, standing: Standing) -> Standing:
        """(The lock is held.) The Standing held for its player and game: ``standing`` (just
        read) unless another call holds one already, which is as new or newer."""
        key = (standing.player, standing.game)
        held = self.standings.get(key)
        if held is not None:
            return held
        kept = self.standings
        kept[key] = standing
        while len(kept) > STANDINGS_KEPT:  # a change is saved before the lock is let go
            kept.popitem(last=False)
        return standing

    def _check_limits(self, s: Standing, now: float) -> None:
        """FAILED_PRECONDITION while the player cools down, RESOURCE_EXHAUSTED past the churn
        limit; each reason says when they may queue for the game again."""
        self._check_cooldown(s, now)
        c = self.config
        if c.join_limit:
            recent = [t for t in s.joins if t > now - c.join_window]
            if len(recent) >= c.join_limit:
                again = recent[-c.join_limit] + c.join_window
                raise ResourceExhausted(
                    f"player {s.player!r} queued {len(recent)} tickets for {s.game} within "
                    f"{c.join_window:g} s (at most {c.join_limit}): they may queue again in "
                    f"{_seconds_left(again - now)} s (at {_utc(again)})")

    def _check_cooldown(self, s: Standing, now: float) -> None:
        """FAILED_PRECONDITION while the player cools down in the game (saying when they may
        queue again): for CreateTicket, and for AcceptMatch of a party that only invited them
        (joining a friend's party is queueing too)."""
        c = self.config
        until = cooldown_until(s.strikes, c.decline_limit, c.decline_window, c.decline_cooldown)
        if now < until:
            raise FailedPrecondition(
                f"player {s.player!r} may queue for {s.game} again in {_seconds_left(until - now)}"
                f" s (at {_utc(until)}): {c.decline_limit} proposed match"
                f"{'es' if c.decline_limit != 1 else ''} fell through because "
                f"of them within {c.decline_window:g} s (not accepted in time, cancelled while "
                "proposed, or their party's invited player declined or did not accept)")

    async def _strike(self, strikes: Sequence[tuple[str, str, str]],
                      now: float) -> list[Aggregate]:
        """(The lock is held.) Each (player, game, match id): the match fell through because of
        the player (module docstring, "Queueing limits"); their Standings, to save with the
        change. Never raises: a Standing the store cannot give is left unstruck (logged), and
        the change it came with is saved as ever."""
        c = self.config
        if not c.decline_limit:
            return []
        held = self.standings
        missing = sorted({(p, g) for p, g, _ in strikes if (p, g) not in held})
        found: dict[tuple[str, str], Standing | None] = {}
        if missing:  # in one thread: a cycle may time out thousands of proposals at once

            def read() -> None:
                for key in missing:
                    found[key] = self.app.find_standing(*key)

            try:
                await asyncio.to_thread(read)
            except Exception as err:  # those read are counted; the others are not
                log.warning("fall-throughs were not counted: the store does not answer",
                            players=len(missing) - len(found), error=repr(err))
        out: dict[tuple[str, str], Standing] = {}
        for player, game, match_id in strikes:
            key = (player, game)
            s = out.get(key) or held.get(key)
            if s is None:
                if key not in found:  # not read (the store did not answer)
                    continue
                s = self._keep(found[key] or Standing(player, game))
            s.struck(now, match_id, c.decline_window + c.decline_cooldown)
            out[key] = s
        return list(out.values())

    def _check_invitations(self, caller: Claims, players: Sequence[str]) -> None:
        """RESOURCE_EXHAUSTED if the ticket would invite a player (name them without holding
        them) who already has ``Config.max_invites_per_player`` open invitations (module
        docstring, "Invitations"). The reason tells the creator that much and no more: not how
        many, by whom, nor whether the player waits anywhere."""
        cap = self.config.max_invites_per_player
        held = set(acts_for(caller, players))
        for p in players:
            if p not in held and len(self.invited.get(p, ())) >= cap:
                raise ResourceExhausted(
                    f"player {p!r} cannot be invited to another party now: a player may have "
                    f"at most {cap} open invitations; queue without them, or try again later")

    def _same_ticket(self, existing: Ticket, req: TicketRequest) -> dict[str, Any]:
        if existing.requested != req.requested():
            raise AlreadyExists(f"ticket {req.ticket_id!r} exists with other content")
        return self.view(existing)

    async def cancel_ticket(self, claims: Claims | None, ticket_id: str) -> dict[str, Any]:
        async with self.lock:
            ticket = await self._owned(claims, ticket_id)
            if ticket.status == "cancelled" or _has_declined(claims, ticket):
                return shown_to(claims, self.view(ticket))
            if not ticket.is_open:
                raise FailedPrecondition(f"ticket {ticket_id!r} is already {ticket.status}")
            me = claims.player  # type: ignore[union-attr]
            if claims.role == "player" and me not in ticket.consented:  # type: ignore[union-attr]
                # invited only: their "no" leaves the party, it never ends it ("Declining")
                raise FailedPrecondition(
                    f"player {me!r} was named by ticket {ticket_id!r} without agreeing to play "
                    "in it: DeclineInvite leaves its party, which goes on without them; only a "
                    "player it holds (its creator, or one who accepted its match) cancels it")
            proposal = self.proposals.get((ticket.proposal or {}).get("match_id", ""))
            if proposal is not None and proposal.creating:
                raise FailedPrecondition("the match of this ticket is being created")
            who = claims.player or claims.role  # type: ignore[union-attr]
            now = self.clock()
            changed: list[Aggregate] = []
            if proposal is not None and claims.role == "player":  # type: ignore[union-attr]
                # a fall-through for the others: counted against the player who cancelled
                changed += await self._strike([(me, ticket.game, proposal.match_id)], now)
            if ticket.status == "waiting":
                self._dequeued += 1
            ticket.cancel(ticket_id, f"cancelled by {who}", now)
            changed.append(ticket)
            if proposal is not None:
                # the other tickets are strangers': their players learn no other ticket's id
                changed += self._dissolve(proposal, {ticket_id},
                                          f"match {proposal.match_id} fell through: a ticket "
                                          "of it was cancelled")
            await self._save(changed)
        log.info("ticket cancelled", ticket_id=ticket_id)
        return shown_to(claims, self.view(ticket))

    async def get_ticket(self, claims: Claims | None, ticket_id: str) -> dict[str, Any]:
        return shown_to(claims, self.view(await self._owned(claims, ticket_id)))

    async def accept_match(self, claims: Claims | None, ticket_id: str, match_id: str) -> dict[str, Any]:
        if not match_id:
            raise InvalidArgument("match_id is required")
        # read outside the lock, as CreateTicket does: the Standing of a player accepting a
        # party's invitation (joining it is queueing: "Queueing limits")
        loaded = await self._joining_standing(claims, ticket_id)
        holdings = await self._joining_holdings(claims, ticket_id)
        async with self.lock:
            ticket = await self._owned(claims, ticket_id)
            if _has_declined(claims, ticket):
                raise FailedPrecondition(
                    f"player {claims.player!r} declined the invitation of ticket "  # type: ignore[union-attr]
                    f"{ticket_id!r}: they are not in its party")
            if ticket.status == "matched" and (ticket.assignment or {}).get("match_id") == match_id:
                return shown_to(claims, self.view(ticket))
            if ticket.status != "proposed" or (ticket.proposal or {}).get("match_id") != match_id:
                raise FailedPrecondition(
                    f"ticket {ticket_id!r} is {ticket.status}, not proposed match {match_id!r}")
            players = acts_for(claims, ticket.players)  # type: ignore[arg-type]
            new = [p for p in players if p not in ticket.accepted]
            late = self.clock() - self._accept_deadline(ticket)
            if new and late >= 0:  # the next cycle drops it: an accept now would race that
                raise FailedPrecondition(
                    f"the time to accept match {match_id!r} ran out {late:.1f} s ago: it falls "
                    "through: this ticket is dropped, the others go back to the queue")
            if loaded is not None and loaded.game == ticket.game and \
                    claims.player in new and claims.player not in ticket.consented:  # type: ignore[union-attr]
                # a player cooling down in the game does not play it through a friend's party
                self._check_cooldown(self._keep(loaded), self.clock())
            for p in new:  # accepting holds the player here: they may wait in one ticket only
                other = self.player_ticket.get(p, ticket_id)
                if other != ticket_id:
                    raise FailedPrecondition(
                        f"player {p!r} already waits in ticket {other!r}: it must end (or be "
                        f"cancelled) before {p!r} can play in this one")
            joining = [p for p in new if p not in ticket.consented]
            if self.replicated and not set(joining) <= set(holdings):  # changed meanwhile
                raise Unavailable(f"ticket {ticket_id!r} changed meanwhile; try again")
            claimed = self._claim(holdings, joining, ticket_id, ticket.game,
                                  ": it must end (or be cancelled) before {p!r} can play in "
                                  "this one")
            if new:
                ticket.accept(ticket_id, match_id, players)
                organiser = organiser_acting(claims, self.config.trust_minted_tokens)  # type: ignore[arg-type]
                if organiser is not None and organiser not in ticket.organisers:
                    ticket.act_for(ticket_id, organiser)
                # held and looked at once stored, even if this call is cancelled meanwhile
                # (else a match accepted by everyone would never be created: a proposal
                # accepted by all is not timed out either)
                await self._save([ticket, *claimed],
                                 then=lambda: self._accepted_by(ticket_id, match_id, new))
            else:
                self._accepted_by(ticket_id, match_id, [])
        return shown_to(claims, self.view(ticket))

    async def _joining_standing(self, claims: Claims | None, ticket_id: str) -> Standing | None:
        """The Standing of a player token's own player in the game of ``ticket_id`` when its
        AcceptMatch would join a party that only invited them (under the cooldown, as a
        CreateTicket of theirs is); None otherwise, or when the ticket is not found (the call
        says why under the lock)."""
        if claims is None or claims.role != "player" or not self.config.decline_limit \
                or self.stale:
            return None
        ticket = self.tickets.get(ticket_id)
        if ticket is None:
            try:
                ticket = await self._find(ticket_id)
            except Unavailable:
                return None
        me = claims.player
        if ticket is None or me not in ticket.players or me in ticket.consented:
            return None
        return await self._standing(me, ticket.game)

    async def _joining_holdings(self, claims: Claims | None,
                                ticket_id: str) -> dict[str, tuple[Holding, Ticket | None]]:
        """The :meth:`_holdings` of the players an AcceptMatch of ``claims`` on ``ticket_id``
        would hold anew (those it acts for that the ticket does not hold yet); none on one
        replica, or when the ticket is not found (the call says why under the lock)."""
        if not self.replicated or claims is None or claims.role not in ("player", *ADMIN) \
                or self.stale:
            return {}
        ticket = self.tickets.get(ticket_id) or await self._find(ticket_id)
        if ticket is None:
            return {}
        held = ticket.consented
        return await self._holdings([p for p in acts_for(claims, ticket.players)
                                     if p not in held])

    async def _holdings(self, players: Sequence[str]) -> dict[str, tuple[Holding, Ticket | None]]:
        """With several replicas (``replicated``): each player's :class:`Holding` as stored (a
        new one for a player never held), and the ticket it names when another replica owns
        its queue (as stored: that replica saves each change before telling anyone), read
        outside the lock; {} on one replica, whose memory knows every ticket. UNAVAILABLE when
        the store does not answer."""
        if not self.replicated or not players:
            return {}

        def read() -> dict[str, tuple[Holding, Ticket | None]]:
            out: dict[str, tuple[Holding, Ticket | None]] = {}
            for p in players:
                h = self.app.find_holding(p) or Holding(p)
                other = self.app.find(h.ticket_id) if h.ticket_id and not self.owns(h.game) \
                    else None
                out[p] = (h, other)
            return out

        try:
            return await asyncio.to_thread(read)
        except Exception as err:
            log.error("holding lookup failed", players=len(players), error=repr(err))
            raise Unavailable("the matchmaking store does not answer; try again") from None

    def _claim(self, holdings: Mapping[str, tuple[Holding, Ticket | None]],
               players: Sequence[str], ticket_id: str, game: str, more: str) -> list[Holding]:
        """(The lock is held; memory has refused a player held here.) ``players`` come to be
        held by ``ticket_id``: FAILED_PRECONDITION, "player X already waits in ticket T"
        (``more`` follows, formatted with ``p``), when another replica's open ticket holds one
        of them, else their Holdings naming ``ticket_id``, to save with the change. None on
        one replica."""
        if not self.replicated:
            return []
        claimed = []
        for p in players:
            h, other = holdings[p]
            if other is not None and other.ticket_id != ticket_id and other.is_open \
                    and p in other.consented and not self.owns(other.game):
                raise FailedPrecondition(f"player {p!r} already waits in ticket "
                                         f"{other.ticket_id!r}" + more.format(p=p))
            h.hold(ticket_id, game)
            claimed.append(h)
        return claimed

    def _accepted_by(self, ticket_id: str, match_id: str, players: Sequence[str]) -> None:
        """``players`` accepted ``match_id`` for ``ticket_id`` (stored): the ticket holds them,
        and the match is created by the next cycle if everyone accepted."""
        for p in players:
            self._hold(p, ticket_id)
        proposal = self.proposals.get(match_id)
        if proposal is not None and self._accepted(proposal):
            self._maybe_ready.add(match_id)
            self.wake.set()

    async def decline_invite(self, claims: Claims | None, ticket_id: str) -> dict[str, Any]:
        """The caller's own player declines the invitation of a party that names them without
        holding them (module docstring, "Declining"); the ticket as they are shown it now."""
        if claims is None:
            raise Unauthenticated("this call needs a bearer token")
        if claims.role != "player":
            raise PermissionDenied("this call needs the invited player's own player token, "
                                   f"not {claims.role}: only they may decline their invitation")
        if not ticket_id:
            raise InvalidArgument("ticket_id is required")
        me = claims.player
        self._ready()
        # the store is read (for a ticket not held here) outside the lock, as CreateTicket
        # does: a caller naming ticket ids nobody queued holds up no other call
        found = self.tickets.get(ticket_id) or await self._find(ticket_id)
        async with self.lock:
            self._ready()
            ticket = self.tickets.get(ticket_id) or found
            if ticket is not None and me in ticket.declined:  # a repeat: answered as the first
                return shown_to(claims, self.view(ticket))
            if ticket is None or me not in ticket.players:  # a stranger's: as if there were none
                raise NotFound(f"no invitation for {me!r} in ticket {ticket_id!r}")
            if not ticket.is_open:
                raise FailedPrecondition(f"ticket {ticket_id!r} is already {ticket.status}: "
                                         "there is no invitation left to decline")
            role, _, creator = ticket.created_by.partition(":")
            if role in ADMIN:
                raise FailedPrecondition(
                    f"ticket {ticket_id!r} was queued by an organiser or a service for every "
                    "player it names: there is no invitation to decline (CancelTicket ends it)")
            if me == creator:
                raise FailedPrecondition(
                    f"player {me!r} queued ticket {ticket_id!r}: there is no invitation to "
                    "decline (CancelTicket withdraws the ticket)")
            if me in ticket.consented:
                raise FailedPrecondition(
                    f"player {me!r} accepted a match of ticket {ticket_id!r} and plays in its "
                    "party: an invitation accepted can no longer be declined (CancelTicket "
                    "ends the ticket for the whole party)")
            match_id = (ticket.proposal or {}).get("match_id", "") \
                if ticket.status == "proposed" else ""
            proposal = self.proposals.get(match_id) if match_id else None
            if proposal is not None and proposal.creating:
                raise FailedPrecondition("the match of this ticket is being created")
            reason = f"{me} declined the invitation"
            changed: list[Aggregate] = [ticket]
            if proposal is not None:  # a fall-through: counted against the party's creator
                changed += await self._strike([(creator, ticket.game, match_id)], self.clock())
            if match_id:  # the match seated them: it falls through, for every ticket of it
                ticket.requeue(ticket_id, match_id, f"match {match_id} fell through: {reason}")
                if proposal is not None:
                    changed += self._dissolve(proposal, {ticket_id}, f"match {match_id} fell "
                                                                     "through: a player of it declined")
            ticket.decline(ticket_id, me, reason)
            self._dequeued += 1
            self._regrouped.add(ticket_id)
            # the party's row is its players without them once stored, even if this call is
            # cancelled meanwhile (else a cycle would seat them again)
            await self._save(changed, then=lambda: self._leave(ticket, me))
        self.wake.set()
        log.info("invitation declined", ticket_id=ticket_id)
        return shown_to(claims, self.view(ticket))

    def invitations(self, claims: Claims | None, limit: int = 0) -> dict[str, Any]:
        """The caller's open invitations, oldest first, at most ``limit`` (0: 200), and how
        many there are (module docstring, "Invitations"): their own player token only."""
        me = _invitee(claims).player
        limit = _invitation_limit(limit)
        self._ready()
        now = self.clock()
        tickets = self.tickets
        found = [t for t in map(tickets.get, self.invited.get(me, ()))
                 if t is not None and t.is_open and me in t.players and me not in t.consented]
        found.sort(key=lambda t: (t.queued_at, t.ticket_id))
        return {"invitations": [self._invitation(t, now) for t in found[:limit]],
                "total": len(found)}

    async def watch_invitations(self, claims: Claims | None,
                                limit: int = 0) -> AsyncIterator[dict[str, Any]]:
        """:meth:`invitations`, then again each time it changes (not for the clock alone:
        waiting and accept times are as of each message), until the caller's token expires:
        then UNAUTHENTICATED (``WATCH_TOKEN_EXPIRED``), as a rules service's streams end."""
        current = self.invitations(claims, limit)
        assert claims is not None  # invitations() refused a call without a token
        me = claims.player
        loop = asyncio.get_running_loop()
        ends = loop.time() + max(0.0, claims.refused_from - time.time())
        changed = asyncio.Event()
        self.invite_watchers.setdefault(me, set()).add(changed)
        try:
            yield current
            last = _invitations_key(current)
            while True:
                try:
                    await within(changed.wait(), max(0.0, ends - loop.time()))
                except TimeoutError:
                    log.info("invitations watch ended: its token expired")
                    raise Unauthenticated(WATCH_TOKEN_EXPIRED) from None
                changed.clear()
                if self.stale:  # reloading: its end sets the event again
                    continue
                current = self.invitations(claims, limit)
                key = _invitations_key(current)
                if key != last:
                    last = key
                    yield current
        finally:
            events = self.invite_watchers.get(me)
            if events is not None:
                events.discard(changed)
                if not events:
                    del self.invite_watchers[me]

    def _accept_deadline(self, t: Ticket) -> float:
        """When the proposal ``t`` waits in (status "proposed") must be accepted: as this
        replica holds it, else as the ticket recorded it."""
        p = self.proposals.get(t.proposal["match_id"])  # type: ignore[index]
        return p.deadline if p is not None else float(t.proposal["deadline"])  # type: ignore[index]

    def _invitation(self, t: Ticket, now: float) -> dict[str, Any]:
        """What an invited player is shown of a party in their list: who queued it, its
        size, its game and modes, whether a match waits for their accept; not its other
        players nor what they did (GetTicket shows the ticket to any player of it)."""
        role, _, creator = t.created_by.partition(":")
        match_id, left = "", 0.0
        if t.status == "proposed" and t.proposal is not None:
            match_id = t.proposal["match_id"]
            left = max(0.0, self._accept_deadline(t) - now)
        return {"ticket_id": t.ticket_id, "game": t.game, "modes": list(t.resolved["modes"]),
                "invited_by": creator if role == "player" else _SOMEONE.get(role, "someone"),
                "party_size": len(t.players), "status": t.status, "match_id": match_id,
                "accept_seconds_left": left, "waited_seconds": max(0.0, now - t.queued_at),
                "queued_at_ms": int(t.queued_at * 1000)}

    def _invites_changed(self, players: Iterator[str] | Sequence[str]) -> None:
        watchers = self.invite_watchers
        for p in players:
            events = watchers.get(p)
            if events is not None:
                for e in events:
                    e.set()

    async def ready_for_match(self, claims: Claims | None, ticket_id: str,
                              match_id: str) -> dict[str, Any]:
        """The caller's seats of a matched ticket are ready for its match to start (their
        client seeds are added, or they add none): a player token for its own player, the
        organiser or service token that queued the ticket (and holds its seat tokens) for all
        its players. The match starts here when that makes every human seat ready (module
        docstring, "Client seeds"). A repeat, or a call once the match started or for a
        match that never waited for seeds, answers the ticket as it is and stores nothing."""
        caller = _require(claims, "player", *ADMIN)
        if not ticket_id:
            raise InvalidArgument("ticket_id is required")
        if not match_id:
            raise InvalidArgument("match_id is required")
        self._ready()
        found = self.tickets.get(ticket_id) or await self._find(ticket_id)
        start: Kickoff | None = None
        async with self.lock:
            self._ready()
            ticket = self.tickets.get(ticket_id) or found
            if ticket is None:
                raise NotFound(f"no ticket {ticket_id!r}")
            if caller.role == "player":
                if caller.player in ticket.declined:
                    raise FailedPrecondition(
                        f"player {caller.player!r} declined the invitation of ticket "
                        f"{ticket_id!r}: they have no seat in its match")
                if caller.player not in ticket.players:
                    raise PermissionDenied(f"ticket {ticket_id!r} belongs to other players")
                players = [caller.player]
            elif ticket.created_by == queuer(caller):
                players = ticket.players
            else:
                raise PermissionDenied(
                    f"ticket {ticket_id!r} was not queued by this {caller.role} token: only its "
                    "players, or the organiser or service that queued it (and holds its seat "
                    "tokens), say its seats are ready")
            a = ticket.assignment
            if ticket.status != "matched" or a is None:
                raise FailedPrecondition(
                    f"ticket {ticket_id!r} is {ticket.status}, not matched: there is no match "
                    "to be ready for yet (WatchTicket tells when it is matched)")
            if a["match_id"] != match_id:
                raise NotFound(f"ticket {ticket_id!r} has no match {match_id!r} (it was matched "
                               f"to {a['match_id']!r})")
            kickoff = self.kickoffs.get(match_id)
            if kickoff is not None and kickoff.game == ticket.game:
                new = [p for p in players if p in kickoff.players and p not in kickoff.ready]
                if new:
                    kickoff.say_ready(new)
                    await self._save([kickoff])
                    log.info("seats ready", match_id=match_id, players=len(new),
                             waiting_for=len(kickoff.waiting_for))
                if kickoff.everyone_ready:
                    start = kickoff
        if start is not None:
            # in a task of its own, awaited shielded: a caller that gives up (deadline, hang
            # up) while the start's end is being saved leaves it to run to its end (cut, the
            # kickoff stayed ended in memory among the waiting ones, and a cycle started it
            # again: a second Kickoff.Ended); held as the cycle's starts are (drain waits)
            await run_to_end(self._creating, self._start_kickoff(start))
        return shown_to(claims, self.view(ticket))

    async def watch(self, claims: Claims | None, ticket_id: str) -> AsyncIterator[dict[str, Any]]:
        """The ticket as the caller is shown it, then again at each change, until it ends,
        or the caller's token expires: then UNAUTHENTICATED (a match found later, with the
        caller's seat token, is not sent to an expired token)."""
        ticket = await self._owned(claims, ticket_id)
        assert claims is not None  # _owned refused a call without a token
        loop = asyncio.get_running_loop()
        ends = loop.time() + max(0.0, claims.refused_from - time.time())
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.watchers.setdefault(ticket_id, set()).add(queue)
        try:
            current = shown_to(claims, self.view(self.tickets.get(ticket_id, ticket)))
            yield current
            while not _watch_over(current):  # "declined": for the player who did
                try:
                    view = await within(queue.get(), max(0.0, ends - loop.time()))
                except TimeoutError:
                    log.info("ticket watch ended: its token expired", ticket_id=ticket_id)
                    raise Unauthenticated(TICKET_WATCH_TOKEN_EXPIRED) from None
                current = shown_to(claims, view)
                yield current
        finally:
            listeners = self.watchers.get(ticket_id)
            if listeners is not None:
                listeners.discard(queue)
                if not listeners:
                    del self.watchers[ticket_id]

    async def _owned(self, claims: Claims | None, ticket_id: str) -> Ticket:
        """The ticket, if the caller may see it: one of its players, an organiser or a service.

        An unknown ticket id is NOT_FOUND; a ticket of other players is PERMISSION_DENIED
        (the ids are client-chosen and idempotent, so their existence is no secret). A player
        who declined its invitation may still ask: they are shown only that they did.
        """
        caller = _require(claims, "player", *ADMIN)
        if not ticket_id:
            raise InvalidArgument("ticket_id is required")
        self._ready()
        await self._as_stored(ticket_id)  # (none under the lock: saves end before it is let go)
        ticket = self.tickets.get(ticket_id) or await self._find(ticket_id)
        if ticket is None:
            raise NotFound(f"no ticket {ticket_id!r}")
        if caller.role == "player" and caller.player not in ticket.players \
                and caller.player not in ticket.declined:
            raise PermissionDenied(f"ticket {ticket_id!r} belongs to other players")
        return ticket

    async def _find(self, ticket_id: str) -> Ticket | None:
        """The stored ticket; for one matched to a match that waited for client seeds, its
        Kickoff is read too, unless held here (the answers about the ticket show it)."""
        try:
            t = await asyncio.to_thread(self.app.find, ticket_id)
            a = t.assignment if t is not None else None
            if a is not None and "seed_deadline" in a and self._kickoff_of(a) is None:
                k = await asyncio.to_thread(self.app.find_kickoff, a["match_id"])
                if k is not None and k.ended and k.match_id not in self.kickoffs:
                    self._keep_ended(k)
        except Exception as err:  # the store is down: say so rather than INTERNAL
            log.error("ticket lookup failed", ticket_id=ticket_id, error=repr(err))
            raise Unavailable("the matchmaking store does not answer; try again") from None
        return t

    def _kickoff_of(self, assignment: Mapping[str, Any]) -> Kickoff | None:
        match_id = assignment["match_id"]
        return self.kickoffs.get(match_id) or self._ended_kickoffs.get(match_id)

    def _keep_ended(self, k: Kickoff) -> None:
        kept = self._ended_kickoffs
        kept[k.match_id] = k
        kept.move_to_end(k.match_id)
        while len(kept) > ENDED_KICKOFFS_KEPT:
            kept.popitem(last=False)

    # ----------------------------------------------------------------- the cycle

    async def run(self) -> None:
        """Cycle every ``interval`` seconds, or sooner when woken."""
        while True:
            try:
                await self.cycle()
            except asyncio.CancelledError:
                raise
            except Exception as err:  # keep matchmaking through a store or network hiccup
                log.error("matchmaking cycle failed", error=repr(err))
            self.wake.clear()
            try:
                await within(self.wake.wait(), timeout=self.config.interval)
            except TimeoutError:
                pass

    async def cycle(self) -> Sequence[Formed]:
        """Expire, time out proposals, group the waiting, propose; start accepted matches.

        The grouping runs in a thread outside the lock, on a snapshot, so that ticket calls
        are not held up by a large queue; a group is proposed only if all its tickets still
        wait when the lock is taken again.
        """
        t0, c0 = time.perf_counter(), time.process_time()
        if self.stale:
            async with self.lock:
                await self._reload()
        await self._learn_games()
        await self._rate_new_tickets()
        t1, c1 = time.perf_counter(), time.process_time()
        with _gc_paused():  # a cycle makes a few objects per ticket: no collections meanwhile
            async with self.lock:
                now = self.clock()
                waiting = {game: rows.waiting() for game, rows in self._rows.items()}
                strikes: list[tuple[str, str, str]] = []
                changed = self._expire(now, waiting) + self._time_out_proposals(now, strikes)
                if strikes:
                    changed += await self._strike(strikes, now)
                if changed:
                    await self._save(changed)
                    waiting.clear()  # tickets left or came back: listed again
                if self._tried:
                    tried = [self.batches[b][0] for b in self._tried if b in self.batches]
                    self._tried.clear()
                    if tried:
                        await self._save(tried)
                apart = self._apart() if self.shared else {}
                pools = {game: (*rows.pool(now, waiting.get(game)), apart.get(game))
                         for game, rows in self._rows.items()}
                holders = {game: rows.holder for game, rows in self._rows.items()}
                dequeued = self._dequeued
                self._regrouped.clear()
            t2, c2 = time.perf_counter(), time.process_time()
            waiting_count = sum(len(pool[1]) for pool in pools.values())
            groups = await asyncio.to_thread(self._group, pools)
            del pools
            t3, c3 = time.perf_counter(), time.process_time()
            async with self.lock:
                if dequeued == self._dequeued:  # no ticket of the snapshot has left the queue
                    formed = groups
                else:
                    waiting = {i for i, t in self.tickets.items() if t.status == "waiting"}
                    waiting -= self._regrouped  # grouped as the party was
                    formed = {game: g.select([k for k in range(len(g))
                                              if waiting.issuperset(g.ticket_ids(k))])
                              for game, g in groups.items()}
                formed = {game: g for game, g in formed.items() if len(g)}
                if formed:
                    await self._propose(formed, holders, self.clock())
                ready = self._ready_to_create()
                due = self._kickoffs_due(self.clock()) if self.kickoffs else []
        for work in [*map(self._create, ready), *map(self._start_kickoff, due)]:
            held_task(self._creating, work)
        t4, c4 = time.perf_counter(), time.process_time()
        self.cycles += 1
        self.last_cycle = {"ratings": t1 - t0, "snapshot": t2 - t1, "grouping": t3 - t2,
                           "propose_and_save": t4 - t3, "total": t4 - t0,
                           "cpu_snapshot": c2 - c1, "cpu_grouping": c3 - c2,
                           "cpu_propose_and_save": c4 - c3, "cpu_total": c4 - c0,
                           "waiting": waiting_count,
                           "groups": sum(map(len, formed.values()))}
        self.on_cycle(self.last_cycle, {game: len(g) for game, g in formed.items()})
        return _Joined(list(formed.values()))

    def _ready_to_create(self) -> list[Proposal | RowProposal]:
        """Proposals accepted by everyone since the last look, now marked as being created."""
        ready = []
        if self._create_retry:
            now = self.clock()
            for match_id, at in list(self._create_retry.items()):
                if now >= at:
                    del self._create_retry[match_id]
                    self._maybe_ready.add(match_id)
        for match_id in self._maybe_ready:
            p = self.proposals.get(match_id)
            if p is not None and not p.creating and self._accepted(p):
                p.creating = True
                ready.append(p)
        self._maybe_ready.clear()
        return ready

    async def _learn_games(self) -> None:
        """Games of restored tickets that the catalogue only learns from their rules service."""
        for game in self._games - set(self.catalogue.games):
            try:
                await self.game_spec(game)
            except Unavailable:
                pass

    async def _rate_new_tickets(self) -> None:
        todo: dict[str, list[Ticket]] = {}
        for game, rows in self._rows.items():
            for slot in rows.unrated:
                t = rows.holder[slot]
                if t.status == "waiting":
                    todo.setdefault(game, []).append(t)
        for game, rated in todo.items():
            players = sorted({p for t in rated for p in t.players})
            try:
                found = await self.ratings_source.ratings(game, players)
                self._ratings_down.pop(game, None)
            except Exception as err:  # ratings are a preference, never a reason to stall long
                if not isinstance(err, RatingsUnavailable):  # (that one warned already)
                    log.warning("ratings lookup failed", game=game, error=repr(err))
                # the tickets wait unrated (looked up again each cycle) for a few seconds of
                # an outage, so that a scoring restart does not take them as new players for
                # good (grouped with anyone near the default, however far their ratings are)
                down = self._ratings_down.setdefault(game, self.clock())
                if self.clock() - down < ratings_grace(self.config):
                    continue
                found = {}
            # the rows as they are now: the columns may have been built anew during the lookup
            # (the rows of the new ones would otherwise stay unrated and be looked up again)
            rows = self._rows.get(game)
            if rows is None:
                continue
            slot_of = rows.slot
            for t in rated:
                slot = slot_of.get(t.ticket_id)
                if slot is not None:
                    rows.rate(slot, tuple(float(found.get(p, DEFAULT_ORDINAL)) for p in t.players))

    def _expire(self, now: float, waiting: dict[str, list[int]]) -> list[Ticket]:
        """Expire the tickets that waited too long; ``waiting``: each game's waiting rows."""
        out = []
        ttl = self.config.ticket_ttl
        for game, rows in self._rows.items():
            live = waiting[game]
            queued_at = rows.queued_at
            if not live or now - min(map(queued_at.__getitem__, live)) < ttl:
                continue
            for slot in live:
                t = rows.holder[slot]
                if now - t.queued_at >= ttl:
                    t.expire(t.ticket_id, f"no match found within {ttl:g} s", now)
                    out.append(t)
        return out

    def _time_out_proposals(self, now: float,
                            strikes: list[tuple[str, str, str]]) -> list[Aggregate]:
        """End the proposals past their deadline; ``strikes`` is told each (player, game,
        match id) whose missing accept ended a ticket that held them, one a player queued
        (module docstring, "Queueing limits")."""
        changed: list[Aggregate] = []
        for p in list(self.proposals.values()):
            if p.creating or now < p.deadline or self._accepted(p):
                continue
            late = {i for i in p.ticket_ids if not self.tickets[i].fully_accepted}
            missing = sorted(pl for i in late for pl in self.tickets[i].players
                             if pl not in self.tickets[i].accepted)
            for i in sorted(late):
                t = self.tickets[i]
                if t.created_by.startswith("player:"):  # held and did not accept
                    held = t.consented
                    struck = [pl for pl in held if pl not in t.accepted]
                    creator = t.created_by.partition(":")[2]
                    if creator not in struck and any(pl not in held and pl not in t.accepted
                                                     for pl in t.players):
                        struck.append(creator)  # an invitee of theirs: the party's creator
                    strikes += [(pl, t.game, p.match_id) for pl in struck]
                t.expire(i, f"dropped: {', '.join(pl for pl in t.players if pl in missing)} did "
                            f"not accept match {p.match_id} within {self.config.accept_timeout:g} s",
                         now)
                changed.append(t)
            # the other tickets are strangers': told neither who nor which ticket, as for a
            # cancel or a decline (the late tickets' own players are told who, above)
            changed += self._dissolve(p, late, f"match {p.match_id} fell through: a player "
                                               "of it did not accept in time")
        return changed

    def _dissolve(self, p: Proposal | RowProposal, ended: set[str], reason: str) -> list[Aggregate]:
        """Send the other tickets of a proposal back to the queue (waiting time kept)."""
        back: list[Aggregate] = []
        for i in p.ticket_ids:
            t = self.tickets[i]
            if i not in ended and t.status == "proposed":
                t.requeue(i, p.match_id, reason)
                back.append(t)
        if p.attempts:  # a CreateMatch was tried: the match may exist, and is nobody's now
            self._abandon(p, reason)
        return back + self._end(p)

    def _end(self, p: Proposal | RowProposal) -> list[Aggregate]:
        """The proposal is over (matched or not): its batch closes with its last proposal."""
        self.proposals.pop(p.match_id, None)
        self._create_retry.pop(p.match_id, None)
        held = self.batches.get(p.batch_id)
        if held is None:
            return []
        batch, still_open = held
        still_open.discard(p.match_id)
        if still_open:
            return []
        del self.batches[p.batch_id]
        batch.close()
        return [batch]

    def _group(self, pools: dict[str, _Pool]) -> dict[str, Groups]:
        out = {}
        for game in sorted(pools):
            spec = self.catalogue.get(game)
            if spec is not None:
                columns, live, waited, apart = pools[game]
                if apart:  # rows that share a player: never in one group
                    out[game] = group_apart(spec.modes, columns, live, waited,
                                            self.config.policy, *apart)
                else:
                    out[game] = group_tickets(spec.modes, columns, live, waited,
                                              self.config.policy)
        return out

    async def _propose(self, formed: dict[str, Groups], holders: dict[str, list[Any]],
                       now: float) -> None:
        """Record the groups as proposals: per game one ProposalBatch and the next version of
        the game's Queue, all in one transaction; only then do the tickets become proposed.

        ``holders``: each game's Ticket per row of the columns the groups were formed on (as
        taken with them: the rows of tickets that were still waiting hold the same Ticket)."""
        deadline = now + self.config.accept_timeout
        saved: list[Aggregate] = []
        made: list[tuple[str, ProposalBatch]] = []
        for game, groups in formed.items():
            batch = self._batch(game, groups, deadline)
            queue = self.queues.get(game)
            if queue is None:  # none in the store at the last reload: this process starts it
                queue = self.queues[game] = Queue(game)
            queue.proposed(batch.batch_id, len(groups))
            saved += [queue, batch]
            made.append((game, batch))
        # the tickets are proposed in memory once stored, even if the cycle is cancelled
        await self._save(saved, then=lambda: self._proposed(formed, holders, made))

    def _proposed(self, formed: dict[str, Groups], holders: dict[str, list[Any]],
                  made: list[tuple[str, ProposalBatch]]) -> None:
        """The batches ``made`` are stored: their tickets are proposed, watchers told."""
        auto = self.config.auto_accept
        tickets, watchers, proposals = self.tickets, self.watchers, self.proposals
        for game, batch in made:
            rows = rows_of(batch, RowProposal)
            proposed = map(holders[game].__getitem__, formed[game].slots)
            for t, row in zip(proposed, chain.from_iterable(map(repeat, rows, batch.parties))):
                # _mark_proposed, inlined: once per ticket
                t.status, t.proposal, t.reason = "proposed", row, ""
                if auto:  # for its creator's own players: the others accept themselves
                    t.accepted = self_accepted(t)
                elif t.accepted:  # a waiting ticket has accepted nothing: no new list each
                    t.accepted = []
            match_ids = list(map(_MATCH_ID, rows))
            proposals.update(zip(match_ids, rows))
            open_here = set(match_ids)
            batch_id = batch.batch_id
            self.batches[batch_id] = (batch, open_here)
            if auto:
                self._maybe_ready |= open_here
            log.info("matches proposed", game=game, batch=batch_id, matches=len(rows))
            watched = set(watchers).intersection(batch.tickets)
            self._tell([tickets[i] for i in watched])
            if self.invite_watchers:
                self._invites_proposed(batch)

    def _invites_proposed(self, batch: ProposalBatch) -> None:
        """Tell the invitation watchers whose invitations ``batch`` proposed a match to."""
        tickets = self.tickets
        for p, events in self.invite_watchers.items():
            for i in self.invited.get(p, ()):
                t = tickets.get(i)
                if t is not None and isinstance(t.proposal, RowProposal) \
                        and t.proposal.batch is batch:
                    for e in events:
                        e.set()
                    break

    def _batch(self, game: str, groups: Groups, deadline: float) -> ProposalBatch:
        """The proposals of one cycle for one game, as the columns ProposalBatch stores, read
        from the grouping's columns. Seats are written in party order (each group's parties'
        players, then its bots) with the parties' sizes, so that no seat's ticket is written;
        the groups seated in teams add their seat order and teams (one per way of seating,
        shared between the groups seated alike)."""
        batch_id, modes, mode_of, parties, tickets = self._batch_head(groups)
        start, slots, column = groups.start, groups.slots, groups.tickets
        singles = all(limits[2] == 1 for limits in column.distinct_limits())
        if singles:  # every party is one player
            sizes = [1] * len(slots)
        else:
            sizes = list(map(_SIZE, map(column.limits.__getitem__, slots)))  # no visit to each party
        reordered = sorted(groups.teams)
        seat_order: list[int] = []
        teams: list[int] = []
        for k in reordered:
            seating = groups.teams[k]
            if seating.lengths[:parties[k]] != tuple(sizes[start[k]:start[k + 1]]):
                # a party without a rating per player: its seats are not its players
                return self._batch_seat_by_seat(game, groups, deadline)
            _, order, numbers = seating.order()
            seat_order += order
            teams += numbers
        players = list(map(column.lead.__getitem__, slots)) if singles else list(
            chain.from_iterable(map(column.players.__getitem__, slots)))
        seated = [0, *accumulate(sizes)]
        at = list(map(seated.__getitem__, start))  # each group's first human seat
        with_bots = list(compress(range(len(groups)), map(ne, map(sub, at[1:], at[:-1]), groups.table)))
        if with_bots:  # each group's bots after its humans
            humans, players = players, []
            done = 0
            for k in with_bots:
                players += humans[done:at[k + 1]]
                players += [f"{BOT_PREFIX}{n}"
                            for n in range(1, groups.table[k] - (at[k + 1] - at[k]) + 1)]
                done = at[k + 1]
            players += humans[done:]
        return ProposalBatch(batch_id, game, deadline, self.config.auto_accept, modes,
                             mode_of, parties, tickets, list(groups.table), players, [], teams,
                             sizes, reordered, seat_order)

    @staticmethod
    def _batch_head(groups: Groups) -> tuple[str, list[str], list[int], list[int], list[str]]:
        """A new batch's id, its modes, each group's mode (an index into them), parties per
        group and the parties' tickets, from the grouping's columns."""
        batch_id = f"mm-{uuid.uuid4().hex[:12]}"  # its matches: mm-<20 hex digits>, as ever
        modes = {m: i for i, m in enumerate(dict.fromkeys(groups.mode))}
        mode_of = list(map(modes.__getitem__, groups.mode))
        start = groups.start
        parties = list(map(sub, start[1:], start[:-1]))
        tickets = list(map(groups.tickets.ids.__getitem__, groups.slots))
        return batch_id, list(modes), mode_of, parties, tickets

    def _batch_seat_by_seat(self, game: str, groups: Groups, deadline: float) -> ProposalBatch:
        """:meth:`_batch` with every seat's player, ticket and team written in seat order (as
        batches were written before party sizes)."""
        batch_id, modes, mode_of, parties, tickets = self._batch_head(groups)
        start, slots, column = groups.start, groups.slots, groups.tickets
        party_players = list(map(column.players.__getitem__, slots))
        sizes = list(map(_SIZE, map(column.limits.__getitem__, slots)))  # no visit to each party
        singles = sizes.count(1) == len(sizes)  # then a seat's ticket is its party's
        seated = [0, *accumulate(sizes)]
        at = list(map(seated.__getitem__, start))  # each group's first seat
        players = list(chain.from_iterable(party_players))
        seat_tickets = list(tickets) if singles else list(
            chain.from_iterable(map(repeat, tickets, sizes)))
        teams = [0] * len(players)
        spelled = set(compress(range(len(groups)), map(ne, map(sub, at[1:], at[:-1]), groups.table)))
        """Groups with bots: their seats are spelled out."""
        for k, seating in groups.teams.items():
            if k in spelled:
                continue
            first, last = start[k], start[k + 1]
            if seating.lengths != tuple(sizes[first:last]):  # not a seat per player: spelled
                spelled.add(k)
                continue
            pick, _, numbers = seating.order()
            a, b = at[k], at[k + 1]
            players[a:b] = pick(players[a:b])
            seat_tickets[a:b] = pick(seat_tickets[a:b])
            teams[a:b] = numbers
        if spelled:
            players, seat_tickets, teams = self._spelled(groups, sorted(spelled), at, players,
                                                         seat_tickets, teams)
        return ProposalBatch(batch_id, game, deadline, self.config.auto_accept, modes,
                             mode_of, parties, tickets, list(groups.table), players,
                             seat_tickets, teams)

    @staticmethod
    def _spelled(groups: Groups, spelled: list[int], at: list[int], players: list[str],
                 seat_tickets: list[str], teams: list[int]
                 ) -> tuple[list[str], list[str], list[int]]:
        """The seat columns with the seats of the groups ``spelled`` (in order) spelled out:
        the others' seats are taken as they are."""
        out_players: list[str] = []
        out_tickets: list[str] = []
        out_teams: list[int] = []
        done = 0  # seats before this one are in the columns
        for k in [*spelled, len(groups)]:
            out_players += players[done:at[k]]
            out_tickets += seat_tickets[done:at[k]]
            out_teams += teams[done:at[k]]
            if k == len(groups):
                break
            seating = groups.teams.get(k)
            if seating is not None:
                of_player, of_ticket, of_team = seating.columns(
                    groups.tickets, groups.slots[groups.start[k]:groups.start[k + 1]])
                out_players += of_player
                out_tickets += of_ticket
                out_teams += of_team
            else:
                seats = groups[k].seats
                out_players += [s.player for s in seats]
                out_tickets += [s.ticket_id for s in seats]
                out_teams += [0] * len(seats)
            done = at[k + 1]
        return out_players, out_tickets, out_teams

    def _accepted(self, p: Proposal | RowProposal) -> bool:
        return all(i in self.tickets and self.tickets[i].fully_accepted for i in p.ticket_ids)

    # ----------------------------------------------------------------- creating matches

    async def _create(self, p: Proposal | RowProposal) -> None:
        """Create the accepted match on the rules service and hand out the seat tokens.

        The match id was fixed when the match was proposed, and the rules service creates
        a match once per id, so a retry (or a restart between creation and saving) gets
        the same match and the same tokens back. A transient failure (the rules service
        restarting) is tried again with backoff, up to CREATE_ATTEMPTS tries (about 40 s),
        the tickets still accepted; only then do they go back to the queue, and the match,
        which may have been created there with its answer lost, is abandoned
        (:meth:`_abandon`), as it is when a ticket of it is cancelled or declined between
        tries. Each failed try is stored with the proposal (``ProposalBatch.Tried``, by the next
        cycle: a crash loses the tries of one interval at most): a restarted matchmaker goes
        on from the tries made, so a match is given up after CREATE_ATTEMPTS in all, and one
        tried before the restart is still abandoned when it falls through after it. (Proposals stored as Ticket events, before batches, count
        from zero after a restart.)
        """
        seats = p.seats
        organisers = sorted({o for i in p.ticket_ids for o in self.tickets[i].organisers})
        seeds = self.config.client_seeds
        async with self._create_slots:
            try:
                extra = {"await_client_seeds": True} if seeds else {}
                tokens = await self.rules.create_match(
                    p.game, p.match_id, p.mode, [s["player"] for s in seats], teams_of(seats),
                    on_behalf_of_organiser=on_behalf(organisers),
                    **extra)
            except (grpc.aio.AioRpcError, LookupError) as err:
                await self._creation_failed(p, err)
                return
        async with self.lock:
            if self.stale or self.proposals.get(p.match_id) is not p:
                return  # reloaded meanwhile, or to be: the new one decides
            now = self.clock()
            changed: list[Aggregate] = []
            matched: list[Ticket] = []
            window = {"seed_deadline": now + self.config.seed_window} if seeds else {}
            for i in p.ticket_ids:
                t = self.tickets[i]
                own = set(t.players)
                assignment = {
                    "match_id": p.match_id, "game": p.game, "mode": p.mode,
                    "rules_address": self.rules.address(p.game),
                    "seats": [{**{k: s[k] for k in ("seat", "player", "bot", "team")},
                               "token": tokens.get(s["seat"], "") if s["player"] in own else ""}
                              for s in seats],
                    **window,
                }
                t.match(i, assignment, now)
                changed.append(t)
                matched.append(t)
            kickoff = None
            if seeds:  # saved with the tickets: a restart finds the match still to start
                kickoff = Kickoff(p.match_id, p.game, window["seed_deadline"],
                                  {str(s["seat"]): s["player"] for s in seats if not s["bot"]},
                                  list(p.ticket_ids))
                changed.append(kickoff)
            bot_seats = {s["seat"]: tokens.get(s["seat"], "") for s in seats if s["bot"]}
            if bot_seats:
                changed.append(BotMatch(p.match_id, p.game, {str(k): v for k, v in bot_seats.items()}))
            changed += self._end(p)
            if kickoff is not None:  # held before the save tells the watchers (their views show it)
                self.kickoffs[p.match_id] = kickoff
                self.kickoff_tickets[p.match_id] = matched

            def created() -> None:  # once stored, even if this task is cancelled meanwhile
                if bot_seats:
                    self.bots.drive(p.game, p.match_id, bot_seats)
                if kickoff is not None:
                    self.wake.set()  # no human seat (or a window of 0 s): the next cycle starts it

            try:
                await self._save(changed, then=created)
            except Exception:  # not stored (a reload replaced the kickoffs, or is to come)
                if self.kickoffs.get(p.match_id) is kickoff:
                    self.kickoffs.pop(p.match_id, None)
                    self.kickoff_tickets.pop(p.match_id, None)
                raise
        log.info("match created", match_id=p.match_id, game=p.game, mode=p.mode,
                 bots=len(bot_seats), organisers=organisers, awaits_client_seeds=seeds)

    # ----------------------------------------------------------------- starting matches

    def _kickoffs_due(self, now: float) -> list[Kickoff]:
        """Matches waiting for client seeds whose every human seat is ready or whose window
        ended, and that are not being started (nor waiting to try again)."""
        due = []
        for match_id, k in self.kickoffs.items():
            if match_id in self._starting:
                continue
            retry = self._start_attempts.get(match_id)
            if retry is not None and now < retry[1]:
                continue
            if k.everyone_ready or now >= k.deadline:
                due.append(k)
        return due

    async def _start_kickoff(self, k: Kickoff) -> None:
        """Start ``k``'s match on the rules service, then store that it started (and tell the
        tickets' watchers). Once at a time per match; a transient failure is tried again by a
        later cycle, a refusal for good ends the window without a start."""
        match_id = k.match_id
        if match_id in self._starting or self.kickoffs.get(match_id) is not k:
            return
        self._starting.add(match_id)
        try:
            waiting = k.waiting_for
            if not waiting:
                reason = f"match {match_id} started: every seat is ready"
            else:
                reason = (f"match {match_id} started when its seed window ended: "
                          f"{', '.join(waiting)} did not say ready (a seat that added no client "
                          "seed plays with the others' seeds and the server's)")
            try:
                await self.rules.start_match(k.game, match_id)
            except (grpc.aio.AioRpcError, LookupError) as err:
                await self._start_failed(k, err)
                return
            async with self.lock:
                if self.stale or self.kickoffs.get(match_id) is not k:
                    return  # reloaded meanwhile, or to be: the new one decides
                k.end(True, reason, match_id, list(k.tickets))
                await self._save([k])
            log.info("match started", match_id=match_id, game=k.game, not_ready=len(waiting))
        finally:
            self._starting.discard(match_id)

    async def _start_failed(self, k: Kickoff, err: BaseException) -> None:
        code = err.code() if isinstance(err, grpc.aio.AioRpcError) else grpc.StatusCode.UNAVAILABLE
        why = err.details() if isinstance(err, grpc.aio.AioRpcError) else str(err)
        attempts = self._start_attempts.get(k.match_id, (0, 0.0))[0] + 1
        if code in TRANSIENT:
            delay = min(RETRY_START_MAX, 0.1 * 2 ** attempts)
            self._start_attempts[k.match_id] = (attempts, self.clock() + delay)
            log.warning("starting the match failed; trying again", match_id=k.match_id,
                        code=code.name, reason=why, attempt=attempts, retry_in=delay)
            return
        log.error("the rules service refused to start the match", match_id=k.match_id,
                  code=code.name, reason=why)
        async with self.lock:
            if self.stale or self.kickoffs.get(k.match_id) is not k:
                return
            k.end(False, f"match {k.match_id} was not started: the rules service refused "
                         f"({code.name}): {why}", k.match_id, list(k.tickets))
            await self._save([k])

    async def _creation_failed(self, p: Proposal | RowProposal, err: BaseException) -> None:
        code = err.code() if isinstance(err, grpc.aio.AioRpcError) else grpc.StatusCode.UNAVAILABLE
        why = err.details() if isinstance(err, grpc.aio.AioRpcError) else str(err)
        p.attempts += 1
        log.warning("match creation failed", match_id=p.match_id, code=code.name, reason=why,
                    attempt=p.attempts)
        async with self.lock:
            if self.stale or self.proposals.get(p.match_id) is not p:
                return
            if code in TRANSIENT and p.attempts < CREATE_ATTEMPTS:
                held = self.batches.get(p.batch_id)
                if held is not None:  # the count outlives a restart (not from zero again),
                    held[0].tried(p.match_id, p.attempts)  # stored by the next cycle
                    self._tried.add(p.batch_id)
                p.creating = False
                self._create_retry[p.match_id] = \
                    self.clock() + min(RETRY_START_MAX, 0.1 * 2 ** p.attempts)
                return
            if code in TRANSIENT:  # it may have been created (the answer was lost): ended
                # (the reason is the match's public end: no internal address or error text)
                self._abandon(p, f"matchmaking gave up creating match {p.match_id}: the rules "
                                 "service did not answer; its players were queued again")
            changed: list[Aggregate] = self._end(p)
            for i in p.ticket_ids:
                t = self.tickets[i]
                if code in TRANSIENT:
                    # not gRPC's text, which may name the rules service's internal address
                    t.requeue(i, p.match_id, f"match {p.match_id} was not created: the rules "
                                             f"service of {p.game} did not answer "
                                             f"({code.name}); queued again")
                else:
                    t.cancel(i, f"the rules service refused the match ({code.name}): {why}",
                             self.clock())
                changed.append(t)
            await self._save(changed)

    def _abandon(self, p: Proposal | RowProposal, reason: str) -> None:
        """Abandon ``p``'s match on the rules service, in a task of its own: a CreateMatch of
        it was tried and its tickets will never be given its seats (they were sent back, or
        ended), so a match created there (its answer lost) would otherwise wait for client
        seeds for ever, or run with nobody at its seats, besides the match its players get
        next. NOT_FOUND: it was never created. Tried again a few times (the rules service may
        still be down); a failure for good is logged with the match id."""

        async def abandon() -> None:
            for attempt in range(ABANDON_ATTEMPTS):
                try:
                    await self.rules.abandon_match(p.game, p.match_id, reason[:500])
                    log.info("match given up abandoned", match_id=p.match_id)
                    return
                except (grpc.aio.AioRpcError, LookupError) as err:
                    code = err.code() if isinstance(err, grpc.aio.AioRpcError) else None
                    if code == grpc.StatusCode.NOT_FOUND:
                        return
                    if code not in TRANSIENT or attempt == ABANDON_ATTEMPTS - 1:
                        log.error("abandoning a match given up failed", match_id=p.match_id,
                                  error=repr(err))
                        return
                await asyncio.sleep(min(RETRY_START_MAX, 0.5 * 2 ** attempt))

        held_task(self._abandoning, abandon())

    async def _bots_finished(self, match_id: str, reason: str) -> None:
        bot_match: BotMatch = await asyncio.to_thread(self.app.repository.get,
                                                      bot_match_uuid(match_id))
        if not bot_match.finished:
            bot_match.finish(reason)
            await asyncio.to_thread(self.app.save, bot_match)
            self.on_saved()
        log.info("bots left their match", match_id=match_id, reason=reason)

    async def drain(self) -> None:
        """Wait for match creations in flight, then stop the bots (used at shutdown)."""
        if self._creating:
            await asyncio.gather(*self._creating, return_exceptions=True)
        if self._saving:
            await asyncio.gather(*self._saving, return_exceptions=True)
        for task in list(self._abandoning):  # not waited for: its match id is logged
            task.cancel()
        await self.bots.close()

    # ----------------------------------------------------------------- saving, telling

    async def _save(self, objs: Sequence[Aggregate], then: Callable[[], None] | None = None,
                    *, reloading: bool = False) -> None:
        """One transaction for all; then watchers are told, closed tickets forgotten, and
        ``then`` runs: what memory does once the change is stored.

        eventsourcing takes the aggregates' pending events before it writes them: a save the
        store refuses loses them, while each aggregate in memory keeps the change and its new
        version (its next save would store a later version over the gap, which no replay
        reads past). So a refusal marks the queue stale and reloads it from the store before
        anything else happens (memory as the store has it), and the caller gets UNAVAILABLE.
        While it is stale (the reload failed too) memory may be ahead of the store, and
        nothing is written from it (UNAVAILABLE) until a reload (``reloading``: the reload's
        own save, of aggregates it just read).

        The write and what follows it (telling, ``then``, or the reload) run in a task of
        their own, to their end: a caller cancelled meanwhile (its client hung up, its
        deadline passed) waits for that end before it goes on being cancelled, still holding
        the lock. Cut, the write went on in its thread while nothing followed it: stored,
        memory never learned it (a ticket nobody cycled, an accept that created no match);
        refused, memory kept a change the store never had, and no reload came.
        """
        if self.stale and not reloading:
            raise Unavailable("matchmaking is reloading its queue from its store; try again")
        unique = list({id(t): t for t in objs}.values())
        task = held_task(self._saving, self._store(unique, then), name="matchmaking-save")
        unsaved, ids = self._unsaved, [t.ticket_id for t in unique if isinstance(t, Ticket)]
        for i in ids:
            unsaved[i] = task

        def saved(done: asyncio.Task[None]) -> None:
            for i in ids:
                if unsaved.get(i) is done:
                    del unsaved[i]

        task.add_done_callback(saved)
        await outlast(task)

    async def _as_stored(self, ticket_id: str) -> None:
        """Wait for the end of a save of the ticket's change under way, if any: a command
        changes a ticket in memory, then saves it, and an answer read meanwhile without the
        lock (GetTicket, WatchTicket, a repeated CreateTicket) would say what the store may
        never have ("matched", with the seat tokens, of a save then refused). Then UNAVAILABLE
        if the queue is stale (refused, and the reload failed too); the caller reads the
        ticket from ``tickets`` again (a reload replaces the objects)."""
        while (task := self._unsaved.get(ticket_id)) is not None and not task.done():
            await asyncio.wait({task})  # never cancels the save: only this wait
        self._ready()

    async def _store(self, unique: list[Aggregate], then: Callable[[], None] | None) -> None:
        """:meth:`_save`'s task."""
        try:
            await asyncio.to_thread(self.app.save, *unique)
        except Exception as err:
            log.error("saving to the matchmaking store failed; reloading", error=repr(err))
            reloading, self.stale = self.stale, True
            if not reloading:
                try:
                    await self._reload()
                except Exception as again:  # still down: the next cycle tries again
                    log.error("reloading the matchmaking store failed", error=repr(again))
            raise Unavailable("the matchmaking store did not take the change; try again") from None
        self._tell([t for t in unique if isinstance(t, Ticket)])
        for k in unique:
            if isinstance(k, Kickoff):
                self._kickoff_saved(k)
        if then is not None:
            then()
        self.on_saved()

    def _kickoff_saved(self, k: Kickoff) -> None:
        """A stored change of a waiting match: an ended one is no longer waited on, and the
        watchers of its tickets are told (their views show the seed window)."""
        tickets = self.kickoff_tickets.get(k.match_id, [])
        if k.ended:
            self.kickoffs.pop(k.match_id, None)
            self.kickoff_tickets.pop(k.match_id, None)
            self._start_attempts.pop(k.match_id, None)
            self._keep_ended(k)
        watchers = self.watchers
        for t in tickets:
            if t.ticket_id in watchers:
                for queue in watchers[t.ticket_id]:
                    queue.put_nowait(self.view(t))

    def _tell(self, tickets: Sequence[Ticket]) -> None:
        """Tickets whose change is stored: closed ones are forgotten, watchers told."""
        watchers = self.watchers
        for t in tickets:
            if not t.is_open:
                self._forget(t)
            if self.invite_watchers:  # those it names, and those who declined it
                self._invites_changed([*t.players, *t.declined])
            if t.ticket_id in watchers:
                for queue in watchers[t.ticket_id]:
                    queue.put_nowait(self.view(t))

    def view(self, t: Ticket) -> dict[str, Any]:
        """The ticket with the seat tokens of its players' seats, and who queued it
        (``queued_by``, never sent). Each caller gets :func:`shown_to` of it (a player its own
        token, the organiser or service that queued it every one, anyone else none)."""
        now = self.clock()
        end = t.ended_at if not t.is_open else now
        assignment = t.assignment
        accept_left = 0.0
        if assignment is None and t.proposal is not None and t.status == "proposed":
            assignment = {"match_id": t.proposal["match_id"], "game": t.game,
                          "mode": t.proposal["mode"], "rules_address": self.rules.address(t.game),
                          "seats": [{k: s[k] for k in ("seat", "player", "bot", "team")}
                                    for s in t.proposal["seats"]]}
            accept_left = max(0.0, self._accept_deadline(t) - now)
        window = None
        started = False
        if t.status == "matched" and assignment is not None:
            started = True
            if "seed_deadline" in assignment:
                window = self._seed_window(assignment, now)
                started = window["started"]
        return {
            "ticket_id": t.ticket_id, "game": t.game, "modes": list(t.resolved["modes"]),
            "players": t.players, "status": t.status, "reason": t.reason,
            "waited_seconds": max(0.0, end - t.queued_at), "assignment": assignment,
            "accepted": list(t.accepted), "accept_seconds_left": accept_left,
            "declined": list(t.declined), "queued_by": t.created_by,
            "match_started": started, "seed_window": window,
        }

    def _seed_window(self, assignment: Mapping[str, Any], now: float) -> dict[str, Any]:
        """The seed window of a matched ticket's match, from its Kickoff (held while it
        waits, and for a while after; _find reads an older one from the store). Its end is
        shown once stored: a Kickoff ended in memory whose save is under way (still among
        ``kickoffs``, which the save's :meth:`_kickoff_saved` leaves) is shown waiting, so no
        answer says "started" before the store has it (a failed save takes it back)."""
        deadline = float(assignment["seed_deadline"])
        k = self._kickoff_of(assignment)
        if k is None:  # not read (the store did not answer): the deadline is all that is known
            players = [s["player"] for s in assignment["seats"] if not s["bot"]]
            return {"deadline": deadline, "seconds_left": max(0.0, deadline - now),
                    "ready": [], "waiting_for": players, "ended": False, "started": False,
                    "reason": ""}
        ended = k.ended and self.kickoffs.get(k.match_id) is not k
        return {"deadline": k.deadline,
                "seconds_left": 0.0 if ended else max(0.0, k.deadline - now),
                "ready": list(k.ready), "waiting_for": k.waiting_for, "ended": ended,
                "started": ended and k.started, "reason": k.reason if ended else ""}


_Pool = tuple[Tickets, list[int], list[float], "tuple[dict[int, set[str]], set[int]] | None"]
"""What a cycle groups of one game: :meth:`_Rows.pool`, and the rows that share a player
(:meth:`Matchmaker._apart`), if any."""

_STATUS = attrgetter("status")
_MATCH_ID = attrgetter("match_id")
_SIZE = itemgetter(2)
"""A party's size in its row's seat limits."""


class _Gone:
    """The holder of a row whose ticket was forgotten."""

    status = "forgotten"


_GONE = _Gone()


class _Rows:
    """One game's open tickets as the grouping's columns, in queue order: a row is added when
    a ticket is remembered (its ratings once known), so a cycle reads lists instead of making
    an entry per ticket. Rows of forgotten tickets stay (their holder is ``_GONE``) until they
    are half of all, then the columns are built anew without them."""

    __slots__ = ("columns", "holder", "queued_at", "slot", "unrated", "gone")
    COMPACT_AFTER = 1024

    def __init__(self) -> None:
        self.columns = Tickets()
        self.holder: list[Ticket | _Gone] = []
        self.queued_at: list[float] = []
        self.slot: dict[str, int] = {}
        self.unrated: set[int] = set()
        """Rows whose ratings are not known yet: not grouped."""
        self.gone = 0

    def add(self, t: Ticket, ratings: tuple[float, ...] | None = None) -> None:
        slot = self.slot.get(t.ticket_id)
        if slot is not None:
            self.holder[slot] = t
            return
        r = t.resolved
        slot = self.slot[t.ticket_id] = self.columns.add(
            t.ticket_id, tuple(r["players"]), tuple(r["modes"]), int(r["min_seats"]),
            int(r["max_seats"]), float(r["rating_window"]), bool(r["allow_bots"]),
            str(r["region"]), ratings or ())
        self.holder.append(t)
        self.queued_at.append(t.queued_at)
        if ratings is None:
            self.unrated.add(slot)

    def rate(self, slot: int, ratings: tuple[float, ...]) -> None:
        if slot in self.unrated:
            self.columns.rate(slot, ratings)
            self.unrated.discard(slot)

    def remove(self, ticket_id: str) -> bool:
        """Forget a ticket's row; True when the columns should be built anew."""
        slot = self.slot.pop(ticket_id, None)
        if slot is None:
            return False
        self.holder[slot] = _GONE
        self.unrated.discard(slot)
        self.gone += 1
        return self.gone > self.COMPACT_AFTER and 2 * self.gone > len(self.holder)

    def rebuilt(self) -> _Rows:
        """New columns with the rows still held, in the same order (the old ones stay as they
        are for the groups formed from them)."""
        out = _Rows()
        ratings = self.columns.ratings
        for slot, t in enumerate(self.holder):
            if isinstance(t, Ticket):
                out.add(t, None if slot in self.unrated else ratings[slot])
        return out

    def waiting(self) -> list[int]:
        """Rows of the tickets waiting now, in queue order."""
        return list(compress(range(len(self.holder)), map("waiting".__eq__, map(_STATUS, self.holder))))

    def pool(self, now: float, waiting: list[int] | None = None
             ) -> tuple[Tickets, list[int], list[float]]:
        """What the grouping reads: the columns, the rows of the rated waiting tickets, and
        each row's wait. ``waiting``: :meth:`waiting` if it was just listed."""
        live = self.waiting() if waiting is None else waiting
        if self.unrated:
            live = [s for s in live if s not in self.unrated]
        return self.columns, live, [now - q for q in self.queued_at]


class _Joined(Sequence[Formed]):
    """The groups a cycle proposed, game after game."""

    def __init__(self, parts: list[Groups]) -> None:
        self.parts = parts

    def __len__(self) -> int:
        return sum(map(len, self.parts))

    def __getitem__(self, k: int) -> Formed:  # type: ignore[override]
        if isinstance(k, slice):
            return list(self)[k]  # type: ignore[return-value]
        if k < 0:
            k += len(self)
        if k >= 0:
            for part in self.parts:
                if k < len(part):
                    return part[k]
                k -= len(part)
        raise IndexError("group index out of range")

    def __iter__(self) -> Iterator[Formed]:
        return chain.from_iterable(self.parts)


def _mark_proposed(t: Ticket, proposal: Mapping[str, Any], accepted: Sequence[str]) -> None:
    """The ticket as its proposal (stored in a ProposalBatch, not as its own event) leaves it."""
    t.status = "proposed"
    t.proposal = proposal
    t.accepted = sorted(accepted)
    t.reason = ""


@contextmanager
def _gc_paused() -> Iterator[None]:
    """No garbage collection inside: a cycle over a large queue makes hundreds of thousands
    of small objects, and each full collection would walk every open ticket held in memory.

    Not ``gc.freeze``/``unfreeze`` on the way out (tried: it saved the 0.2 s young
    collection after a cycle over 100,000 tickets; the kept columns have since cut that
    collection to about 0.04 s). They were taken out when the suite segfaulted twice while
    they were in; the crash later reproduced and fixed was another (a context variable set
    from a finaliser, CPython gh-148891: services/platform/grpc_kit.py, _CallScope), so
    their part is unproven, and they stay out: they splice the collector's generation lists
    without checking that a collection is running in another thread."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def ratings_grace(config: Config) -> float:
    """How long new tickets wait unrated while their ratings cannot be looked up, before
    they are grouped with the default rating: ten lookups' time, at most 5 s."""
    return min(5.0, 10 * config.rating_timeout)


def cooldown_until(strikes: Sequence[float], limit: int, window: float,
                   cooldown: float) -> float:
    """When a player with these strikes (oldest first) may queue again: ``cooldown`` seconds
    after the latest strike that ends ``limit`` strikes within ``window`` seconds (-inf: no
    cooldown; ``limit`` 0: never one)."""
    if not limit or len(strikes) < limit:
        return -math.inf
    ends = [strikes[k] for k in range(limit - 1, len(strikes))
            if strikes[k] - strikes[k - limit + 1] < window]
    return max(ends) + cooldown if ends else -math.inf


def _seconds_left(seconds: float) -> int:
    return max(1, math.ceil(seconds))


def _utc(at: float) -> str:
    return datetime.fromtimestamp(math.ceil(at), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def teams_of(seats: Sequence[dict[str, Any]]) -> list[list[int]]:
    """The seats of each team, by team number (empty when nobody plays in a team)."""
    teams = sorted({s["team"] for s in seats if s["team"]})
    return [[s["seat"] for s in seats if s["team"] == t] for t in teams]


def queuer(caller: Claims) -> str:
    """How a ticket records the token that queued it (``Ticket.created_by``, a view's
    ``queued_by``): its role and name, so a later call can tell whether it comes from there."""
    return f"{caller.role}:{caller.player}"


def organiser_acting(caller: Claims, trust_minted_tokens: bool) -> str | None:
    """The organiser a call is made by, for the ticket's players: an organiser token's name,
    or the organiser who minted a player token (unless the deployment trusts minted tokens,
    NEON_MATCHMAKING_TRUST_MINTED_TOKENS); ``None`` for a player's own token or a service."""
    if caller.role == "organiser":
        return caller.player
    if caller.role == "player" and caller.minted_by is not None and not trust_minted_tokens:
        return caller.minted_by
    return None


def acts_for(caller: Claims, players: Sequence[str]) -> list[str]:
    """The players of ``players`` a caller may act for: a player token its own player only
    (if listed), an organiser or service token every one."""
    if caller.role in ADMIN:
        return list(players)
    return [caller.player] if caller.player in players else []


def self_accepted(t: Ticket) -> list[str]:
    """The players of ``t`` whom auto-accept accepts for: those its creator was authenticated
    as (``created_by`` is "role:player"). A player who queued a party accepts for itself, never
    for the friends it named."""
    role, _, player = t.created_by.partition(":")
    players = t.players
    if role in ADMIN:
        return sorted(players)
    return [player] if player in players else []


def shown_to(caller: Claims | None, view: dict[str, Any]) -> dict[str, Any]:
    """``view`` as ``caller`` may see it: a player token the seat token of its own seat only;
    the organiser or service token that queued the ticket (its ``queued_by``) every seat's;
    any other organiser or service token none (it may see the ticket, never play the seats
    of players who queued themselves). A player who declined the ticket's invitation is shown
    only that (:func:`declined_view`)."""
    if caller is not None and caller.role not in ADMIN and caller.player in view["declined"]:
        return declined_view(view, caller.player)
    a = view["assignment"]
    if a is None:
        return view
    if caller is not None and caller.role in ADMIN:
        if view.get("queued_by") == queuer(caller):
            return view
        own = None  # no seat of its own: none of the players' tokens
    else:
        own = caller.player if caller is not None else None
    if not any(s.get("token") and s["player"] != own for s in a["seats"]):
        return view
    seats = [s if s["player"] == own or not s.get("token") else {**s, "token": ""}
             for s in a["seats"]]
    return {**view, "assignment": {**a, "seats": seats}}


def declined_view(view: dict[str, Any], player: str) -> dict[str, Any]:
    """All that ``player``, who declined the invitation of the ticket of ``view``, is shown of
    it from then on: that they declined (its id, game and modes, which never change), nothing
    of the party (its players, status, match or wait), whatever it has done since."""
    return {"ticket_id": view["ticket_id"], "game": view["game"], "modes": list(view["modes"]),
            "players": [], "status": "declined", "reason": f"{player} declined the invitation",
            "waited_seconds": 0.0, "assignment": None, "accepted": [],
            "accept_seconds_left": 0.0, "declined": [player], "match_started": False,
            "seed_window": None}


def _watch_over(view: Mapping[str, Any]) -> bool:
    """A watch's last message: the ticket ended (or, to a player who declined it, that), and
    a matched ticket's match started, or its seed window ended without a start."""
    if view["status"] not in ENDED:
        return False
    window = view.get("seed_window")
    return window is None or bool(window["ended"])


def _has_declined(caller: Claims | None, t: Ticket) -> bool:
    """The caller is a player who declined ``t``'s invitation."""
    return caller is not None and caller.role not in ADMIN and caller.player in t.declined


_SOMEONE = {"organiser": "an organiser", "service": "a service"}
"""Who queued a party that is not a player's, as an invitee is told: never a name (a ticket an
organiser or a service queues holds every player it names, so none invites anybody)."""


def _invitee(claims: Claims | None) -> Claims:
    """The caller of ListMyInvitations or WatchMyInvitations: a player token, for itself."""
    if claims is None:
        raise Unauthenticated("this call needs a bearer token")
    if claims.role != "player":
        raise PermissionDenied(f"this call needs a player's own player token, not {claims.role}: "
                               "a player's invitations are theirs alone")
    return claims


def _invitation_limit(limit: int) -> int:
    if limit < 0 or limit > MAX_INVITATIONS_LISTED:
        raise InvalidArgument(f"limit must be 0-{MAX_INVITATIONS_LISTED} (0: "
                              f"{MAX_INVITATIONS_LISTED}), not {limit}")
    return limit or MAX_INVITATIONS_LISTED


def _invitations_key(listed: Mapping[str, Any]) -> tuple[Any, ...]:
    """What a watch of invitations compares: all but the times, which change by the second."""
    return (listed["total"], tuple((i["ticket_id"], i["status"], i["match_id"], i["party_size"])
                                   for i in listed["invitations"]))


def _require(claims: Claims | None, *roles: str) -> Claims:
    if claims is None:
        raise Unauthenticated("this call needs a bearer token")
    if claims.role not in roles:
        raise PermissionDenied(f"this call needs a {' or '.join(roles)} token, not {claims.role}")
    return claims
