from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union
DESCRIPTOR: _descriptor.FileDescriptor

class TournamentStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOURNAMENT_STATUS_UNSPECIFIED: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_CREATED: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_REGISTRATION: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_RUNNING: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_FINISHED: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_FORCE_ENDED: _ClassVar[TournamentStatus]

class NoShowPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NO_SHOW_POLICY_UNSPECIFIED: _ClassVar[NoShowPolicy]
    NO_SHOW_POLICY_FORFEIT: _ClassVar[NoShowPolicy]
    NO_SHOW_POLICY_BOT: _ClassVar[NoShowPolicy]

class TableStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TABLE_STATUS_UNSPECIFIED: _ClassVar[TableStatus]
    TABLE_STATUS_PAIRED: _ClassVar[TableStatus]
    TABLE_STATUS_AWAITING_SEATS: _ClassVar[TableStatus]
    TABLE_STATUS_RUNNING: _ClassVar[TableStatus]
    TABLE_STATUS_DONE: _ClassVar[TableStatus]
    TABLE_STATUS_BYE: _ClassVar[TableStatus]
    TABLE_STATUS_ABANDONED: _ClassVar[TableStatus]
TOURNAMENT_STATUS_UNSPECIFIED: TournamentStatus
TOURNAMENT_STATUS_CREATED: TournamentStatus
TOURNAMENT_STATUS_REGISTRATION: TournamentStatus
TOURNAMENT_STATUS_RUNNING: TournamentStatus
TOURNAMENT_STATUS_FINISHED: TournamentStatus
TOURNAMENT_STATUS_FORCE_ENDED: TournamentStatus
NO_SHOW_POLICY_UNSPECIFIED: NoShowPolicy
NO_SHOW_POLICY_FORFEIT: NoShowPolicy
NO_SHOW_POLICY_BOT: NoShowPolicy
TABLE_STATUS_UNSPECIFIED: TableStatus
TABLE_STATUS_PAIRED: TableStatus
TABLE_STATUS_AWAITING_SEATS: TableStatus
TABLE_STATUS_RUNNING: TableStatus
TABLE_STATUS_DONE: TableStatus
TABLE_STATUS_BYE: TableStatus
TABLE_STATUS_ABANDONED: TableStatus

class Clock(_message.Message):
    __slots__ = ('per_decision_ms', 'bank_ms', 'increment_ms', 'max_timeouts', 'none')
    PER_DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    INCREMENT_MS_FIELD_NUMBER: _ClassVar[int]
    MAX_TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    NONE_FIELD_NUMBER: _ClassVar[int]
    per_decision_ms: int
    bank_ms: int
    increment_ms: int
    max_timeouts: int
    none: bool

    def __init__(self, per_decision_ms: _Optional[int]=..., bank_ms: _Optional[int]=..., increment_ms: _Optional[int]=..., max_timeouts: _Optional[int]=..., none: _Optional[bool]=...) -> None:
        ...

class CreateTournamentRequest(_message.Message):
    __slots__ = ('tournament_id', 'name', 'game', 'mode', 'format_json', 'clock', 'no_show', 'check_in_seconds', 'options_json', 'seed_from_ratings', 'unrated')
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    FORMAT_JSON_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    NO_SHOW_FIELD_NUMBER: _ClassVar[int]
    CHECK_IN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    SEED_FROM_RATINGS_FIELD_NUMBER: _ClassVar[int]
    UNRATED_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    name: str
    game: str
    mode: str
    format_json: str
    clock: Clock
    no_show: NoShowPolicy
    check_in_seconds: int
    options_json: str
    seed_from_ratings: bool
    unrated: bool

    def __init__(self, tournament_id: _Optional[str]=..., name: _Optional[str]=..., game: _Optional[str]=..., mode: _Optional[str]=..., format_json: _Optional[str]=..., clock: _Optional[_Union[Clock, _Mapping]]=..., no_show: _Optional[_Union[NoShowPolicy, str]]=..., check_in_seconds: _Optional[int]=..., options_json: _Optional[str]=..., seed_from_ratings: _Optional[bool]=..., unrated: _Optional[bool]=...) -> None:
        ...

class CreateTournamentResponse(_message.Message):
    __slots__ = ('tournament',)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament

    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]]=...) -> None:
        ...

class Player(_message.Message):
    __slots__ = ('player_id', 'status', 'rating', 'late')
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    LATE_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    status: str
    rating: float
    late: bool

    def __init__(self, player_id: _Optional[str]=..., status: _Optional[str]=..., rating: _Optional[float]=..., late: _Optional[bool]=...) -> None:
        ...

class Tournament(_message.Message):
    __slots__ = ('tournament_id', 'name', 'game', 'mode', 'format_json', 'status', 'players', 'rounds_paired', 'planned_rounds', 'round_complete', 'no_show', 'check_in_seconds', 'clock', 'version', 'reason', 'bracket_json', 'unrated', 'seed_from_ratings')
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    FORMAT_JSON_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_PAIRED_FIELD_NUMBER: _ClassVar[int]
    PLANNED_ROUNDS_FIELD_NUMBER: _ClassVar[int]
    ROUND_COMPLETE_FIELD_NUMBER: _ClassVar[int]
    NO_SHOW_FIELD_NUMBER: _ClassVar[int]
    CHECK_IN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    BRACKET_JSON_FIELD_NUMBER: _ClassVar[int]
    UNRATED_FIELD_NUMBER: _ClassVar[int]
    SEED_FROM_RATINGS_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    name: str
    game: str
    mode: str
    format_json: str
    status: TournamentStatus
    players: _containers.RepeatedCompositeFieldContainer[Player]
    rounds_paired: int
    planned_rounds: int
    round_complete: bool
    no_show: NoShowPolicy
    check_in_seconds: int
    clock: Clock
    version: int
    reason: str
    bracket_json: str
    unrated: bool
    seed_from_ratings: bool

    def __init__(self, tournament_id: _Optional[str]=..., name: _Optional[str]=..., game: _Optional[str]=..., mode: _Optional[str]=..., format_json: _Optional[str]=..., status: _Optional[_Union[TournamentStatus, str]]=..., players: _Optional[_Iterable[_Union[Player, _Mapping]]]=..., rounds_paired: _Optional[int]=..., planned_rounds: _Optional[int]=..., round_complete: _Optional[bool]=..., no_show: _Optional[_Union[NoShowPolicy, str]]=..., check_in_seconds: _Optional[int]=..., clock: _Optional[_Union[Clock, _Mapping]]=..., version: _Optional[int]=..., reason: _Optional[str]=..., bracket_json: _Optional[str]=..., unrated: _Optional[bool]=..., seed_from_ratings: _Optional[bool]=...) -> None:
        ...

class OpenRegistrationRequest(_message.Message):
    __slots__ = ('tournament_id',)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str

    def __init__(self, tournament_id: _Optional[str]=...) -> None:
        ...

class OpenRegistrationResponse(_message.Message):
    __slots__ = ('tournament',)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament

    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]]=...) -> None:
        ...

class RegisterRequest(_message.Message):
    __slots__ = ('tournament_id', 'player_id')
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    player_id: str

    def __init__(self, tournament_id: _Optional[str]=..., player_id: _Optional[str]=...) -> None:
        ...

class RegisterResponse(_message.Message):
    __slots__ = ('tournament',)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament

    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]]=...) -> None:
        ...

class WithdrawRequest(_message.Message):
    __slots__ = ('tournament_id', 'player_id')
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    player_id: str

    def __init__(self, tournament_id: _Optional[str]=..., player_id: _Optional[str]=...) -> None:
        ...

class WithdrawResponse(_message.Message):
    __slots__ = ('tournament',)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament

    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]]=...) -> None:
        ...

class CheckInRequest(_message.Message):
    __slots__ = ('tournament_id', 'player_id')
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    player_id: str

    def __init__(self, tournament_id: _Optional[str]=..., player_id: _Optional[str]=...) -> None:
        ...

class CheckInResponse(_message.Message):
    __slots__ = ('tournament',)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament

    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]]=...) -> None:
        ...

class StartTournamentRequest(_message.Message):
    __slots__ = ('tournament_id', 'checked_in_only')
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    CHECKED_IN_ONLY_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    checked_in_only: bool

    def __init__(self, tournament_id: _Optional[str]=..., checked_in_only: _Optional[bool]=...) -> None:
        ...

class StartTournamentResponse(_message.Message):
    __slots__ = ('tournament', 'left_out', 'already_started')
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    LEFT_OUT_FIELD_NUMBER: _ClassVar[int]
    ALREADY_STARTED_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    left_out: _containers.RepeatedScalarFieldContainer[str]
    already_started: bool

    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]]=..., left_out: _Optional[_Iterable[str]]=..., already_started: _Optional[bool]=...) -> None:
        ...

class NextRoundRequest(_message.Message):
    __slots__ = ('tournament_id', 'round')
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    round: int

    def __init__(self, tournament_id: _Optional[str]=..., round: _Optional[int]=...) -> None:
        ...

class NextRoundResponse(_message.Message):
    __slots__ = ('round',)
    ROUND_FIELD_NUMBER: _ClassVar[int]
    round: Round

    def __init__(self, round: _Optional[_Union[Round, _Mapping]]=...) -> None:
        ...

class Result(_message.Message):
    __slots__ = ('placements', 'scores', 'forfeited', 'kind', 'reason')
    PLACEMENTS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    placements: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    forfeited: bool
    kind: str
    reason: str

    def __init__(self, placements: _Optional[_Iterable[int]]=..., scores: _Optional[_Iterable[int]]=..., forfeited: _Optional[bool]=..., kind: _Optional[str]=..., reason: _Optional[str]=...) -> None:
        ...

class TableInfo(_message.Message):
    __slots__ = ('number', 'seats', 'bye', 'match_id', 'rules_address', 'status', 'result', 'final_hash', 'abandoned_reason', 'earlier')
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    BYE_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    FINAL_HASH_FIELD_NUMBER: _ClassVar[int]
    ABANDONED_REASON_FIELD_NUMBER: _ClassVar[int]
    EARLIER_FIELD_NUMBER: _ClassVar[int]
    number: int
    seats: _containers.RepeatedScalarFieldContainer[str]
    bye: bool
    match_id: str
    rules_address: str
    status: TableStatus
    result: Result
    final_hash: str
    abandoned_reason: str
    earlier: _containers.RepeatedCompositeFieldContainer[EarlierMatch]

    def __init__(self, number: _Optional[int]=..., seats: _Optional[_Iterable[str]]=..., bye: _Optional[bool]=..., match_id: _Optional[str]=..., rules_address: _Optional[str]=..., status: _Optional[_Union[TableStatus, str]]=..., result: _Optional[_Union[Result, _Mapping]]=..., final_hash: _Optional[str]=..., abandoned_reason: _Optional[str]=..., earlier: _Optional[_Iterable[_Union[EarlierMatch, _Mapping]]]=...) -> None:
        ...

class EarlierMatch(_message.Message):
    __slots__ = ('match_id', 'final_hash', 'abandoned_reason', 'rematch_reason')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    FINAL_HASH_FIELD_NUMBER: _ClassVar[int]
    ABANDONED_REASON_FIELD_NUMBER: _ClassVar[int]
    REMATCH_REASON_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    final_hash: str
    abandoned_reason: str
    rematch_reason: str

    def __init__(self, match_id: _Optional[str]=..., final_hash: _Optional[str]=..., abandoned_reason: _Optional[str]=..., rematch_reason: _Optional[str]=...) -> None:
        ...

class Checkpoint(_message.Message):
    __slots__ = ('round', 'merkle_root', 'leaves', 'log_length', 'log_head', 'public_key', 'signature', 'checkpoint_json')
    ROUND_FIELD_NUMBER: _ClassVar[int]
    MERKLE_ROOT_FIELD_NUMBER: _ClassVar[int]
    LEAVES_FIELD_NUMBER: _ClassVar[int]
    LOG_LENGTH_FIELD_NUMBER: _ClassVar[int]
    LOG_HEAD_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_JSON_FIELD_NUMBER: _ClassVar[int]
    round: int
    merkle_root: str
    leaves: int
    log_length: int
    log_head: str
    public_key: str
    signature: str
    checkpoint_json: str

    def __init__(self, round: _Optional[int]=..., merkle_root: _Optional[str]=..., leaves: _Optional[int]=..., log_length: _Optional[int]=..., log_head: _Optional[str]=..., public_key: _Optional[str]=..., signature: _Optional[str]=..., checkpoint_json: _Optional[str]=...) -> None:
        ...

class Round(_message.Message):
    __slots__ = ('tournament_id', 'number', 'tables', 'complete', 'checkpoint')
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    number: int
    tables: _containers.RepeatedCompositeFieldContainer[TableInfo]
    complete: bool
    checkpoint: Checkpoint

    def __init__(self, tournament_id: _Optional[str]=..., number: _Optional[int]=..., tables: _Optional[_Iterable[_Union[TableInfo, _Mapping]]]=..., complete: _Optional[bool]=..., checkpoint: _Optional[_Union[Checkpoint, _Mapping]]=...) -> None:
        ...

class GetRoundRequest(_message.Message):
    __slots__ = ('tournament_id', 'round')
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    round: int

    def __init__(self, tournament_id: _Optional[str]=..., round: _Optional[int]=...) -> None:
        ...

class GetRoundResponse(_message.Message):
    __slots__ = ('round',)
    ROUND_FIELD_NUMBER: _ClassVar[int]
    round: Round

    def __init__(self, round: _Optional[_Union[Round, _Mapping]]=...) -> None:
        ...

class GetTournamentRequest(_message.Message):
    __slots__ = ('tournament_id',)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str

    def __init__(self, tournament_id: _Optional[str]=...) -> None:
        ...

class GetTournamentResponse(_message.Message):
    __slots__ = ('tournament',)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament

    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]]=...) -> None:
        ...

class ListTournamentsRequest(_message.Message):
    __slots__ = ('limit',)
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    limit: int

    def __init__(self, limit: _Optional[int]=...) -> None:
        ...

class TournamentSummary(_message.Message):
    __slots__ = ('tournament_id', 'name', 'game', 'mode', 'format', 'status', 'players', 'rounds_paired')
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_PAIRED_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    name: str
    game: str
    mode: str
    format: str
    status: TournamentStatus
    players: int
    rounds_paired: int

    def __init__(self, tournament_id: _Optional[str]=..., name: _Optional[str]=..., game: _Optional[str]=..., mode: _Optional[str]=..., format: _Optional[str]=..., status: _Optional[_Union[TournamentStatus, str]]=..., players: _Optional[int]=..., rounds_paired: _Optional[int]=...) -> None:
        ...

class ListTournamentsResponse(_message.Message):
    __slots__ = ('tournaments',)
    TOURNAMENTS_FIELD_NUMBER: _ClassVar[int]
    tournaments: _containers.RepeatedCompositeFieldContainer[TournamentSummary]

    def __init__(self, tournaments: _Optional[_Iterable[_Union[TournamentSummary, _Mapping]]]=...) -> None:
        ...

class TieBreak(_message.Message):
    __slots__ = ('name', 'value')
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    name: str
    value: float

    def __init__(self, name: _Optional[str]=..., value: _Optional[float]=...) -> None:
        ...

class StandingRow(_message.Message):
    __slots__ = ('rank', 'player_id', 'points', 'games', 'wins', 'tiebreaks', 'dropped')
    RANK_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    TIEBREAKS_FIELD_NUMBER: _ClassVar[int]
    DROPPED_FIELD_NUMBER: _ClassVar[int]
    rank: int
    player_id: str
    points: float
    games: int
    wins: int
    tiebreaks: _containers.RepeatedCompositeFieldContainer[TieBreak]
    dropped: bool

    def __init__(self, rank: _Optional[int]=..., player_id: _Optional[str]=..., points: _Optional[float]=..., games: _Optional[int]=..., wins: _Optional[int]=..., tiebreaks: _Optional[_Iterable[_Union[TieBreak, _Mapping]]]=..., dropped: _Optional[bool]=...) -> None:
        ...

class GetStandingsRequest(_message.Message):
    __slots__ = ('tournament_id',)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str

    def __init__(self, tournament_id: _Optional[str]=...) -> None:
        ...

class GetStandingsResponse(_message.Message):
    __slots__ = ('rows', 'final')
    ROWS_FIELD_NUMBER: _ClassVar[int]
    FINAL_FIELD_NUMBER: _ClassVar[int]
    rows: _containers.RepeatedCompositeFieldContainer[StandingRow]
    final: bool

    def __init__(self, rows: _Optional[_Iterable[_Union[StandingRow, _Mapping]]]=..., final: _Optional[bool]=...) -> None:
        ...

class CorrectResultRequest(_message.Message):
    __slots__ = ('tournament_id', 'round', 'table', 'placements', 'forfeited', 'reason')
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    PLACEMENTS_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    round: int
    table: int
    placements: _containers.RepeatedScalarFieldContainer[int]
    forfeited: bool
    reason: str

    def __init__(self, tournament_id: _Optional[str]=..., round: _Optional[int]=..., table: _Optional[int]=..., placements: _Optional[_Iterable[int]]=..., forfeited: _Optional[bool]=..., reason: _Optional[str]=...) -> None:
        ...

class CorrectResultResponse(_message.Message):
    __slots__ = ('round',)
    ROUND_FIELD_NUMBER: _ClassVar[int]
    round: Round

    def __init__(self, round: _Optional[_Union[Round, _Mapping]]=...) -> None:
        ...

class RematchTableRequest(_message.Message):
    __slots__ = ('tournament_id', 'round', 'table', 'reason')
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    round: int
    table: int
    reason: str

    def __init__(self, tournament_id: _Optional[str]=..., round: _Optional[int]=..., table: _Optional[int]=..., reason: _Optional[str]=...) -> None:
        ...

class RematchTableResponse(_message.Message):
    __slots__ = ('round',)
    ROUND_FIELD_NUMBER: _ClassVar[int]
    round: Round

    def __init__(self, round: _Optional[_Union[Round, _Mapping]]=...) -> None:
        ...

class DropPlayerRequest(_message.Message):
    __slots__ = ('tournament_id', 'player_id', 'reason')
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    player_id: str
    reason: str

    def __init__(self, tournament_id: _Optional[str]=..., player_id: _Optional[str]=..., reason: _Optional[str]=...) -> None:
        ...

class DropPlayerResponse(_message.Message):
    __slots__ = ('tournament', 'already_dropped')
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    ALREADY_DROPPED_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    already_dropped: bool

    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]]=..., already_dropped: _Optional[bool]=...) -> None:
        ...

class AddLateEntryRequest(_message.Message):
    __slots__ = ('tournament_id', 'player_id')
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    player_id: str

    def __init__(self, tournament_id: _Optional[str]=..., player_id: _Optional[str]=...) -> None:
        ...

class AddLateEntryResponse(_message.Message):
    __slots__ = ('tournament', 'already_playing')
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    ALREADY_PLAYING_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    already_playing: bool

    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]]=..., already_playing: _Optional[bool]=...) -> None:
        ...

class ReinstatePlayerRequest(_message.Message):
    __slots__ = ('tournament_id', 'player_id', 'reason')
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    player_id: str
    reason: str

    def __init__(self, tournament_id: _Optional[str]=..., player_id: _Optional[str]=..., reason: _Optional[str]=...) -> None:
        ...

class ReinstatePlayerResponse(_message.Message):
    __slots__ = ('tournament', 'already_reinstated')
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    ALREADY_REINSTATED_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    already_reinstated: bool

    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]]=..., already_reinstated: _Optional[bool]=...) -> None:
        ...

class ForceEndRequest(_message.Message):
    __slots__ = ('tournament_id', 'reason', 'expected_status')
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_STATUS_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    reason: str
    expected_status: TournamentStatus

    def __init__(self, tournament_id: _Optional[str]=..., reason: _Optional[str]=..., expected_status: _Optional[_Union[TournamentStatus, str]]=...) -> None:
        ...

class ForceEndResponse(_message.Message):
    __slots__ = ('tournament',)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament

    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]]=...) -> None:
        ...

class FinishTournamentRequest(_message.Message):
    __slots__ = ('tournament_id',)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str

    def __init__(self, tournament_id: _Optional[str]=...) -> None:
        ...

class FinishTournamentResponse(_message.Message):
    __slots__ = ('tournament', 'rows', 'already_ended')
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    ALREADY_ENDED_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    rows: _containers.RepeatedCompositeFieldContainer[StandingRow]
    already_ended: bool

    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]]=..., rows: _Optional[_Iterable[_Union[StandingRow, _Mapping]]]=..., already_ended: _Optional[bool]=...) -> None:
        ...

class ExportTournamentRequest(_message.Message):
    __slots__ = ('tournament_id',)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str

    def __init__(self, tournament_id: _Optional[str]=...) -> None:
        ...

class ExportTournamentResponse(_message.Message):
    __slots__ = ('bundle_jsonl', 'matches', 'checkpoints')
    BUNDLE_JSONL_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINTS_FIELD_NUMBER: _ClassVar[int]
    bundle_jsonl: bytes
    matches: int
    checkpoints: int

    def __init__(self, bundle_jsonl: _Optional[bytes]=..., matches: _Optional[int]=..., checkpoints: _Optional[int]=...) -> None:
        ...

class ExportTournamentChunksRequest(_message.Message):
    __slots__ = ('tournament_id',)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str

    def __init__(self, tournament_id: _Optional[str]=...) -> None:
        ...

class ExportTournamentChunksResponse(_message.Message):
    __slots__ = ('chunk', 'done', 'total_bytes', 'matches', 'checkpoints')
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_BYTES_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINTS_FIELD_NUMBER: _ClassVar[int]
    chunk: bytes
    done: bool
    total_bytes: int
    matches: int
    checkpoints: int

    def __init__(self, chunk: _Optional[bytes]=..., done: _Optional[bool]=..., total_bytes: _Optional[int]=..., matches: _Optional[int]=..., checkpoints: _Optional[int]=...) -> None:
        ...

class MyNextMatchRequest(_message.Message):
    __slots__ = ('tournament_id',)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str

    def __init__(self, tournament_id: _Optional[str]=...) -> None:
        ...

class MatchAssignment(_message.Message):
    __slots__ = ('tournament_id', 'round', 'table', 'match_id', 'game', 'mode', 'rules_address', 'seat', 'seat_token', 'bye', 'seats', 'status', 'check_in_seconds_left')
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    RULES_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    BYE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CHECK_IN_SECONDS_LEFT_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    round: int
    table: int
    match_id: str
    game: str
    mode: str
    rules_address: str
    seat: int
    seat_token: str
    bye: bool
    seats: _containers.RepeatedScalarFieldContainer[str]
    status: TableStatus
    check_in_seconds_left: float

    def __init__(self, tournament_id: _Optional[str]=..., round: _Optional[int]=..., table: _Optional[int]=..., match_id: _Optional[str]=..., game: _Optional[str]=..., mode: _Optional[str]=..., rules_address: _Optional[str]=..., seat: _Optional[int]=..., seat_token: _Optional[str]=..., bye: _Optional[bool]=..., seats: _Optional[_Iterable[str]]=..., status: _Optional[_Union[TableStatus, str]]=..., check_in_seconds_left: _Optional[float]=...) -> None:
        ...

class MyNextMatchResponse(_message.Message):
    __slots__ = ('assignment', 'status')
    ASSIGNMENT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    assignment: MatchAssignment
    status: TournamentStatus

    def __init__(self, assignment: _Optional[_Union[MatchAssignment, _Mapping]]=..., status: _Optional[_Union[TournamentStatus, str]]=...) -> None:
        ...

class ReadyForMatchRequest(_message.Message):
    __slots__ = ('tournament_id', 'match_id')
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    match_id: str

    def __init__(self, tournament_id: _Optional[str]=..., match_id: _Optional[str]=...) -> None:
        ...

class ReadyForMatchResponse(_message.Message):
    __slots__ = ('seats_ready', 'started')
    SEATS_READY_FIELD_NUMBER: _ClassVar[int]
    STARTED_FIELD_NUMBER: _ClassVar[int]
    seats_ready: int
    started: bool

    def __init__(self, seats_ready: _Optional[int]=..., started: _Optional[bool]=...) -> None:
        ...

class WatchTournamentRequest(_message.Message):
    __slots__ = ('tournament_id',)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str

    def __init__(self, tournament_id: _Optional[str]=...) -> None:
        ...

class WatchTournamentResponse(_message.Message):
    __slots__ = ('tournament', 'round')
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    round: Round

    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]]=..., round: _Optional[_Union[Round, _Mapping]]=...) -> None:
        ...

class WatchMyMatchesRequest(_message.Message):
    __slots__ = ('tournament_id',)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str

    def __init__(self, tournament_id: _Optional[str]=...) -> None:
        ...

class WatchMyMatchesResponse(_message.Message):
    __slots__ = ('assignment', 'status')
    ASSIGNMENT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    assignment: MatchAssignment
    status: TournamentStatus

    def __init__(self, assignment: _Optional[_Union[MatchAssignment, _Mapping]]=..., status: _Optional[_Union[TournamentStatus, str]]=...) -> None:
        ...