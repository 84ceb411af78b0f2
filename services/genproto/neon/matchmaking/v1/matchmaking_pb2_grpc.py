"""Client and server classes corresponding to protobuf-defined services."""
import grpc
import warnings
from ....neon.matchmaking.v1 import matchmaking_pb2 as neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2
GRPC_GENERATED_VERSION = '1.85.1'
GRPC_VERSION = grpc.__version__
_version_not_supported = False
try:
    from grpc._utilities import first_version_is_lower
    _version_not_supported = first_version_is_lower(GRPC_VERSION, GRPC_GENERATED_VERSION)
except ImportError:
    _version_not_supported = True
if _version_not_supported:
    raise RuntimeError(f'The grpc package installed is at version {GRPC_VERSION},' + ' but the generated code in neon/matchmaking/v1/matchmaking_pb2_grpc.py depends on' + f' grpcio>={GRPC_GENERATED_VERSION}.' + f' Please upgrade your grpc module to grpcio>={GRPC_GENERATED_VERSION}' + f' or downgrade your generated code using grpcio-tools<={GRPC_VERSION}.')

class MatchmakingServiceStub:
    """Queues, tickets, parties and teams. Forms matches by game, mode and seat count,
    preferring close ratings (read from the scoring service), creates them on the rules
    service of the game and hands each player a seat token.
    """

    def __init__(self, channel):
        """Constructor.

        Args:
            channel: A grpc.Channel.
        """
        self.CreateTicket = channel.unary_unary('/neon.matchmaking.v1.MatchmakingService/CreateTicket', request_serializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.CreateTicketRequest.SerializeToString, response_deserializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.CreateTicketResponse.FromString, _registered_method=True)
        self.CancelTicket = channel.unary_unary('/neon.matchmaking.v1.MatchmakingService/CancelTicket', request_serializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.CancelTicketRequest.SerializeToString, response_deserializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.CancelTicketResponse.FromString, _registered_method=True)
        self.GetTicket = channel.unary_unary('/neon.matchmaking.v1.MatchmakingService/GetTicket', request_serializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.GetTicketRequest.SerializeToString, response_deserializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.GetTicketResponse.FromString, _registered_method=True)
        self.WatchTicket = channel.unary_stream('/neon.matchmaking.v1.MatchmakingService/WatchTicket', request_serializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.WatchTicketRequest.SerializeToString, response_deserializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.WatchTicketResponse.FromString, _registered_method=True)
        self.AcceptMatch = channel.unary_unary('/neon.matchmaking.v1.MatchmakingService/AcceptMatch', request_serializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.AcceptMatchRequest.SerializeToString, response_deserializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.AcceptMatchResponse.FromString, _registered_method=True)
        self.DeclineInvite = channel.unary_unary('/neon.matchmaking.v1.MatchmakingService/DeclineInvite', request_serializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.DeclineInviteRequest.SerializeToString, response_deserializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.DeclineInviteResponse.FromString, _registered_method=True)
        self.ReadyForMatch = channel.unary_unary('/neon.matchmaking.v1.MatchmakingService/ReadyForMatch', request_serializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.ReadyForMatchRequest.SerializeToString, response_deserializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.ReadyForMatchResponse.FromString, _registered_method=True)
        self.MintPlayerToken = channel.unary_unary('/neon.matchmaking.v1.MatchmakingService/MintPlayerToken', request_serializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.MintPlayerTokenRequest.SerializeToString, response_deserializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.MintPlayerTokenResponse.FromString, _registered_method=True)
        self.ListMyInvitations = channel.unary_unary('/neon.matchmaking.v1.MatchmakingService/ListMyInvitations', request_serializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.ListMyInvitationsRequest.SerializeToString, response_deserializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.ListMyInvitationsResponse.FromString, _registered_method=True)
        self.WatchMyInvitations = channel.unary_stream('/neon.matchmaking.v1.MatchmakingService/WatchMyInvitations', request_serializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.WatchMyInvitationsRequest.SerializeToString, response_deserializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.WatchMyInvitationsResponse.FromString, _registered_method=True)

class MatchmakingServiceServicer:
    """Queues, tickets, parties and teams. Forms matches by game, mode and seat count,
    preferring close ratings (read from the scoring service), creates them on the rules
    service of the game and hands each player a seat token.
    """

    def CreateTicket(self, request, context):
        """Queue a ticket (idempotent per client-chosen ticket_id).
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def CancelTicket(self, request, context):
        """Cancel a waiting ticket.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def GetTicket(self, request, context):
        """The state of a ticket.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def WatchTicket(self, request, context):
        """Follow a ticket until it is matched, expired or cancelled. A player token's stream ends
        UNAUTHENTICATED when that token expires (nothing, a seat token least of all, is sent to
        an expired token): watch again with a new one.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def AcceptMatch(self, request, context):
        """Accept a proposed match; every player of the match must accept in time, each for
        themselves (a player token accepts for its own player only).
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def DeclineInvite(self, request, context):
        """Decline a party's invitation: the caller's own player token only, for a ticket that
        names them without holding them (its creator named them, and they have not accepted
        one of its matches). They leave the party, which waits on without them, keeping its
        place in the queue (a match proposed to it falls through and it is queued again); its
        players see `declined` and the reason. Idempotent: a repeat is answered as the first.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def ReadyForMatch(self, request, context):
        """Say a matched ticket's seats are ready for its match to start: their client seeds are
        added (the rules service's AddClientSeed, with each seat's own token), or they add none.
        A player token says so for its own player; the organiser or service token that queued
        the ticket (it holds its seat tokens) for every player of it. The match starts when every
        human seat is ready, or when its seed window (Ticket.seed_window) ends, ready or not.
        Idempotent: a repeat, or a call once the match started (or for a match that never waited
        for seeds), answers the ticket as it is.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def MintPlayerToken(self, request, context):
        """Organisers only: a player token for tickets and parties. Player ids starting with
        "bot-" are reserved for the bot driver and refused.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def ListMyInvitations(self, request, context):
        """The caller's open invitations: the open tickets (waiting or proposed) that name the
        caller's player without holding them (not queued by them, not accepted, not declined),
        oldest first. The caller's own player token only (organiser, service: PERMISSION_DENIED).
        Each shows who queued the party and its size, not its other players nor what they did:
        GetTicket with its ticket_id shows the ticket as any player of it sees it.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def WatchMyInvitations(self, request, context):
        """ListMyInvitations, then again each time it changes (an invitation arrives, a match is
        proposed to one, one ends, is accepted or declined), until the caller goes away or its
        token expires (then UNAUTHENTICATED: watch again with a new token). A matchmaking
        replica that does not answer does not end the stream: its queues' invitations are left
        out (`partial`) until it answers again.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

def add_MatchmakingServiceServicer_to_server(servicer, server):
    rpc_method_handlers = {'CreateTicket': grpc.unary_unary_rpc_method_handler(servicer.CreateTicket, request_deserializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.CreateTicketRequest.FromString, response_serializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.CreateTicketResponse.SerializeToString), 'CancelTicket': grpc.unary_unary_rpc_method_handler(servicer.CancelTicket, request_deserializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.CancelTicketRequest.FromString, response_serializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.CancelTicketResponse.SerializeToString), 'GetTicket': grpc.unary_unary_rpc_method_handler(servicer.GetTicket, request_deserializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.GetTicketRequest.FromString, response_serializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.GetTicketResponse.SerializeToString), 'WatchTicket': grpc.unary_stream_rpc_method_handler(servicer.WatchTicket, request_deserializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.WatchTicketRequest.FromString, response_serializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.WatchTicketResponse.SerializeToString), 'AcceptMatch': grpc.unary_unary_rpc_method_handler(servicer.AcceptMatch, request_deserializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.AcceptMatchRequest.FromString, response_serializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.AcceptMatchResponse.SerializeToString), 'DeclineInvite': grpc.unary_unary_rpc_method_handler(servicer.DeclineInvite, request_deserializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.DeclineInviteRequest.FromString, response_serializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.DeclineInviteResponse.SerializeToString), 'ReadyForMatch': grpc.unary_unary_rpc_method_handler(servicer.ReadyForMatch, request_deserializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.ReadyForMatchRequest.FromString, response_serializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.ReadyForMatchResponse.SerializeToString), 'MintPlayerToken': grpc.unary_unary_rpc_method_handler(servicer.MintPlayerToken, request_deserializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.MintPlayerTokenRequest.FromString, response_serializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.MintPlayerTokenResponse.SerializeToString), 'ListMyInvitations': grpc.unary_unary_rpc_method_handler(servicer.ListMyInvitations, request_deserializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.ListMyInvitationsRequest.FromString, response_serializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.ListMyInvitationsResponse.SerializeToString), 'WatchMyInvitations': grpc.unary_stream_rpc_method_handler(servicer.WatchMyInvitations, request_deserializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.WatchMyInvitationsRequest.FromString, response_serializer=neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.WatchMyInvitationsResponse.SerializeToString)}
    generic_handler = grpc.method_handlers_generic_handler('neon.matchmaking.v1.MatchmakingService', rpc_method_handlers)
    server.add_generic_rpc_handlers((generic_handler,))
    server.add_registered_method_handlers('neon.matchmaking.v1.MatchmakingService', rpc_method_handlers)

class MatchmakingService:
    """Queues, tickets, parties and teams. Forms matches by game, mode and seat count,
    preferring close ratings (read from the scoring service), creates them on the rules
    service of the game and hands each player a seat token.
    """

    @staticmethod
    def CreateTicket(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.matchmaking.v1.MatchmakingService/CreateTicket', neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.CreateTicketRequest.SerializeToString, neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.CreateTicketResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def CancelTicket(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.matchmaking.v1.MatchmakingService/CancelTicket', neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.CancelTicketRequest.SerializeToString, neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.CancelTicketResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def GetTicket(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.matchmaking.v1.MatchmakingService/GetTicket', neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.GetTicketRequest.SerializeToString, neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.GetTicketResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def WatchTicket(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_stream(request, target, '/neon.matchmaking.v1.MatchmakingService/WatchTicket', neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.WatchTicketRequest.SerializeToString, neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.WatchTicketResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def AcceptMatch(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.matchmaking.v1.MatchmakingService/AcceptMatch', neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.AcceptMatchRequest.SerializeToString, neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.AcceptMatchResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def DeclineInvite(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.matchmaking.v1.MatchmakingService/DeclineInvite', neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.DeclineInviteRequest.SerializeToString, neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.DeclineInviteResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def ReadyForMatch(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.matchmaking.v1.MatchmakingService/ReadyForMatch', neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.ReadyForMatchRequest.SerializeToString, neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.ReadyForMatchResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def MintPlayerToken(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.matchmaking.v1.MatchmakingService/MintPlayerToken', neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.MintPlayerTokenRequest.SerializeToString, neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.MintPlayerTokenResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def ListMyInvitations(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.matchmaking.v1.MatchmakingService/ListMyInvitations', neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.ListMyInvitationsRequest.SerializeToString, neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.ListMyInvitationsResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def WatchMyInvitations(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_stream(request, target, '/neon.matchmaking.v1.MatchmakingService/WatchMyInvitations', neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.WatchMyInvitationsRequest.SerializeToString, neon_dot_matchmaking_dot_v1_dot_matchmaking__pb2.WatchMyInvitationsResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)