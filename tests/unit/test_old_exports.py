"""Published exports are promises: exports made by earlier engine and host versions verify.

The files in tests/fixtures/exports were made by `neon play ... --export` (or
``selfplay.export_game``) on the code of their version (named in the file name) and are
never regenerated. Every ruleset an engine still keeps (``for_version``) has at least one of
them, so a change that breaks replaying an old version fails here; a new engine version
fails here too until an export of it is recorded. The ``*-created-by`` files were made by the
rules host of the release that records who created a match (``created_by`` in MatchCreated
and MatchEnded, ``blind`` in records that withhold something): `neon play GAME --bots ...
--seed 71-74 --embedded --export`.
"""

import json
from pathlib import Path

import pytest

from services.rules.games import ENGINE_MODULES, load_engine
from services.rules.games.barbaric.rulesets import RULESETS as BARBARIC
from services.rules.games.neon.ruleset import RULESETS as NEON
from services.rules.games.neon_knights.engine import RULESETS as NEON_KNIGHTS
from services.rules.games.neon_reign.rulesets import RULESETS as NEON_REIGN
from services.rules.verify import verify_export

EXPORTS = sorted((Path(__file__).parent.parent / "fixtures" / "exports").glob("*.jsonl"))
KEPT = {"neon": list(NEON), "neon-reign": list(NEON_REIGN),
        "neon-knights-2086": list(NEON_KNIGHTS), "barbaric": list(BARBARIC)}
"""Every engine version each game still replays: its rulesets."""


def _created(path: Path) -> dict:
    with path.open("rb") as handle:
        return json.loads(handle.readline())


def test_there_are_old_exports_to_check():
    assert len(EXPORTS) >= 6


def test_every_game_is_listed_with_the_versions_it_keeps():
    assert set(KEPT) == set(ENGINE_MODULES)
    for game, versions in KEPT.items():
        engine = load_engine(game)
        assert engine.engine_version == versions[-1]
        for version in versions:
            assert engine.for_version(version).engine_version == version


@pytest.mark.parametrize("game", sorted(KEPT))
def test_every_engine_version_a_game_keeps_has_a_recorded_export(game: str):
    recorded = {_created(path)["engine_version"] for path in EXPORTS
                if _created(path)["game"] == game}
    missing = [v for v in KEPT[game] if v not in recorded]
    assert not missing, (f"{game}: no export of engine {missing} in tests/fixtures/exports: "
                         "record one (neon play ... --embedded --export) on that version's code")


@pytest.mark.parametrize("path", EXPORTS, ids=[p.stem for p in EXPORTS])
def test_an_old_export_still_verifies(path: Path):
    report = verify_export(path.read_bytes())
    assert report.ok, report.failure
    assert any(c.startswith("rules replay") for c in report.checks)
    assert report.outcome is not None
    created = _created(path)
    assert path.stem.startswith(f"{created['game']}-{created['engine_version']}-")


@pytest.mark.parametrize("path", [p for p in EXPORTS if p.stem.endswith("-created-by")],
                         ids=lambda p: p.stem)
def test_an_export_of_a_host_that_records_the_creator_names_it(path: Path):
    report = verify_export(path.read_bytes())
    assert report.ok, report.failure
    assert report.created_by == {"name": "neon-cli", "role": "service"}


def test_every_game_has_an_export_of_a_host_that_records_the_creator():
    games = {_created(p)["game"] for p in EXPORTS if p.stem.endswith("-created-by")}
    assert games == set(KEPT)


@pytest.mark.parametrize("path", EXPORTS, ids=[p.stem for p in EXPORTS])
def test_a_tampered_old_export_fails(path: Path):
    lines = path.read_bytes().splitlines()
    lines[3] = lines[3].replace(b'"seat":0', b'"seat":1', 1) if b'"seat":0' in lines[3] \
        else lines[3].replace(b'"seat":1', b'"seat":0', 1)
    assert not verify_export(b"\n".join(lines) + b"\n").ok
