"""A dev-seeded match is never rated.

A match created with a dev seed (CreateMatch ``dev_seed``, ``neon play --seed N``) draws from
a seed shared by every match given that dev seed on the deployment, known to the operator and
public once any such match is sealed. Its MatchEnded says so (``"dev_seed": true``; absent on
every other match, whose records stay as they were), so the signed result, made from that
record alone, carries it; ``neon verify`` holds the field to MatchCreated's dice; scoring
records such a result unrated, counted in no standing, with the reason in words. The rules
service's side over real services: tests/integration/test_dev_seed_unrated.py.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.platform.signed import open_result
from services.platform.signing import public_key_hex
from services.rules import records as rec
from services.rules.export import build_export, parse_export
from services.rules.games import load_engine
from services.rules.main import projection
from services.rules.selfplay import export_game, setups
from services.rules.verify import verify_export
from services.scoring import results as scoring_results
from services.scoring.app import ScoringApplication
from services.scoring.results import MalformedResult, MatchOutcome, parse_match_ended

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33)))
MISSING = object()


def _played(table: bool) -> bytes:
    setup = setups(load_engine("neon-reign"), "single")[0]
    return export_game("neon-reign", "single", setup, 11, KEY,
                       table=("devrated-t1", ["ann", "bob"]) if table else None)


@pytest.fixture(scope="module")
def dev_export() -> bytes:
    return _played(table=False)


@pytest.fixture(scope="module")
def table_export() -> bytes:
    return _played(table=True)


def _ended(data: bytes) -> dict[str, Any]:
    records, _ = parse_export(data)
    return records[-2]


def _resigned(data: bytes, dev_seed: Any = MISSING, dice: Any = MISSING) -> bytes:
    """The export with MatchEnded's ``dev_seed`` set (MISSING: taken out) and, when given,
    MatchCreated's dice replaced; re-chained and signed with the same key, as an operator
    holding the signing key could."""
    records, checkpoint = parse_export(data)
    match_id = checkpoint["match_id"]
    chained: list[dict[str, Any]] = []
    for record in records:
        body = {k: v for k, v in record.items() if k not in ("hash", "n", "prev", "match_id")}
        if body["type"] == "MatchCreated" and dice is not MISSING:
            body["dice"] = dice
        if body["type"] == "MatchEnded":
            body.pop("dev_seed", None)
            if dev_seed is not MISSING:
                body["dev_seed"] = dev_seed
        chained.append(rec.seal_record(match_id, len(chained) + 1, rec.head(chained), body))
    return build_export(match_id, checkpoint["game"], chained, KEY)


# -- the record ------------------------------------------------------------------------


def test_a_self_play_export_of_a_dev_seeded_match_says_so_in_its_end(
        dev_export: bytes, table_export: bytes) -> None:
    assert _ended(dev_export)["dev_seed"] is True
    assert "dev_seed" not in _ended(table_export)  # byte for byte as before
    for data in (dev_export, table_export):
        report = verify_export(data, public_key_hex(KEY))
        assert report.ok, report.failure


def test_the_public_end_and_the_signed_result_carry_it(dev_export: bytes) -> None:
    records, _ = parse_export(dev_export)
    ended = records[-2]
    assert rec.project(ended, None)["dev_seed"] is True
    assert rec.project(ended, 0)["dev_seed"] is True
    no_field = {k: v for k, v in ended.items() if k != "dev_seed"}
    assert "dev_seed" not in rec.project(no_field, None)
    messages = projection("neon-reign", KEY)(SimpleNamespace(record=ended))
    public, signed = messages[0][1], messages[1][1]
    assert public["dev_seed"] is True
    result = open_result(signed, {public_key_hex(KEY)})
    assert result["dev_seed"] is True
    assert parse_match_ended(result).dev_seed is True


# -- verify ----------------------------------------------------------------------------


def test_an_end_of_a_dev_seeded_match_without_the_field_verifies(dev_export: bytes) -> None:
    """Written by a release before the field (tests/fixtures/exports hold such ends)."""
    report = verify_export(_resigned(dev_export), public_key_hex(KEY))
    assert report.ok, report.failure
    assert report.dev_seed


def test_the_field_on_a_match_without_a_dev_seed_fails(table_export: bytes) -> None:
    report = verify_export(_resigned(table_export, True), public_key_hex(KEY))
    assert not report.ok
    assert "MatchEnded says the match drew from a dev seed" in report.failure
    assert report.failure.startswith("event ")


@pytest.mark.parametrize("value", [False, 1, "true", None, [True], {"dev": True}])
def test_the_field_holds_exactly_true(dev_export: bytes, value: Any) -> None:
    report = verify_export(_resigned(dev_export, value), public_key_hex(KEY))
    assert not report.ok
    assert "dev_seed" in report.failure and "not true" in report.failure


def test_a_dev_stream_id_tells_it_without_the_dice_flag(dev_export: bytes) -> None:
    records, _ = parse_export(dev_export)
    dice = {k: v for k, v in records[0]["dice"].items() if k != "dev"}
    assert dice["stream_id"].startswith("dev:")
    report = verify_export(_resigned(dev_export, True, dice), public_key_hex(KEY))
    assert report.ok, report.failure
    assert report.dev_seed


# -- scoring -----------------------------------------------------------------------------


def _payload(match_id: str = "m1", players: tuple[str, str] = ("ann", "bob"),
             **extra: Any) -> dict[str, Any]:
    return {
        "type": "MatchEnded", "match_id": match_id, "game": "neon-reign", "mode": "single",
        "players": list(players), "n": 9, "hash": "h",
        "outcome": {"placements": [1, 2], "scores": [5, 3], "reason": "over", "draw": False,
                    "breakdown": {}, "teams": []},
        "created_by": {"role": "service", "name": "neon-cli"}, **extra,
    }


def test_scoring_reads_the_field() -> None:
    assert parse_match_ended(_payload()).dev_seed is False
    assert parse_match_ended(_payload(dev_seed=True)).dev_seed is True
    assert parse_match_ended(_payload(dev_seed=False)).dev_seed is False


@pytest.mark.parametrize("value", [1, 0, "true", None, [], {}])
def test_a_malformed_field_is_a_malformed_result(value: Any) -> None:
    with pytest.raises(MalformedResult, match="dev_seed"):
        parse_match_ended(_payload(dev_seed=value))


def test_the_field_is_stored_only_when_true() -> None:
    dev = parse_match_ended(_payload(dev_seed=True))
    assert dev.to_json()["dev_seed"] is True
    assert MatchOutcome.from_json(dev.to_json()) == dev
    plain = parse_match_ended(_payload())
    assert "dev_seed" not in plain.to_json()  # stored results as before
    assert MatchOutcome.from_json(plain.to_json()) == plain


@pytest.fixture
def app() -> ScoringApplication:
    return ScoringApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})


@pytest.mark.parametrize("rate_organiser_matches", [False, True])
def test_a_dev_seeded_result_is_recorded_unrated_and_counted_nowhere(
        app: ScoringApplication, rate_organiser_matches: bool) -> None:
    dev = app.score(parse_match_ended(_payload("dev-1", dev_seed=True)), 1,
                    rate_organiser_matches=rate_organiser_matches).data
    assert dev["rated"] is False and dev["ratings"] == []
    assert dev["unrated_reason"] == scoring_results.DEV_SEED_REASON
    assert "drawn from a dev seed" in dev["unrated_reason"]
    assert dev["dev_seed"] is True
    for player in ("ann", "bob"):
        standing = app.standing("neon-reign", "", player)
        assert (standing.matches, standing.wins, standing.losses) == (0, 0, 0)
    assert [r["match_id"] for r in app.history("neon-reign", "ann", 0)] == ["dev-1"]
    rated = app.score(parse_match_ended(_payload("plain-1")), 2,
                      rate_organiser_matches=rate_organiser_matches).data
    assert rated["rated"] is True and rated["unrated_reason"] == ""
    assert app.standing("neon-reign", "", "ann").matches == 1
    replayed = app.replay_ratings("neon-reign")
    assert (replayed["ann"].mu, replayed["ann"].sigma) == \
        (app.standing("neon-reign", "", "ann").mu, app.standing("neon-reign", "", "ann").sigma)


def test_an_organisers_dev_seeded_match_names_the_dev_seed(app: ScoringApplication) -> None:
    """Both keep it unrated; the dev seed is the reason no setting changes."""
    data = app.score(parse_match_ended(_payload(
        "dev-org", dev_seed=True, created_by={"role": "organiser", "name": "mallory"})), 1,
        rate_organiser_matches=True).data
    assert data["rated"] is False and data["unrated_reason"] == scoring_results.DEV_SEED_REASON


def test_stored_results_without_the_field_replay_as_before(app: ScoringApplication) -> None:
    app.score(parse_match_ended(_payload("old-1")), 1)
    stored = app.result("old-1", "neon-reign")
    assert "dev_seed" not in stored and stored["rated"] is True
    assert MatchOutcome.from_json(stored).dev_seed is False
    assert set(app.replay_ratings("neon-reign")) == {"ann", "bob"}
