from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union
DESCRIPTOR: _descriptor.FileDescriptor

class RankedBy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RANKED_BY_UNSPECIFIED: _ClassVar[RankedBy]
    RANKED_BY_ORDINAL: _ClassVar[RankedBy]
    RANKED_BY_BEST_SCORE: _ClassVar[RankedBy]
RANKED_BY_UNSPECIFIED: RankedBy
RANKED_BY_ORDINAL: RankedBy
RANKED_BY_BEST_SCORE: RankedBy

class Rating(_message.Message):
    __slots__ = ('player', 'game', 'mu', 'sigma', 'ordinal', 'matches', 'wins', 'draws', 'losses', 'mode', 'rated_matches', 'best_score')
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    ORDINAL_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    DRAWS_FIELD_NUMBER: _ClassVar[int]
    LOSSES_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    RATED_MATCHES_FIELD_NUMBER: _ClassVar[int]
    BEST_SCORE_FIELD_NUMBER: _ClassVar[int]
    player: str
    game: str
    mu: float
    sigma: float
    ordinal: float
    matches: int
    wins: int
    draws: int
    losses: int
    mode: str
    rated_matches: int
    best_score: int

    def __init__(self, player: _Optional[str]=..., game: _Optional[str]=..., mu: _Optional[float]=..., sigma: _Optional[float]=..., ordinal: _Optional[float]=..., matches: _Optional[int]=..., wins: _Optional[int]=..., draws: _Optional[int]=..., losses: _Optional[int]=..., mode: _Optional[str]=..., rated_matches: _Optional[int]=..., best_score: _Optional[int]=...) -> None:
        ...

class GetRatingsRequest(_message.Message):
    __slots__ = ('game', 'players', 'mode')
    GAME_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    game: str
    players: _containers.RepeatedScalarFieldContainer[str]
    mode: str

    def __init__(self, game: _Optional[str]=..., players: _Optional[_Iterable[str]]=..., mode: _Optional[str]=...) -> None:
        ...

class GetRatingsResponse(_message.Message):
    __slots__ = ('ratings',)
    RATINGS_FIELD_NUMBER: _ClassVar[int]
    ratings: _containers.RepeatedCompositeFieldContainer[Rating]

    def __init__(self, ratings: _Optional[_Iterable[_Union[Rating, _Mapping]]]=...) -> None:
        ...

class GetLeaderboardRequest(_message.Message):
    __slots__ = ('game', 'mode', 'limit', 'ranked_by', 'offset')
    GAME_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    RANKED_BY_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    game: str
    mode: str
    limit: int
    ranked_by: RankedBy
    offset: int

    def __init__(self, game: _Optional[str]=..., mode: _Optional[str]=..., limit: _Optional[int]=..., ranked_by: _Optional[_Union[RankedBy, str]]=..., offset: _Optional[int]=...) -> None:
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
    __slots__ = ('entries', 'ranked_by', 'total')
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    RANKED_BY_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[LeaderboardEntry]
    ranked_by: RankedBy
    total: int

    def __init__(self, entries: _Optional[_Iterable[_Union[LeaderboardEntry, _Mapping]]]=..., ranked_by: _Optional[_Union[RankedBy, str]]=..., total: _Optional[int]=...) -> None:
        ...

class GetPlayerHistoryRequest(_message.Message):
    __slots__ = ('game', 'player', 'limit', 'before_sequence')
    GAME_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    BEFORE_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    game: str
    player: str
    limit: int
    before_sequence: int

    def __init__(self, game: _Optional[str]=..., player: _Optional[str]=..., limit: _Optional[int]=..., before_sequence: _Optional[int]=...) -> None:
        ...

class Team(_message.Message):
    __slots__ = ('seats',)
    SEATS_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedScalarFieldContainer[int]

    def __init__(self, seats: _Optional[_Iterable[int]]=...) -> None:
        ...

class MatchResult(_message.Message):
    __slots__ = ('match_id', 'game', 'mode', 'players', 'placements', 'scores', 'draw', 'reason', 'breakdown_json', 'before', 'after', 'sequence', 'teams', 'bots', 'rated', 'unrated_reason', 'created_by')
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
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    UNRATED_REASON_FIELD_NUMBER: _ClassVar[int]
    CREATED_BY_FIELD_NUMBER: _ClassVar[int]
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
    teams: _containers.RepeatedCompositeFieldContainer[Team]
    bots: _containers.RepeatedScalarFieldContainer[bool]
    rated: bool
    unrated_reason: str
    created_by: MatchCreator

    def __init__(self, match_id: _Optional[str]=..., game: _Optional[str]=..., mode: _Optional[str]=..., players: _Optional[_Iterable[str]]=..., placements: _Optional[_Iterable[int]]=..., scores: _Optional[_Iterable[int]]=..., draw: _Optional[bool]=..., reason: _Optional[str]=..., breakdown_json: _Optional[str]=..., before: _Optional[_Iterable[_Union[Rating, _Mapping]]]=..., after: _Optional[_Iterable[_Union[Rating, _Mapping]]]=..., sequence: _Optional[int]=..., teams: _Optional[_Iterable[_Union[Team, _Mapping]]]=..., bots: _Optional[_Iterable[bool]]=..., rated: _Optional[bool]=..., unrated_reason: _Optional[str]=..., created_by: _Optional[_Union[MatchCreator, _Mapping]]=...) -> None:
        ...

class MatchCreator(_message.Message):
    __slots__ = ('role', 'name', 'via', 'names')
    ROLE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VIA_FIELD_NUMBER: _ClassVar[int]
    NAMES_FIELD_NUMBER: _ClassVar[int]
    role: str
    name: str
    via: str
    names: _containers.RepeatedScalarFieldContainer[str]

    def __init__(self, role: _Optional[str]=..., name: _Optional[str]=..., via: _Optional[str]=..., names: _Optional[_Iterable[str]]=...) -> None:
        ...

class GetPlayerHistoryResponse(_message.Message):
    __slots__ = ('results',)
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[MatchResult]

    def __init__(self, results: _Optional[_Iterable[_Union[MatchResult, _Mapping]]]=...) -> None:
        ...

class GetMatchResultRequest(_message.Message):
    __slots__ = ('match_id', 'game')
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str

    def __init__(self, match_id: _Optional[str]=..., game: _Optional[str]=...) -> None:
        ...

class GetMatchResultResponse(_message.Message):
    __slots__ = ('result',)
    RESULT_FIELD_NUMBER: _ClassVar[int]
    result: MatchResult

    def __init__(self, result: _Optional[_Union[MatchResult, _Mapping]]=...) -> None:
        ...