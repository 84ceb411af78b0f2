"""Generated protocol buffer code."""
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import runtime_version as _runtime_version
from google.protobuf import symbol_database as _symbol_database
from google.protobuf.internal import builder as _builder
_runtime_version.ValidateProtobufRuntimeVersion(_runtime_version.Domain.PUBLIC, 7, 35, 1, '', 'neon/rules/v1/rules.proto')
_sym_db = _symbol_database.Default()
DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\n\x19neon/rules/v1/rules.proto\x12\rneon.rules.v1".\n\nTeamLayout\x12\r\n\x05seats\x18\x01 \x01(\x05\x12\x11\n\tteam_size\x18\x02 \x01(\x05"\xaf\x01\n\x08ModeInfo\x12\x0c\n\x04name\x18\x01 \x01(\t\x12\x11\n\tmin_seats\x18\x02 \x01(\x05\x12\x11\n\tmax_seats\x18\x03 \x01(\x05\x12\x13\n\x0bdescription\x18\x04 \x01(\t\x12/\n\x0cteam_layouts\x18\x05 \x03(\x0b2\x19.neon.rules.v1.TeamLayout\x12\x17\n\x0fai_participants\x18\x06 \x03(\t\x12\x10\n\x08campaign\x18\x07 \x01(\x08"\x14\n\x12GetGameInfoRequest"\xab\x02\n\x13GetGameInfoResponse\x12\x0f\n\x07game_id\x18\x01 \x01(\t\x12\r\n\x05title\x18\x02 \x01(\t\x12\x16\n\x0eengine_version\x18\x03 \x01(\t\x12\x17\n\x0fcontent_version\x18\x04 \x01(\t\x12&\n\x05modes\x18\x05 \x03(\x0b2\x17.neon.rules.v1.ModeInfo\x12\x1a\n\x12config_schema_json\x18\x06 \x01(\t\x12\x1a\n\x12action_schema_json\x18\x07 \x01(\t\x12\x18\n\x10contract_version\x18\x08 \x01(\x05\x12\x14\n\x0ccontent_json\x18\t \x01(\t\x12\x18\n\x10view_schema_json\x18\n \x01(\t\x12\x19\n\x11event_schema_json\x18\x0b \x01(\t"\xb9\x01\n\x0bClockConfig\x12&\n\x04kind\x18\x01 \x01(\x0e2\x18.neon.rules.v1.ClockKind\x12\x17\n\x0fper_decision_ms\x18\x02 \x01(\x03\x12\x0f\n\x07bank_ms\x18\x03 \x01(\x03\x12\x14\n\x0cincrement_ms\x18\x04 \x01(\x03\x12\x14\n\x0cmax_timeouts\x18\x05 \x01(\x05\x12,\n\x06policy\x18\x06 \x01(\x0e2\x1c.neon.rules.v1.TimeoutPolicy"y\n\tSeatClock\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\x14\n\x0cremaining_ms\x18\x02 \x01(\x03\x12\x0f\n\x07running\x18\x03 \x01(\x08\x12\x18\n\x10deadline_unix_ms\x18\x04 \x01(\x03\x12\x10\n\x08timeouts\x18\x05 \x01(\x05\x12\x0b\n\x03bot\x18\x06 \x01(\x08"\xe4\x02\n\x12CreateMatchRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x0c\n\x04mode\x18\x02 \x01(\t\x12\r\n\x05seats\x18\x03 \x01(\x05\x12\x14\n\x0coptions_json\x18\x04 \x01(\t\x12\x0f\n\x07players\x18\x05 \x03(\t\x12\x1a\n\x12await_client_seeds\x18\x06 \x01(\x08\x12\x10\n\x08dev_seed\x18\x07 \x01(\t\x12)\n\x05clock\x18\x08 \x01(\x0b2\x1a.neon.rules.v1.ClockConfig\x12\x19\n\x11previous_match_id\x18\t \x01(\t\x12\x1b\n\x13previous_final_hash\x18\n \x01(\t\x12\'\n\x05teams\x18\x0b \x03(\x0b2\x18.neon.rules.v1.TeamSeats\x12#\n\x16on_behalf_of_organiser\x18\x0c \x01(\tH\x00\x88\x01\x01B\x19\n\x17_on_behalf_of_organiser"\x1a\n\tTeamSeats\x12\r\n\x05seats\x18\x01 \x03(\x05"8\n\tSeatToken\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\r\n\x05token\x18\x02 \x01(\t\x12\x0e\n\x06player\x18\x03 \x01(\t"\xbd\x01\n\x13CreateMatchResponse\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x17\n\x0fdice_commitment\x18\x02 \x01(\t\x12-\n\x0bseat_tokens\x18\x03 \x03(\x0b2\x18.neon.rules.v1.SeatToken\x12*\n\x06status\x18\x04 \x01(\x0e2\x1a.neon.rules.v1.MatchStatus\x12\x0f\n\x07version\x18\x05 \x01(\x03\x12\x0f\n\x07game_id\x18\x06 \x01(\t"6\n\x14AddClientSeedRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x0c\n\x04seed\x18\x02 \x01(\t"1\n\x15AddClientSeedResponse\x12\x18\n\x10seats_with_seeds\x18\x01 \x01(\x05"%\n\x11StartMatchRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t"9\n\x12StartMatchResponse\x12\x0f\n\x07version\x18\x01 \x01(\x03\x12\x12\n\nstate_hash\x18\x02 \x01(\t"\xa8\x01\n\nMatchEvent\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x0f\n\x07version\x18\x02 \x01(\x03\x12\x0c\n\x04type\x18\x03 \x01(\t\x12\x0c\n\x04seat\x18\x04 \x01(\x05\x12\x14\n\x0cpayload_json\x18\x05 \x01(\t\x12\x12\n\nstate_hash\x18\x06 \x01(\t\x12\x12\n\nchain_hash\x18\x07 \x01(\t\x12\x0c\n\x04text\x18\x08 \x03(\t\x12\x0f\n\x07game_id\x18\t \x01(\t"\x97\x01\n\x13SubmitActionRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x12\n\ncommand_id\x18\x02 \x01(\t\x12\x13\n\x0baction_json\x18\x03 \x01(\t\x12\x1d\n\x10expected_version\x18\x04 \x01(\x03H\x00\x88\x01\x01\x12\x11\n\twith_text\x18\x05 \x01(\x08B\x13\n\x11_expected_version"\xce\x02\n\x14SubmitActionResponse\x12\x0f\n\x07version\x18\x01 \x01(\x03\x12\x12\n\nstate_hash\x18\x02 \x01(\t\x12)\n\x06events\x18\x03 \x03(\x0b2\x19.neon.rules.v1.MatchEvent\x12*\n\x06status\x18\x04 \x01(\x0e2\x1a.neon.rules.v1.MatchStatus\x12\x14\n\x0coutcome_json\x18\x05 \x01(\t\x12\x10\n\x08replayed\x18\x06 \x01(\x08\x12*\n\tdecisions\x18\x07 \x03(\x0b2\x17.neon.rules.v1.Decision\x12\x11\n\tview_json\x18\x08 \x01(\t\x12(\n\x06clocks\x18\t \x03(\x0b2\x18.neon.rules.v1.SeatClock\x12\x0f\n\x07game_id\x18\n \x01(\t\x12\x18\n\x10position_version\x18\x0b \x01(\x03"\xba\x01\n\x08Decision\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\x0c\n\x04kind\x18\x02 \x01(\t\x12\x0e\n\x06prompt\x18\x03 \x01(\t\x12\x10\n\x08optional\x18\x04 \x01(\x08\x12\x0e\n\x06hidden\x18\x05 \x01(\x08\x12\x12\n\nlegal_json\x18\x06 \x03(\t\x12\x14\n\x0cdefault_json\x18\x07 \x01(\t\x12\x10\n\x08standing\x18\x08 \x01(\x08\x12\x10\n\x08priority\x18\t \x01(\x05\x12\x12\n\nlegal_text\x18\n \x03(\t">\n\x17ListLegalActionsRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x11\n\twith_text\x18\x02 \x01(\x08"h\n\x18ListLegalActionsResponse\x12\x0f\n\x07version\x18\x01 \x01(\x03\x12*\n\tdecisions\x18\x02 \x03(\x0b2\x17.neon.rules.v1.Decision\x12\x0f\n\x07game_id\x18\x03 \x01(\t""\n\x0eGetViewRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t")\n\x0bPendingSeat\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\x0c\n\x04kind\x18\x02 \x01(\t"\xb2\x02\n\x0fGetViewResponse\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x0f\n\x07version\x18\x02 \x01(\x03\x12*\n\x06status\x18\x03 \x01(\x0e2\x1a.neon.rules.v1.MatchStatus\x12\x0e\n\x06viewer\x18\x04 \x01(\x05\x12\x11\n\tview_json\x18\x05 \x01(\t\x12+\n\x07pending\x18\x06 \x03(\x0b2\x1a.neon.rules.v1.PendingSeat\x12\x14\n\x0coutcome_json\x18\x07 \x01(\t\x12\x12\n\nstate_hash\x18\x08 \x01(\t\x12\x0f\n\x07game_id\x18\t \x01(\t\x12\x0c\n\x04mode\x18\n \x01(\t\x12\r\n\x05seats\x18\x0b \x01(\x05\x12(\n\x06clocks\x18\x0c \x03(\x0b2\x18.neon.rules.v1.SeatClock";\n\x11WatchMatchRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x14\n\x0cfrom_version\x18\x02 \x01(\x03">\n\x12WatchMatchResponse\x12(\n\x05event\x18\x01 \x01(\x0b2\x19.neon.rules.v1.MatchEvent"&\n\x12ExportMatchRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t"T\n\x13ExportMatchResponse\x12\x14\n\x0cexport_jsonl\x18\x01 \x01(\x0c\x12\x12\n\nfinal_hash\x18\x02 \x01(\t\x12\x13\n\x0bevent_count\x18\x03 \x01(\x03"E\n\x08PlayOpen\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x14\n\x0cfrom_version\x18\x02 \x01(\x03\x12\x11\n\twith_text\x18\x03 \x01(\x08"i\n\nPlayAction\x12\x12\n\ncommand_id\x18\x01 \x01(\t\x12\x13\n\x0baction_json\x18\x02 \x01(\t\x12\x1d\n\x10expected_version\x18\x03 \x01(\x03H\x00\x88\x01\x01B\x13\n\x11_expected_version"k\n\x0bPlayRequest\x12\'\n\x04open\x18\x01 \x01(\x0b2\x17.neon.rules.v1.PlayOpenH\x00\x12+\n\x06action\x18\x02 \x01(\x0b2\x19.neon.rules.v1.PlayActionH\x00B\x06\n\x04kind"\xc8\x01\n\nSeatUpdate\x12\x0f\n\x07version\x18\x01 \x01(\x03\x12*\n\x06status\x18\x02 \x01(\x0e2\x1a.neon.rules.v1.MatchStatus\x12*\n\tdecisions\x18\x03 \x03(\x0b2\x17.neon.rules.v1.Decision\x12\x11\n\tview_json\x18\x04 \x01(\t\x12(\n\x06clocks\x18\x05 \x03(\x0b2\x18.neon.rules.v1.SeatClock\x12\x14\n\x0coutcome_json\x18\x06 \x01(\t"d\n\x0cActionResult\x12\x12\n\ncommand_id\x18\x01 \x01(\t\x12\x0c\n\x04code\x18\x02 \x01(\t\x12\x0f\n\x07message\x18\x03 \x01(\t\x12\x0f\n\x07version\x18\x04 \x01(\x03\x12\x10\n\x08replayed\x18\x05 \x01(\x08"\x9e\x01\n\x0cPlayResponse\x12*\n\x05event\x18\x01 \x01(\x0b2\x19.neon.rules.v1.MatchEventH\x00\x12+\n\x06update\x18\x02 \x01(\x0b2\x19.neon.rules.v1.SeatUpdateH\x00\x12-\n\x06result\x18\x03 \x01(\x0b2\x1b.neon.rules.v1.ActionResultH\x00B\x06\n\x04kind"#\n\x12ListMatchesRequest\x12\r\n\x05limit\x18\x01 \x01(\x05"\x9e\x01\n\x0cMatchSummary\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x0f\n\x07game_id\x18\x02 \x01(\t\x12\x0c\n\x04mode\x18\x03 \x01(\t\x12\r\n\x05seats\x18\x04 \x01(\x05\x12*\n\x06status\x18\x05 \x01(\x0e2\x1a.neon.rules.v1.MatchStatus\x12\x0f\n\x07version\x18\x06 \x01(\x03\x12\x11\n\tabandoned\x18\x07 \x01(\x08"T\n\x13ListMatchesResponse\x12,\n\x07matches\x18\x01 \x03(\x0b2\x1b.neon.rules.v1.MatchSummary\x12\x0f\n\x07game_id\x18\x02 \x01(\t"7\n\x13AbandonMatchRequest\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x0e\n\x06reason\x18\x02 \x01(\t"\xbb\x01\n\x14AbandonMatchResponse\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x0f\n\x07version\x18\x02 \x01(\x03\x12*\n\x06status\x18\x03 \x01(\x0e2\x1a.neon.rules.v1.MatchStatus\x12\x14\n\x0coutcome_json\x18\x04 \x01(\t\x12\x12\n\nfinal_hash\x18\x05 \x01(\t\x12\x19\n\x11already_abandoned\x18\x06 \x01(\x08\x12\x0f\n\x07game_id\x18\x07 \x01(\t*~\n\x0bMatchStatus\x12\x1c\n\x18MATCH_STATUS_UNSPECIFIED\x10\x00\x12\x1f\n\x1bMATCH_STATUS_AWAITING_SEEDS\x10\x01\x12\x18\n\x14MATCH_STATUS_RUNNING\x10\x02\x12\x16\n\x12MATCH_STATUS_ENDED\x10\x03*q\n\tClockKind\x12\x1a\n\x16CLOCK_KIND_UNSPECIFIED\x10\x00\x12\x13\n\x0fCLOCK_KIND_NONE\x10\x01\x12\x1b\n\x17CLOCK_KIND_PER_DECISION\x10\x02\x12\x16\n\x12CLOCK_KIND_FISCHER\x10\x03*\x86\x01\n\rTimeoutPolicy\x12\x1e\n\x1aTIMEOUT_POLICY_UNSPECIFIED\x10\x00\x12!\n\x1dTIMEOUT_POLICY_DEFAULT_ACTION\x10\x01\x12\x16\n\x12TIMEOUT_POLICY_BOT\x10\x02\x12\x1a\n\x16TIMEOUT_POLICY_FORFEIT\x10\x032\x90\x08\n\x0cRulesService\x12T\n\x0bGetGameInfo\x12!.neon.rules.v1.GetGameInfoRequest\x1a".neon.rules.v1.GetGameInfoResponse\x12T\n\x0bCreateMatch\x12!.neon.rules.v1.CreateMatchRequest\x1a".neon.rules.v1.CreateMatchResponse\x12Z\n\rAddClientSeed\x12#.neon.rules.v1.AddClientSeedRequest\x1a$.neon.rules.v1.AddClientSeedResponse\x12Q\n\nStartMatch\x12 .neon.rules.v1.StartMatchRequest\x1a!.neon.rules.v1.StartMatchResponse\x12W\n\x0cSubmitAction\x12".neon.rules.v1.SubmitActionRequest\x1a#.neon.rules.v1.SubmitActionResponse\x12c\n\x10ListLegalActions\x12&.neon.rules.v1.ListLegalActionsRequest\x1a\'.neon.rules.v1.ListLegalActionsResponse\x12H\n\x07GetView\x12\x1d.neon.rules.v1.GetViewRequest\x1a\x1e.neon.rules.v1.GetViewResponse\x12S\n\nWatchMatch\x12 .neon.rules.v1.WatchMatchRequest\x1a!.neon.rules.v1.WatchMatchResponse0\x01\x12T\n\x0bExportMatch\x12!.neon.rules.v1.ExportMatchRequest\x1a".neon.rules.v1.ExportMatchResponse\x12C\n\x04Play\x12\x1a.neon.rules.v1.PlayRequest\x1a\x1b.neon.rules.v1.PlayResponse(\x010\x01\x12T\n\x0bListMatches\x12!.neon.rules.v1.ListMatchesRequest\x1a".neon.rules.v1.ListMatchesResponse\x12W\n\x0cAbandonMatch\x12".neon.rules.v1.AbandonMatchRequest\x1a#.neon.rules.v1.AbandonMatchResponseb\x06proto3')
_globals = globals()
_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)
_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, 'neon.rules.v1.rules_pb2', _globals)
if not _descriptor._USE_C_DESCRIPTORS:
    DESCRIPTOR._loaded_options = None
    _globals['_MATCHSTATUS']._serialized_start = 4691
    _globals['_MATCHSTATUS']._serialized_end = 4817
    _globals['_CLOCKKIND']._serialized_start = 4819
    _globals['_CLOCKKIND']._serialized_end = 4932
    _globals['_TIMEOUTPOLICY']._serialized_start = 4935
    _globals['_TIMEOUTPOLICY']._serialized_end = 5069
    _globals['_TEAMLAYOUT']._serialized_start = 44
    _globals['_TEAMLAYOUT']._serialized_end = 90
    _globals['_MODEINFO']._serialized_start = 93
    _globals['_MODEINFO']._serialized_end = 268
    _globals['_GETGAMEINFOREQUEST']._serialized_start = 270
    _globals['_GETGAMEINFOREQUEST']._serialized_end = 290
    _globals['_GETGAMEINFORESPONSE']._serialized_start = 293
    _globals['_GETGAMEINFORESPONSE']._serialized_end = 592
    _globals['_CLOCKCONFIG']._serialized_start = 595
    _globals['_CLOCKCONFIG']._serialized_end = 780
    _globals['_SEATCLOCK']._serialized_start = 782
    _globals['_SEATCLOCK']._serialized_end = 903
    _globals['_CREATEMATCHREQUEST']._serialized_start = 906
    _globals['_CREATEMATCHREQUEST']._serialized_end = 1262
    _globals['_TEAMSEATS']._serialized_start = 1264
    _globals['_TEAMSEATS']._serialized_end = 1290
    _globals['_SEATTOKEN']._serialized_start = 1292
    _globals['_SEATTOKEN']._serialized_end = 1348
    _globals['_CREATEMATCHRESPONSE']._serialized_start = 1351
    _globals['_CREATEMATCHRESPONSE']._serialized_end = 1540
    _globals['_ADDCLIENTSEEDREQUEST']._serialized_start = 1542
    _globals['_ADDCLIENTSEEDREQUEST']._serialized_end = 1596
    _globals['_ADDCLIENTSEEDRESPONSE']._serialized_start = 1598
    _globals['_ADDCLIENTSEEDRESPONSE']._serialized_end = 1647
    _globals['_STARTMATCHREQUEST']._serialized_start = 1649
    _globals['_STARTMATCHREQUEST']._serialized_end = 1686
    _globals['_STARTMATCHRESPONSE']._serialized_start = 1688
    _globals['_STARTMATCHRESPONSE']._serialized_end = 1745
    _globals['_MATCHEVENT']._serialized_start = 1748
    _globals['_MATCHEVENT']._serialized_end = 1916
    _globals['_SUBMITACTIONREQUEST']._serialized_start = 1919
    _globals['_SUBMITACTIONREQUEST']._serialized_end = 2070
    _globals['_SUBMITACTIONRESPONSE']._serialized_start = 2073
    _globals['_SUBMITACTIONRESPONSE']._serialized_end = 2407
    _globals['_DECISION']._serialized_start = 2410
    _globals['_DECISION']._serialized_end = 2596
    _globals['_LISTLEGALACTIONSREQUEST']._serialized_start = 2598
    _globals['_LISTLEGALACTIONSREQUEST']._serialized_end = 2660
    _globals['_LISTLEGALACTIONSRESPONSE']._serialized_start = 2662
    _globals['_LISTLEGALACTIONSRESPONSE']._serialized_end = 2766
    _globals['_GETVIEWREQUEST']._serialized_start = 2768
    _globals['_GETVIEWREQUEST']._serialized_end = 2802
    _globals['_PENDINGSEAT']._serialized_start = 2804
    _globals['_PENDINGSEAT']._serialized_end = 2845
    _globals['_GETVIEWRESPONSE']._serialized_start = 2848
    _globals['_GETVIEWRESPONSE']._serialized_end = 3154
    _globals['_WATCHMATCHREQUEST']._serialized_start = 3156
    _globals['_WATCHMATCHREQUEST']._serialized_end = 3215
    _globals['_WATCHMATCHRESPONSE']._serialized_start = 3217
    _globals['_WATCHMATCHRESPONSE']._serialized_end = 3279
    _globals['_EXPORTMATCHREQUEST']._serialized_start = 3281
    _globals['_EXPORTMATCHREQUEST']._serialized_end = 3319
    _globals['_EXPORTMATCHRESPONSE']._serialized_start = 3321
    _globals['_EXPORTMATCHRESPONSE']._serialized_end = 3405
    _globals['_PLAYOPEN']._serialized_start = 3407
    _globals['_PLAYOPEN']._serialized_end = 3476
    _globals['_PLAYACTION']._serialized_start = 3478
    _globals['_PLAYACTION']._serialized_end = 3583
    _globals['_PLAYREQUEST']._serialized_start = 3585
    _globals['_PLAYREQUEST']._serialized_end = 3692
    _globals['_SEATUPDATE']._serialized_start = 3695
    _globals['_SEATUPDATE']._serialized_end = 3895
    _globals['_ACTIONRESULT']._serialized_start = 3897
    _globals['_ACTIONRESULT']._serialized_end = 3997
    _globals['_PLAYRESPONSE']._serialized_start = 4000
    _globals['_PLAYRESPONSE']._serialized_end = 4158
    _globals['_LISTMATCHESREQUEST']._serialized_start = 4160
    _globals['_LISTMATCHESREQUEST']._serialized_end = 4195
    _globals['_MATCHSUMMARY']._serialized_start = 4198
    _globals['_MATCHSUMMARY']._serialized_end = 4356
    _globals['_LISTMATCHESRESPONSE']._serialized_start = 4358
    _globals['_LISTMATCHESRESPONSE']._serialized_end = 4442
    _globals['_ABANDONMATCHREQUEST']._serialized_start = 4444
    _globals['_ABANDONMATCHREQUEST']._serialized_end = 4499
    _globals['_ABANDONMATCHRESPONSE']._serialized_start = 4502
    _globals['_ABANDONMATCHRESPONSE']._serialized_end = 4689
    _globals['_RULESSERVICE']._serialized_start = 5072
    _globals['_RULESSERVICE']._serialized_end = 6112