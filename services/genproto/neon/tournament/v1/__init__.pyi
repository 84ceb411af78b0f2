from . import tournament_pb2
