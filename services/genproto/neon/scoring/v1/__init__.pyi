from . import scoring_pb2
