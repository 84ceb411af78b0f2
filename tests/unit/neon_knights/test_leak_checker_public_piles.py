"""The campaign's leak checker (tests/support/campaign/leaks.py) and Neon Knights' campaign
implant piles: "take an Implant card from those available in the Implant decks" is a public
action naming a card every viewer saw in the face-up piles a moment before; the card then
lies in the taker's implant hand, a zone the others do not see. The checker counted that
public action as a leak (`bench/campaign.py --only leaks --leak-games 1000` reported 1,410 in
the first 100 Neon Knights games). A public action naming a card nobody saw (a hidden choice
left public) is still caught."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from services.rules.games import load_engine
from tests.support.campaign.leaks import play_one

ENGINE = load_engine("neon-knights-2086")

# A two-driver Campaign game the campaign's run reported "leaks" in: both drivers acquire
# implants after the first race.
SEED = 1796658222


def test_an_implant_taken_from_the_public_piles_is_no_leak() -> None:
    report = play_one("neon-knights-2086", "campaign", 2, SEED)
    assert report.actions > 100
    assert report.leaks == []


class _DraftPicksInPublic:
    """Neon Knights with a planted leak: the implant draft's face-down picks are public."""

    def __getattr__(self, name: str) -> Any:
        return getattr(ENGINE, name)

    def pending(self, state: Any) -> Any:
        return [replace(d, hidden=False) if d.kind == "draft" else d
                for d in ENGINE.pending(state)]


def test_a_face_down_pick_sent_in_public_is_still_a_leak() -> None:
    leaks = play_one("neon-knights-2086", "normal", 3, SEED, engine=_DraftPicksInPublic()).leaks
    assert leaks and all("(draft)" in leak and ": record of " in leak for leak in leaks)
