from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union
DESCRIPTOR: _descriptor.FileDescriptor

class DrawOp(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DRAW_OP_UNSPECIFIED: _ClassVar[DrawOp]
    DRAW_OP_RANDBELOW: _ClassVar[DrawOp]
    DRAW_OP_SHUFFLE: _ClassVar[DrawOp]
    DRAW_OP_ROLL: _ClassVar[DrawOp]
DRAW_OP_UNSPECIFIED: DrawOp
DRAW_OP_RANDBELOW: DrawOp
DRAW_OP_SHUFFLE: DrawOp
DRAW_OP_ROLL: DrawOp

class ClientSeed(_message.Message):
    __slots__ = ('seat', 'seed')
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    seed: str

    def __init__(self, seat: _Optional[int]=..., seed: _Optional[str]=...) -> None:
        ...

class Session(_message.Message):
    __slots__ = ('match_id', 'stream_id', 'commitment', 'client_seeds', 'counter', 'closed', 'dev')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    STREAM_ID_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SEEDS_FIELD_NUMBER: _ClassVar[int]
    COUNTER_FIELD_NUMBER: _ClassVar[int]
    CLOSED_FIELD_NUMBER: _ClassVar[int]
    DEV_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    stream_id: str
    commitment: str
    client_seeds: _containers.RepeatedCompositeFieldContainer[ClientSeed]
    counter: int
    closed: bool
    dev: bool

    def __init__(self, match_id: _Optional[str]=..., stream_id: _Optional[str]=..., commitment: _Optional[str]=..., client_seeds: _Optional[_Iterable[_Union[ClientSeed, _Mapping]]]=..., counter: _Optional[int]=..., closed: _Optional[bool]=..., dev: _Optional[bool]=...) -> None:
        ...

class OpenSessionRequest(_message.Message):
    __slots__ = ('match_id', 'dev_seed')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    DEV_SEED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    dev_seed: str

    def __init__(self, match_id: _Optional[str]=..., dev_seed: _Optional[str]=...) -> None:
        ...

class OpenSessionResponse(_message.Message):
    __slots__ = ('session', 'state_key')
    SESSION_FIELD_NUMBER: _ClassVar[int]
    STATE_KEY_FIELD_NUMBER: _ClassVar[int]
    session: Session
    state_key: str

    def __init__(self, session: _Optional[_Union[Session, _Mapping]]=..., state_key: _Optional[str]=...) -> None:
        ...

class AddClientSeedRequest(_message.Message):
    __slots__ = ('match_id', 'seat', 'seed')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    seed: str

    def __init__(self, match_id: _Optional[str]=..., seat: _Optional[int]=..., seed: _Optional[str]=...) -> None:
        ...

class AddClientSeedResponse(_message.Message):
    __slots__ = ('session',)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: Session

    def __init__(self, session: _Optional[_Union[Session, _Mapping]]=...) -> None:
        ...

class Draw(_message.Message):
    __slots__ = ('op', 'n', 'count', 'result', 'first', 'next')
    OP_FIELD_NUMBER: _ClassVar[int]
    N_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    FIRST_FIELD_NUMBER: _ClassVar[int]
    NEXT_FIELD_NUMBER: _ClassVar[int]
    op: DrawOp
    n: int
    count: int
    result: _containers.RepeatedScalarFieldContainer[int]
    first: int
    next: int

    def __init__(self, op: _Optional[_Union[DrawOp, str]]=..., n: _Optional[int]=..., count: _Optional[int]=..., result: _Optional[_Iterable[int]]=..., first: _Optional[int]=..., next: _Optional[int]=...) -> None:
        ...

class DrawRequest(_message.Message):
    __slots__ = ('match_id', 'request_id', 'op', 'n', 'count')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    OP_FIELD_NUMBER: _ClassVar[int]
    N_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: str
    op: DrawOp
    n: int
    count: int

    def __init__(self, match_id: _Optional[str]=..., request_id: _Optional[str]=..., op: _Optional[_Union[DrawOp, str]]=..., n: _Optional[int]=..., count: _Optional[int]=...) -> None:
        ...

class DrawResponse(_message.Message):
    __slots__ = ('draw',)
    DRAW_FIELD_NUMBER: _ClassVar[int]
    draw: Draw

    def __init__(self, draw: _Optional[_Union[Draw, _Mapping]]=...) -> None:
        ...

class GetCommitmentRequest(_message.Message):
    __slots__ = ('match_id',)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str

    def __init__(self, match_id: _Optional[str]=...) -> None:
        ...

class GetCommitmentResponse(_message.Message):
    __slots__ = ('session',)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: Session

    def __init__(self, session: _Optional[_Union[Session, _Mapping]]=...) -> None:
        ...

class CloseSessionRequest(_message.Message):
    __slots__ = ('match_id',)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str

    def __init__(self, match_id: _Optional[str]=...) -> None:
        ...

class CloseSessionResponse(_message.Message):
    __slots__ = ('session', 'seed')
    SESSION_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    session: Session
    seed: str

    def __init__(self, session: _Optional[_Union[Session, _Mapping]]=..., seed: _Optional[str]=...) -> None:
        ...

class RevealSeedRequest(_message.Message):
    __slots__ = ('match_id',)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str

    def __init__(self, match_id: _Optional[str]=...) -> None:
        ...

class RevealSeedResponse(_message.Message):
    __slots__ = ('session', 'seed')
    SESSION_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    session: Session
    seed: str

    def __init__(self, session: _Optional[_Union[Session, _Mapping]]=..., seed: _Optional[str]=...) -> None:
        ...

class ReserveBlocksRequest(_message.Message):
    __slots__ = ('match_id', 'first', 'count')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    FIRST_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    first: int
    count: int

    def __init__(self, match_id: _Optional[str]=..., first: _Optional[int]=..., count: _Optional[int]=...) -> None:
        ...

class ReserveBlocksResponse(_message.Message):
    __slots__ = ('first', 'words')
    FIRST_FIELD_NUMBER: _ClassVar[int]
    WORDS_FIELD_NUMBER: _ClassVar[int]
    first: int
    words: _containers.RepeatedScalarFieldContainer[int]

    def __init__(self, first: _Optional[int]=..., words: _Optional[_Iterable[int]]=...) -> None:
        ...