"""Generated protocol buffer code."""
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import runtime_version as _runtime_version
from google.protobuf import symbol_database as _symbol_database
from google.protobuf.internal import builder as _builder
_runtime_version.ValidateProtobufRuntimeVersion(_runtime_version.Domain.PUBLIC, 7, 35, 1, '', 'neon/rules/v1/rules.proto')
_sym_db = _symbol_database.Default()
DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\n\x19neon/rules/v1/rules.proto\x12\rneon.rules.v1"S\n\x08ModeInfo\x12\x0c\n\x04name\x18\x01 \x01(\t\x12\x11\n\tmin_seats\x18\x02 \x01(\x05\x12\x11\n\tmax_seats\x18\x03 \x01(\x05\x12\x13\n\x0bdescription\x18\x04 \x01(\t"\x14\n\x12GetGameInfoRequest"\xc6\x01\n\x13GetGameInfoResponse\x12\x0f\n\x07game_id\x18\x01 \x01(\t\x12\r\n\x05title\x18\x02 \x01(\t\x12\x16\n\x0eengine_version\x18\x03 \x01(\t\x12\x17\n\x0fcontent_version\x18\x04 \x01(\t\x12&\n\x05modes\x18\x05 \x03(\x0b2\x17.neon.rules.v1.ModeInfo\x12\x1a\n\x12config_schema_json\x18\x06 \x01(\t\x12\x1a\n\x12action_schema_json\x18\x07 \x01(\t"\x98\x01\n\x12CreateMatchRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x0c\n\x04mode\x18\x02 \x01(\t\x12\r\n\x05seats\x18\x03 \x01(\x05\x12\x14\n\x0coptions_json\x18\x04 \x01(\t\x12\x0f\n\x07players\x18\x05 \x03(\t\x12\x1a\n\x12await_client_seeds\x18\x06 \x01(\x08\x12\x10\n\x08dev_seed\x18\x07 \x01(\t"8\n\tSeatToken\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\r\n\x05token\x18\x02 \x01(\t\x12\x0e\n\x06player\x18\x03 \x01(\t"\xac\x01\n\x13CreateMatchResponse\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x17\n\x0fdice_commitment\x18\x02 \x01(\t\x12-\n\x0bseat_tokens\x18\x03 \x03(\x0b2\x18.neon.rules.v1.SeatToken\x12*\n\x06status\x18\x04 \x01(\x0e2\x1a.neon.rules.v1.MatchStatus\x12\x0f\n\x07version\x18\x05 \x01(\x03"6\n\x14AddClientSeedRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x0c\n\x04seed\x18\x02 \x01(\t"1\n\x15AddClientSeedResponse\x12\x18\n\x10seats_with_seeds\x18\x01 \x01(\x05"%\n\x11StartMatchRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t"9\n\x12StartMatchResponse\x12\x0f\n\x07version\x18\x01 \x01(\x03\x12\x12\n\nstate_hash\x18\x02 \x01(\t"\x89\x01\n\nMatchEvent\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x0f\n\x07version\x18\x02 \x01(\x03\x12\x0c\n\x04type\x18\x03 \x01(\t\x12\x0c\n\x04seat\x18\x04 \x01(\x05\x12\x14\n\x0cpayload_json\x18\x05 \x01(\t\x12\x12\n\nstate_hash\x18\x06 \x01(\t\x12\x12\n\nchain_hash\x18\x07 \x01(\t"\x84\x01\n\x13SubmitActionRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x12\n\ncommand_id\x18\x02 \x01(\t\x12\x13\n\x0baction_json\x18\x03 \x01(\t\x12\x1d\n\x10expected_version\x18\x04 \x01(\x03H\x00\x88\x01\x01B\x13\n\x11_expected_version"\xba\x01\n\x14SubmitActionResponse\x12\x0f\n\x07version\x18\x01 \x01(\x03\x12\x12\n\nstate_hash\x18\x02 \x01(\t\x12)\n\x06events\x18\x03 \x03(\x0b2\x19.neon.rules.v1.MatchEvent\x12*\n\x06status\x18\x04 \x01(\x0e2\x1a.neon.rules.v1.MatchStatus\x12\x14\n\x0coutcome_json\x18\x05 \x01(\t\x12\x10\n\x08replayed\x18\x06 \x01(\x08"l\n\x08Decision\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\x0c\n\x04kind\x18\x02 \x01(\t\x12\x0e\n\x06prompt\x18\x03 \x01(\t\x12\x10\n\x08optional\x18\x04 \x01(\x08\x12\x0e\n\x06hidden\x18\x05 \x01(\x08\x12\x12\n\nlegal_json\x18\x06 \x03(\t"+\n\x17ListLegalActionsRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t"W\n\x18ListLegalActionsResponse\x12\x0f\n\x07version\x18\x01 \x01(\x03\x12*\n\tdecisions\x18\x02 \x03(\x0b2\x17.neon.rules.v1.Decision""\n\x0eGetViewRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t")\n\x0bPendingSeat\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\x0c\n\x04kind\x18\x02 \x01(\t"\x88\x02\n\x0fGetViewResponse\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x0f\n\x07version\x18\x02 \x01(\x03\x12*\n\x06status\x18\x03 \x01(\x0e2\x1a.neon.rules.v1.MatchStatus\x12\x0e\n\x06viewer\x18\x04 \x01(\x05\x12\x11\n\tview_json\x18\x05 \x01(\t\x12+\n\x07pending\x18\x06 \x03(\x0b2\x1a.neon.rules.v1.PendingSeat\x12\x14\n\x0coutcome_json\x18\x07 \x01(\t\x12\x12\n\nstate_hash\x18\x08 \x01(\t\x12\x0f\n\x07game_id\x18\t \x01(\t\x12\x0c\n\x04mode\x18\n \x01(\t\x12\r\n\x05seats\x18\x0b \x01(\x05";\n\x11WatchMatchRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x14\n\x0cfrom_version\x18\x02 \x01(\x03">\n\x12WatchMatchResponse\x12(\n\x05event\x18\x01 \x01(\x0b2\x19.neon.rules.v1.MatchEvent"&\n\x12ExportMatchRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t"T\n\x13ExportMatchResponse\x12\x14\n\x0cexport_jsonl\x18\x01 \x01(\x0c\x12\x12\n\nfinal_hash\x18\x02 \x01(\t\x12\x13\n\x0bevent_count\x18\x03 \x01(\x03*~\n\x0bMatchStatus\x12\x1c\n\x18MATCH_STATUS_UNSPECIFIED\x10\x00\x12\x1f\n\x1bMATCH_STATUS_AWAITING_SEEDS\x10\x01\x12\x18\n\x14MATCH_STATUS_RUNNING\x10\x02\x12\x16\n\x12MATCH_STATUS_ENDED\x10\x032\x9c\x06\n\x0cRulesService\x12T\n\x0bGetGameInfo\x12!.neon.rules.v1.GetGameInfoRequest\x1a".neon.rules.v1.GetGameInfoResponse\x12T\n\x0bCreateMatch\x12!.neon.rules.v1.CreateMatchRequest\x1a".neon.rules.v1.CreateMatchResponse\x12Z\n\rAddClientSeed\x12#.neon.rules.v1.AddClientSeedRequest\x1a$.neon.rules.v1.AddClientSeedResponse\x12Q\n\nStartMatch\x12 .neon.rules.v1.StartMatchRequest\x1a!.neon.rules.v1.StartMatchResponse\x12W\n\x0cSubmitAction\x12".neon.rules.v1.SubmitActionRequest\x1a#.neon.rules.v1.SubmitActionResponse\x12c\n\x10ListLegalActions\x12&.neon.rules.v1.ListLegalActionsRequest\x1a\'.neon.rules.v1.ListLegalActionsResponse\x12H\n\x07GetView\x12\x1d.neon.rules.v1.GetViewRequest\x1a\x1e.neon.rules.v1.GetViewResponse\x12S\n\nWatchMatch\x12 .neon.rules.v1.WatchMatchRequest\x1a!.neon.rules.v1.WatchMatchResponse0\x01\x12T\n\x0bExportMatch\x12!.neon.rules.v1.ExportMatchRequest\x1a".neon.rules.v1.ExportMatchResponseb\x06proto3')
_globals = globals()
_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)
_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, 'neon.rules.v1.rules_pb2', _globals)
if not _descriptor._USE_C_DESCRIPTORS:
    DESCRIPTOR._loaded_options = None
    _globals['_MATCHSTATUS']._serialized_start = 2250
    _globals['_MATCHSTATUS']._serialized_end = 2376
    _globals['_MODEINFO']._serialized_start = 44
    _globals['_MODEINFO']._serialized_end = 127
    _globals['_GETGAMEINFOREQUEST']._serialized_start = 129
    _globals['_GETGAMEINFOREQUEST']._serialized_end = 149
    _globals['_GETGAMEINFORESPONSE']._serialized_start = 152
    _globals['_GETGAMEINFORESPONSE']._serialized_end = 350
    _globals['_CREATEMATCHREQUEST']._serialized_start = 353
    _globals['_CREATEMATCHREQUEST']._serialized_end = 505
    _globals['_SEATTOKEN']._serialized_start = 507
    _globals['_SEATTOKEN']._serialized_end = 563
    _globals['_CREATEMATCHRESPONSE']._serialized_start = 566
    _globals['_CREATEMATCHRESPONSE']._serialized_end = 738
    _globals['_ADDCLIENTSEEDREQUEST']._serialized_start = 740
    _globals['_ADDCLIENTSEEDREQUEST']._serialized_end = 794
    _globals['_ADDCLIENTSEEDRESPONSE']._serialized_start = 796
    _globals['_ADDCLIENTSEEDRESPONSE']._serialized_end = 845
    _globals['_STARTMATCHREQUEST']._serialized_start = 847
    _globals['_STARTMATCHREQUEST']._serialized_end = 884
    _globals['_STARTMATCHRESPONSE']._serialized_start = 886
    _globals['_STARTMATCHRESPONSE']._serialized_end = 943
    _globals['_MATCHEVENT']._serialized_start = 946
    _globals['_MATCHEVENT']._serialized_end = 1083
    _globals['_SUBMITACTIONREQUEST']._serialized_start = 1086
    _globals['_SUBMITACTIONREQUEST']._serialized_end = 1218
    _globals['_SUBMITACTIONRESPONSE']._serialized_start = 1221
    _globals['_SUBMITACTIONRESPONSE']._serialized_end = 1407
    _globals['_DECISION']._serialized_start = 1409
    _globals['_DECISION']._serialized_end = 1517
    _globals['_LISTLEGALACTIONSREQUEST']._serialized_start = 1519
    _globals['_LISTLEGALACTIONSREQUEST']._serialized_end = 1562
    _globals['_LISTLEGALACTIONSRESPONSE']._serialized_start = 1564
    _globals['_LISTLEGALACTIONSRESPONSE']._serialized_end = 1651
    _globals['_GETVIEWREQUEST']._serialized_start = 1653
    _globals['_GETVIEWREQUEST']._serialized_end = 1687
    _globals['_PENDINGSEAT']._serialized_start = 1689
    _globals['_PENDINGSEAT']._serialized_end = 1730
    _globals['_GETVIEWRESPONSE']._serialized_start = 1733
    _globals['_GETVIEWRESPONSE']._serialized_end = 1997
    _globals['_WATCHMATCHREQUEST']._serialized_start = 1999
    _globals['_WATCHMATCHREQUEST']._serialized_end = 2058
    _globals['_WATCHMATCHRESPONSE']._serialized_start = 2060
    _globals['_WATCHMATCHRESPONSE']._serialized_end = 2122
    _globals['_EXPORTMATCHREQUEST']._serialized_start = 2124
    _globals['_EXPORTMATCHREQUEST']._serialized_end = 2162
    _globals['_EXPORTMATCHRESPONSE']._serialized_start = 2164
    _globals['_EXPORTMATCHRESPONSE']._serialized_end = 2248
    _globals['_RULESSERVICE']._serialized_start = 2379
    _globals['_RULESSERVICE']._serialized_end = 3175