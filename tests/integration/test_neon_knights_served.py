"""Neon Knights: 2086 through the real services (issue 12, "What it must show"): whole games
of bots played with ``neon play``'s code path on an embedded backend (real gRPC, real NATS,
SQLite), a Campaign of three matches each continuing the last (``--after``), one stage of the
Epic Campaign, and ``neon verify`` on the exports, links included.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from services.cli import main as cli
from services.platform import logs
from services.rules.verify import campaign_links, verify_export
from tests.integration.conftest import make_settings

GAME = "neon-knights-2086"


async def play(
    tmp_path: Path,
    nats_url: str,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    *,
    bots: str,
    mode: str = "normal",
    options: dict[str, Any] | None = None,
    after: str = "",
    seed: int | None = None,
) -> tuple[Path, str]:
    """One ``neon play GAME --bots ... --embedded --export`` (the var dir is kept between
    calls, as a group playing a campaign on one machine would); returns the export and the
    text on the terminal."""
    screen = Console(record=True, width=120, file=io.StringIO(), color_system=None)
    monkeypatch.setattr(cli, "console", screen)
    cli.logs_to_file(tmp_path / "logs" / "cli.log")
    export = tmp_path / f"{name}.jsonl"
    settings = make_settings(tmp_path, nats_url, nats_configured=True)
    try:
        code = await cli.play_in_terminal(
            settings,
            GAME,
            mode=mode,
            bots=bots,
            seed=seed,
            embedded=True,
            var_dir=tmp_path / "embedded",
            export=export,
            options=options or {},
            after=after,
        )
    finally:
        logs.configure()
    assert code == 0
    return export, screen.export_text()


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def verify_cli(*paths: Path) -> Any:
    return CliRunner().invoke(cli.app, ["verify", *(str(p) for p in paths)])


@pytest.mark.parametrize(
    "bots",
    [
        "random,random",
        pytest.param("random,random,random,random", marks=pytest.mark.slow),
        "rule,random,rule,random,rule,random",
    ],
)
async def test_a_whole_three_race_game_is_played_and_verifies(
    tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch, bots: str
) -> None:
    """The fewest and the most seats in CI (the most with rule bots); four seats under
    ``-m slow`` (bench/README.md)."""
    export, text = await play(tmp_path, nats_url, monkeypatch, "game", bots=bots, seed=5)
    rows = records(export)
    results = [
        e
        for r in rows
        if r["type"] in ("ActionAccepted", "MatchStarted")
        for e in r.get("events", [])
        if e["kind"] == "race_result"
    ]
    assert [e["data"]["race"] for e in results] == [1, 2, 3], "three races were run"
    seats = len(bots.split(","))
    assert all(len(e["data"]["results"]) == seats for e in results)
    assert rows[-2]["type"] == "MatchSealed" and rows[-3]["type"] == "MatchEnded"
    assert "the last race (3) has been run" in text
    report = verify_export(export.read_bytes())
    assert report.ok, report.failure
    assert verify_cli(export).exit_code == 0


async def test_a_campaign_of_three_matches_and_an_epic_stage_verify_with_their_links(
    tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each campaign match starts from what the previous one carried (``neon play --after``,
    by export file, then by match id); ``neon verify`` checks every match and the links, and
    fails when a carried value is changed or a link is missing."""
    one_race = {"races": 1}
    first, _ = await play(
        tmp_path,
        nats_url,
        monkeypatch,
        "c1",
        bots="rule,random,rule",
        mode="campaign",
        options=one_race,
    )
    second, _ = await play(
        tmp_path,
        nats_url,
        monkeypatch,
        "c2",
        bots="rule,random,rule",
        mode="campaign",
        options=one_race,
        after=str(first),
    )
    second_id = records(second)[0]["match_id"]
    third, _ = await play(
        tmp_path,
        nats_url,
        monkeypatch,
        "c3",
        bots="rule,random,rule",
        mode="campaign",
        options=one_race,
        after=second_id,
    )
    chain = [records(p) for p in (first, second, third)]
    for before, after in zip(chain, chain[1:], strict=False):
        link = after[0]["campaign"]
        assert link["previous_match_id"] == before[0]["match_id"]
        assert link["previous_final_hash"] == before[-2]["hash"]
        carried = next(r for r in before if r["type"] == "MatchEnded")["outcome"]["carry"]
        assert link["carried"] == carried
    # The VP earned in match 1 are still there at the start of match 3's race.
    vp_after_first = [p["vp"] for p in chain[0][-3]["outcome"]["carry"]["players"]]
    assert [p["vp"] for p in chain[2][0]["campaign"]["carried"]["players"]] >= vp_after_first
    assert all(verify_export(p.read_bytes()).ok for p in (first, second, third))
    assert campaign_links([p.read_bytes() for p in (first, second, third)]) == []

    both = verify_cli(first, second, third)
    assert both.exit_code == 0, both.output
    missing = verify_cli(second, third)
    assert missing.exit_code == 1 and "campaign link" in missing.output

    # A carried value changed in the record of match 1's end: its chain breaks, and match 2
    # no longer starts from what match 1 carried.
    text = first.read_text()
    ended = next(line for line in text.splitlines() if '"type":"MatchEnded"' in line)
    vp = chain[0][-3]["outcome"]["carry"]["players"][0]["vp"]
    forged = ended.replace(f'"vp":{vp}', f'"vp":{vp + 5}')
    assert forged != ended
    tampered = tmp_path / "c1-tampered.jsonl"
    tampered.write_text(text.replace(ended, forged))
    assert campaign_links([tampered.read_bytes(), second.read_bytes()])
    bad = verify_cli(tampered, second, third)
    assert bad.exit_code == 1

    # One stage of the Epic Campaign: 4 stage cards of stage 1, one race each.
    epic, _ = await play(
        tmp_path, nats_url, monkeypatch, "epic", bots="rule,random", mode="epic-campaign"
    )
    rows = records(epic)
    stages = [
        e["data"]["stage"] for r in rows for e in r.get("events", []) if e["kind"] == "stage_drawn"
    ]
    # the first card is drawn during set-up: its event is MatchStarted's (the engine's start)
    assert [e["kind"] for e in rows[1]["events"]].count("stage_drawn") == 1
    assert len(stages) == len(set(stages)) == 4 and all(s.startswith("stage-1-") for s in stages)
    races = [e for r in rows for e in r.get("events", []) if e["kind"] == "race_result"]
    assert len(races) == 4
    carry = rows[-3]["outcome"]["carry"]
    assert len(carry["stage_deck"]) == 12 and carry["match"] == 1
    assert verify_cli(epic).exit_code == 0


async def test_a_campaign_outcome_is_served_without_the_carried_hidden_zones(
    tmp_path: Path, nats_url: str
) -> None:
    """``Outcome.carry`` holds every driver's hand of parts and implant hand for the next match:
    only the export (and the next match, through the rules service) reads it. Seats and the
    public get the outcome without it: GetView (a seat's, the public's), the events of
    SubmitAction's answers, WatchMatch."""
    from services.cli.backend import start_backend
    from services.cli.client import RulesClient
    from services.cli.play import play_match

    backend = await start_backend(
        make_settings(tmp_path, nats_url), games=[GAME], embedded_nats=False
    )
    client = RulesClient(backend.address(f"rules-{GAME}"))
    try:
        service = backend.issuer.issue("service", "*", player="test", ttl=600)
        seen: list[Any] = []
        played = await play_match(
            client,
            service,
            mode="campaign",
            seats=["rule", "rule"],
            seed=4,
            options={"races": 1},
            on_event=seen.append,
        )
        match_id = played.match_id
        assert played.outcome is not None and "carry" not in played.outcome  # seat 0's GetView
        in_answers = [e for e in seen if e["type"] == "MatchEnded"]
        assert in_answers and "carry" not in in_answers[0]["outcome"]
        view = await client.view(match_id)  # the public
        assert view.outcome_json and "carry" not in json.loads(view.outcome_json)
        watched = []
        async for event in client.watch(match_id):
            watched.append(json.loads(event.event.payload_json))
            if watched[-1]["type"] == "MatchSealed":
                break
        ended = next(e for e in watched if e["type"] == "MatchEnded")
        assert ended["outcome"]["placements"] and "carry" not in ended["outcome"]
        export = (await client.export(service, match_id)).export_jsonl
        carry = next(
            json.loads(line) for line in export.splitlines() if b'"type":"MatchEnded"' in line
        )["outcome"]["carry"]
        assert len(carry["players"]) == 2 and "implant_hand" in carry["players"][0]
    finally:
        await client.close()
        await backend.stop(1)


async def test_a_person_plays_neon_knights_in_the_terminal(
    tmp_path: Path,
    nats_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    """ "The terminal ... show[s] this game as people know it: components by name with their
    printed values ... and what happened since the seat's last decision in words.\""""
    from services.cli.screen import load_presentation
    from tests.integration.test_terminal_play import play_as_a_human

    played = await play_as_a_human(tmp_path, nats_url, monkeypatch, capfd, GAME, seed=3)
    text = played.text
    assert played.opponent_moves(), "the bot never moved"
    assert text.count("bot-random-1:") == len(played.opponent_moves())
    assert "since your last move" in text and "your move" in text
    assert "result" in text and "ended after" in text
    assert '"action":' not in text, "the options are words unless j is typed"
    content = load_presentation(GAME).source.content()
    parts = {p["name"] for p in content["parts"]}
    assert sum(name in text for name in parts) >= 3, "parts by name"
    played.assert_no_json_log_line()
