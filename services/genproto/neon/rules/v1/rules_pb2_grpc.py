"""Client and server classes corresponding to protobuf-defined services."""
import grpc
import warnings
from ....neon.rules.v1 import rules_pb2 as neon_dot_rules_dot_v1_dot_rules__pb2
GRPC_GENERATED_VERSION = '1.85.1'
GRPC_VERSION = grpc.__version__
_version_not_supported = False
try:
    from grpc._utilities import first_version_is_lower
    _version_not_supported = first_version_is_lower(GRPC_VERSION, GRPC_GENERATED_VERSION)
except ImportError:
    _version_not_supported = True
if _version_not_supported:
    raise RuntimeError(f'The grpc package installed is at version {GRPC_VERSION},' + ' but the generated code in neon/rules/v1/rules_pb2_grpc.py depends on' + f' grpcio>={GRPC_GENERATED_VERSION}.' + f' Please upgrade your grpc module to grpcio>={GRPC_GENERATED_VERSION}' + f' or downgrade your generated code using grpcio-tools<={GRPC_VERSION}.')

class RulesServiceStub:
    """The authoritative rules host of one game. Actions, views and configs are JSON
    documents whose JSON Schemas GetGameInfo serves, so a client in any language can
    build actions and read views. Seat calls carry "authorization: Bearer <seat token>".
    """

    def __init__(self, channel):
        """Constructor.

        Args:
            channel: A grpc.Channel.
        """
        self.GetGameInfo = channel.unary_unary('/neon.rules.v1.RulesService/GetGameInfo', request_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.GetGameInfoRequest.SerializeToString, response_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.GetGameInfoResponse.FromString, _registered_method=True)
        self.CreateMatch = channel.unary_unary('/neon.rules.v1.RulesService/CreateMatch', request_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.CreateMatchRequest.SerializeToString, response_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.CreateMatchResponse.FromString, _registered_method=True)
        self.CheckMatchConfig = channel.unary_unary('/neon.rules.v1.RulesService/CheckMatchConfig', request_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.CheckMatchConfigRequest.SerializeToString, response_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.CheckMatchConfigResponse.FromString, _registered_method=True)
        self.AddClientSeed = channel.unary_unary('/neon.rules.v1.RulesService/AddClientSeed', request_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.AddClientSeedRequest.SerializeToString, response_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.AddClientSeedResponse.FromString, _registered_method=True)
        self.StartMatch = channel.unary_unary('/neon.rules.v1.RulesService/StartMatch', request_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.StartMatchRequest.SerializeToString, response_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.StartMatchResponse.FromString, _registered_method=True)
        self.SubmitAction = channel.unary_unary('/neon.rules.v1.RulesService/SubmitAction', request_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.SubmitActionRequest.SerializeToString, response_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.SubmitActionResponse.FromString, _registered_method=True)
        self.ListLegalActions = channel.unary_unary('/neon.rules.v1.RulesService/ListLegalActions', request_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.ListLegalActionsRequest.SerializeToString, response_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.ListLegalActionsResponse.FromString, _registered_method=True)
        self.GetView = channel.unary_unary('/neon.rules.v1.RulesService/GetView', request_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.GetViewRequest.SerializeToString, response_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.GetViewResponse.FromString, _registered_method=True)
        self.WatchMatch = channel.unary_stream('/neon.rules.v1.RulesService/WatchMatch', request_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.WatchMatchRequest.SerializeToString, response_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.WatchMatchResponse.FromString, _registered_method=True)
        self.ExportMatch = channel.unary_unary('/neon.rules.v1.RulesService/ExportMatch', request_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.ExportMatchRequest.SerializeToString, response_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.ExportMatchResponse.FromString, _registered_method=True)
        self.ExportMatchChunks = channel.unary_stream('/neon.rules.v1.RulesService/ExportMatchChunks', request_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.ExportMatchChunksRequest.SerializeToString, response_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.ExportMatchChunksResponse.FromString, _registered_method=True)
        self.Play = channel.stream_stream('/neon.rules.v1.RulesService/Play', request_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.PlayRequest.SerializeToString, response_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.PlayResponse.FromString, _registered_method=True)
        self.ListMatches = channel.unary_unary('/neon.rules.v1.RulesService/ListMatches', request_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.ListMatchesRequest.SerializeToString, response_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.ListMatchesResponse.FromString, _registered_method=True)
        self.AbandonMatch = channel.unary_unary('/neon.rules.v1.RulesService/AbandonMatch', request_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.AbandonMatchRequest.SerializeToString, response_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.AbandonMatchResponse.FromString, _registered_method=True)

class RulesServiceServicer:
    """The authoritative rules host of one game. Actions, views and configs are JSON
    documents whose JSON Schemas GetGameInfo serves, so a client in any language can
    build actions and read views. Seat calls carry "authorization: Bearer <seat token>".
    """

    def GetGameInfo(self, request, context):
        """Public: the game, its modes, versions and the JSON Schemas of configs and actions.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def CreateMatch(self, request, context):
        """Organiser: creates a match and returns one token per seat. Idempotent per match_id.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def CheckMatchConfig(self, request, context):
        """Public: checks a match's mode, seats, teams and options as CreateMatch would, the
        engine's own set-up included, and makes nothing: no match, no event, no dice
        commitment. An empty answer when CreateMatch would take them, else INVALID_ARGUMENT
        with CreateMatch's reason. For a tournament organiser (the tournament service checks an
        event's options with it at CreateTournament) and for clients checking a player's
        options before they queue.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def AddClientSeed(self, request, context):
        """Seat: adds a client seed to the match's randomness, before the match starts.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def StartMatch(self, request, context):
        """Organiser or service: starts a match created with await_client_seeds. Idempotent per
        match_id: asked again for a match that has started (a retry after a lost answer), it
        answers the same version and state_hash, with already_started, and writes nothing,
        even when the match has ended since. A match that ended before it started (abandoned
        while waiting for client seeds) is FAILED_PRECONDITION.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def SubmitAction(self, request, context):
        """Seat: submits an action.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def ListLegalActions(self, request, context):
        """Seat: the decisions this seat owes now with their legal actions.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def GetView(self, request, context):
        """The view of the token's seat, or the spectator view without a token.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def WatchMatch(self, request, context):
        """Follows a match: stored events from from_version, then live ones.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def ExportMatch(self, request, context):
        """Organiser: the full audit export (JSON Lines plus a signed checkpoint), in one message.
        A long match's export can be larger than a client's default receive limit (4 MiB in
        gRPC): such a client gets RESOURCE_EXHAUSTED from its own library. ExportMatchChunks
        sends the same bytes in messages of at most 1 MiB, whatever the match's length.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def ExportMatchChunks(self, request, context):
        """Organiser: the same export as ExportMatch, byte for byte, streamed in chunks of at most
        1 MiB (each message fits any client's receive limit). The first message carries the
        final_hash, event_count and total_bytes; the chunks, concatenated, are the file. Same
        access rules as ExportMatch.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def Play(self, request_iterator, context):
        """Seat: one stream per seat. The first request opens it (PlayRequest.open, with the
        seat token in the metadata); the server then pushes the seat's events, its
        decisions, view and clocks as they change, and answers each PlayRequest.action.
        The stream lasts as long as the seat token it was opened with: when the token expires
        (as a unary call with it would first be UNAUTHENTICATED) the stream ends with
        UNAUTHENTICATED "seat token expired; ...", after the answer of an action already being
        applied; nothing is pushed after. An action read after the expiry is not applied: it is
        answered ActionResult code UNAUTHENTICATED, and the stream ends so. Reopen it with a new
        seat token and from_version = the last version received; nothing is lost or doubled.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def ListMatches(self, request, context):
        """Public: the matches this rules process holds in memory, so a spectator can pick one:
        first those not over (running, or waiting for client seeds), the most recently moved
        first; then the ended ones, the most recently finished first (by when their records
        were stored, not when anyone last asked about them). Only what GetView already tells
        anyone: ids, mode, seat count, status and version.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def AbandonMatch(self, request, context):
        """Organiser or service: ends a match that has not ended (running, or created and still
        waiting for client seeds) with no result: a MatchEnded whose outcome is abandoned
        (reason, who, no placements), then MatchSealed with the revealed seed, as any end.
        Scoring and tournaments take no result from it. Asked again for a match that is
        already abandoned, it answers the match as it is (already_abandoned) and writes
        nothing; a match that ended with a result is FAILED_PRECONDITION.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

def add_RulesServiceServicer_to_server(servicer, server):
    rpc_method_handlers = {'GetGameInfo': grpc.unary_unary_rpc_method_handler(servicer.GetGameInfo, request_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.GetGameInfoRequest.FromString, response_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.GetGameInfoResponse.SerializeToString), 'CreateMatch': grpc.unary_unary_rpc_method_handler(servicer.CreateMatch, request_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.CreateMatchRequest.FromString, response_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.CreateMatchResponse.SerializeToString), 'CheckMatchConfig': grpc.unary_unary_rpc_method_handler(servicer.CheckMatchConfig, request_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.CheckMatchConfigRequest.FromString, response_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.CheckMatchConfigResponse.SerializeToString), 'AddClientSeed': grpc.unary_unary_rpc_method_handler(servicer.AddClientSeed, request_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.AddClientSeedRequest.FromString, response_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.AddClientSeedResponse.SerializeToString), 'StartMatch': grpc.unary_unary_rpc_method_handler(servicer.StartMatch, request_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.StartMatchRequest.FromString, response_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.StartMatchResponse.SerializeToString), 'SubmitAction': grpc.unary_unary_rpc_method_handler(servicer.SubmitAction, request_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.SubmitActionRequest.FromString, response_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.SubmitActionResponse.SerializeToString), 'ListLegalActions': grpc.unary_unary_rpc_method_handler(servicer.ListLegalActions, request_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.ListLegalActionsRequest.FromString, response_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.ListLegalActionsResponse.SerializeToString), 'GetView': grpc.unary_unary_rpc_method_handler(servicer.GetView, request_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.GetViewRequest.FromString, response_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.GetViewResponse.SerializeToString), 'WatchMatch': grpc.unary_stream_rpc_method_handler(servicer.WatchMatch, request_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.WatchMatchRequest.FromString, response_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.WatchMatchResponse.SerializeToString), 'ExportMatch': grpc.unary_unary_rpc_method_handler(servicer.ExportMatch, request_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.ExportMatchRequest.FromString, response_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.ExportMatchResponse.SerializeToString), 'ExportMatchChunks': grpc.unary_stream_rpc_method_handler(servicer.ExportMatchChunks, request_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.ExportMatchChunksRequest.FromString, response_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.ExportMatchChunksResponse.SerializeToString), 'Play': grpc.stream_stream_rpc_method_handler(servicer.Play, request_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.PlayRequest.FromString, response_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.PlayResponse.SerializeToString), 'ListMatches': grpc.unary_unary_rpc_method_handler(servicer.ListMatches, request_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.ListMatchesRequest.FromString, response_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.ListMatchesResponse.SerializeToString), 'AbandonMatch': grpc.unary_unary_rpc_method_handler(servicer.AbandonMatch, request_deserializer=neon_dot_rules_dot_v1_dot_rules__pb2.AbandonMatchRequest.FromString, response_serializer=neon_dot_rules_dot_v1_dot_rules__pb2.AbandonMatchResponse.SerializeToString)}
    generic_handler = grpc.method_handlers_generic_handler('neon.rules.v1.RulesService', rpc_method_handlers)
    server.add_generic_rpc_handlers((generic_handler,))
    server.add_registered_method_handlers('neon.rules.v1.RulesService', rpc_method_handlers)

class RulesService:
    """The authoritative rules host of one game. Actions, views and configs are JSON
    documents whose JSON Schemas GetGameInfo serves, so a client in any language can
    build actions and read views. Seat calls carry "authorization: Bearer <seat token>".
    """

    @staticmethod
    def GetGameInfo(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.rules.v1.RulesService/GetGameInfo', neon_dot_rules_dot_v1_dot_rules__pb2.GetGameInfoRequest.SerializeToString, neon_dot_rules_dot_v1_dot_rules__pb2.GetGameInfoResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def CreateMatch(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.rules.v1.RulesService/CreateMatch', neon_dot_rules_dot_v1_dot_rules__pb2.CreateMatchRequest.SerializeToString, neon_dot_rules_dot_v1_dot_rules__pb2.CreateMatchResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def CheckMatchConfig(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.rules.v1.RulesService/CheckMatchConfig', neon_dot_rules_dot_v1_dot_rules__pb2.CheckMatchConfigRequest.SerializeToString, neon_dot_rules_dot_v1_dot_rules__pb2.CheckMatchConfigResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def AddClientSeed(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.rules.v1.RulesService/AddClientSeed', neon_dot_rules_dot_v1_dot_rules__pb2.AddClientSeedRequest.SerializeToString, neon_dot_rules_dot_v1_dot_rules__pb2.AddClientSeedResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def StartMatch(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.rules.v1.RulesService/StartMatch', neon_dot_rules_dot_v1_dot_rules__pb2.StartMatchRequest.SerializeToString, neon_dot_rules_dot_v1_dot_rules__pb2.StartMatchResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def SubmitAction(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.rules.v1.RulesService/SubmitAction', neon_dot_rules_dot_v1_dot_rules__pb2.SubmitActionRequest.SerializeToString, neon_dot_rules_dot_v1_dot_rules__pb2.SubmitActionResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def ListLegalActions(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.rules.v1.RulesService/ListLegalActions', neon_dot_rules_dot_v1_dot_rules__pb2.ListLegalActionsRequest.SerializeToString, neon_dot_rules_dot_v1_dot_rules__pb2.ListLegalActionsResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def GetView(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.rules.v1.RulesService/GetView', neon_dot_rules_dot_v1_dot_rules__pb2.GetViewRequest.SerializeToString, neon_dot_rules_dot_v1_dot_rules__pb2.GetViewResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def WatchMatch(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_stream(request, target, '/neon.rules.v1.RulesService/WatchMatch', neon_dot_rules_dot_v1_dot_rules__pb2.WatchMatchRequest.SerializeToString, neon_dot_rules_dot_v1_dot_rules__pb2.WatchMatchResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def ExportMatch(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.rules.v1.RulesService/ExportMatch', neon_dot_rules_dot_v1_dot_rules__pb2.ExportMatchRequest.SerializeToString, neon_dot_rules_dot_v1_dot_rules__pb2.ExportMatchResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def ExportMatchChunks(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_stream(request, target, '/neon.rules.v1.RulesService/ExportMatchChunks', neon_dot_rules_dot_v1_dot_rules__pb2.ExportMatchChunksRequest.SerializeToString, neon_dot_rules_dot_v1_dot_rules__pb2.ExportMatchChunksResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def Play(request_iterator, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.stream_stream(request_iterator, target, '/neon.rules.v1.RulesService/Play', neon_dot_rules_dot_v1_dot_rules__pb2.PlayRequest.SerializeToString, neon_dot_rules_dot_v1_dot_rules__pb2.PlayResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def ListMatches(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.rules.v1.RulesService/ListMatches', neon_dot_rules_dot_v1_dot_rules__pb2.ListMatchesRequest.SerializeToString, neon_dot_rules_dot_v1_dot_rules__pb2.ListMatchesResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def AbandonMatch(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.rules.v1.RulesService/AbandonMatch', neon_dot_rules_dot_v1_dot_rules__pb2.AbandonMatchRequest.SerializeToString, neon_dot_rules_dot_v1_dot_rules__pb2.AbandonMatchResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)