"""Client and server classes corresponding to protobuf-defined services."""
import grpc
import warnings
from ....neon.tournament.v1 import tournament_pb2 as neon_dot_tournament_dot_v1_dot_tournament__pb2
GRPC_GENERATED_VERSION = '1.85.1'
GRPC_VERSION = grpc.__version__
_version_not_supported = False
try:
    from grpc._utilities import first_version_is_lower
    _version_not_supported = first_version_is_lower(GRPC_VERSION, GRPC_GENERATED_VERSION)
except ImportError:
    _version_not_supported = True
if _version_not_supported:
    raise RuntimeError(f'The grpc package installed is at version {GRPC_VERSION},' + ' but the generated code in neon/tournament/v1/tournament_pb2_grpc.py depends on' + f' grpcio>={GRPC_GENERATED_VERSION}.' + f' Please upgrade your grpc module to grpcio>={GRPC_GENERATED_VERSION}' + f' or downgrade your generated code using grpcio-tools<={GRPC_VERSION}.')

class TournamentServiceStub:
    """Tournaments: registration, rounds, pairings, standings and signed round checkpoints.
    The service creates each round's matches on the rules service of the game, learns
    their results from the signed results the rules services publish, and after every
    round signs a Merkle root over the round's sealed match hashes. Organiser calls carry
    "authorization: Bearer <organiser token>", player calls a player token.
    """

    def __init__(self, channel):
        """Constructor.

        Args:
            channel: A grpc.Channel.
        """
        self.CreateTournament = channel.unary_unary('/neon.tournament.v1.TournamentService/CreateTournament', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.CreateTournamentRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.CreateTournamentResponse.FromString, _registered_method=True)
        self.OpenRegistration = channel.unary_unary('/neon.tournament.v1.TournamentService/OpenRegistration', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.OpenRegistrationRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.OpenRegistrationResponse.FromString, _registered_method=True)
        self.Register = channel.unary_unary('/neon.tournament.v1.TournamentService/Register', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.RegisterRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.RegisterResponse.FromString, _registered_method=True)
        self.Withdraw = channel.unary_unary('/neon.tournament.v1.TournamentService/Withdraw', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.WithdrawRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.WithdrawResponse.FromString, _registered_method=True)
        self.CheckIn = channel.unary_unary('/neon.tournament.v1.TournamentService/CheckIn', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.CheckInRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.CheckInResponse.FromString, _registered_method=True)
        self.StartTournament = channel.unary_unary('/neon.tournament.v1.TournamentService/StartTournament', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.StartTournamentRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.StartTournamentResponse.FromString, _registered_method=True)
        self.NextRound = channel.unary_unary('/neon.tournament.v1.TournamentService/NextRound', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.NextRoundRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.NextRoundResponse.FromString, _registered_method=True)
        self.GetRound = channel.unary_unary('/neon.tournament.v1.TournamentService/GetRound', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.GetRoundRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.GetRoundResponse.FromString, _registered_method=True)
        self.GetTournament = channel.unary_unary('/neon.tournament.v1.TournamentService/GetTournament', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.GetTournamentRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.GetTournamentResponse.FromString, _registered_method=True)
        self.GetStandings = channel.unary_unary('/neon.tournament.v1.TournamentService/GetStandings', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.GetStandingsRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.GetStandingsResponse.FromString, _registered_method=True)
        self.ListTournaments = channel.unary_unary('/neon.tournament.v1.TournamentService/ListTournaments', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ListTournamentsRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ListTournamentsResponse.FromString, _registered_method=True)
        self.CorrectResult = channel.unary_unary('/neon.tournament.v1.TournamentService/CorrectResult', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.CorrectResultRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.CorrectResultResponse.FromString, _registered_method=True)
        self.RematchTable = channel.unary_unary('/neon.tournament.v1.TournamentService/RematchTable', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.RematchTableRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.RematchTableResponse.FromString, _registered_method=True)
        self.DropPlayer = channel.unary_unary('/neon.tournament.v1.TournamentService/DropPlayer', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.DropPlayerRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.DropPlayerResponse.FromString, _registered_method=True)
        self.AddLateEntry = channel.unary_unary('/neon.tournament.v1.TournamentService/AddLateEntry', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.AddLateEntryRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.AddLateEntryResponse.FromString, _registered_method=True)
        self.ReinstatePlayer = channel.unary_unary('/neon.tournament.v1.TournamentService/ReinstatePlayer', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ReinstatePlayerRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ReinstatePlayerResponse.FromString, _registered_method=True)
        self.ForceEnd = channel.unary_unary('/neon.tournament.v1.TournamentService/ForceEnd', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ForceEndRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ForceEndResponse.FromString, _registered_method=True)
        self.FinishTournament = channel.unary_unary('/neon.tournament.v1.TournamentService/FinishTournament', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.FinishTournamentRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.FinishTournamentResponse.FromString, _registered_method=True)
        self.ExportTournament = channel.unary_unary('/neon.tournament.v1.TournamentService/ExportTournament', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ExportTournamentRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ExportTournamentResponse.FromString, _registered_method=True)
        self.ExportTournamentChunks = channel.unary_stream('/neon.tournament.v1.TournamentService/ExportTournamentChunks', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ExportTournamentChunksRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ExportTournamentChunksResponse.FromString, _registered_method=True)
        self.MyNextMatch = channel.unary_unary('/neon.tournament.v1.TournamentService/MyNextMatch', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.MyNextMatchRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.MyNextMatchResponse.FromString, _registered_method=True)
        self.ReadyForMatch = channel.unary_unary('/neon.tournament.v1.TournamentService/ReadyForMatch', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ReadyForMatchRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ReadyForMatchResponse.FromString, _registered_method=True)
        self.WatchTournament = channel.unary_stream('/neon.tournament.v1.TournamentService/WatchTournament', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.WatchTournamentRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.WatchTournamentResponse.FromString, _registered_method=True)
        self.WatchMyMatches = channel.unary_stream('/neon.tournament.v1.TournamentService/WatchMyMatches', request_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.WatchMyMatchesRequest.SerializeToString, response_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.WatchMyMatchesResponse.FromString, _registered_method=True)

class TournamentServiceServicer:
    """Tournaments: registration, rounds, pairings, standings and signed round checkpoints.
    The service creates each round's matches on the rules service of the game, learns
    their results from the signed results the rules services publish, and after every
    round signs a Merkle root over the round's sealed match hashes. Organiser calls carry
    "authorization: Bearer <organiser token>", player calls a player token.
    """

    def CreateTournament(self, request, context):
        """Organiser: creates a tournament (idempotent per tournament_id with the same settings).
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def OpenRegistration(self, request, context):
        """Organiser: opens registration.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def Register(self, request, context):
        """Organiser (any player id) or player (itself): registers a player.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def Withdraw(self, request, context):
        """Organiser or the player: withdraws a registration before the start.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def CheckIn(self, request, context):
        """Organiser or the player: checks a registered player in before the start.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def StartTournament(self, request, context):
        """Organiser: starts the tournament with the checked-in players (all registered when
        nobody checked in). A start that would leave registered players out (some, not all,
        checked in) is refused with FAILED_PRECONDITION naming them, unless checked_in_only.
        A repeat on a running tournament returns it as it is (one start only).
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def NextRound(self, request, context):
        """Organiser: pairs or seats the next round and creates its matches. Idempotent per
        round number.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def GetRound(self, request, context):
        """Anyone: a round's tables, matches, results and checkpoint.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def GetTournament(self, request, context):
        """Anyone: the tournament's settings, players and progress.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def GetStandings(self, request, context):
        """Anyone: the standings with their tie-break values.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def ListTournaments(self, request, context):
        """Anyone: the tournaments this service holds, newest first, each as a summary (what
        GetTournament tells anyone, without the players).
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def CorrectResult(self, request, context):
        """Organiser: corrects a recorded result, with a reason (a new event, never an edit).
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def RematchTable(self, request, context):
        """Organiser: plays an abandoned table again: its abandoned match (sealed) stays in the
        log and the bundle, and a new match is created for the same seats (match id with
        "-g2", "-g3"...), with a new check-in window. At most 5 rematches per table.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def DropPlayer(self, request, context):
        """Organiser or the player: drops a player from the next rounds.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def AddLateEntry(self, request, context):
        """Organiser: adds a late entry where the format allows it.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def ReinstatePlayer(self, request, context):
        """Organiser: reinstates a dropped player (dropped by DropPlayer or as a no-show) in a
        Swiss or multiplayer event: paired again from the next round paired; the rounds missed
        count as unplayed (zero points). FAILED_PRECONDITION for a round robin or an
        elimination bracket, a player who is not dropped, or a tournament that is not running.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def ForceEnd(self, request, context):
        """Organiser: ends the tournament now; unfinished matches of the round do not count.
        With expected_status, only if the tournament is still in that status (else
        FAILED_PRECONDITION, nothing ended).
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def FinishTournament(self, request, context):
        """Organiser: finishes the tournament after its last round and publishes the standings.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def ExportTournament(self, request, context):
        """Organiser: the audit bundle (tournament log, every match export, the round
        checkpoints and the inclusion proofs), one JSON Lines file.
        The answer is one message: a bundle of more than 64 MiB is RESOURCE_EXHAUSTED, naming
        its size and the limit; ExportTournamentChunks streams a bundle of any size.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def ExportTournamentChunks(self, request, context):
        """Organiser: the same bundle as ExportTournament, byte for byte, streamed in chunks of at
        most 1 MiB; the service holds one match's export at a time, however many matches the
        tournament has. The chunks, concatenated, are the file; the last message (done) carries
        the counts and the size, to check the chunks against. An error met on the way (a match
        whose export changed since it was sealed: FAILED_PRECONDITION; an export past the
        service's limit: RESOURCE_EXHAUSTED) ends the stream with its status after the chunks
        before it: a reader keeps nothing unless the stream ends with its done message.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def MyNextMatch(self, request, context):
        """Player: the player's match of the current round (rules address, match id, seat token).
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def ReadyForMatch(self, request, context):
        """Player: says it is at its table (after adding its client seed on the rules service).
        A match starts when every seat is ready, or when the check-in window runs out.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def WatchTournament(self, request, context):
        """Anyone: the tournament now, then again whenever it changes.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def WatchMyMatches(self, request, context):
        """Player: each of the player's matches as its round is paired (as matchmaking's
        WatchTicket hands out seats); a player with no match (left out at the start, dropped)
        gets an answer without an assignment each time a round is paired without them. Ends
        UNAUTHENTICATED when the player token expires (no seat token goes to an expired token):
        watch again with a new one.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

def add_TournamentServiceServicer_to_server(servicer, server):
    rpc_method_handlers = {'CreateTournament': grpc.unary_unary_rpc_method_handler(servicer.CreateTournament, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.CreateTournamentRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.CreateTournamentResponse.SerializeToString), 'OpenRegistration': grpc.unary_unary_rpc_method_handler(servicer.OpenRegistration, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.OpenRegistrationRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.OpenRegistrationResponse.SerializeToString), 'Register': grpc.unary_unary_rpc_method_handler(servicer.Register, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.RegisterRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.RegisterResponse.SerializeToString), 'Withdraw': grpc.unary_unary_rpc_method_handler(servicer.Withdraw, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.WithdrawRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.WithdrawResponse.SerializeToString), 'CheckIn': grpc.unary_unary_rpc_method_handler(servicer.CheckIn, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.CheckInRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.CheckInResponse.SerializeToString), 'StartTournament': grpc.unary_unary_rpc_method_handler(servicer.StartTournament, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.StartTournamentRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.StartTournamentResponse.SerializeToString), 'NextRound': grpc.unary_unary_rpc_method_handler(servicer.NextRound, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.NextRoundRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.NextRoundResponse.SerializeToString), 'GetRound': grpc.unary_unary_rpc_method_handler(servicer.GetRound, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.GetRoundRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.GetRoundResponse.SerializeToString), 'GetTournament': grpc.unary_unary_rpc_method_handler(servicer.GetTournament, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.GetTournamentRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.GetTournamentResponse.SerializeToString), 'GetStandings': grpc.unary_unary_rpc_method_handler(servicer.GetStandings, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.GetStandingsRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.GetStandingsResponse.SerializeToString), 'ListTournaments': grpc.unary_unary_rpc_method_handler(servicer.ListTournaments, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ListTournamentsRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ListTournamentsResponse.SerializeToString), 'CorrectResult': grpc.unary_unary_rpc_method_handler(servicer.CorrectResult, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.CorrectResultRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.CorrectResultResponse.SerializeToString), 'RematchTable': grpc.unary_unary_rpc_method_handler(servicer.RematchTable, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.RematchTableRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.RematchTableResponse.SerializeToString), 'DropPlayer': grpc.unary_unary_rpc_method_handler(servicer.DropPlayer, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.DropPlayerRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.DropPlayerResponse.SerializeToString), 'AddLateEntry': grpc.unary_unary_rpc_method_handler(servicer.AddLateEntry, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.AddLateEntryRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.AddLateEntryResponse.SerializeToString), 'ReinstatePlayer': grpc.unary_unary_rpc_method_handler(servicer.ReinstatePlayer, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ReinstatePlayerRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ReinstatePlayerResponse.SerializeToString), 'ForceEnd': grpc.unary_unary_rpc_method_handler(servicer.ForceEnd, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ForceEndRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ForceEndResponse.SerializeToString), 'FinishTournament': grpc.unary_unary_rpc_method_handler(servicer.FinishTournament, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.FinishTournamentRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.FinishTournamentResponse.SerializeToString), 'ExportTournament': grpc.unary_unary_rpc_method_handler(servicer.ExportTournament, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ExportTournamentRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ExportTournamentResponse.SerializeToString), 'ExportTournamentChunks': grpc.unary_stream_rpc_method_handler(servicer.ExportTournamentChunks, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ExportTournamentChunksRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ExportTournamentChunksResponse.SerializeToString), 'MyNextMatch': grpc.unary_unary_rpc_method_handler(servicer.MyNextMatch, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.MyNextMatchRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.MyNextMatchResponse.SerializeToString), 'ReadyForMatch': grpc.unary_unary_rpc_method_handler(servicer.ReadyForMatch, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ReadyForMatchRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.ReadyForMatchResponse.SerializeToString), 'WatchTournament': grpc.unary_stream_rpc_method_handler(servicer.WatchTournament, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.WatchTournamentRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.WatchTournamentResponse.SerializeToString), 'WatchMyMatches': grpc.unary_stream_rpc_method_handler(servicer.WatchMyMatches, request_deserializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.WatchMyMatchesRequest.FromString, response_serializer=neon_dot_tournament_dot_v1_dot_tournament__pb2.WatchMyMatchesResponse.SerializeToString)}
    generic_handler = grpc.method_handlers_generic_handler('neon.tournament.v1.TournamentService', rpc_method_handlers)
    server.add_generic_rpc_handlers((generic_handler,))
    server.add_registered_method_handlers('neon.tournament.v1.TournamentService', rpc_method_handlers)

class TournamentService:
    """Tournaments: registration, rounds, pairings, standings and signed round checkpoints.
    The service creates each round's matches on the rules service of the game, learns
    their results from the signed results the rules services publish, and after every
    round signs a Merkle root over the round's sealed match hashes. Organiser calls carry
    "authorization: Bearer <organiser token>", player calls a player token.
    """

    @staticmethod
    def CreateTournament(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.tournament.v1.TournamentService/CreateTournament', neon_dot_tournament_dot_v1_dot_tournament__pb2.CreateTournamentRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.CreateTournamentResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def OpenRegistration(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.tournament.v1.TournamentService/OpenRegistration', neon_dot_tournament_dot_v1_dot_tournament__pb2.OpenRegistrationRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.OpenRegistrationResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def Register(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.tournament.v1.TournamentService/Register', neon_dot_tournament_dot_v1_dot_tournament__pb2.RegisterRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.RegisterResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def Withdraw(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.tournament.v1.TournamentService/Withdraw', neon_dot_tournament_dot_v1_dot_tournament__pb2.WithdrawRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.WithdrawResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def CheckIn(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.tournament.v1.TournamentService/CheckIn', neon_dot_tournament_dot_v1_dot_tournament__pb2.CheckInRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.CheckInResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def StartTournament(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.tournament.v1.TournamentService/StartTournament', neon_dot_tournament_dot_v1_dot_tournament__pb2.StartTournamentRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.StartTournamentResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def NextRound(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.tournament.v1.TournamentService/NextRound', neon_dot_tournament_dot_v1_dot_tournament__pb2.NextRoundRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.NextRoundResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def GetRound(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.tournament.v1.TournamentService/GetRound', neon_dot_tournament_dot_v1_dot_tournament__pb2.GetRoundRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.GetRoundResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def GetTournament(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.tournament.v1.TournamentService/GetTournament', neon_dot_tournament_dot_v1_dot_tournament__pb2.GetTournamentRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.GetTournamentResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def GetStandings(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.tournament.v1.TournamentService/GetStandings', neon_dot_tournament_dot_v1_dot_tournament__pb2.GetStandingsRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.GetStandingsResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def ListTournaments(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.tournament.v1.TournamentService/ListTournaments', neon_dot_tournament_dot_v1_dot_tournament__pb2.ListTournamentsRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.ListTournamentsResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def CorrectResult(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.tournament.v1.TournamentService/CorrectResult', neon_dot_tournament_dot_v1_dot_tournament__pb2.CorrectResultRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.CorrectResultResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def RematchTable(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.tournament.v1.TournamentService/RematchTable', neon_dot_tournament_dot_v1_dot_tournament__pb2.RematchTableRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.RematchTableResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def DropPlayer(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.tournament.v1.TournamentService/DropPlayer', neon_dot_tournament_dot_v1_dot_tournament__pb2.DropPlayerRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.DropPlayerResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def AddLateEntry(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.tournament.v1.TournamentService/AddLateEntry', neon_dot_tournament_dot_v1_dot_tournament__pb2.AddLateEntryRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.AddLateEntryResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def ReinstatePlayer(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.tournament.v1.TournamentService/ReinstatePlayer', neon_dot_tournament_dot_v1_dot_tournament__pb2.ReinstatePlayerRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.ReinstatePlayerResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def ForceEnd(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.tournament.v1.TournamentService/ForceEnd', neon_dot_tournament_dot_v1_dot_tournament__pb2.ForceEndRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.ForceEndResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def FinishTournament(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.tournament.v1.TournamentService/FinishTournament', neon_dot_tournament_dot_v1_dot_tournament__pb2.FinishTournamentRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.FinishTournamentResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def ExportTournament(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.tournament.v1.TournamentService/ExportTournament', neon_dot_tournament_dot_v1_dot_tournament__pb2.ExportTournamentRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.ExportTournamentResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def ExportTournamentChunks(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_stream(request, target, '/neon.tournament.v1.TournamentService/ExportTournamentChunks', neon_dot_tournament_dot_v1_dot_tournament__pb2.ExportTournamentChunksRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.ExportTournamentChunksResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def MyNextMatch(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.tournament.v1.TournamentService/MyNextMatch', neon_dot_tournament_dot_v1_dot_tournament__pb2.MyNextMatchRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.MyNextMatchResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def ReadyForMatch(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.tournament.v1.TournamentService/ReadyForMatch', neon_dot_tournament_dot_v1_dot_tournament__pb2.ReadyForMatchRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.ReadyForMatchResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def WatchTournament(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_stream(request, target, '/neon.tournament.v1.TournamentService/WatchTournament', neon_dot_tournament_dot_v1_dot_tournament__pb2.WatchTournamentRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.WatchTournamentResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def WatchMyMatches(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_stream(request, target, '/neon.tournament.v1.TournamentService/WatchMyMatches', neon_dot_tournament_dot_v1_dot_tournament__pb2.WatchMyMatchesRequest.SerializeToString, neon_dot_tournament_dot_v1_dot_tournament__pb2.WatchMyMatchesResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)