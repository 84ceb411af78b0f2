from . import rules_pb2
