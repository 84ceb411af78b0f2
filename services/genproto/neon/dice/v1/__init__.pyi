from . import dice_pb2
