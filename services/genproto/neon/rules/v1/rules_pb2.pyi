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
MATCH_STATUS_UNSPECIFIED: MatchStatus
MATCH_STATUS_AWAITING_SEEDS: MatchStatus
MATCH_STATUS_RUNNING: MatchStatus
MATCH_STATUS_ENDED: MatchStatus

class ModeInfo(_message.Message):
    __slots__ = ('name', 'min_seats', 'max_seats', 'description')
    NAME_FIELD_NUMBER: _ClassVar[int]
    MIN_SEATS_FIELD_NUMBER: _ClassVar[int]
    MAX_SEATS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    name: str
    min_seats: int
    max_seats: int
    description: str

    def __init__(self, name: _Optional[str]=..., min_seats: _Optional[int]=..., max_seats: _Optional[int]=..., description: _Optional[str]=...) -> None:
        ...

class GetGameInfoRequest(_message.Message):
    __slots__ = ()

    def __init__(self) -> None:
        ...

class GetGameInfoResponse(_message.Message):
    __slots__ = ('game_id', 'title', 'engine_version', 'content_version', 'modes', 'config_schema_json', 'action_schema_json')
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    ENGINE_VERSION_FIELD_NUMBER: _ClassVar[int]
    CONTENT_VERSION_FIELD_NUMBER: _ClassVar[int]
    MODES_FIELD_NUMBER: _ClassVar[int]
    CONFIG_SCHEMA_JSON_FIELD_NUMBER: _ClassVar[int]
    ACTION_SCHEMA_JSON_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    title: str
    engine_version: str
    content_version: str
    modes: _containers.RepeatedCompositeFieldContainer[ModeInfo]
    config_schema_json: str
    action_schema_json: str

    def __init__(self, game_id: _Optional[str]=..., title: _Optional[str]=..., engine_version: _Optional[str]=..., content_version: _Optional[str]=..., modes: _Optional[_Iterable[_Union[ModeInfo, _Mapping]]]=..., config_schema_json: _Optional[str]=..., action_schema_json: _Optional[str]=...) -> None:
        ...

class CreateMatchRequest(_message.Message):
    __slots__ = ('match_id', 'mode', 'seats', 'options_json', 'players', 'await_client_seeds', 'dev_seed')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    AWAIT_CLIENT_SEEDS_FIELD_NUMBER: _ClassVar[int]
    DEV_SEED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    mode: str
    seats: int
    options_json: str
    players: _containers.RepeatedScalarFieldContainer[str]
    await_client_seeds: bool
    dev_seed: str

    def __init__(self, match_id: _Optional[str]=..., mode: _Optional[str]=..., seats: _Optional[int]=..., options_json: _Optional[str]=..., players: _Optional[_Iterable[str]]=..., await_client_seeds: _Optional[bool]=..., dev_seed: _Optional[str]=...) -> None:
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
    __slots__ = ('match_id', 'dice_commitment', 'seat_tokens', 'status', 'version')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    DICE_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    dice_commitment: str
    seat_tokens: _containers.RepeatedCompositeFieldContainer[SeatToken]
    status: MatchStatus
    version: int

    def __init__(self, match_id: _Optional[str]=..., dice_commitment: _Optional[str]=..., seat_tokens: _Optional[_Iterable[_Union[SeatToken, _Mapping]]]=..., status: _Optional[_Union[MatchStatus, str]]=..., version: _Optional[int]=...) -> None:
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
    __slots__ = ('version', 'state_hash')
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STATE_HASH_FIELD_NUMBER: _ClassVar[int]
    version: int
    state_hash: str

    def __init__(self, version: _Optional[int]=..., state_hash: _Optional[str]=...) -> None:
        ...

class MatchEvent(_message.Message):
    __slots__ = ('match_id', 'version', 'type', 'seat', 'payload_json', 'state_hash', 'chain_hash')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_JSON_FIELD_NUMBER: _ClassVar[int]
    STATE_HASH_FIELD_NUMBER: _ClassVar[int]
    CHAIN_HASH_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    version: int
    type: str
    seat: int
    payload_json: str
    state_hash: str
    chain_hash: str

    def __init__(self, match_id: _Optional[str]=..., version: _Optional[int]=..., type: _Optional[str]=..., seat: _Optional[int]=..., payload_json: _Optional[str]=..., state_hash: _Optional[str]=..., chain_hash: _Optional[str]=...) -> None:
        ...

class SubmitActionRequest(_message.Message):
    __slots__ = ('match_id', 'command_id', 'action_json', 'expected_version')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_JSON_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    command_id: str
    action_json: str
    expected_version: int

    def __init__(self, match_id: _Optional[str]=..., command_id: _Optional[str]=..., action_json: _Optional[str]=..., expected_version: _Optional[int]=...) -> None:
        ...

class SubmitActionResponse(_message.Message):
    __slots__ = ('version', 'state_hash', 'events', 'status', 'outcome_json', 'replayed')
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STATE_HASH_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_JSON_FIELD_NUMBER: _ClassVar[int]
    REPLAYED_FIELD_NUMBER: _ClassVar[int]
    version: int
    state_hash: str
    events: _containers.RepeatedCompositeFieldContainer[MatchEvent]
    status: MatchStatus
    outcome_json: str
    replayed: bool

    def __init__(self, version: _Optional[int]=..., state_hash: _Optional[str]=..., events: _Optional[_Iterable[_Union[MatchEvent, _Mapping]]]=..., status: _Optional[_Union[MatchStatus, str]]=..., outcome_json: _Optional[str]=..., replayed: _Optional[bool]=...) -> None:
        ...

class Decision(_message.Message):
    __slots__ = ('seat', 'kind', 'prompt', 'optional', 'hidden', 'legal_json')
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    OPTIONAL_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_FIELD_NUMBER: _ClassVar[int]
    LEGAL_JSON_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: str
    prompt: str
    optional: bool
    hidden: bool
    legal_json: _containers.RepeatedScalarFieldContainer[str]

    def __init__(self, seat: _Optional[int]=..., kind: _Optional[str]=..., prompt: _Optional[str]=..., optional: _Optional[bool]=..., hidden: _Optional[bool]=..., legal_json: _Optional[_Iterable[str]]=...) -> None:
        ...

class ListLegalActionsRequest(_message.Message):
    __slots__ = ('match_id',)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str

    def __init__(self, match_id: _Optional[str]=...) -> None:
        ...

class ListLegalActionsResponse(_message.Message):
    __slots__ = ('version', 'decisions')
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    version: int
    decisions: _containers.RepeatedCompositeFieldContainer[Decision]

    def __init__(self, version: _Optional[int]=..., decisions: _Optional[_Iterable[_Union[Decision, _Mapping]]]=...) -> None:
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
    __slots__ = ('match_id', 'version', 'status', 'viewer', 'view_json', 'pending', 'outcome_json', 'state_hash', 'game_id', 'mode', 'seats')
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

    def __init__(self, match_id: _Optional[str]=..., version: _Optional[int]=..., status: _Optional[_Union[MatchStatus, str]]=..., viewer: _Optional[int]=..., view_json: _Optional[str]=..., pending: _Optional[_Iterable[_Union[PendingSeat, _Mapping]]]=..., outcome_json: _Optional[str]=..., state_hash: _Optional[str]=..., game_id: _Optional[str]=..., mode: _Optional[str]=..., seats: _Optional[int]=...) -> None:
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