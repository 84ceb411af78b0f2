"""The client the gateway names to the services (``x-neon-client``): the address it counts
the caller by, never a header of the caller's, in a form the services take."""

from __future__ import annotations

from aiohttp.test_utils import make_mocked_request

from services.gateway.app import _passed_metadata, client_metadata, counted_as
from services.platform.stream_limits import CLIENT_METADATA, CLIENT_VALUE


def test_the_client_is_named_as_the_gateway_counts_it() -> None:
    for address in ("198.51.100.1", "::ffff:198.51.100.1", "2001:db8:1:2:3:4:5:6"):
        name = client_metadata(counted_as(address))
        assert name == counted_as(address) and CLIENT_VALUE.match(name)
    assert client_metadata(counted_as("2001:db8:1:2:3:4:5:6")) == "2001:db8:1:2::/64"


def test_a_client_the_services_would_not_take_is_named_by_a_digest() -> None:
    for odd in ("an obfuscated name", "x" * 200, "caf\u00e9", "\udcff"):
        name = client_metadata(odd)
        assert CLIENT_VALUE.match(name) and name.startswith("sha256:")
        assert name == client_metadata(odd)  # one client stays one
    assert client_metadata("x" * 200) != client_metadata("x" * 201)


def test_the_callers_own_x_neon_client_is_not_passed_on() -> None:
    request = make_mocked_request("POST", "/neon.rules.v1.RulesService/WatchMatch", headers={
        "X-Neon-Client": "192.0.2.99", "Authorization": "Bearer t", "X-Other": "1"})
    metadata = _passed_metadata(request, "rid", "198.51.100.1")
    assert metadata == [("authorization", "Bearer t"), ("x-request-id", "rid"),
                        (CLIENT_METADATA, "198.51.100.1")]
