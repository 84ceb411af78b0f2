"""Generated protocol buffer code."""
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import runtime_version as _runtime_version
from google.protobuf import symbol_database as _symbol_database
from google.protobuf.internal import builder as _builder
_runtime_version.ValidateProtobufRuntimeVersion(_runtime_version.Domain.PUBLIC, 7, 35, 1, '', 'neon/matchmaking/v1/matchmaking.proto')
_sym_db = _symbol_database.Default()
DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\n%neon/matchmaking/v1/matchmaking.proto\x12\x13neon.matchmaking.v1"\xb7\x01\n\x13CreateTicketRequest\x12\x11\n\tticket_id\x18\x01 \x01(\t\x12\x0c\n\x04game\x18\x02 \x01(\t\x12\r\n\x05modes\x18\x03 \x03(\t\x12\x0f\n\x07players\x18\x04 \x03(\t\x12\x11\n\tmin_seats\x18\x05 \x01(\x05\x12\x11\n\tmax_seats\x18\x06 \x01(\x05\x12\x0e\n\x06region\x18\x07 \x01(\t\x12\x15\n\rrating_window\x18\x08 \x01(\x01\x12\x12\n\nallow_bots\x18\t \x01(\x08"\xd6\x01\n\nAssignment\x12\x10\n\x08match_id\x18\x01 \x01(\t\x12\x0c\n\x04game\x18\x02 \x01(\t\x12\x0c\n\x04mode\x18\x03 \x01(\t\x12\x15\n\rrules_address\x18\x04 \x01(\t\x123\n\x05seats\x18\x05 \x03(\x0b2$.neon.matchmaking.v1.Assignment.Seat\x1aN\n\x04Seat\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\x0e\n\x06player\x18\x02 \x01(\t\x12\r\n\x05token\x18\x03 \x01(\t\x12\x0b\n\x03bot\x18\x04 \x01(\x08\x12\x0c\n\x04team\x18\x05 \x01(\x05"\xe7\x02\n\x06Ticket\x12\x11\n\tticket_id\x18\x01 \x01(\t\x12\x0c\n\x04game\x18\x02 \x01(\t\x12\r\n\x05modes\x18\x03 \x03(\t\x12\x0f\n\x07players\x18\x04 \x03(\t\x121\n\x06status\x18\x05 \x01(\x0e2!.neon.matchmaking.v1.TicketStatus\x12\x0e\n\x06reason\x18\x06 \x01(\t\x12\x16\n\x0ewaited_seconds\x18\x07 \x01(\x01\x123\n\nassignment\x18\x08 \x01(\x0b2\x1f.neon.matchmaking.v1.Assignment\x12\x1b\n\x13accept_seconds_left\x18\t \x01(\x01\x12\x10\n\x08accepted\x18\n \x03(\t\x12\x10\n\x08declined\x18\x0b \x03(\t\x12\x15\n\rmatch_started\x18\x0c \x01(\x08\x124\n\x0bseed_window\x18\r \x01(\x0b2\x1f.neon.matchmaking.v1.SeedWindow"\x88\x01\n\nSeedWindow\x12\x10\n\x08deadline\x18\x01 \x01(\x01\x12\x14\n\x0cseconds_left\x18\x02 \x01(\x01\x12\r\n\x05ready\x18\x03 \x03(\t\x12\x13\n\x0bwaiting_for\x18\x04 \x03(\t\x12\r\n\x05ended\x18\x05 \x01(\x08\x12\x0f\n\x07started\x18\x06 \x01(\x08\x12\x0e\n\x06reason\x18\x07 \x01(\t"C\n\x14CreateTicketResponse\x12+\n\x06ticket\x18\x01 \x01(\x0b2\x1b.neon.matchmaking.v1.Ticket"(\n\x13CancelTicketRequest\x12\x11\n\tticket_id\x18\x01 \x01(\t"C\n\x14CancelTicketResponse\x12+\n\x06ticket\x18\x01 \x01(\x0b2\x1b.neon.matchmaking.v1.Ticket"%\n\x10GetTicketRequest\x12\x11\n\tticket_id\x18\x01 \x01(\t"@\n\x11GetTicketResponse\x12+\n\x06ticket\x18\x01 \x01(\x0b2\x1b.neon.matchmaking.v1.Ticket"\'\n\x12WatchTicketRequest\x12\x11\n\tticket_id\x18\x01 \x01(\t"B\n\x13WatchTicketResponse\x12+\n\x06ticket\x18\x01 \x01(\x0b2\x1b.neon.matchmaking.v1.Ticket"9\n\x12AcceptMatchRequest\x12\x11\n\tticket_id\x18\x01 \x01(\t\x12\x10\n\x08match_id\x18\x02 \x01(\t"B\n\x13AcceptMatchResponse\x12+\n\x06ticket\x18\x01 \x01(\x0b2\x1b.neon.matchmaking.v1.Ticket")\n\x14DeclineInviteRequest\x12\x11\n\tticket_id\x18\x01 \x01(\t"D\n\x15DeclineInviteResponse\x12+\n\x06ticket\x18\x01 \x01(\x0b2\x1b.neon.matchmaking.v1.Ticket";\n\x14ReadyForMatchRequest\x12\x11\n\tticket_id\x18\x01 \x01(\t\x12\x10\n\x08match_id\x18\x02 \x01(\t"D\n\x15ReadyForMatchResponse\x12+\n\x06ticket\x18\x01 \x01(\x0b2\x1b.neon.matchmaking.v1.Ticket"@\n\x16MintPlayerTokenRequest\x12\x11\n\tplayer_id\x18\x01 \x01(\t\x12\x13\n\x0bttl_seconds\x18\x02 \x01(\x03"O\n\x17MintPlayerTokenResponse\x12\r\n\x05token\x18\x01 \x01(\t\x12\x11\n\tplayer_id\x18\x02 \x01(\t\x12\x12\n\nexpires_at\x18\x03 \x01(\x03"\xf4\x01\n\nInvitation\x12\x11\n\tticket_id\x18\x01 \x01(\t\x12\x0c\n\x04game\x18\x02 \x01(\t\x12\r\n\x05modes\x18\x03 \x03(\t\x12\x12\n\ninvited_by\x18\x04 \x01(\t\x12\x12\n\nparty_size\x18\x05 \x01(\x05\x121\n\x06status\x18\x06 \x01(\x0e2!.neon.matchmaking.v1.TicketStatus\x12\x10\n\x08match_id\x18\x07 \x01(\t\x12\x1b\n\x13accept_seconds_left\x18\x08 \x01(\x01\x12\x16\n\x0ewaited_seconds\x18\t \x01(\x01\x12\x14\n\x0cqueued_at_ms\x18\n \x01(\x03")\n\x18ListMyInvitationsRequest\x12\r\n\x05limit\x18\x01 \x01(\x05"\x8c\x01\n\x19ListMyInvitationsResponse\x124\n\x0binvitations\x18\x01 \x03(\x0b2\x1f.neon.matchmaking.v1.Invitation\x12\r\n\x05total\x18\x02 \x01(\x05\x12\x0f\n\x07partial\x18\x03 \x01(\x08\x12\x19\n\x11unavailable_games\x18\x04 \x03(\t"*\n\x19WatchMyInvitationsRequest\x12\r\n\x05limit\x18\x01 \x01(\x05"\x8d\x01\n\x1aWatchMyInvitationsResponse\x124\n\x0binvitations\x18\x01 \x03(\x0b2\x1f.neon.matchmaking.v1.Invitation\x12\r\n\x05total\x18\x02 \x01(\x05\x12\x0f\n\x07partial\x18\x03 \x01(\x08\x12\x19\n\x11unavailable_games\x18\x04 \x03(\t*\xd3\x01\n\x0cTicketStatus\x12\x1d\n\x19TICKET_STATUS_UNSPECIFIED\x10\x00\x12\x19\n\x15TICKET_STATUS_WAITING\x10\x01\x12\x1a\n\x16TICKET_STATUS_PROPOSED\x10\x02\x12\x19\n\x15TICKET_STATUS_MATCHED\x10\x03\x12\x1b\n\x17TICKET_STATUS_CANCELLED\x10\x04\x12\x19\n\x15TICKET_STATUS_EXPIRED\x10\x05\x12\x1a\n\x16TICKET_STATUS_DECLINED\x10\x062\xab\x08\n\x12MatchmakingService\x12c\n\x0cCreateTicket\x12(.neon.matchmaking.v1.CreateTicketRequest\x1a).neon.matchmaking.v1.CreateTicketResponse\x12c\n\x0cCancelTicket\x12(.neon.matchmaking.v1.CancelTicketRequest\x1a).neon.matchmaking.v1.CancelTicketResponse\x12Z\n\tGetTicket\x12%.neon.matchmaking.v1.GetTicketRequest\x1a&.neon.matchmaking.v1.GetTicketResponse\x12b\n\x0bWatchTicket\x12\'.neon.matchmaking.v1.WatchTicketRequest\x1a(.neon.matchmaking.v1.WatchTicketResponse0\x01\x12`\n\x0bAcceptMatch\x12\'.neon.matchmaking.v1.AcceptMatchRequest\x1a(.neon.matchmaking.v1.AcceptMatchResponse\x12f\n\rDeclineInvite\x12).neon.matchmaking.v1.DeclineInviteRequest\x1a*.neon.matchmaking.v1.DeclineInviteResponse\x12f\n\rReadyForMatch\x12).neon.matchmaking.v1.ReadyForMatchRequest\x1a*.neon.matchmaking.v1.ReadyForMatchResponse\x12l\n\x0fMintPlayerToken\x12+.neon.matchmaking.v1.MintPlayerTokenRequest\x1a,.neon.matchmaking.v1.MintPlayerTokenResponse\x12r\n\x11ListMyInvitations\x12-.neon.matchmaking.v1.ListMyInvitationsRequest\x1a..neon.matchmaking.v1.ListMyInvitationsResponse\x12w\n\x12WatchMyInvitations\x12..neon.matchmaking.v1.WatchMyInvitationsRequest\x1a/.neon.matchmaking.v1.WatchMyInvitationsResponse0\x01b\x06proto3')
_globals = globals()
_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)
_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, 'neon.matchmaking.v1.matchmaking_pb2', _globals)
if not _descriptor._USE_C_DESCRIPTORS:
    DESCRIPTOR._loaded_options = None
    _globals['_TICKETSTATUS']._serialized_start = 2500
    _globals['_TICKETSTATUS']._serialized_end = 2711
    _globals['_CREATETICKETREQUEST']._serialized_start = 63
    _globals['_CREATETICKETREQUEST']._serialized_end = 246
    _globals['_ASSIGNMENT']._serialized_start = 249
    _globals['_ASSIGNMENT']._serialized_end = 463
    _globals['_ASSIGNMENT_SEAT']._serialized_start = 385
    _globals['_ASSIGNMENT_SEAT']._serialized_end = 463
    _globals['_TICKET']._serialized_start = 466
    _globals['_TICKET']._serialized_end = 825
    _globals['_SEEDWINDOW']._serialized_start = 828
    _globals['_SEEDWINDOW']._serialized_end = 964
    _globals['_CREATETICKETRESPONSE']._serialized_start = 966
    _globals['_CREATETICKETRESPONSE']._serialized_end = 1033
    _globals['_CANCELTICKETREQUEST']._serialized_start = 1035
    _globals['_CANCELTICKETREQUEST']._serialized_end = 1075
    _globals['_CANCELTICKETRESPONSE']._serialized_start = 1077
    _globals['_CANCELTICKETRESPONSE']._serialized_end = 1144
    _globals['_GETTICKETREQUEST']._serialized_start = 1146
    _globals['_GETTICKETREQUEST']._serialized_end = 1183
    _globals['_GETTICKETRESPONSE']._serialized_start = 1185
    _globals['_GETTICKETRESPONSE']._serialized_end = 1249
    _globals['_WATCHTICKETREQUEST']._serialized_start = 1251
    _globals['_WATCHTICKETREQUEST']._serialized_end = 1290
    _globals['_WATCHTICKETRESPONSE']._serialized_start = 1292
    _globals['_WATCHTICKETRESPONSE']._serialized_end = 1358
    _globals['_ACCEPTMATCHREQUEST']._serialized_start = 1360
    _globals['_ACCEPTMATCHREQUEST']._serialized_end = 1417
    _globals['_ACCEPTMATCHRESPONSE']._serialized_start = 1419
    _globals['_ACCEPTMATCHRESPONSE']._serialized_end = 1485
    _globals['_DECLINEINVITEREQUEST']._serialized_start = 1487
    _globals['_DECLINEINVITEREQUEST']._serialized_end = 1528
    _globals['_DECLINEINVITERESPONSE']._serialized_start = 1530
    _globals['_DECLINEINVITERESPONSE']._serialized_end = 1598
    _globals['_READYFORMATCHREQUEST']._serialized_start = 1600
    _globals['_READYFORMATCHREQUEST']._serialized_end = 1659
    _globals['_READYFORMATCHRESPONSE']._serialized_start = 1661
    _globals['_READYFORMATCHRESPONSE']._serialized_end = 1729
    _globals['_MINTPLAYERTOKENREQUEST']._serialized_start = 1731
    _globals['_MINTPLAYERTOKENREQUEST']._serialized_end = 1795
    _globals['_MINTPLAYERTOKENRESPONSE']._serialized_start = 1797
    _globals['_MINTPLAYERTOKENRESPONSE']._serialized_end = 1876
    _globals['_INVITATION']._serialized_start = 1879
    _globals['_INVITATION']._serialized_end = 2123
    _globals['_LISTMYINVITATIONSREQUEST']._serialized_start = 2125
    _globals['_LISTMYINVITATIONSREQUEST']._serialized_end = 2166
    _globals['_LISTMYINVITATIONSRESPONSE']._serialized_start = 2169
    _globals['_LISTMYINVITATIONSRESPONSE']._serialized_end = 2309
    _globals['_WATCHMYINVITATIONSREQUEST']._serialized_start = 2311
    _globals['_WATCHMYINVITATIONSREQUEST']._serialized_end = 2353
    _globals['_WATCHMYINVITATIONSRESPONSE']._serialized_start = 2356
    _globals['_WATCHMYINVITATIONSRESPONSE']._serialized_end = 2497
    _globals['_MATCHMAKINGSERVICE']._serialized_start = 2714
    _globals['_MATCHMAKINGSERVICE']._serialized_end = 3781