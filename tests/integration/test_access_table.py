"""docs/ACCESS.md as a table, walked over every RPC of every service's generated descriptor,
over real sockets: for each token kind (none, a seat of the match asked about, a seat of
another match, a player, an organiser, a service) a call is refused before it runs
(UNAUTHENTICATED, PERMISSION_DENIED) exactly where the document says, and admitted
(whatever it then answers: NOT_FOUND, FAILED_PRECONDITION, OK ...) everywhere else. A method
the table does not list fails the test, so a new RPC must be given its row."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
import pytest

from services.cli.tournament_commands import format_json
from services.genproto.neon.dice.v1 import dice_pb2
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as mm
from services.genproto.neon.rules.v1 import rules_pb2 as rules
from services.genproto.neon.scoring.v1 import scoring_pb2
from services.genproto.neon.tournament.v1 import tournament_pb2 as tour
from services.platform.grpc_kit import call_metadata
from tests.support.raw_calls import every_method, every_service, raw_call

pytestmark = pytest.mark.timeout(300)

KINDS = ("none", "seat", "seat of another match", "player", "organiser", "service")
OK, UA, PD, ANY = "ok", "UNAUTHENTICATED", "PERMISSION_DENIED", "*"
MATCH = "acl-m"


def row(none: str, seat: str, other: str, player: str, organiser: str, service: str) -> tuple[str, ...]:
    return (none, seat, other, player, organiser, service)


PUBLIC = row(OK, OK, OK, OK, OK, OK)
# rules
R_ORGANISER = row(UA, PD, PD, PD, OK, OK)
R_SEAT = row(UA, OK, PD, PD, PD, PD)
R_VIEW = row(OK, OK, PD, OK, OK, OK)
# dice
D_BOTH = row(UA, PD, PD, PD, OK, OK)
D_SERVICE = row(UA, PD, PD, PD, PD, OK)
# matchmaking (an unknown ticket is NOT_FOUND for anyone allowed to ask: admitted)
M_TICKET = row(UA, PD, PD, OK, OK, OK)
M_OWN_PLAYER = row(UA, PD, PD, OK, PD, PD)
# tournament (service tokens: not in ACCESS.md's table; the code refuses them)
T_ORGANISER = row(UA, PD, PD, PD, OK, PD)
T_PLAYER_OR_ORGANISER = row(UA, PD, PD, OK, OK, PD)
T_OWN_PLAYER = row(UA, PD, PD, OK, PD, PD)

TABLE: dict[str, tuple[tuple[str, ...], Any]] = {
    # rules (toy game): the match asked about is MATCH, created by the organiser "o"
    "/neon.rules.v1.RulesService/GetGameInfo": (PUBLIC, rules.GetGameInfoRequest()),
    "/neon.rules.v1.RulesService/CheckMatchConfig": (
        PUBLIC, rules.CheckMatchConfigRequest(mode="race", seats=2)),
    "/neon.rules.v1.RulesService/CreateMatch": (
        R_ORGANISER, rules.CreateMatchRequest(match_id="acl-new", mode="race", seats=2)),
    "/neon.rules.v1.RulesService/AddClientSeed": (
        R_SEAT, rules.AddClientSeedRequest(match_id=MATCH, seed=b"s" * 32)),
    "/neon.rules.v1.RulesService/StartMatch": (R_ORGANISER, rules.StartMatchRequest(match_id=MATCH)),
    "/neon.rules.v1.RulesService/SubmitAction": (
        R_SEAT, rules.SubmitActionRequest(match_id=MATCH, command_id="c1", action_json="{}")),
    "/neon.rules.v1.RulesService/ListLegalActions": (
        R_SEAT, rules.ListLegalActionsRequest(match_id=MATCH)),
    "/neon.rules.v1.RulesService/GetView": (R_VIEW, rules.GetViewRequest(match_id=MATCH)),
    "/neon.rules.v1.RulesService/WatchMatch": (R_VIEW, rules.WatchMatchRequest(match_id=MATCH)),
    "/neon.rules.v1.RulesService/ExportMatch": (R_ORGANISER, rules.ExportMatchRequest(match_id=MATCH)),
    "/neon.rules.v1.RulesService/ExportMatchChunks": (
        R_ORGANISER, rules.ExportMatchChunksRequest(match_id=MATCH)),
    "/neon.rules.v1.RulesService/Play": (
        R_SEAT, rules.PlayRequest(open=rules.PlayOpen(match_id=MATCH))),
    "/neon.rules.v1.RulesService/ListMatches": (PUBLIC, rules.ListMatchesRequest()),
    # last of the rules: it ends the match
    "/neon.rules.v1.RulesService/AbandonMatch": (
        R_ORGANISER, rules.AbandonMatchRequest(match_id=MATCH, reason="access table")),
    # dice
    "/neon.dice.v1.DiceService/OpenSession": (D_BOTH, dice_pb2.OpenSessionRequest(match_id="acl-d")),
    "/neon.dice.v1.DiceService/AddClientSeed": (
        D_SERVICE, dice_pb2.AddClientSeedRequest(match_id="acl-d", seat=0, seed=b"s" * 32)),
    "/neon.dice.v1.DiceService/Draw": (D_BOTH, dice_pb2.DrawRequest(match_id="acl-d", request_id="r")),
    "/neon.dice.v1.DiceService/ReserveBlocks": (
        D_SERVICE, dice_pb2.ReserveBlocksRequest(match_id="acl-d", count=1)),
    "/neon.dice.v1.DiceService/GetCommitment": (PUBLIC, dice_pb2.GetCommitmentRequest(match_id="acl-d")),
    "/neon.dice.v1.DiceService/CloseSession": (D_SERVICE, dice_pb2.CloseSessionRequest(match_id="acl-d")),
    "/neon.dice.v1.DiceService/RevealSeed": (PUBLIC, dice_pb2.RevealSeedRequest(match_id="acl-d")),
    # matchmaking
    "/neon.matchmaking.v1.MatchmakingService/CreateTicket": (
        M_TICKET, mm.CreateTicketRequest(ticket_id="acl-t", game="toy", players=["p"],
                                         rating_window=0.5)),
    "/neon.matchmaking.v1.MatchmakingService/GetTicket": (M_TICKET, mm.GetTicketRequest(ticket_id="acl-x")),
    "/neon.matchmaking.v1.MatchmakingService/WatchTicket": (
        M_TICKET, mm.WatchTicketRequest(ticket_id="acl-x")),
    "/neon.matchmaking.v1.MatchmakingService/AcceptMatch": (
        M_TICKET, mm.AcceptMatchRequest(ticket_id="acl-x", match_id="m")),
    "/neon.matchmaking.v1.MatchmakingService/CancelTicket": (
        M_TICKET, mm.CancelTicketRequest(ticket_id="acl-x")),
    "/neon.matchmaking.v1.MatchmakingService/ReadyForMatch": (
        row(UA, PD, PD, OK, ANY, ANY), mm.ReadyForMatchRequest(ticket_id="acl-x", match_id="m")),
    "/neon.matchmaking.v1.MatchmakingService/DeclineInvite": (
        M_OWN_PLAYER, mm.DeclineInviteRequest(ticket_id="acl-x")),
    "/neon.matchmaking.v1.MatchmakingService/ListMyInvitations": (
        M_OWN_PLAYER, mm.ListMyInvitationsRequest()),
    "/neon.matchmaking.v1.MatchmakingService/WatchMyInvitations": (
        M_OWN_PLAYER, mm.WatchMyInvitationsRequest()),
    "/neon.matchmaking.v1.MatchmakingService/MintPlayerToken": (
        row(UA, PD, PD, PD, OK, PD), mm.MintPlayerTokenRequest(player_id="q")),
    # scoring
    "/neon.scoring.v1.ScoringService/GetRatings": (PUBLIC, scoring_pb2.GetRatingsRequest(game="toy")),
    "/neon.scoring.v1.ScoringService/GetLeaderboard": (
        PUBLIC, scoring_pb2.GetLeaderboardRequest(game="toy")),
    "/neon.scoring.v1.ScoringService/GetPlayerHistory": (
        PUBLIC, scoring_pb2.GetPlayerHistoryRequest(game="toy", player="p")),
    "/neon.scoring.v1.ScoringService/GetMatchResult": (
        PUBLIC, scoring_pb2.GetMatchResultRequest(game="toy", match_id=MATCH)),
    # tournament: "acl_T" exists (the organiser "o" created it), "p" is the player's own id
    "/neon.tournament.v1.TournamentService/CreateTournament": (
        T_ORGANISER, tour.CreateTournamentRequest(tournament_id="acl_T2", name="n", game="toy",
                                                  mode="race", no_show=tour.NO_SHOW_POLICY_BOT)),
    "/neon.tournament.v1.TournamentService/OpenRegistration": (
        T_ORGANISER, tour.OpenRegistrationRequest(tournament_id="acl_T")),
    "/neon.tournament.v1.TournamentService/Register": (
        T_PLAYER_OR_ORGANISER, tour.RegisterRequest(tournament_id="acl_T", player_id="p")),
    "/neon.tournament.v1.TournamentService/Withdraw": (
        T_PLAYER_OR_ORGANISER, tour.WithdrawRequest(tournament_id="acl_T", player_id="p")),
    "/neon.tournament.v1.TournamentService/CheckIn": (
        T_PLAYER_OR_ORGANISER, tour.CheckInRequest(tournament_id="acl_T", player_id="p")),
    "/neon.tournament.v1.TournamentService/DropPlayer": (
        T_PLAYER_OR_ORGANISER, tour.DropPlayerRequest(tournament_id="acl_T", player_id="p",
                                                      reason="r")),
    "/neon.tournament.v1.TournamentService/StartTournament": (
        T_ORGANISER, tour.StartTournamentRequest(tournament_id="acl_X")),
    "/neon.tournament.v1.TournamentService/NextRound": (
        T_ORGANISER, tour.NextRoundRequest(tournament_id="acl_X")),
    "/neon.tournament.v1.TournamentService/CorrectResult": (
        T_ORGANISER, tour.CorrectResultRequest(tournament_id="acl_X", round=1, table=1, reason="r")),
    "/neon.tournament.v1.TournamentService/RematchTable": (
        T_ORGANISER, tour.RematchTableRequest(tournament_id="acl_X", round=1, table=1, reason="r")),
    "/neon.tournament.v1.TournamentService/AddLateEntry": (
        T_ORGANISER, tour.AddLateEntryRequest(tournament_id="acl_X", player_id="p")),
    "/neon.tournament.v1.TournamentService/ReinstatePlayer": (
        T_ORGANISER, tour.ReinstatePlayerRequest(tournament_id="acl_X", player_id="p", reason="r")),
    "/neon.tournament.v1.TournamentService/ForceEnd": (
        T_ORGANISER, tour.ForceEndRequest(tournament_id="acl_X", reason="r")),
    "/neon.tournament.v1.TournamentService/FinishTournament": (
        T_ORGANISER, tour.FinishTournamentRequest(tournament_id="acl_X")),
    "/neon.tournament.v1.TournamentService/ExportTournament": (
        T_ORGANISER, tour.ExportTournamentRequest(tournament_id="acl_T")),
    "/neon.tournament.v1.TournamentService/ExportTournamentChunks": (
        T_ORGANISER, tour.ExportTournamentChunksRequest(tournament_id="acl_T")),
    "/neon.tournament.v1.TournamentService/MyNextMatch": (
        T_OWN_PLAYER, tour.MyNextMatchRequest(tournament_id="acl_T")),
    "/neon.tournament.v1.TournamentService/ReadyForMatch": (
        T_OWN_PLAYER, tour.ReadyForMatchRequest(tournament_id="acl_T", match_id="m")),
    "/neon.tournament.v1.TournamentService/WatchMyMatches": (
        T_OWN_PLAYER, tour.WatchMyMatchesRequest(tournament_id="acl_T")),
    "/neon.tournament.v1.TournamentService/GetTournament": (
        PUBLIC, tour.GetTournamentRequest(tournament_id="acl_T")),
    "/neon.tournament.v1.TournamentService/GetRound": (
        PUBLIC, tour.GetRoundRequest(tournament_id="acl_T", round=1)),
    "/neon.tournament.v1.TournamentService/GetStandings": (
        PUBLIC, tour.GetStandingsRequest(tournament_id="acl_T")),
    "/neon.tournament.v1.TournamentService/ListTournaments": (PUBLIC, tour.ListTournamentsRequest()),
    "/neon.tournament.v1.TournamentService/WatchTournament": (
        PUBLIC, tour.WatchTournamentRequest(tournament_id="acl_T")),
}


def _verdict(code: str) -> str:
    return code if code in (UA, PD) else OK


async def test_every_rpc_admits_exactly_the_tokens_access_md_names(tmp_path: Path,
                                                                   nats_url: str) -> None:
    b = await every_service(tmp_path, nats_url)
    issue = b.issuer.issue
    organiser = issue("organiser", "*", player="o", ttl=600)
    wrong: list[str] = []
    seen: set[str] = set()
    try:
        async with grpc.aio.insecure_channel(b.services["rules-toy"].address) as ch:
            created = await ch.unary_unary(
                "/neon.rules.v1.RulesService/CreateMatch",
                request_serializer=rules.CreateMatchRequest.SerializeToString,
                response_deserializer=rules.CreateMatchResponse.FromString,
            )(rules.CreateMatchRequest(match_id=MATCH, mode="race", seats=2),
              metadata=call_metadata(organiser), timeout=10)
        async with grpc.aio.insecure_channel(b.services["tournament"].address) as ch:
            await ch.unary_unary(
                "/neon.tournament.v1.TournamentService/CreateTournament",
                request_serializer=tour.CreateTournamentRequest.SerializeToString,
                response_deserializer=tour.CreateTournamentResponse.FromString,
            )(tour.CreateTournamentRequest(tournament_id="acl_T", name="acl", game="toy",
                                           mode="race", format_json=format_json("swiss", 1),
                                           no_show=tour.NO_SHOW_POLICY_BOT),
              metadata=call_metadata(organiser), timeout=10)
        tokens = {
            "none": None,
            "seat": created.seat_tokens[0].token,
            "seat of another match": issue("seat", "acl-other", seat=0, ttl=600, game="toy"),
            "player": issue("player", "*", player="p", ttl=600),
            "organiser": organiser,
            "service": issue("service", "*", player="acl-service", ttl=600),
        }
        # AbandonMatch last of the rules service's: the other calls find the match running
        async for ch, method, path in every_method(b, order=lambda m: m.name == "AbandonMatch"):
            seen.add(path)
            if path not in TABLE:
                wrong.append(f"{path}: not in the access table (ACCESS.md)")
                continue
            expected, request = TABLE[path]
            for kind, want in zip(KINDS, expected, strict=True):
                code, details = await raw_call(ch, method, path, request.SerializeToString(),
                                               tokens[kind], timeout=3)
                if code in ("UNKNOWN", "INTERNAL"):
                    wrong.append(f"{path} {kind}: {code} {details!r}")
                elif want != ANY and _verdict(code) != want:
                    wrong.append(f"{path} {kind}: want {want}, got {code} {details!r}")
    finally:
        await b.stop(1)
    assert wrong == []
    assert seen == set(TABLE), set(TABLE) - seen
