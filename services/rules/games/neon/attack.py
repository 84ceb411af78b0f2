"""The attack in progress: a typed frame on the decision stack, in the rulebook's words.

"Attack" has four steps: target, attack stage, defense stage, results. Inside them the attack
walks through *stages*, each a window in which one side may apply effects before it passes
(``roll`` or ``done``); :attr:`Attack.answering` is that window, a :class:`ResponseWindow`:

========== ===================================================== =========================
stage      what happens                                          who answers
========== ===================================================== =========================
prep       effects before the attack roll (Focus, Factory, ...)  the attacker
help       Coalition: each ally in the helped fighter's sector,  the allies, in turn
           in turn, may add a team effect or Manoeuvre A
after      after the attack roll: one reroll, flip effects       the attacker
next       (automatic) the next defender, in turn order          nobody
dprep      the defender's effects before its defense roll        the defender
dafter     after the defense roll: one reroll, Phantom           the defender
counter    the attacker's effects after the defense roll         the attacker
blocks     where full blocks go (critical or normal hits)        the defender
worn       which supply pays a mandatory helmet/armour effect    the defender
finish     (automatic) the attack is over                        nobody
dodge      Manoeuvre B after an attack that dealt no damage      the attacker
resume_*   (automatic) an allies' window whose helpers all left  nobody
========== ===================================================== =========================

The stage names, and the key names of :meth:`Attack.encoded`, are those engine versions 2 and
3 hash (``engine.encode``), so they stay as they are; the fields carry the rulebook's words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from services.rules.games.frozen import _plain_fields, but
from services.rules.games.windows import ResponseWindow

DEFENDER_STAGES = ("dprep", "dafter", "blocks", "worn")
ALLY_MOMENTS = ("attack_prep", "attack_after", "defense_prep", "defense_after")


@dataclass(frozen=True)
class AlliesWindow:
    """Coalition: "allies in the same sector" may help, each in turn, at one ``moment``
    of the attack (one of :data:`ALLY_MOMENTS`)."""

    moment: str
    window: ResponseWindow

    def helpers_encoded(self) -> tuple[int, ...]:
        """The allies still to answer; once closed, the last one asked (as versions 2 and 3
        encode it)."""
        order = self.window.order
        return order[self.window.position:] if not self.window.closed else order[-1:]


@dataclass(frozen=True)
class Attack:
    """One attack, from the declared targets to Manoeuvre B."""

    kind: ClassVar[str] = "attack"

    attacker: int
    weapon: str
    """A loot card id, ``base`` (the fighter's base melee weapon) or ``howitzer``."""
    targets: tuple[str, ...]
    """``f:<fighter>`` and ``bot:<sector>``, as declared (an area weapon: everyone there)."""
    stage: str = "prep"
    attack_dice: int = 0
    """Dice the attack will roll (the 5-dice limit applies when rolling)."""
    attack_roll: tuple[str, ...] = ()
    attack_rerolled: bool = False
    attacker_used: tuple[str, ...] = ()
    """Effects the attacker's side used in this attack (keys such as ``equip:<card>:<i>``)."""
    simultaneous_defense: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Defense dice of bots and the Automa, rolled with the attack dice."""
    defenders_left: tuple[str, ...] = ()
    """Targets still to defend, in turn order, bots last."""
    defender: str = ""
    """The target defending now, ``""`` between defenders."""
    defense_dice: int = 0
    defense_roll: tuple[str, ...] = ()
    defense_rerolled: bool = False
    defender_used: tuple[str, ...] = ()
    hits_cancelled: int = 0
    """Normal hits cancelled by the defender's effects (Phantom)."""
    blocks_as_fails: int = 0
    """The defender's normal blocks the attacker's after-defense effects turned into fails."""
    damage_dealt: bool = False
    bots_won: tuple[str, ...] = ()
    """Bot tokens won in this attack: they cannot pay for its effects."""
    full_blocks_on_crits: int | None = None
    """How many full blocks the defender put on critical hits (``None``: critical hits first)."""
    blocks_assigned: bool = False
    """A defender of this attack has answered ``blocks`` (the encoding then holds the choice)."""
    allies: AlliesWindow | None = None
    """The latest allies' window of this attack (open while ``stage`` is ``help``)."""

    @property
    def owner(self) -> int:
        return self.attacker

    @property
    def defending_fighter(self) -> int | None:
        """The fighter defending now (``None`` for a bot or between defenders)."""
        return int(self.defender[2:]) if self.defender.startswith("f:") else None

    @property
    def answering(self) -> ResponseWindow:
        """The window of the current stage: whose answer the attack waits for."""
        if self.stage == "help":
            assert self.allies is not None
            return self.allies.window
        if self.stage in DEFENDER_STAGES:
            defender = self.defending_fighter
            assert defender is not None
            return ResponseWindow((defender,))
        return ResponseWindow((self.attacker,))

    def but(self, **changes: Any) -> Attack:
        # frozen.but(self, changes), its steps written out (the attack's most frequent call)
        if self.__class__ is Attack and _ATTACK_FIELDS and _ATTACK_FIELDS.issuperset(changes):
            attrs = dict(self.__dict__)  # a combined dict: see state.Draft
            attrs.update(changes)
            new = _NEW(Attack)
            _SET(new, "__dict__", attrs)
            return new
        return but(self, changes)

    def encoded(self) -> dict[str, Any]:
        """The frame's data under the keys engine versions 2 and 3 hash and views show, in
        sorted order (written so: views keep that order, and a sort at every step cost)."""
        data: dict[str, Any] = {
            "blocks_as_fails": self.blocks_as_fails, "bot_defense_rolls": self.simultaneous_defense,
            "count": self.attack_dice, "dealt": self.damage_dealt, "defender": self.defender,
            "defender_used": self.defender_used, "defense_count": self.defense_dice,
            "defense_rerolled": self.defense_rerolled, "defense_roll": self.defense_roll,
            "dice": self.attack_roll, "fresh": self.bots_won,
        }
        if self.blocks_assigned:
            data["fulls_on_crits"] = self.full_blocks_on_crits
        if self.allies is not None:
            data["help"] = self.allies.moment
            data["helpers"] = self.allies.helpers_encoded()
        data.update(hits_cancelled=self.hits_cancelled, queue=self.defenders_left,
                    rerolled=self.attack_rerolled, stage=self.stage, targets=self.targets,
                    used=self.attacker_used, weapon=self.weapon)
        return data


VIEW_KEYS = {
    "attacker": "owner", "weapon": "weapon", "targets": "targets", "stage": "stage",
    "attack_dice": "count", "attack_roll": "dice", "attack_rerolled": "rerolled",
    "attacker_used": "used", "simultaneous_defense": "bot_defense_rolls",
    "defenders_left": "queue", "defender": "defender", "defense_dice": "defense_count",
    "defense_roll": "defense_roll", "defense_rerolled": "defense_rerolled",
    "defender_used": "defender_used", "hits_cancelled": "hits_cancelled",
    "blocks_as_fails": "blocks_as_fails", "damage_dealt": "dealt", "bots_won": "fresh",
}
"""The key of a view of the attack (``owner``, then :meth:`Attack.encoded`'s) that shows each
field on its own; the others (``full_blocks_on_crits``, ``blocks_assigned``, ``allies``)
decide which keys there are."""


def new_attack(attacker: int, weapon: str, targets: tuple[str, ...], dice: int) -> Attack:
    """``Attack(attacker, weapon, targets, attack_dice=dice)``, copied from a blank one
    (``Attack.but``: its instance dict a combined dict, see ``state.Draft``)."""
    return _BLANK.but(attacker=attacker, weapon=weapon, targets=targets, attack_dice=dice)


_BLANK = Attack(0, "", ())
_ATTACK_FIELDS: frozenset[str] = _plain_fields(Attack) or frozenset()
"""Attack's fields when ``frozen.but`` copies its instances in one step (else empty, and
every change takes ``frozen.but``)."""
_NEW = object.__new__
_SET = object.__setattr__
