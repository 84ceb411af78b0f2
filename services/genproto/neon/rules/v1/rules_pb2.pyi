from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union
DESCRIPTOR: _descriptor.FileDescriptor

class MatchStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_STATUS_UNSPECIFIED: _ClassVar[MatchStatus]
    MATCH_STATUS_AWAITING_SEEDS: _ClassVar[MatchStatus]
    MATCH_STATUS_RUNNING: _ClassVar[MatchStatus]
    MATCH_STATUS_ENDED: _ClassVar[MatchStatus]

class ClockKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CLOCK_KIND_UNSPECIFIED: _ClassVar[ClockKind]
    CLOCK_KIND_NONE: _ClassVar[ClockKind]
    CLOCK_KIND_PER_DECISION: _ClassVar[ClockKind]
    CLOCK_KIND_FISCHER: _ClassVar[ClockKind]

class TimeoutPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TIMEOUT_POLICY_UNSPECIFIED: _ClassVar[TimeoutPolicy]
    TIMEOUT_POLICY_DEFAULT_ACTION: _ClassVar[TimeoutPolicy]
    TIMEOUT_POLICY_BOT: _ClassVar[TimeoutPolicy]
    TIMEOUT_POLICY_FORFEIT: _ClassVar[TimeoutPolicy]
MATCH_STATUS_UNSPECIFIED: MatchStatus
MATCH_STATUS_AWAITING_SEEDS: MatchStatus
MATCH_STATUS_RUNNING: MatchStatus
MATCH_STATUS_ENDED: MatchStatus
CLOCK_KIND_UNSPECIFIED: ClockKind
CLOCK_KIND_NONE: ClockKind
CLOCK_KIND_PER_DECISION: ClockKind
CLOCK_KIND_FISCHER: ClockKind
TIMEOUT_POLICY_UNSPECIFIED: TimeoutPolicy
TIMEOUT_POLICY_DEFAULT_ACTION: TimeoutPolicy
TIMEOUT_POLICY_BOT: TimeoutPolicy
TIMEOUT_POLICY_FORFEIT: TimeoutPolicy

class TeamLayout(_message.Message):
    __slots__ = ('seats', 'team_size')
    SEATS_FIELD_NUMBER: _ClassVar[int]
    TEAM_SIZE_FIELD_NUMBER: _ClassVar[int]
    seats: int
    team_size: int

    def __init__(self, seats: _Optional[int]=..., team_size: _Optional[int]=...) -> None:
        ...

class ModeInfo(_message.Message):
    __slots__ = ('name', 'min_seats', 'max_seats', 'description', 'team_layouts', 'ai_participants', 'campaign')
    NAME_FIELD_NUMBER: _ClassVar[int]
    MIN_SEATS_FIELD_NUMBER: _ClassVar[int]
    MAX_SEATS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TEAM_LAYOUTS_FIELD_NUMBER: _ClassVar[int]
    AI_PARTICIPANTS_FIELD_NUMBER: _ClassVar[int]
    CAMPAIGN_FIELD_NUMBER: _ClassVar[int]
    name: str
    min_seats: int
    max_seats: int
    description: str
    team_layouts: _containers.RepeatedCompositeFieldContainer[TeamLayout]
    ai_participants: _containers.RepeatedScalarFieldContainer[str]
    campaign: bool

    def __init__(self, name: _Optional[str]=..., min_seats: _Optional[int]=..., max_seats: _Optional[int]=..., description: _Optional[str]=..., team_layouts: _Optional[_Iterable[_Union[TeamLayout, _Mapping]]]=..., ai_participants: _Optional[_Iterable[str]]=..., campaign: _Optional[bool]=...) -> None:
        ...

class GetGameInfoRequest(_message.Message):
    __slots__ = ()

    def __init__(self) -> None:
        ...

class GetGameInfoResponse(_message.Message):
    __slots__ = ('game_id', 'title', 'engine_version', 'content_version', 'modes', 'config_schema_json', 'action_schema_json', 'contract_version', 'content_json', 'view_schema_json', 'event_schema_json')
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    ENGINE_VERSION_FIELD_NUMBER: _ClassVar[int]
    CONTENT_VERSION_FIELD_NUMBER: _ClassVar[int]
    MODES_FIELD_NUMBER: _ClassVar[int]
    CONFIG_SCHEMA_JSON_FIELD_NUMBER: _ClassVar[int]
    ACTION_SCHEMA_JSON_FIELD_NUMBER: _ClassVar[int]
    CONTRACT_VERSION_FIELD_NUMBER: _ClassVar[int]
    CONTENT_JSON_FIELD_NUMBER: _ClassVar[int]
    VIEW_SCHEMA_JSON_FIELD_NUMBER: _ClassVar[int]
    EVENT_SCHEMA_JSON_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    title: str
    engine_version: str
    content_version: str
    modes: _containers.RepeatedCompositeFieldContainer[ModeInfo]
    config_schema_json: str
    action_schema_json: str
    contract_version: int
    content_json: str
    view_schema_json: str
    event_schema_json: str

    def __init__(self, game_id: _Optional[str]=..., title: _Optional[str]=..., engine_version: _Optional[str]=..., content_version: _Optional[str]=..., modes: _Optional[_Iterable[_Union[ModeInfo, _Mapping]]]=..., config_schema_json: _Optional[str]=..., action_schema_json: _Optional[str]=..., contract_version: _Optional[int]=..., content_json: _Optional[str]=..., view_schema_json: _Optional[str]=..., event_schema_json: _Optional[str]=...) -> None:
        ...

class ClockConfig(_message.Message):
    __slots__ = ('kind', 'per_decision_ms', 'bank_ms', 'increment_ms', 'max_timeouts', 'policy')
    KIND_FIELD_NUMBER: _ClassVar[int]
    PER_DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    INCREMENT_MS_FIELD_NUMBER: _ClassVar[int]
    MAX_TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    kind: ClockKind
    per_decision_ms: int
    bank_ms: int
    increment_ms: int
    max_timeouts: int
    policy: TimeoutPolicy

    def __init__(self, kind: _Optional[_Union[ClockKind, str]]=..., per_decision_ms: _Optional[int]=..., bank_ms: _Optional[int]=..., increment_ms: _Optional[int]=..., max_timeouts: _Optional[int]=..., policy: _Optional[_Union[TimeoutPolicy, str]]=...) -> None:
        ...

class SeatClock(_message.Message):
    __slots__ = ('seat', 'remaining_ms', 'running', 'deadline_unix_ms', 'timeouts', 'bot')
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REMAINING_MS_FIELD_NUMBER: _ClassVar[int]
    RUNNING_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    remaining_ms: int
    running: bool
    deadline_unix_ms: int
    timeouts: int
    bot: bool

    def __init__(self, seat: _Optional[int]=..., remaining_ms: _Optional[int]=..., running: _Optional[bool]=..., deadline_unix_ms: _Optional[int]=..., timeouts: _Optional[int]=..., bot: _Optional[bool]=...) -> None:
        ...

class CreateMatchRequest(_message.Message):
    __slots__ = ('match_id', 'mode', 'seats', 'options_json', 'players', 'await_client_seeds', 'dev_seed', 'clock', 'previous_match_id', 'previous_final_hash', 'teams', 'on_behalf_of_organiser')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    AWAIT_CLIENT_SEEDS_FIELD_NUMBER: _ClassVar[int]
    DEV_SEED_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_FINAL_HASH_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    ON_BEHALF_OF_ORGANISER_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    mode: str
    seats: int
    options_json: str
    players: _containers.RepeatedScalarFieldContainer[str]
    await_client_seeds: bool
    dev_seed: str
    clock: ClockConfig
    previous_match_id: str
    previous_final_hash: str
    teams: _containers.RepeatedCompositeFieldContainer[TeamSeats]
    on_behalf_of_organiser: str

    def __init__(self, match_id: _Optional[str]=..., mode: _Optional[str]=..., seats: _Optional[int]=..., options_json: _Optional[str]=..., players: _Optional[_Iterable[str]]=..., await_client_seeds: _Optional[bool]=..., dev_seed: _Optional[str]=..., clock: _Optional[_Union[ClockConfig, _Mapping]]=..., previous_match_id: _Optional[str]=..., previous_final_hash: _Optional[str]=..., teams: _Optional[_Iterable[_Union[TeamSeats, _Mapping]]]=..., on_behalf_of_organiser: _Optional[str]=...) -> None:
        ...

class CheckMatchConfigRequest(_message.Message):
    __slots__ = ('mode', 'seats', 'options_json', 'teams')
    MODE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    mode: str
    seats: int
    options_json: str
    teams: _containers.RepeatedCompositeFieldContainer[TeamSeats]

    def __init__(self, mode: _Optional[str]=..., seats: _Optional[int]=..., options_json: _Optional[str]=..., teams: _Optional[_Iterable[_Union[TeamSeats, _Mapping]]]=...) -> None:
        ...

class CheckMatchConfigResponse(_message.Message):
    __slots__ = ('game_id', 'engine_version')
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    ENGINE_VERSION_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    engine_version: str

    def __init__(self, game_id: _Optional[str]=..., engine_version: _Optional[str]=...) -> None:
        ...

class TeamSeats(_message.Message):
    __slots__ = ('seats',)
    SEATS_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedScalarFieldContainer[int]

    def __init__(self, seats: _Optional[_Iterable[int]]=...) -> None:
        ...

class SeatToken(_message.Message):
    __slots__ = ('seat', 'token', 'player')
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    seat: int
    token: str
    player: str

    def __init__(self, seat: _Optional[int]=..., token: _Optional[str]=..., player: _Optional[str]=...) -> None:
        ...

class CreateMatchResponse(_message.Message):
    __slots__ = ('match_id', 'dice_commitment', 'seat_tokens', 'status', 'version', 'game_id')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    DICE_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    dice_commitment: str
    seat_tokens: _containers.RepeatedCompositeFieldContainer[SeatToken]
    status: MatchStatus
    version: int
    game_id: str

    def __init__(self, match_id: _Optional[str]=..., dice_commitment: _Optional[str]=..., seat_tokens: _Optional[_Iterable[_Union[SeatToken, _Mapping]]]=..., status: _Optional[_Union[MatchStatus, str]]=..., version: _Optional[int]=..., game_id: _Optional[str]=...) -> None:
        ...

class AddClientSeedRequest(_message.Message):
    __slots__ = ('match_id', 'seed')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seed: str

    def __init__(self, match_id: _Optional[str]=..., seed: _Optional[str]=...) -> None:
        ...

class AddClientSeedResponse(_message.Message):
    __slots__ = ('seats_with_seeds',)
    SEATS_WITH_SEEDS_FIELD_NUMBER: _ClassVar[int]
    seats_with_seeds: int

    def __init__(self, seats_with_seeds: _Optional[int]=...) -> None:
        ...

class StartMatchRequest(_message.Message):
    __slots__ = ('match_id',)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str

    def __init__(self, match_id: _Optional[str]=...) -> None:
        ...

class StartMatchResponse(_message.Message):
    __slots__ = ('version', 'state_hash', 'already_started')
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STATE_HASH_FIELD_NUMBER: _ClassVar[int]
    ALREADY_STARTED_FIELD_NUMBER: _ClassVar[int]
    version: int
    state_hash: str
    already_started: bool

    def __init__(self, version: _Optional[int]=..., state_hash: _Optional[str]=..., already_started: _Optional[bool]=...) -> None:
        ...

class MatchEvent(_message.Message):
    __slots__ = ('match_id', 'version', 'type', 'seat', 'payload_json', 'state_hash', 'chain_hash', 'text', 'game_id')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_JSON_FIELD_NUMBER: _ClassVar[int]
    STATE_HASH_FIELD_NUMBER: _ClassVar[int]
    CHAIN_HASH_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    version: int
    type: str
    seat: int
    payload_json: str
    state_hash: str
    chain_hash: str
    text: _containers.RepeatedScalarFieldContainer[str]
    game_id: str

    def __init__(self, match_id: _Optional[str]=..., version: _Optional[int]=..., type: _Optional[str]=..., seat: _Optional[int]=..., payload_json: _Optional[str]=..., state_hash: _Optional[str]=..., chain_hash: _Optional[str]=..., text: _Optional[_Iterable[str]]=..., game_id: _Optional[str]=...) -> None:
        ...

class SubmitActionRequest(_message.Message):
    __slots__ = ('match_id', 'command_id', 'action_json', 'expected_version', 'with_text')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_JSON_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    WITH_TEXT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    command_id: str
    action_json: str
    expected_version: int
    with_text: bool

    def __init__(self, match_id: _Optional[str]=..., command_id: _Optional[str]=..., action_json: _Optional[str]=..., expected_version: _Optional[int]=..., with_text: _Optional[bool]=...) -> None:
        ...

class SubmitActionResponse(_message.Message):
    __slots__ = ('version', 'state_hash', 'events', 'status', 'outcome_json', 'replayed', 'decisions', 'view_json', 'clocks', 'game_id', 'position_version')
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STATE_HASH_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_JSON_FIELD_NUMBER: _ClassVar[int]
    REPLAYED_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    VIEW_JSON_FIELD_NUMBER: _ClassVar[int]
    CLOCKS_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    POSITION_VERSION_FIELD_NUMBER: _ClassVar[int]
    version: int
    state_hash: str
    events: _containers.RepeatedCompositeFieldContainer[MatchEvent]
    status: MatchStatus
    outcome_json: str
    replayed: bool
    decisions: _containers.RepeatedCompositeFieldContainer[Decision]
    view_json: str
    clocks: _containers.RepeatedCompositeFieldContainer[SeatClock]
    game_id: str
    position_version: int

    def __init__(self, version: _Optional[int]=..., state_hash: _Optional[str]=..., events: _Optional[_Iterable[_Union[MatchEvent, _Mapping]]]=..., status: _Optional[_Union[MatchStatus, str]]=..., outcome_json: _Optional[str]=..., replayed: _Optional[bool]=..., decisions: _Optional[_Iterable[_Union[Decision, _Mapping]]]=..., view_json: _Optional[str]=..., clocks: _Optional[_Iterable[_Union[SeatClock, _Mapping]]]=..., game_id: _Optional[str]=..., position_version: _Optional[int]=...) -> None:
        ...

class Decision(_message.Message):
    __slots__ = ('seat', 'kind', 'prompt', 'optional', 'hidden', 'legal_json', 'default_json', 'standing', 'priority', 'legal_text')
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    OPTIONAL_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_FIELD_NUMBER: _ClassVar[int]
    LEGAL_JSON_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_JSON_FIELD_NUMBER: _ClassVar[int]
    STANDING_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    LEGAL_TEXT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: str
    prompt: str
    optional: bool
    hidden: bool
    legal_json: _containers.RepeatedScalarFieldContainer[str]
    default_json: str
    standing: bool
    priority: int
    legal_text: _containers.RepeatedScalarFieldContainer[str]

    def __init__(self, seat: _Optional[int]=..., kind: _Optional[str]=..., prompt: _Optional[str]=..., optional: _Optional[bool]=..., hidden: _Optional[bool]=..., legal_json: _Optional[_Iterable[str]]=..., default_json: _Optional[str]=..., standing: _Optional[bool]=..., priority: _Optional[int]=..., legal_text: _Optional[_Iterable[str]]=...) -> None:
        ...

class ListLegalActionsRequest(_message.Message):
    __slots__ = ('match_id', 'with_text')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    WITH_TEXT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    with_text: bool

    def __init__(self, match_id: _Optional[str]=..., with_text: _Optional[bool]=...) -> None:
        ...

class ListLegalActionsResponse(_message.Message):
    __slots__ = ('version', 'decisions', 'game_id')
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    version: int
    decisions: _containers.RepeatedCompositeFieldContainer[Decision]
    game_id: str

    def __init__(self, version: _Optional[int]=..., decisions: _Optional[_Iterable[_Union[Decision, _Mapping]]]=..., game_id: _Optional[str]=...) -> None:
        ...

class GetViewRequest(_message.Message):
    __slots__ = ('match_id',)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str

    def __init__(self, match_id: _Optional[str]=...) -> None:
        ...

class PendingSeat(_message.Message):
    __slots__ = ('seat', 'kind')
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: str

    def __init__(self, seat: _Optional[int]=..., kind: _Optional[str]=...) -> None:
        ...

class GetViewResponse(_message.Message):
    __slots__ = ('match_id', 'version', 'status', 'viewer', 'view_json', 'pending', 'outcome_json', 'state_hash', 'game_id', 'mode', 'seats', 'clocks')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VIEWER_FIELD_NUMBER: _ClassVar[int]
    VIEW_JSON_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_JSON_FIELD_NUMBER: _ClassVar[int]
    STATE_HASH_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    CLOCKS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    version: int
    status: MatchStatus
    viewer: int
    view_json: str
    pending: _containers.RepeatedCompositeFieldContainer[PendingSeat]
    outcome_json: str
    state_hash: str
    game_id: str
    mode: str
    seats: int
    clocks: _containers.RepeatedCompositeFieldContainer[SeatClock]

    def __init__(self, match_id: _Optional[str]=..., version: _Optional[int]=..., status: _Optional[_Union[MatchStatus, str]]=..., viewer: _Optional[int]=..., view_json: _Optional[str]=..., pending: _Optional[_Iterable[_Union[PendingSeat, _Mapping]]]=..., outcome_json: _Optional[str]=..., state_hash: _Optional[str]=..., game_id: _Optional[str]=..., mode: _Optional[str]=..., seats: _Optional[int]=..., clocks: _Optional[_Iterable[_Union[SeatClock, _Mapping]]]=...) -> None:
        ...

class WatchMatchRequest(_message.Message):
    __slots__ = ('match_id', 'from_version')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_VERSION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    from_version: int

    def __init__(self, match_id: _Optional[str]=..., from_version: _Optional[int]=...) -> None:
        ...

class WatchMatchResponse(_message.Message):
    __slots__ = ('event',)
    EVENT_FIELD_NUMBER: _ClassVar[int]
    event: MatchEvent

    def __init__(self, event: _Optional[_Union[MatchEvent, _Mapping]]=...) -> None:
        ...

class ExportMatchRequest(_message.Message):
    __slots__ = ('match_id',)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str

    def __init__(self, match_id: _Optional[str]=...) -> None:
        ...

class ExportMatchResponse(_message.Message):
    __slots__ = ('export_jsonl', 'final_hash', 'event_count')
    EXPORT_JSONL_FIELD_NUMBER: _ClassVar[int]
    FINAL_HASH_FIELD_NUMBER: _ClassVar[int]
    EVENT_COUNT_FIELD_NUMBER: _ClassVar[int]
    export_jsonl: bytes
    final_hash: str
    event_count: int

    def __init__(self, export_jsonl: _Optional[bytes]=..., final_hash: _Optional[str]=..., event_count: _Optional[int]=...) -> None:
        ...

class ExportMatchChunksRequest(_message.Message):
    __slots__ = ('match_id',)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str

    def __init__(self, match_id: _Optional[str]=...) -> None:
        ...

class ExportMatchChunksResponse(_message.Message):
    __slots__ = ('chunk', 'final_hash', 'event_count', 'total_bytes')
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    FINAL_HASH_FIELD_NUMBER: _ClassVar[int]
    EVENT_COUNT_FIELD_NUMBER: _ClassVar[int]
    TOTAL_BYTES_FIELD_NUMBER: _ClassVar[int]
    chunk: bytes
    final_hash: str
    event_count: int
    total_bytes: int

    def __init__(self, chunk: _Optional[bytes]=..., final_hash: _Optional[str]=..., event_count: _Optional[int]=..., total_bytes: _Optional[int]=...) -> None:
        ...

class PlayOpen(_message.Message):
    __slots__ = ('match_id', 'from_version', 'with_text')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_VERSION_FIELD_NUMBER: _ClassVar[int]
    WITH_TEXT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    from_version: int
    with_text: bool

    def __init__(self, match_id: _Optional[str]=..., from_version: _Optional[int]=..., with_text: _Optional[bool]=...) -> None:
        ...

class PlayAction(_message.Message):
    __slots__ = ('command_id', 'action_json', 'expected_version')
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_JSON_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    command_id: str
    action_json: str
    expected_version: int

    def __init__(self, command_id: _Optional[str]=..., action_json: _Optional[str]=..., expected_version: _Optional[int]=...) -> None:
        ...

class PlayRequest(_message.Message):
    __slots__ = ('open', 'action')
    OPEN_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    open: PlayOpen
    action: PlayAction

    def __init__(self, open: _Optional[_Union[PlayOpen, _Mapping]]=..., action: _Optional[_Union[PlayAction, _Mapping]]=...) -> None:
        ...

class SeatUpdate(_message.Message):
    __slots__ = ('version', 'status', 'decisions', 'view_json', 'clocks', 'outcome_json')
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    VIEW_JSON_FIELD_NUMBER: _ClassVar[int]
    CLOCKS_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_JSON_FIELD_NUMBER: _ClassVar[int]
    version: int
    status: MatchStatus
    decisions: _containers.RepeatedCompositeFieldContainer[Decision]
    view_json: str
    clocks: _containers.RepeatedCompositeFieldContainer[SeatClock]
    outcome_json: str

    def __init__(self, version: _Optional[int]=..., status: _Optional[_Union[MatchStatus, str]]=..., decisions: _Optional[_Iterable[_Union[Decision, _Mapping]]]=..., view_json: _Optional[str]=..., clocks: _Optional[_Iterable[_Union[SeatClock, _Mapping]]]=..., outcome_json: _Optional[str]=...) -> None:
        ...

class ActionResult(_message.Message):
    __slots__ = ('command_id', 'code', 'message', 'version', 'replayed')
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    REPLAYED_FIELD_NUMBER: _ClassVar[int]
    command_id: str
    code: str
    message: str
    version: int
    replayed: bool

    def __init__(self, command_id: _Optional[str]=..., code: _Optional[str]=..., message: _Optional[str]=..., version: _Optional[int]=..., replayed: _Optional[bool]=...) -> None:
        ...

class PlayResponse(_message.Message):
    __slots__ = ('event', 'update', 'result')
    EVENT_FIELD_NUMBER: _ClassVar[int]
    UPDATE_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    event: MatchEvent
    update: SeatUpdate
    result: ActionResult

    def __init__(self, event: _Optional[_Union[MatchEvent, _Mapping]]=..., update: _Optional[_Union[SeatUpdate, _Mapping]]=..., result: _Optional[_Union[ActionResult, _Mapping]]=...) -> None:
        ...

class ListMatchesRequest(_message.Message):
    __slots__ = ('limit',)
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    limit: int

    def __init__(self, limit: _Optional[int]=...) -> None:
        ...

class MatchSummary(_message.Message):
    __slots__ = ('match_id', 'game_id', 'mode', 'seats', 'status', 'version', 'abandoned')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    ABANDONED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game_id: str
    mode: str
    seats: int
    status: MatchStatus
    version: int
    abandoned: bool

    def __init__(self, match_id: _Optional[str]=..., game_id: _Optional[str]=..., mode: _Optional[str]=..., seats: _Optional[int]=..., status: _Optional[_Union[MatchStatus, str]]=..., version: _Optional[int]=..., abandoned: _Optional[bool]=...) -> None:
        ...

class ListMatchesResponse(_message.Message):
    __slots__ = ('matches', 'game_id')
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[MatchSummary]
    game_id: str

    def __init__(self, matches: _Optional[_Iterable[_Union[MatchSummary, _Mapping]]]=..., game_id: _Optional[str]=...) -> None:
        ...

class AbandonMatchRequest(_message.Message):
    __slots__ = ('match_id', 'reason')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    reason: str

    def __init__(self, match_id: _Optional[str]=..., reason: _Optional[str]=...) -> None:
        ...

class AbandonMatchResponse(_message.Message):
    __slots__ = ('match_id', 'version', 'status', 'outcome_json', 'final_hash', 'already_abandoned', 'game_id')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_JSON_FIELD_NUMBER: _ClassVar[int]
    FINAL_HASH_FIELD_NUMBER: _ClassVar[int]
    ALREADY_ABANDONED_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    version: int
    status: MatchStatus
    outcome_json: str
    final_hash: str
    already_abandoned: bool
    game_id: str

    def __init__(self, match_id: _Optional[str]=..., version: _Optional[int]=..., status: _Optional[_Union[MatchStatus, str]]=..., outcome_json: _Optional[str]=..., final_hash: _Optional[str]=..., already_abandoned: _Optional[bool]=..., game_id: _Optional[str]=...) -> None:
        ...