from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union
DESCRIPTOR: _descriptor.FileDescriptor

class TicketStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TICKET_STATUS_UNSPECIFIED: _ClassVar[TicketStatus]
    TICKET_STATUS_WAITING: _ClassVar[TicketStatus]
    TICKET_STATUS_PROPOSED: _ClassVar[TicketStatus]
    TICKET_STATUS_MATCHED: _ClassVar[TicketStatus]
    TICKET_STATUS_CANCELLED: _ClassVar[TicketStatus]
    TICKET_STATUS_EXPIRED: _ClassVar[TicketStatus]
    TICKET_STATUS_DECLINED: _ClassVar[TicketStatus]
TICKET_STATUS_UNSPECIFIED: TicketStatus
TICKET_STATUS_WAITING: TicketStatus
TICKET_STATUS_PROPOSED: TicketStatus
TICKET_STATUS_MATCHED: TicketStatus
TICKET_STATUS_CANCELLED: TicketStatus
TICKET_STATUS_EXPIRED: TicketStatus
TICKET_STATUS_DECLINED: TicketStatus

class CreateTicketRequest(_message.Message):
    __slots__ = ('ticket_id', 'game', 'modes', 'players', 'min_seats', 'max_seats', 'region', 'rating_window', 'allow_bots')
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    MODES_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MIN_SEATS_FIELD_NUMBER: _ClassVar[int]
    MAX_SEATS_FIELD_NUMBER: _ClassVar[int]
    REGION_FIELD_NUMBER: _ClassVar[int]
    RATING_WINDOW_FIELD_NUMBER: _ClassVar[int]
    ALLOW_BOTS_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    game: str
    modes: _containers.RepeatedScalarFieldContainer[str]
    players: _containers.RepeatedScalarFieldContainer[str]
    min_seats: int
    max_seats: int
    region: str
    rating_window: float
    allow_bots: bool

    def __init__(self, ticket_id: _Optional[str]=..., game: _Optional[str]=..., modes: _Optional[_Iterable[str]]=..., players: _Optional[_Iterable[str]]=..., min_seats: _Optional[int]=..., max_seats: _Optional[int]=..., region: _Optional[str]=..., rating_window: _Optional[float]=..., allow_bots: _Optional[bool]=...) -> None:
        ...

class Assignment(_message.Message):
    __slots__ = ('match_id', 'game', 'mode', 'rules_address', 'seats')

    class Seat(_message.Message):
        __slots__ = ('seat', 'player', 'token', 'bot', 'team')
        SEAT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        TOKEN_FIELD_NUMBER: _ClassVar[int]
        BOT_FIELD_NUMBER: _ClassVar[int]
        TEAM_FIELD_NUMBER: _ClassVar[int]
        seat: int
        player: str
        token: str
        bot: bool
        team: int

        def __init__(self, seat: _Optional[int]=..., player: _Optional[str]=..., token: _Optional[str]=..., bot: _Optional[bool]=..., team: _Optional[int]=...) -> None:
            ...
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    RULES_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    mode: str
    rules_address: str
    seats: _containers.RepeatedCompositeFieldContainer[Assignment.Seat]

    def __init__(self, match_id: _Optional[str]=..., game: _Optional[str]=..., mode: _Optional[str]=..., rules_address: _Optional[str]=..., seats: _Optional[_Iterable[_Union[Assignment.Seat, _Mapping]]]=...) -> None:
        ...

class Ticket(_message.Message):
    __slots__ = ('ticket_id', 'game', 'modes', 'players', 'status', 'reason', 'waited_seconds', 'assignment', 'accept_seconds_left', 'accepted', 'declined', 'match_started', 'seed_window')
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    MODES_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    WAITED_SECONDS_FIELD_NUMBER: _ClassVar[int]
    ASSIGNMENT_FIELD_NUMBER: _ClassVar[int]
    ACCEPT_SECONDS_LEFT_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    DECLINED_FIELD_NUMBER: _ClassVar[int]
    MATCH_STARTED_FIELD_NUMBER: _ClassVar[int]
    SEED_WINDOW_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    game: str
    modes: _containers.RepeatedScalarFieldContainer[str]
    players: _containers.RepeatedScalarFieldContainer[str]
    status: TicketStatus
    reason: str
    waited_seconds: float
    assignment: Assignment
    accept_seconds_left: float
    accepted: _containers.RepeatedScalarFieldContainer[str]
    declined: _containers.RepeatedScalarFieldContainer[str]
    match_started: bool
    seed_window: SeedWindow

    def __init__(self, ticket_id: _Optional[str]=..., game: _Optional[str]=..., modes: _Optional[_Iterable[str]]=..., players: _Optional[_Iterable[str]]=..., status: _Optional[_Union[TicketStatus, str]]=..., reason: _Optional[str]=..., waited_seconds: _Optional[float]=..., assignment: _Optional[_Union[Assignment, _Mapping]]=..., accept_seconds_left: _Optional[float]=..., accepted: _Optional[_Iterable[str]]=..., declined: _Optional[_Iterable[str]]=..., match_started: _Optional[bool]=..., seed_window: _Optional[_Union[SeedWindow, _Mapping]]=...) -> None:
        ...

class SeedWindow(_message.Message):
    __slots__ = ('deadline', 'seconds_left', 'ready', 'waiting_for', 'ended', 'started', 'reason')
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    SECONDS_LEFT_FIELD_NUMBER: _ClassVar[int]
    READY_FIELD_NUMBER: _ClassVar[int]
    WAITING_FOR_FIELD_NUMBER: _ClassVar[int]
    ENDED_FIELD_NUMBER: _ClassVar[int]
    STARTED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    deadline: float
    seconds_left: float
    ready: _containers.RepeatedScalarFieldContainer[str]
    waiting_for: _containers.RepeatedScalarFieldContainer[str]
    ended: bool
    started: bool
    reason: str

    def __init__(self, deadline: _Optional[float]=..., seconds_left: _Optional[float]=..., ready: _Optional[_Iterable[str]]=..., waiting_for: _Optional[_Iterable[str]]=..., ended: _Optional[bool]=..., started: _Optional[bool]=..., reason: _Optional[str]=...) -> None:
        ...

class CreateTicketResponse(_message.Message):
    __slots__ = ('ticket',)
    TICKET_FIELD_NUMBER: _ClassVar[int]
    ticket: Ticket

    def __init__(self, ticket: _Optional[_Union[Ticket, _Mapping]]=...) -> None:
        ...

class CancelTicketRequest(_message.Message):
    __slots__ = ('ticket_id',)
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str

    def __init__(self, ticket_id: _Optional[str]=...) -> None:
        ...

class CancelTicketResponse(_message.Message):
    __slots__ = ('ticket',)
    TICKET_FIELD_NUMBER: _ClassVar[int]
    ticket: Ticket

    def __init__(self, ticket: _Optional[_Union[Ticket, _Mapping]]=...) -> None:
        ...

class GetTicketRequest(_message.Message):
    __slots__ = ('ticket_id',)
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str

    def __init__(self, ticket_id: _Optional[str]=...) -> None:
        ...

class GetTicketResponse(_message.Message):
    __slots__ = ('ticket',)
    TICKET_FIELD_NUMBER: _ClassVar[int]
    ticket: Ticket

    def __init__(self, ticket: _Optional[_Union[Ticket, _Mapping]]=...) -> None:
        ...

class WatchTicketRequest(_message.Message):
    __slots__ = ('ticket_id',)
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str

    def __init__(self, ticket_id: _Optional[str]=...) -> None:
        ...

class WatchTicketResponse(_message.Message):
    __slots__ = ('ticket',)
    TICKET_FIELD_NUMBER: _ClassVar[int]
    ticket: Ticket

    def __init__(self, ticket: _Optional[_Union[Ticket, _Mapping]]=...) -> None:
        ...

class AcceptMatchRequest(_message.Message):
    __slots__ = ('ticket_id', 'match_id')
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    match_id: str

    def __init__(self, ticket_id: _Optional[str]=..., match_id: _Optional[str]=...) -> None:
        ...

class AcceptMatchResponse(_message.Message):
    __slots__ = ('ticket',)
    TICKET_FIELD_NUMBER: _ClassVar[int]
    ticket: Ticket

    def __init__(self, ticket: _Optional[_Union[Ticket, _Mapping]]=...) -> None:
        ...

class DeclineInviteRequest(_message.Message):
    __slots__ = ('ticket_id',)
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str

    def __init__(self, ticket_id: _Optional[str]=...) -> None:
        ...

class DeclineInviteResponse(_message.Message):
    __slots__ = ('ticket',)
    TICKET_FIELD_NUMBER: _ClassVar[int]
    ticket: Ticket

    def __init__(self, ticket: _Optional[_Union[Ticket, _Mapping]]=...) -> None:
        ...

class ReadyForMatchRequest(_message.Message):
    __slots__ = ('ticket_id', 'match_id')
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    match_id: str

    def __init__(self, ticket_id: _Optional[str]=..., match_id: _Optional[str]=...) -> None:
        ...

class ReadyForMatchResponse(_message.Message):
    __slots__ = ('ticket',)
    TICKET_FIELD_NUMBER: _ClassVar[int]
    ticket: Ticket

    def __init__(self, ticket: _Optional[_Union[Ticket, _Mapping]]=...) -> None:
        ...

class MintPlayerTokenRequest(_message.Message):
    __slots__ = ('player_id', 'ttl_seconds')
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    TTL_SECONDS_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    ttl_seconds: int

    def __init__(self, player_id: _Optional[str]=..., ttl_seconds: _Optional[int]=...) -> None:
        ...

class MintPlayerTokenResponse(_message.Message):
    __slots__ = ('token', 'player_id', 'expires_at')
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    token: str
    player_id: str
    expires_at: int

    def __init__(self, token: _Optional[str]=..., player_id: _Optional[str]=..., expires_at: _Optional[int]=...) -> None:
        ...

class Invitation(_message.Message):
    __slots__ = ('ticket_id', 'game', 'modes', 'invited_by', 'party_size', 'status', 'match_id', 'accept_seconds_left', 'waited_seconds', 'queued_at_ms')
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    MODES_FIELD_NUMBER: _ClassVar[int]
    INVITED_BY_FIELD_NUMBER: _ClassVar[int]
    PARTY_SIZE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    ACCEPT_SECONDS_LEFT_FIELD_NUMBER: _ClassVar[int]
    WAITED_SECONDS_FIELD_NUMBER: _ClassVar[int]
    QUEUED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    game: str
    modes: _containers.RepeatedScalarFieldContainer[str]
    invited_by: str
    party_size: int
    status: TicketStatus
    match_id: str
    accept_seconds_left: float
    waited_seconds: float
    queued_at_ms: int

    def __init__(self, ticket_id: _Optional[str]=..., game: _Optional[str]=..., modes: _Optional[_Iterable[str]]=..., invited_by: _Optional[str]=..., party_size: _Optional[int]=..., status: _Optional[_Union[TicketStatus, str]]=..., match_id: _Optional[str]=..., accept_seconds_left: _Optional[float]=..., waited_seconds: _Optional[float]=..., queued_at_ms: _Optional[int]=...) -> None:
        ...

class ListMyInvitationsRequest(_message.Message):
    __slots__ = ('limit',)
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    limit: int

    def __init__(self, limit: _Optional[int]=...) -> None:
        ...

class ListMyInvitationsResponse(_message.Message):
    __slots__ = ('invitations', 'total', 'partial', 'unavailable_games')
    INVITATIONS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_FIELD_NUMBER: _ClassVar[int]
    UNAVAILABLE_GAMES_FIELD_NUMBER: _ClassVar[int]
    invitations: _containers.RepeatedCompositeFieldContainer[Invitation]
    total: int
    partial: bool
    unavailable_games: _containers.RepeatedScalarFieldContainer[str]

    def __init__(self, invitations: _Optional[_Iterable[_Union[Invitation, _Mapping]]]=..., total: _Optional[int]=..., partial: _Optional[bool]=..., unavailable_games: _Optional[_Iterable[str]]=...) -> None:
        ...

class WatchMyInvitationsRequest(_message.Message):
    __slots__ = ('limit',)
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    limit: int

    def __init__(self, limit: _Optional[int]=...) -> None:
        ...

class WatchMyInvitationsResponse(_message.Message):
    __slots__ = ('invitations', 'total', 'partial', 'unavailable_games')
    INVITATIONS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_FIELD_NUMBER: _ClassVar[int]
    UNAVAILABLE_GAMES_FIELD_NUMBER: _ClassVar[int]
    invitations: _containers.RepeatedCompositeFieldContainer[Invitation]
    total: int
    partial: bool
    unavailable_games: _containers.RepeatedScalarFieldContainer[str]

    def __init__(self, invitations: _Optional[_Iterable[_Union[Invitation, _Mapping]]]=..., total: _Optional[int]=..., partial: _Optional[bool]=..., unavailable_games: _Optional[_Iterable[str]]=...) -> None:
        ...