"""Rulesets: each ruling that changed between engine versions, as a flag.

A match keeps the ruleset of the engine version it was created with (``State.ruleset``), so
``neon verify`` replays an export of engine version 2 with the version-2 rulings while new
matches get the current ones. Each changed ruling branches on one flag here; RULES.md says
what each version changed and why.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Ruleset:
    version: str
    defender_assigns_full_blocks: bool
    """"Each full block cancels 1 critical hit or 1 normal hit, at the defender's choice."""
    player_chooses_supply: bool
    """The player names the supply (tucked card, bot token or the card itself) that pays."""
    hook_reaches_bots: bool
    """Akari's Hook may move a bot ("applies to an opponent (or the target of an attack)")."""
    abilities_any_number_of_times: bool
    """Abilities and sector effects are not limited to once per attack."""
    row_skip_only_if_impossible: bool
    """A row action may be skipped only when it cannot be performed."""
    coalition_ranks_by_vp: bool
    """"The team with the most VP wins", eliminated or not."""
    cover_any_equipment: bool
    """Equipment may be laid on top of any equipment card sharing a supply symbol."""
    automa_with_more_participants: bool
    """The Automa may join Coalition and 6-seat games."""
    battle_royale_round_limit: int | None
    """An engine-added round cap (version 2 only); the rulebook has none."""
    resign: bool
    """Contract v2: any seat may resign at any time."""
    round_board_side: bool
    """Option ``round_board``: the players may choose the other side of the round board."""
    resign_keeps_cards_hidden: bool = True
    """A resigning fighter keeps its hand and deck (a face-down card choice back in its
    hand), hidden as an eliminated fighter's; version 3 laid them all, in order, on its
    public discard pile."""
    card_pays_only_without_supply: bool = True
    """"If the equipment card has no additional supplies of the needed type left, you can
    still apply its effect by discarding the card itself": the card pays only then (versions
    2-4 offered it beside a supply of the type still under it)."""
    automa_damage_before_move: bool = True
    """The Automa in a closing sector "takes 1 damage and moves to the adjacent sector with
    the lower number", in that order (versions 2-4 moved it first)."""
    secret_defaults: bool = True
    """The default of a hidden decision (what a clock applies on a timeout, which is public)
    names nothing the table knows: the card choice's and the keep's are drawn at random when
    they are asked and kept in the state (``State.defaults``, a keep frame's ``default``).
    Versions 2-5: the first legal answer, the first two cards of the hand (or drawn) laid
    the same way every time."""
    manoeuvre_c_after_the_move: bool = True
    """Closing: "it moves to an adjacent sector of its choice and takes 1 damage ... The
    fighter may use ... "Manoeuvre C": spend 2 energy to cancel this damage": Manoeuvre C is
    used when the damage comes, after the move, so the energy gained on entering (the
    Charging Station) counts, and the TV Tower's price and another's Neko are those of the
    sector the fighter is in then. Versions 2-6 paid before the move, at the closing
    sector's price."""
    last_team_wins_automatically: bool = True
    """Coalition: the team left on the arena wins ("1 fighter remains on the arena (it then
    wins automatically)", the Rebirth rules Coalition is played by); versions 3-6 ranked
    the teams by VP even then."""


V2 = Ruleset("2", defender_assigns_full_blocks=False, player_chooses_supply=False,
             hook_reaches_bots=False, abilities_any_number_of_times=False,
             row_skip_only_if_impossible=False, coalition_ranks_by_vp=False,
             cover_any_equipment=False, automa_with_more_participants=False,
             battle_royale_round_limit=40, resign=False, round_board_side=False,
             resign_keeps_cards_hidden=False, card_pays_only_without_supply=False,
             automa_damage_before_move=False, secret_defaults=False,
             manoeuvre_c_after_the_move=False, last_team_wins_automatically=False)
V3 = Ruleset("3", defender_assigns_full_blocks=True, player_chooses_supply=True,
             hook_reaches_bots=True, abilities_any_number_of_times=True,
             row_skip_only_if_impossible=True, coalition_ranks_by_vp=True,
             cover_any_equipment=True, automa_with_more_participants=True,
             battle_royale_round_limit=None, resign=True, round_board_side=True,
             resign_keeps_cards_hidden=False, card_pays_only_without_supply=False,
             automa_damage_before_move=False, secret_defaults=False,
             manoeuvre_c_after_the_move=False, last_team_wins_automatically=False)
V4 = replace(V3, version="4", resign_keeps_cards_hidden=True)
V5 = replace(V4, version="5", card_pays_only_without_supply=True,
             automa_damage_before_move=True)
V6 = replace(V5, version="6", secret_defaults=True)
V7 = replace(V6, version="7", manoeuvre_c_after_the_move=True,
             last_team_wins_automatically=True)
RULESETS = {r.version: r for r in (V2, V3, V4, V5, V6, V7)}
CURRENT = V7


def ruleset_of(version: str) -> Ruleset:
    return RULESETS[version]
