from . import matchmaking_pb2
