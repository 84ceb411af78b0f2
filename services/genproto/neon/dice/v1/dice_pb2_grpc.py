"""Client and server classes corresponding to protobuf-defined services."""
import grpc
import warnings
from ....neon.dice.v1 import dice_pb2 as neon_dot_dice_dot_v1_dot_dice__pb2
GRPC_GENERATED_VERSION = '1.85.1'
GRPC_VERSION = grpc.__version__
_version_not_supported = False
try:
    from grpc._utilities import first_version_is_lower
    _version_not_supported = first_version_is_lower(GRPC_VERSION, GRPC_GENERATED_VERSION)
except ImportError:
    _version_not_supported = True
if _version_not_supported:
    raise RuntimeError(f'The grpc package installed is at version {GRPC_VERSION},' + ' but the generated code in neon/dice/v1/dice_pb2_grpc.py depends on' + f' grpcio>={GRPC_GENERATED_VERSION}.' + f' Please upgrade your grpc module to grpcio>={GRPC_GENERATED_VERSION}' + f' or downgrade your generated code using grpcio-tools<={GRPC_VERSION}.')

class DiceServiceStub:
    """Verifiable randomness for matches. Each match has a secret 32-byte server seed of
    which only the SHA-256 commitment is published until the session is closed. Draw n
    of a session is HMAC-SHA256(server_seed, canonical_json(["neon-arena/draw/v1",
    stream_id, client_seeds, n])); see services/platform/draws.py.
    """

    def __init__(self, channel):
        """Constructor.

        Args:
            channel: A grpc.Channel.
        """
        self.OpenSession = channel.unary_unary('/neon.dice.v1.DiceService/OpenSession', request_serializer=neon_dot_dice_dot_v1_dot_dice__pb2.OpenSessionRequest.SerializeToString, response_deserializer=neon_dot_dice_dot_v1_dot_dice__pb2.OpenSessionResponse.FromString, _registered_method=True)
        self.AddClientSeed = channel.unary_unary('/neon.dice.v1.DiceService/AddClientSeed', request_serializer=neon_dot_dice_dot_v1_dot_dice__pb2.AddClientSeedRequest.SerializeToString, response_deserializer=neon_dot_dice_dot_v1_dot_dice__pb2.AddClientSeedResponse.FromString, _registered_method=True)
        self.Draw = channel.unary_unary('/neon.dice.v1.DiceService/Draw', request_serializer=neon_dot_dice_dot_v1_dot_dice__pb2.DrawRequest.SerializeToString, response_deserializer=neon_dot_dice_dot_v1_dot_dice__pb2.DrawResponse.FromString, _registered_method=True)
        self.GetCommitment = channel.unary_unary('/neon.dice.v1.DiceService/GetCommitment', request_serializer=neon_dot_dice_dot_v1_dot_dice__pb2.GetCommitmentRequest.SerializeToString, response_deserializer=neon_dot_dice_dot_v1_dot_dice__pb2.GetCommitmentResponse.FromString, _registered_method=True)
        self.CloseSession = channel.unary_unary('/neon.dice.v1.DiceService/CloseSession', request_serializer=neon_dot_dice_dot_v1_dot_dice__pb2.CloseSessionRequest.SerializeToString, response_deserializer=neon_dot_dice_dot_v1_dot_dice__pb2.CloseSessionResponse.FromString, _registered_method=True)
        self.RevealSeed = channel.unary_unary('/neon.dice.v1.DiceService/RevealSeed', request_serializer=neon_dot_dice_dot_v1_dot_dice__pb2.RevealSeedRequest.SerializeToString, response_deserializer=neon_dot_dice_dot_v1_dot_dice__pb2.RevealSeedResponse.FromString, _registered_method=True)
        self.ReserveBlocks = channel.unary_unary('/neon.dice.v1.DiceService/ReserveBlocks', request_serializer=neon_dot_dice_dot_v1_dot_dice__pb2.ReserveBlocksRequest.SerializeToString, response_deserializer=neon_dot_dice_dot_v1_dot_dice__pb2.ReserveBlocksResponse.FromString, _registered_method=True)

class DiceServiceServicer:
    """Verifiable randomness for matches. Each match has a secret 32-byte server seed of
    which only the SHA-256 commitment is published until the session is closed. Draw n
    of a session is HMAC-SHA256(server_seed, canonical_json(["neon-arena/draw/v1",
    stream_id, client_seeds, n])); see services/platform/draws.py.
    """

    def OpenSession(self, request, context):
        """Opens (idempotently) the session of a match and returns its commitment. A closed
        session (its seed revealed) is FAILED_PRECONDITION.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def AddClientSeed(self, request, context):
        """Adds a seated player's client seed; only before the first draw.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def Draw(self, request, context):
        """Makes one draw. A repeated request_id returns the first result. FAILED_PRECONDITION on
        a session that reserves blocks (ReserveBlocks): every block is handed out once; and on
        a session a rules service opened for its match (OpenSession with a service token),
        which draws only from the blocks it reserves, from block 0 at the match's start.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def GetCommitment(self, request, context):
        """Public: the commitment and client seeds of a session (the counter only for service and
        organiser tokens, or once the session is closed).
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def CloseSession(self, request, context):
        """Service: ends a session and reveals its seed; idempotent. Only the rules service
        closes, once its match's end is stored.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def RevealSeed(self, request, context):
        """Public: the revealed seed of a closed session (FAILED_PRECONDITION while open).
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def ReserveBlocks(self, request, context):
        """Service: the raw draw blocks [first, first + count) of a session, so the caller
        draws locally (same HMAC construction and counters as Draw). Fixes the client
        seeds: none may be added after the first reservation. Blocks a Draw handed out are
        FAILED_PRECONDITION.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

def add_DiceServiceServicer_to_server(servicer, server):
    rpc_method_handlers = {'OpenSession': grpc.unary_unary_rpc_method_handler(servicer.OpenSession, request_deserializer=neon_dot_dice_dot_v1_dot_dice__pb2.OpenSessionRequest.FromString, response_serializer=neon_dot_dice_dot_v1_dot_dice__pb2.OpenSessionResponse.SerializeToString), 'AddClientSeed': grpc.unary_unary_rpc_method_handler(servicer.AddClientSeed, request_deserializer=neon_dot_dice_dot_v1_dot_dice__pb2.AddClientSeedRequest.FromString, response_serializer=neon_dot_dice_dot_v1_dot_dice__pb2.AddClientSeedResponse.SerializeToString), 'Draw': grpc.unary_unary_rpc_method_handler(servicer.Draw, request_deserializer=neon_dot_dice_dot_v1_dot_dice__pb2.DrawRequest.FromString, response_serializer=neon_dot_dice_dot_v1_dot_dice__pb2.DrawResponse.SerializeToString), 'GetCommitment': grpc.unary_unary_rpc_method_handler(servicer.GetCommitment, request_deserializer=neon_dot_dice_dot_v1_dot_dice__pb2.GetCommitmentRequest.FromString, response_serializer=neon_dot_dice_dot_v1_dot_dice__pb2.GetCommitmentResponse.SerializeToString), 'CloseSession': grpc.unary_unary_rpc_method_handler(servicer.CloseSession, request_deserializer=neon_dot_dice_dot_v1_dot_dice__pb2.CloseSessionRequest.FromString, response_serializer=neon_dot_dice_dot_v1_dot_dice__pb2.CloseSessionResponse.SerializeToString), 'RevealSeed': grpc.unary_unary_rpc_method_handler(servicer.RevealSeed, request_deserializer=neon_dot_dice_dot_v1_dot_dice__pb2.RevealSeedRequest.FromString, response_serializer=neon_dot_dice_dot_v1_dot_dice__pb2.RevealSeedResponse.SerializeToString), 'ReserveBlocks': grpc.unary_unary_rpc_method_handler(servicer.ReserveBlocks, request_deserializer=neon_dot_dice_dot_v1_dot_dice__pb2.ReserveBlocksRequest.FromString, response_serializer=neon_dot_dice_dot_v1_dot_dice__pb2.ReserveBlocksResponse.SerializeToString)}
    generic_handler = grpc.method_handlers_generic_handler('neon.dice.v1.DiceService', rpc_method_handlers)
    server.add_generic_rpc_handlers((generic_handler,))
    server.add_registered_method_handlers('neon.dice.v1.DiceService', rpc_method_handlers)

class DiceService:
    """Verifiable randomness for matches. Each match has a secret 32-byte server seed of
    which only the SHA-256 commitment is published until the session is closed. Draw n
    of a session is HMAC-SHA256(server_seed, canonical_json(["neon-arena/draw/v1",
    stream_id, client_seeds, n])); see services/platform/draws.py.
    """

    @staticmethod
    def OpenSession(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.dice.v1.DiceService/OpenSession', neon_dot_dice_dot_v1_dot_dice__pb2.OpenSessionRequest.SerializeToString, neon_dot_dice_dot_v1_dot_dice__pb2.OpenSessionResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def AddClientSeed(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.dice.v1.DiceService/AddClientSeed', neon_dot_dice_dot_v1_dot_dice__pb2.AddClientSeedRequest.SerializeToString, neon_dot_dice_dot_v1_dot_dice__pb2.AddClientSeedResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def Draw(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.dice.v1.DiceService/Draw', neon_dot_dice_dot_v1_dot_dice__pb2.DrawRequest.SerializeToString, neon_dot_dice_dot_v1_dot_dice__pb2.DrawResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def GetCommitment(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.dice.v1.DiceService/GetCommitment', neon_dot_dice_dot_v1_dot_dice__pb2.GetCommitmentRequest.SerializeToString, neon_dot_dice_dot_v1_dot_dice__pb2.GetCommitmentResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def CloseSession(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.dice.v1.DiceService/CloseSession', neon_dot_dice_dot_v1_dot_dice__pb2.CloseSessionRequest.SerializeToString, neon_dot_dice_dot_v1_dot_dice__pb2.CloseSessionResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def RevealSeed(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.dice.v1.DiceService/RevealSeed', neon_dot_dice_dot_v1_dot_dice__pb2.RevealSeedRequest.SerializeToString, neon_dot_dice_dot_v1_dot_dice__pb2.RevealSeedResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def ReserveBlocks(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/neon.dice.v1.DiceService/ReserveBlocks', neon_dot_dice_dot_v1_dot_dice__pb2.ReserveBlocksRequest.SerializeToString, neon_dot_dice_dot_v1_dot_dice__pb2.ReserveBlocksResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)