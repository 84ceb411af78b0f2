"""Generated protocol buffer code."""
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import runtime_version as _runtime_version
from google.protobuf import symbol_database as _symbol_database
from google.protobuf.internal import builder as _builder
_runtime_version.ValidateProtobufRuntimeVersion(_runtime_version.Domain.PUBLIC, 7, 35, 1, '', 'neon/scoring/v1/scoring.proto')
_sym_db = _symbol_database.Default()
DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\n\x1dneon/scoring/v1/scoring.proto\x12\x0fneon.scoring.v1"\xc9\x01\n\x06Rating\x12\x0e\n\x06player\x18\x01 \x01(\t\x12\x0c\n\x04game\x18\x02 \x01(\t\x12\n\n\x02mu\x18\x03 \x01(\x01\x12\r\n\x05sigma\x18\x04 \x01(\x01\x12\x0f\n\x07ordinal\x18\x05 \x01(\x01\x12\x0f\n\x07matches\x18\x06 \x01(\x05\x12\x0c\n\x04wins\x18\x07 \x01(\x05\x12\r\n\x05draws\x18\x08 \x01(\x05\x12\x0e\n\x06losses\x18\t \x01(\x05\x12\x0c\n\x04mode\x18\n \x01(\t\x12\x15\n\rrated_matches\x18\x0b \x01(\x05\x12\x12\n\nbest_score\x18\x0c \x01(\x05"@\n\x11GetRatingsRequest\x12\x0c\n\x04game\x18\x01 \x01(\t\x12\x0f\n\x07players\x18\x02 \x03(\t\x12\x0c\n\x04mode\x18\x03 \x01(\t">\n\x12GetRatingsResponse\x12(\n\x07ratings\x18\x01 \x03(\x0b2\x17.neon.scoring.v1.Rating"\x80\x01\n\x15GetLeaderboardRequest\x12\x0c\n\x04game\x18\x01 \x01(\t\x12\x0c\n\x04mode\x18\x02 \x01(\t\x12\r\n\x05limit\x18\x03 \x01(\x05\x12,\n\tranked_by\x18\x04 \x01(\x0e2\x19.neon.scoring.v1.RankedBy\x12\x0e\n\x06offset\x18\x05 \x01(\x05"I\n\x10LeaderboardEntry\x12\x0c\n\x04rank\x18\x01 \x01(\x05\x12\'\n\x06rating\x18\x02 \x01(\x0b2\x17.neon.scoring.v1.Rating"\x89\x01\n\x16GetLeaderboardResponse\x122\n\x07entries\x18\x01 \x03(\x0b2!.neon.scoring.v1.LeaderboardEntry\x12,\n\tranked_by\x18\x02 \x01(\x0e2\x19.neon.scoring.v1.RankedBy\x12\r\n\x05total\x18\x03 \x01(\x05"_\n\x17GetPlayerHistoryRequest\x12\x0c\n\x04game\x18\x01 \x01(\t\x12\x0e\n\x06player\x18\x02 \x01(\t\x12\r\n\x05limit\x18\x03 \x01(\x05\x12\x17\n\x0fbefore_sequence\x18\x04 \x01(\x03"\x15\n\x04Team\x12\r\n\x05seats\x18\x01 \x03(\x05"\x97\x03\n\x0bMatchResult\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x0c\n\x04game\x18\x02 \x01(\t\x12\x0c\n\x04mode\x18\x03 \x01(\t\x12\x0f\n\x07players\x18\x04 \x03(\t\x12\x12\n\nplacements\x18\x05 \x03(\x05\x12\x0e\n\x06scores\x18\x06 \x03(\x05\x12\x0c\n\x04draw\x18\x07 \x01(\x08\x12\x0e\n\x06reason\x18\x08 \x01(\t\x12\x16\n\x0ebreakdown_json\x18\t \x01(\t\x12\'\n\x06before\x18\n \x03(\x0b2\x17.neon.scoring.v1.Rating\x12&\n\x05after\x18\x0b \x03(\x0b2\x17.neon.scoring.v1.Rating\x12\x10\n\x08sequence\x18\x0c \x01(\x03\x12$\n\x05teams\x18\r \x03(\x0b2\x15.neon.scoring.v1.Team\x12\x0c\n\x04bots\x18\x0e \x03(\x08\x12\r\n\x05rated\x18\x0f \x01(\x08\x12\x16\n\x0eunrated_reason\x18\x10 \x01(\t\x121\n\ncreated_by\x18\x11 \x01(\x0b2\x1d.neon.scoring.v1.MatchCreator"F\n\x0cMatchCreator\x12\x0c\n\x04role\x18\x01 \x01(\t\x12\x0c\n\x04name\x18\x02 \x01(\t\x12\x0b\n\x03via\x18\x03 \x01(\t\x12\r\n\x05names\x18\x04 \x03(\t"I\n\x18GetPlayerHistoryResponse\x12-\n\x07results\x18\x01 \x03(\x0b2\x1c.neon.scoring.v1.MatchResult"7\n\x15GetMatchResultRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x0c\n\x04game\x18\x02 \x01(\t"F\n\x16GetMatchResultResponse\x12,\n\x06result\x18\x01 \x01(\x0b2\x1c.neon.scoring.v1.MatchResult*V\n\x08RankedBy\x12\x19\n\x15RANKED_BY_UNSPECIFIED\x10\x00\x12\x15\n\x11RANKED_BY_ORDINAL\x10\x01\x12\x18\n\x14RANKED_BY_BEST_SCORE\x10\x022\x96\x03\n\x0eScoringService\x12U\n\nGetRatings\x12".neon.scoring.v1.GetRatingsRequest\x1a#.neon.scoring.v1.GetRatingsResponse\x12a\n\x0eGetLeaderboard\x12&.neon.scoring.v1.GetLeaderboardRequest\x1a\'.neon.scoring.v1.GetLeaderboardResponse\x12g\n\x10GetPlayerHistory\x12(.neon.scoring.v1.GetPlayerHistoryRequest\x1a).neon.scoring.v1.GetPlayerHistoryResponse\x12a\n\x0eGetMatchResult\x12&.neon.scoring.v1.GetMatchResultRequest\x1a\'.neon.scoring.v1.GetMatchResultResponseb\x06proto3')
_globals = globals()
_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)
_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, 'neon.scoring.v1.scoring_pb2', _globals)
if not _descriptor._USE_C_DESCRIPTORS:
    DESCRIPTOR._loaded_options = None
    _globals['_RANKEDBY']._serialized_start = 1536
    _globals['_RANKEDBY']._serialized_end = 1622
    _globals['_RATING']._serialized_start = 51
    _globals['_RATING']._serialized_end = 252
    _globals['_GETRATINGSREQUEST']._serialized_start = 254
    _globals['_GETRATINGSREQUEST']._serialized_end = 318
    _globals['_GETRATINGSRESPONSE']._serialized_start = 320
    _globals['_GETRATINGSRESPONSE']._serialized_end = 382
    _globals['_GETLEADERBOARDREQUEST']._serialized_start = 385
    _globals['_GETLEADERBOARDREQUEST']._serialized_end = 513
    _globals['_LEADERBOARDENTRY']._serialized_start = 515
    _globals['_LEADERBOARDENTRY']._serialized_end = 588
    _globals['_GETLEADERBOARDRESPONSE']._serialized_start = 591
    _globals['_GETLEADERBOARDRESPONSE']._serialized_end = 728
    _globals['_GETPLAYERHISTORYREQUEST']._serialized_start = 730
    _globals['_GETPLAYERHISTORYREQUEST']._serialized_end = 825
    _globals['_TEAM']._serialized_start = 827
    _globals['_TEAM']._serialized_end = 848
    _globals['_MATCHRESULT']._serialized_start = 851
    _globals['_MATCHRESULT']._serialized_end = 1258
    _globals['_MATCHCREATOR']._serialized_start = 1260
    _globals['_MATCHCREATOR']._serialized_end = 1330
    _globals['_GETPLAYERHISTORYRESPONSE']._serialized_start = 1332
    _globals['_GETPLAYERHISTORYRESPONSE']._serialized_end = 1405
    _globals['_GETMATCHRESULTREQUEST']._serialized_start = 1407
    _globals['_GETMATCHRESULTREQUEST']._serialized_end = 1462
    _globals['_GETMATCHRESULTRESPONSE']._serialized_start = 1464
    _globals['_GETMATCHRESULTRESPONSE']._serialized_end = 1534
    _globals['_SCORINGSERVICE']._serialized_start = 1625
    _globals['_SCORINGSERVICE']._serialized_end = 2031