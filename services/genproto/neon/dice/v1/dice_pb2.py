"""Generated protocol buffer code."""
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import runtime_version as _runtime_version
from google.protobuf import symbol_database as _symbol_database
from google.protobuf.internal import builder as _builder
_runtime_version.ValidateProtobufRuntimeVersion(_runtime_version.Domain.PUBLIC, 7, 35, 1, '', 'neon/dice/v1/dice.proto')
_sym_db = _symbol_database.Default()
DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\n\x17neon/dice/v1/dice.proto\x12\x0cneon.dice.v1"(\n\nClientSeed\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\x0c\n\x04seed\x18\x02 \x01(\t"\xa0\x01\n\x07Session\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x11\n\tstream_id\x18\x02 \x01(\t\x12\x12\n\ncommitment\x18\x03 \x01(\t\x12.\n\x0cclient_seeds\x18\x04 \x03(\x0b2\x18.neon.dice.v1.ClientSeed\x12\x0f\n\x07counter\x18\x05 \x01(\x03\x12\x0e\n\x06closed\x18\x06 \x01(\x08\x12\x0b\n\x03dev\x18\x07 \x01(\x08"8\n\x12OpenSessionRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x10\n\x08dev_seed\x18\x02 \x01(\t"P\n\x13OpenSessionResponse\x12&\n\x07session\x18\x01 \x01(\x0b2\x15.neon.dice.v1.Session\x12\x11\n\tstate_key\x18\x02 \x01(\t"D\n\x14AddClientSeedRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x0c\n\x04seat\x18\x02 \x01(\x05\x12\x0c\n\x04seed\x18\x03 \x01(\t"?\n\x15AddClientSeedResponse\x12&\n\x07session\x18\x01 \x01(\x0b2\x15.neon.dice.v1.Session"o\n\x04Draw\x12 \n\x02op\x18\x01 \x01(\x0e2\x14.neon.dice.v1.DrawOp\x12\t\n\x01n\x18\x02 \x01(\x05\x12\r\n\x05count\x18\x03 \x01(\x05\x12\x0e\n\x06result\x18\x04 \x03(\x05\x12\r\n\x05first\x18\x05 \x01(\x03\x12\x0c\n\x04next\x18\x06 \x01(\x03"o\n\x0bDrawRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x12\n\nrequest_id\x18\x02 \x01(\t\x12 \n\x02op\x18\x03 \x01(\x0e2\x14.neon.dice.v1.DrawOp\x12\t\n\x01n\x18\x04 \x01(\x05\x12\r\n\x05count\x18\x05 \x01(\x05"0\n\x0cDrawResponse\x12 \n\x04draw\x18\x01 \x01(\x0b2\x12.neon.dice.v1.Draw"(\n\x14GetCommitmentRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t"?\n\x15GetCommitmentResponse\x12&\n\x07session\x18\x01 \x01(\x0b2\x15.neon.dice.v1.Session"\'\n\x13CloseSessionRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t"L\n\x14CloseSessionResponse\x12&\n\x07session\x18\x01 \x01(\x0b2\x15.neon.dice.v1.Session\x12\x0c\n\x04seed\x18\x02 \x01(\t"%\n\x11RevealSeedRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t"J\n\x12RevealSeedResponse\x12&\n\x07session\x18\x01 \x01(\x0b2\x15.neon.dice.v1.Session\x12\x0c\n\x04seed\x18\x02 \x01(\t"F\n\x14ReserveBlocksRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\r\n\x05first\x18\x02 \x01(\x03\x12\r\n\x05count\x18\x03 \x01(\x05"5\n\x15ReserveBlocksResponse\x12\r\n\x05first\x18\x01 \x01(\x03\x12\r\n\x05words\x18\x02 \x03(\x06*_\n\x06DrawOp\x12\x17\n\x13DRAW_OP_UNSPECIFIED\x10\x00\x12\x15\n\x11DRAW_OP_RANDBELOW\x10\x01\x12\x13\n\x0fDRAW_OP_SHUFFLE\x10\x02\x12\x10\n\x0cDRAW_OP_ROLL\x10\x032\xd6\x04\n\x0bDiceService\x12R\n\x0bOpenSession\x12 .neon.dice.v1.OpenSessionRequest\x1a!.neon.dice.v1.OpenSessionResponse\x12X\n\rAddClientSeed\x12".neon.dice.v1.AddClientSeedRequest\x1a#.neon.dice.v1.AddClientSeedResponse\x12=\n\x04Draw\x12\x19.neon.dice.v1.DrawRequest\x1a\x1a.neon.dice.v1.DrawResponse\x12X\n\rGetCommitment\x12".neon.dice.v1.GetCommitmentRequest\x1a#.neon.dice.v1.GetCommitmentResponse\x12U\n\x0cCloseSession\x12!.neon.dice.v1.CloseSessionRequest\x1a".neon.dice.v1.CloseSessionResponse\x12O\n\nRevealSeed\x12\x1f.neon.dice.v1.RevealSeedRequest\x1a .neon.dice.v1.RevealSeedResponse\x12X\n\rReserveBlocks\x12".neon.dice.v1.ReserveBlocksRequest\x1a#.neon.dice.v1.ReserveBlocksResponseb\x06proto3')
_globals = globals()
_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)
_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, 'neon.dice.v1.dice_pb2', _globals)
if not _descriptor._USE_C_DESCRIPTORS:
    DESCRIPTOR._loaded_options = None
    _globals['_DRAWOP']._serialized_start = 1265
    _globals['_DRAWOP']._serialized_end = 1360
    _globals['_CLIENTSEED']._serialized_start = 41
    _globals['_CLIENTSEED']._serialized_end = 81
    _globals['_SESSION']._serialized_start = 84
    _globals['_SESSION']._serialized_end = 244
    _globals['_OPENSESSIONREQUEST']._serialized_start = 246
    _globals['_OPENSESSIONREQUEST']._serialized_end = 302
    _globals['_OPENSESSIONRESPONSE']._serialized_start = 304
    _globals['_OPENSESSIONRESPONSE']._serialized_end = 384
    _globals['_ADDCLIENTSEEDREQUEST']._serialized_start = 386
    _globals['_ADDCLIENTSEEDREQUEST']._serialized_end = 454
    _globals['_ADDCLIENTSEEDRESPONSE']._serialized_start = 456
    _globals['_ADDCLIENTSEEDRESPONSE']._serialized_end = 519
    _globals['_DRAW']._serialized_start = 521
    _globals['_DRAW']._serialized_end = 632
    _globals['_DRAWREQUEST']._serialized_start = 634
    _globals['_DRAWREQUEST']._serialized_end = 745
    _globals['_DRAWRESPONSE']._serialized_start = 747
    _globals['_DRAWRESPONSE']._serialized_end = 795
    _globals['_GETCOMMITMENTREQUEST']._serialized_start = 797
    _globals['_GETCOMMITMENTREQUEST']._serialized_end = 837
    _globals['_GETCOMMITMENTRESPONSE']._serialized_start = 839
    _globals['_GETCOMMITMENTRESPONSE']._serialized_end = 902
    _globals['_CLOSESESSIONREQUEST']._serialized_start = 904
    _globals['_CLOSESESSIONREQUEST']._serialized_end = 943
    _globals['_CLOSESESSIONRESPONSE']._serialized_start = 945
    _globals['_CLOSESESSIONRESPONSE']._serialized_end = 1021
    _globals['_REVEALSEEDREQUEST']._serialized_start = 1023
    _globals['_REVEALSEEDREQUEST']._serialized_end = 1060
    _globals['_REVEALSEEDRESPONSE']._serialized_start = 1062
    _globals['_REVEALSEEDRESPONSE']._serialized_end = 1136
    _globals['_RESERVEBLOCKSREQUEST']._serialized_start = 1138
    _globals['_RESERVEBLOCKSREQUEST']._serialized_end = 1208
    _globals['_RESERVEBLOCKSRESPONSE']._serialized_start = 1210
    _globals['_RESERVEBLOCKSRESPONSE']._serialized_end = 1263
    _globals['_DICESERVICE']._serialized_start = 1363
    _globals['_DICESERVICE']._serialized_end = 1961