"""Client and server classes corresponding to protobuf-defined services."""
import grpc
import warnings
from ....neon.scoring.v1 import scoring_pb2 as neon_dot_scoring_dot_v1_dot_scoring__pb2
GRPC_GENERATED_VERSION = '1.85.1'
GRPC_VERSION = grpc.__version__
_version_not_supported = False
try:
    from grpc._utilities import first_version_is_lower
    _version_not_supported = first_version_is_lower(GRPC_VERSION, GRPC_GENERATED_VERSION)
except ImportError:
    _version_not_supported = True
if _version_not_supported:
    raise RuntimeError(f'The grpc package installed is at version {GRPC_VERSION},' + ' but the generated code in neon/scoring/v1/scoring_pb2_grpc.py depends on' + f' grpcio>={GRPC_GENERATED_VERSION}.' + f' Please upgrade your grpc module to grpcio>={GRPC_GENERATED_VERSION}' + f' or downgrade your generated code using grpcio-tools<={GRPC_VERSION}.')

class ScoringServiceStub:
    """Results, ratings and leaderboards. Fed by MatchEnded events from JetStream (durable
    consumer, idempotent); queried over gRPC. Ratings are openskill Plackett-Luce, one per
    player per game, plus one per player per mode. Every query is public (results and
    ratings are public information); a bearer token, when sent, must still be valid.
    """

    def __init__(self, channel):
        """Constructor.

        Args:
            channel: A grpc.Channel.
        """
        self.GetRatings = channel.unary_unary('/neon.scoring.v1.ScoringService/GetRatings', request_serializer=neon_dot_scoring_dot_v1_dot_scoring__pb2.GetRatingsRequest.SerializeToString, response_deserializer=neon_dot_scoring_dot_v1_dot_scoring__pb2.GetRatingsResponse.FromString, _registered_method=True)
        self.GetLeaderboard = channel.unary_unary('/neon.scoring.v1.ScoringService/GetLeaderboard', request_serializer=neon_dot_scoring_dot_v1_dot_scoring__pb2.GetLeaderboardRequest.SerializeToString, response_deserializer=neon_dot_scoring_dot_v1_dot_scoring__pb2.GetLeaderboardResponse.FromString, _registered_method=True)
        self.GetPlayerHistory = channel.unary_unary('/neon.scoring.v1.ScoringService/GetPlayerHistory', request_serializer=neon_dot_scoring_dot_v1_dot_scoring__pb2.GetPlayerHistoryRequest.SerializeToString, response_deserializer=neon_dot_scoring_dot_v1_dot_scoring__pb2.GetPlayerHistoryResponse.FromString, _registered_method=True)
        self.GetMatchResult = channel.unary_unary('/neon.scoring.v1.ScoringService/GetMatchResult', request_serializer=neon_dot_scoring_dot_v1_dot_scoring__pb2.GetMatchResultRequest.SerializeToString, response_deserializer=neon_dot_scoring_dot_v1_dot_scoring__pb2.GetMatchResultResponse.FromString, _registered_method=True)

class ScoringServiceServicer:
    """Results, ratings and leaderboards. Fed by MatchEnded events from JetStream (durable
    consumer, idempotent); queried over gRPC. Ratings are openskill Plackett-Luce, one per
    player per game, plus one per player per mode. Every query is public (results and
    ratings are public information); a bearer token, when sent, must still be valid.
    """

    def GetRatings(self, request, context):
        """Ratings of the given players in one game, or in one mode of it (unknown players get
        the default rating).
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def GetLeaderboard(self, request, context):
        """The leaderboard of a game, optionally of one mode.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def GetPlayerHistory(self, request, context):
        """A player's match history with each match's score breakdown, newest first.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def GetMatchResult(self, request, context):
        """One recorded result.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

def add_ScoringServiceServicer_to_server(servicer, server):
    rpc_method_handlers = {'GetRatings': grpc.unary_unary_rpc_method_handler(servicer.GetRatings, request_deserializer=neon_dot_scoring_dot_v1_dot_scoring__pb2.GetRatingsRequest.FromString, response_serializer=neon_dot_scoring_dot_v1_dot_scoring__pb2.GetRatingsResponse.SerializeToString), 'GetLeaderboard': grpc.unary_unary_rpc_method_handler(servicer.GetLeaderboard, request_deserializer=neon_dot_scoring_dot_v1_dot_scoring__pb2.GetLeaderboardRequest.FromString, response_serializer=neon_dot_scoring_dot_v1_dot_scoring__pb2.GetLeaderboardResponse.SerializeToString), 'GetPlayerHistory': grpc.unary_unary_rpc_method_handler(servicer.GetPlayerHistory, request_deserializer=neon_dot_scoring_dot_v1_dot_scoring__pb2.GetPlayerHistoryRequest.FromString, response_serializer=neon_dot_scoring_dot_v1_dot_scoring__pb2.GetPlayerHistoryResponse.SerializeToString), 'GetMatchResult': grpc.unary_unary_rpc_method_handler(servicer.GetMatchResult, request_deserializer=neon_dot_scoring_dot_v1_dot_scoring__pb2.GetMatchResultRequest.FromString, response_serializer=neon_dot_scoring_dot_v1_dot_scoring__pb2.GetMatchResultResponse.SerializeToString)}
    generic_handler = grpc.method_handlers_generic_handler('neon.scoring.v1.ScoringService', rpc_method_handlers)
    server.add_generic_rpc_handlers((generic_handler,))
    server.add_registered_method_handlers('neon.scoring.v1.ScoringService', rpc_method_handlers)

class ScoringService:
    """Results, ratings and leaderboards. Fed by MatchEnded events from JetStream (durable
    consumer, idempotent); queried over gRPC. Ratings are openskill Plackett-Luce, one per
    player per game, plus one per player per mode. Every query is public (results and
    ratings are public information); a bearer token, when sent, must still be valid.
    """

    @staticmethod
    def GetRatings(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.scoring.v1.ScoringService/GetRatings', neon_dot_scoring_dot_v1_dot_scoring__pb2.GetRatingsRequest.SerializeToString, neon_dot_scoring_dot_v1_dot_scoring__pb2.GetRatingsResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def GetLeaderboard(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.scoring.v1.ScoringService/GetLeaderboard', neon_dot_scoring_dot_v1_dot_scoring__pb2.GetLeaderboardRequest.SerializeToString, neon_dot_scoring_dot_v1_dot_scoring__pb2.GetLeaderboardResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def GetPlayerHistory(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.scoring.v1.ScoringService/GetPlayerHistory', neon_dot_scoring_dot_v1_dot_scoring__pb2.GetPlayerHistoryRequest.SerializeToString, neon_dot_scoring_dot_v1_dot_scoring__pb2.GetPlayerHistoryResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def GetMatchResult(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.scoring.v1.ScoringService/GetMatchResult', neon_dot_scoring_dot_v1_dot_scoring__pb2.GetMatchResultRequest.SerializeToString, neon_dot_scoring_dot_v1_dot_scoring__pb2.GetMatchResultResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)