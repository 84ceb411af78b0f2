"""The limit on invitations per player is a setting; the gateway serves the invitation calls: ListMyInvitations also as a Connect GET (a read,
answered ``private, no-store`` as every call with a token), WatchMyInvitations as a stream;
neither answer holds a field the gateway blanks."""

from __future__ import annotations

import pytest

from services.gateway.methods import public_methods
from services.matchmaking.config import config_from_env

SERVICE = "/neon.matchmaking.v1.MatchmakingService"


def test_the_invitation_calls_are_served_and_only_the_list_is_a_get() -> None:
    methods = public_methods()
    listing = methods[f"{SERVICE}/ListMyInvitations"]
    watching = methods[f"{SERVICE}/WatchMyInvitations"]
    assert listing.read_only and not listing.server_streaming
    assert watching.server_streaming and not watching.read_only
    assert not listing.blanks and not watching.blanks
    assert not methods[f"{SERVICE}/DeclineInvite"].read_only


def test_the_limit_on_invitations_comes_from_the_setting() -> None:
    assert config_from_env({}).max_invites_per_player == 20
    key = "NEON_MATCHMAKING_MAX_INVITES_PER_PLAYER"
    assert config_from_env({key: " 3 "}).max_invites_per_player == 3
    for bad, words in (("0", "at least 1"), ("-2", "at least 1"), ("lots", "whole number")):
        with pytest.raises(ValueError, match=words):
            config_from_env({key: bad})


def test_replicas_lists_are_merged_in_the_order_the_parties_were_queued() -> None:
    from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as pb
    from services.matchmaking.routing import merged

    # replica B answered a moment later: its waited_seconds are larger for a party queued
    # after replica A's, which waited_seconds alone would put first
    a = pb.ListMyInvitationsResponse(total=2, invitations=[
        pb.Invitation(ticket_id="t-ann", queued_at_ms=1_000, waited_seconds=5.0),
        pb.Invitation(ticket_id="t-eve", queued_at_ms=3_000, waited_seconds=3.0)])
    b = pb.ListMyInvitationsResponse(total=1, invitations=[
        pb.Invitation(ticket_id="t-cy", queued_at_ms=2_000, waited_seconds=5.5)])
    out = merged([a, b], 0, pb.ListMyInvitationsResponse)
    assert [i.ticket_id for i in out.invitations] == ["t-ann", "t-cy", "t-eve"]
    assert out.total == 3
    assert [i.ticket_id for i in merged([b, a], 2, pb.ListMyInvitationsResponse).invitations] \
        == ["t-ann", "t-cy"]
