from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union
DESCRIPTOR: _descriptor.FileDescriptor

class Rating(_message.Message):
    __slots__ = ('player', 'game', 'mu', 'sigma', 'ordinal', 'matches', 'wins', 'draws', 'losses')
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    ORDINAL_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    DRAWS_FIELD_NUMBER: _ClassVar[int]
    LOSSES_FIELD_NUMBER: _ClassVar[int]
    player: str
    game: str
    mu: float
    sigma: float
    ordinal: float
    matches: int
    wins: int
    draws: int
    losses: int

    def __init__(self, player: _Optional[str]=..., game: _Optional[str]=..., mu: _Optional[float]=..., sigma: _Optional[float]=..., ordinal: _Optional[float]=..., matches: _Optional[int]=..., wins: _Optional[int]=..., draws: _Optional[int]=..., losses: _Optional[int]=...) -> None:
        ...

class GetRatingsRequest(_message.Message):
    __slots__ = ('game', 'players')
    GAME_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    game: str
    players: _containers.RepeatedScalarFieldContainer[str]

    def __init__(self, game: _Optional[str]=..., players: _Optional[_Iterable[str]]=...) -> None:
        ...

class GetRatingsResponse(_message.Message):
    __slots__ = ('ratings',)
    RATINGS_FIELD_NUMBER: _ClassVar[int]
    ratings: _containers.RepeatedCompositeFieldContainer[Rating]

    def __init__(self, ratings: _Optional[_Iterable[_Union[Rating, _Mapping]]]=...) -> None:
        ...

class GetLeaderboardRequest(_message.Message):
    __slots__ = ('game', 'mode', 'limit')
    GAME_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    game: str
    mode: str
    limit: int

    def __init__(self, game: _Optional[str]=..., mode: _Optional[str]=..., limit: _Optional[int]=...) -> None:
        ...

class LeaderboardEntry(_message.Message):
    __slots__ = ('rank', 'rating')
    RANK_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    rank: int
    rating: Rating

    def __init__(self, rank: _Optional[int]=..., rating: _Optional[_Union[Rating, _Mapping]]=...) -> None:
        ...

class GetLeaderboardResponse(_message.Message):
    __slots__ = ('entries',)
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[LeaderboardEntry]

    def __init__(self, entries: _Optional[_Iterable[_Union[LeaderboardEntry, _Mapping]]]=...) -> None:
        ...

class GetPlayerHistoryRequest(_message.Message):
    __slots__ = ('game', 'player', 'limit')
    GAME_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    game: str
    player: str
    limit: int

    def __init__(self, game: _Optional[str]=..., player: _Optional[str]=..., limit: _Optional[int]=...) -> None:
        ...

class MatchResult(_message.Message):
    __slots__ = ('match_id', 'game', 'mode', 'players', 'placements', 'scores', 'draw', 'reason', 'breakdown_json', 'before', 'after', 'sequence')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PLACEMENTS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    BREAKDOWN_JSON_FIELD_NUMBER: _ClassVar[int]
    BEFORE_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    mode: str
    players: _containers.RepeatedScalarFieldContainer[str]
    placements: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    draw: bool
    reason: str
    breakdown_json: str
    before: _containers.RepeatedCompositeFieldContainer[Rating]
    after: _containers.RepeatedCompositeFieldContainer[Rating]
    sequence: int

    def __init__(self, match_id: _Optional[str]=..., game: _Optional[str]=..., mode: _Optional[str]=..., players: _Optional[_Iterable[str]]=..., placements: _Optional[_Iterable[int]]=..., scores: _Optional[_Iterable[int]]=..., draw: _Optional[bool]=..., reason: _Optional[str]=..., breakdown_json: _Optional[str]=..., before: _Optional[_Iterable[_Union[Rating, _Mapping]]]=..., after: _Optional[_Iterable[_Union[Rating, _Mapping]]]=..., sequence: _Optional[int]=...) -> None:
        ...

class GetPlayerHistoryResponse(_message.Message):
    __slots__ = ('results',)
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[MatchResult]

    def __init__(self, results: _Optional[_Iterable[_Union[MatchResult, _Mapping]]]=...) -> None:
        ...

class GetMatchResultRequest(_message.Message):
    __slots__ = ('match_id',)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str

    def __init__(self, match_id: _Optional[str]=...) -> None:
        ...

class GetMatchResultResponse(_message.Message):
    __slots__ = ('result',)
    RESULT_FIELD_NUMBER: _ClassVar[int]
    result: MatchResult

    def __init__(self, result: _Optional[_Union[MatchResult, _Mapping]]=...) -> None:
        ...