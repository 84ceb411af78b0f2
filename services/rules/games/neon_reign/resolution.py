"""Resolution Order: Step 1 Counter cards, Step 2 Joysticks and Star Power, Step 3 Buttons.

A :class:`Table` is a short-lived working copy of the two sides for one resolution; the
result is handed back as new immutable :class:`Side` values. A KO stops the resolution at
once (``Knockout``), as the rulebook says the game ends "at any point" a hero reaches 0.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple

from services.rules.games.contract import EngineEvent
from services.rules.games.frozen import but

from .cards import BUTTON, JOYSTICK, SHIELD_LIMIT, STARTING_HEALTH, THROW, Card, Hero
from .combos import ComboHit, combo_total, combos_of
from .content import ALL_HEROES, CARDS, card
from .rulesets import Ruleset
from .state import Defense, ShieldAsk, Side, event

_NEW = object.__new__
_SET = object.__setattr__

STEP2_GAINS = ("shields", "heal", "strike", "draw", "recycle_throw", "stars")
STEP1_SOURCE = "combo breaker button"
STEP3_SOURCE = "buttons"
"""The sources of the only damage Shields may prevent (Step 1's and Step 3's Buttons): so the
only places a resolution pauses for a Shield decision."""


class Resolution(NamedTuple):
    sides: tuple[Side, Side]
    events: tuple[EngineEvent, ...]
    knocked_out: tuple[int, ...]
    paused: ShieldAsk | None = None
    """Set when a Shield decision is owed before the resolution can go on."""


class Knockout(Exception):
    """A hero reached 0 health: the game ends immediately."""


class NeedShields(Exception):
    """Damage is about to hit a player holding Shields who has not said how many to spend."""

    def __init__(self, ask: ShieldAsk) -> None:
        super().__init__(ask)
        self.ask = ask


def button_damage(fighter: Hero, button: Card) -> int:
    """A Button's printed damage plus the Hero Ability bonus for its colour, if any."""
    ability = fighter.ability
    bonus = ability.amount if (ability.type == "button_colour_bonus"
                               and ability.colour == button.colour) else 0
    return button.damage + bonus


def joystick_gains(total: dict[str, int], fighter: Hero, stick: Card) -> None:
    """Add what a Joystick gives its player into ``total``: its effects, plus the Hero
    Ability's Stars for its direction."""
    _add(total, stick.effects)
    ability = fighter.ability
    if ability.type == "joystick_star_bonus" and ability.direction == stick.direction:
        total["stars"] = total.get("stars", 0) + ability.amount


def _add(total: dict[str, int], gains: Iterable[tuple[str, int]]) -> None:
    """Add ``gains`` into ``total`` (every amount is positive: the content schema's counts,
    so this sums as adding ``Counter``s did)."""
    for name, amount in gains:
        total[name] = total.get(name, 0) + amount


def combos_after_counters(attack: Iterable[str], removed: Iterable[str],
                          as_played: bool = False) -> tuple[ComboHit, ...]:
    """The Universal Combos of the Attack's cards that Step 1 left standing.

    ``as_played`` (engine 1.5.0): only the combos the played cards met ("When you Attack,
    check your played cards against all Universal Combos"), so a Throw or a Block can
    break a combo (the card it removes no longer counts), never make one the Attacker did
    not meet: Joystick + two greens, a green Blocked, is no Jab Strike. Before 1.5.0 the
    cards left were checked alone."""
    played = list(attack)
    gone = set(removed)
    left = combos_of([i for i in played if i not in gone])
    if not as_played or not gone or not left:
        return left
    return kept_combos(combos_of(played), left)


def kept_combos(played: tuple[ComboHit, ...], left: tuple[ComboHit, ...]) -> tuple[ComboHit, ...]:
    """The instances of ``left`` that ``played`` has too (a multiset intersection, in
    ``left``'s order): a pair combo keeps the pairs of cards left standing, an exact combo
    (the whole composition) fires only if the played cards and the cards left both match
    it, which a removal never allows."""
    budget: dict[str, int] = {}
    for hit in played:
        budget[hit.id] = budget.get(hit.id, 0) + 1
    out = []
    for hit in left:
        if budget.get(hit.id, 0) > 0:
            budget[hit.id] -= 1
            out.append(hit)
    return tuple(out)


class Table:
    """The two sides of one resolution. A side's first change makes it a new :class:`Side`
    (a copy), which the resolution then changes in place: it is this Table's own until
    :meth:`result` hands it out, and no one changes it after that. So a resolution makes
    one new value per changed side, not one per change."""

    __slots__ = ("sides", "changed", "heroes", "attacker", "defender", "rules",
                 "shield_answers", "answered", "events")

    def __init__(self, sides: tuple[Side, Side], attacker: int, rules: Ruleset,
                 shield_answers: tuple[int, ...] = ()) -> None:
        self.sides = [sides[0], sides[1]]
        self.changed = [False, False]
        self.heroes = (ALL_HEROES[sides[0].hero], ALL_HEROES[sides[1].hero])  # hero()
        """A resolution never changes a side's hero."""
        self.attacker = attacker
        self.defender = 1 - attacker
        self.rules = rules
        self.shield_answers = shield_answers
        self.answered = 0
        self.events: list[EngineEvent] = []

    def result(self) -> tuple[Side, Side]:
        """The sides as they stand (an unchanged side is the one given)."""
        return self.sides[0], self.sides[1]

    def put_away(self, attack: tuple[str, ...], defended: tuple[str, ...]) -> None:
        """The turn's played cards onto their discard piles."""
        att, dfd = self.attacker, self.defender
        if not self.sides[att].computer:
            self.set(att, discard=self.sides[att].discard + attack)
        if defended:  # a pass leaves the defender's side as it is (no copy of it)
            self.set(dfd, discard=self.sides[dfd].discard + defended)

    # -- small effects -------------------------------------------------------------------
    def set(self, side: int, **changes: object) -> None:
        if self.changed[side]:
            vars(self.sides[side]).update(changes)
        else:
            self.sides[side] = but(self.sides[side], changes)
            self.changed[side] = True

    def emit(self, kind: str, visible_to: frozenset[int] | None = None, **data: object) -> None:
        self.events.append(event(kind, data, visible_to))

    def knocked_out(self) -> tuple[int, ...]:
        first, second = self.sides[0].health <= 0, self.sides[1].health <= 0
        if first or second:
            return (0, 1) if first and second else (0,) if first else (1,)
        return ()

    def check_ko(self) -> None:
        if self.sides[0].health <= 0 or self.sides[1].health <= 0:
            raise Knockout

    def gain_shields(self, side: int, amount: int, source: str) -> None:
        now = self.sides[side].shields
        new = min(SHIELD_LIMIT, now + amount)
        self.set(side, shields=new)
        self.emit("shields", side=side, gained=new - now, shields=new, source=source)

    def heal(self, side: int, amount: int, source: str) -> None:
        now = self.sides[side].health
        new = min(STARTING_HEALTH, now + amount)
        self.set(side, health=new)
        self.emit("healed", side=side, healed=new - now, health=new, source=source)

    def strike(self, target: int, amount: int, source: str) -> None:
        """Force ``target`` to discard the top card of its deck, face up."""
        for _ in range(amount):
            side = self.sides[target]
            if not side.deck:
                self.emit("strike_missed", side=target, source=source)
                return
            top = side.deck[0]
            self.set(target, deck=side.deck[1:], discard=side.discard + (top,))
            self.emit("struck", side=target, card=top, source=source)

    def draw(self, side: int, amount: int, source: str) -> None:
        current = self.sides[side]
        if current.computer:
            return
        drawn = current.deck[:amount]
        self.set(side, deck=current.deck[len(drawn):], hand=current.hand + drawn)
        self.emit("drew", frozenset({side}), side=side, cards=list(drawn), source=source)
        self.emit("drew_count", side=side, count=len(drawn), source=source)

    def recycle_throw(self, side: int, amount: int) -> None:
        """Throw recycle: the most recently discarded Throw goes back to the hand."""
        for _ in range(amount):
            current = self.sides[side]
            throws = [i for i in current.discard if card(i).kind == THROW]
            if not throws:
                return
            chosen = throws[-1]
            at = len(current.discard) - 1 - current.discard[::-1].index(chosen)
            discard = current.discard[:at] + current.discard[at + 1:]
            self.set(side, discard=discard, hand=current.hand + (chosen,))
            self.emit("recycled", frozenset({side}), side=side, card=chosen)
            self.emit("recycled_throw", side=side)

    # -- damage and Star Power -------------------------------------------------------------
    def _shields_spent(self, side: int, amount: int, source: str) -> int:
        """How many Shields ``side`` spends against ``amount`` shieldable damage.

        A player decides (one ``shields`` decision per damage instance, asked only when
        Shields could prevent something); the Computer and the 1.1.0 ruleset spend as many
        as the damage needs.
        """
        current = self.sides[side]
        most = min(current.shields, amount)
        if most == 0 or current.computer or not self.rules.shield_choice:
            return most
        if self.answered < len(self.shield_answers):
            spent = min(most, self.shield_answers[self.answered])
            self.answered += 1
            return spent
        raise NeedShields(ShieldAsk(side, amount, most, source))

    def _hurt(self, hits: Mapping[int, int], shieldable: bool, source: str) -> list[int]:
        """Apply simultaneous damage; Shields may prevent it, never Star Power damage."""
        star_gains = [0, 0]
        hurt = sorted([(side, amount) for side, amount in hits.items() if amount > 0])
        if not hurt:
            return star_gains
        spent = {side: self._shields_spent(side, amount, source) if shieldable else 0
                 for side, amount in hurt}
        for side, amount in hurt:
            current = self.sides[side]
            prevented = spent[side]
            lost = min(current.health, amount - prevented)
            health = current.health - lost
            self.set(side, health=health, shields=current.shields - prevented)
            self.emit("damage", side=side, amount=amount, prevented=prevented, lost=lost,
                      health=health, source=source)
            ability = self.heroes[side].ability
            if lost > 0 and ability.type == "star_on_damage_taken":
                star_gains[side] += ability.amount
        return star_gains

    def deal(self, hits: Mapping[int, int], shieldable: bool, source: str) -> None:
        star_gains = self._hurt(hits, shieldable, source)
        self.check_ko()
        self.gain_stars(star_gains, "hero ability")

    def gain_stars(self, queue: list[int], source: str) -> None:
        """Gain Star tokens one at a time.

        When a hero's count reaches its star limit, that many stars are discarded and the
        Star Power resolves completely before any further star is gained. Both heroes gain
        the step's Stars together: each goes on gaining until its next Star Power, and the
        powers reached so resolve simultaneously (so both heroes can fall: a double KO).
        """
        if not (queue[0] or queue[1]):
            return  # no Star gained (the usual case after damage): nothing below happens
        queue = list(queue)
        for side in (0, 1):
            if queue[side]:
                self.emit("stars", side=side, gained=queue[side], source=source)
        if not self.rules.simultaneous_stars:
            self._gain_stars_in_rounds(queue)
            return
        while any(queue):
            fired = []
            for side in (self.attacker, self.defender):
                limit = self.heroes[side].star_limit
                while queue[side] > 0:
                    queue[side] -= 1
                    stars = self.sides[side].stars + 1
                    if stars >= limit:
                        self.set(side, stars=stars - limit)
                        fired.append(side)
                        break
                    self.set(side, stars=stars)
            if fired:
                extra = self.star_powers(fired)
                queue = [queue[0] + extra[0], queue[1] + extra[1]]

    def _gain_stars_in_rounds(self, queue: list[int]) -> None:
        """1.1.0: one Star each per round, Attacker first; powers of one round together."""
        while any(queue):
            fired = []
            for side in (self.attacker, self.defender):
                if queue[side] <= 0:
                    continue
                queue[side] -= 1
                limit = self.heroes[side].star_limit
                stars = self.sides[side].stars + 1
                if stars >= limit:
                    stars -= limit
                    fired.append(side)
                self.set(side, stars=stars)
            if fired:
                extra = self.star_powers(fired)
                queue = [queue[0] + extra[0], queue[1] + extra[1]]

    def star_powers(self, fired: list[int]) -> list[int]:
        for side in fired:
            self.emit("star_power", side=side, hero=self.sides[side].hero,
                      effects=dict(self.heroes[side].star_power))
        for side in fired:
            power = self.heroes[side]
            if power.power("heal"):
                self.heal(side, power.power("heal"), "star power")
            if power.power("shields"):
                self.gain_shields(side, power.power("shields"), "star power")
        hits = {1 - side: self.heroes[side].power("damage") for side in fired}
        star_gains = self._hurt(hits, shieldable=False, source="star power")
        self.check_ko()
        for side in fired:
            power = self.heroes[side]
            if power.power("strike"):
                self.strike(1 - side, power.power("strike"), "star power")
            if power.power("draw"):
                self.draw(side, power.power("draw"), "star power")
        return star_gains

    # -- the three steps ---------------------------------------------------------------------
    def step1_counters(self, defense: Defense) -> None:
        att, dfd = self.attacker, self.defender
        if defense.targets or defense.combo_breakers:
            self.emit("countered", side=dfd, removed=list(defense.targets),
                      combo_breakers=defense.combo_breakers)
        ability = self.heroes[dfd].ability
        if ability.type == "shield_on_block" and defense.blocks:
            self.gain_shields(dfd, ability.amount * defense.blocks, "hero ability")
        if ability.type == "strike_on_throw" and defense.throws:
            self.strike(att, ability.amount * defense.throws, "hero ability")
        early = self.early_damage(defense)
        if early:
            self.deal({att: early}, shieldable=True, source=STEP1_SOURCE)

    def early_damage(self, defense: Defense) -> int:
        """Step 1's damage to the Attacker: the Buttons played with Combo Breakers (and the
        Computer's Defend-section damage)."""
        early = defense.early_damage
        for button in defense.early_buttons:
            early += button_damage(self.heroes[self.defender], CARDS[button])
        return early

    def step2_joysticks(self, standing: list[Card], defense: Defense,
                        hits: tuple[ComboHit, ...]) -> None:
        att, dfd = self.attacker, self.defender
        gains: list[dict[str, int]] = [{}, {}]
        for stick in standing:
            if stick.kind == JOYSTICK:
                joystick_gains(gains[att], self.heroes[att], stick)
        for hit in hits:
            _add(gains[att], [(k, v) for k, v in hit.effects if k != "damage"])
        for stick_id in defense.joysticks:
            joystick_gains(gains[dfd], self.heroes[dfd], CARDS[stick_id])
        if defense.gains:
            _add(gains[dfd], dict(defense.gains).items())
        if not gains[att] and not gains[dfd]:
            return  # nothing gained: every effect below would do nothing
        for side in (att, dfd):
            got = gains[side]
            if got.get("shields"):
                self.gain_shields(side, got["shields"], "joystick")
            if got.get("heal"):
                self.heal(side, got["heal"], "joystick")
        for side in (att, dfd):
            if gains[side].get("strike"):
                self.strike(1 - side, gains[side]["strike"], "joystick")
        for side in (att, dfd):
            got = gains[side]
            if got.get("draw"):
                self.draw(side, got["draw"], "joystick")
            if got.get("recycle_throw"):
                self.recycle_throw(side, got["recycle_throw"])
        queue = [0, 0]
        queue[att], queue[dfd] = gains[att].get("stars", 0), gains[dfd].get("stars", 0)
        self.gain_stars(queue, "joystick")

    def step3_buttons(self, standing: list[Card], defense: Defense,
                      hits: tuple[ComboHit, ...]) -> None:
        self.deal(self.button_hits(standing, defense, hits), shieldable=True,
                  source=STEP3_SOURCE)

    def button_hits(self, standing: list[Card], defense: Defense,
                    hits: tuple[ComboHit, ...]) -> dict[int, int]:
        """Step 3's damage: the standing Buttons and the Universal Combos to the defender,
        the Buttons a Hero Ability let the defender play to the Attacker."""
        att, dfd = self.attacker, self.defender
        attacker_hero, defender_hero = self.heroes[att], self.heroes[dfd]
        to_defender = 0
        for c in standing:
            if c.kind == BUTTON:
                to_defender += button_damage(attacker_hero, c)
        if hits:
            to_defender += combo_total(hits, "damage")
            if attacker_hero.ability.type == "combo_damage_bonus":
                to_defender += attacker_hero.ability.amount * len(hits)
        to_attacker = 0
        for button in defense.late_buttons:
            to_attacker += button_damage(defender_hero, CARDS[button])
        return {dfd: to_defender, att: to_attacker}

    def run(self, attack: tuple[str, ...], defense: Defense) -> None:
        self.step1_counters(defense)
        self.after_counters(attack, defense)

    def standing(self, attack: tuple[str, ...],
                 defense: Defense) -> tuple[list[str], list[Card], tuple[ComboHit, ...]]:
        """The Attacker's cards left after Step 1, as ids and cards, and their Universal
        Combos (none after a Combo Breaker; from 1.5.0 only those the played cards met,
        ``combos_after_counters``)."""
        removed = defense.targets
        played = [i for i in attack if i not in removed]
        if defense.combo_breakers:
            hits: tuple[ComboHit, ...] = ()
        else:
            hits = combos_of(played)
            if removed and hits and self.rules.combos_as_played:
                hits = kept_combos(combos_of(attack), hits)
        return played, [CARDS[i] for i in played], hits

    def after_counters(self, attack: tuple[str, ...], defense: Defense) -> None:
        """Steps 2 and 3."""
        _, standing, hits = self.standing(attack, defense)
        if hits:
            self.emit("combos", side=self.attacker, combos=[hit.id for hit in hits])
        self.step2_joysticks(standing, defense, hits)
        self.step3_buttons(standing, defense, hits)

    def resume(self, attack: tuple[str, ...], defense: Defense, ask: ShieldAsk) -> bool:
        """Go on with a resolution that paused at ``ask``, from the sides it left then (a
        pause comes before the damage it asks about changes anything: the Shields of every
        side hurt are asked first), the answers so far in ``shield_answers``. The damage
        that asked is dealt again from its first Shield question: the answers given to it
        before the pause come again from ``shield_answers``, so its sides spend as they did.
        False (nothing done) for a pause of an unknown source."""
        if ask.source == STEP1_SOURCE:
            hits = {self.attacker: self.early_damage(defense)}
        elif ask.source == STEP3_SOURCE:
            _, standing, combos = self.standing(attack, defense)
            hits = self.button_hits(standing, defense, combos)
        else:
            return False
        asked_before = 0  # Shield questions this damage asked before ``ask`` (a lower side)
        for side, amount in sorted(hits.items()):
            if side >= ask.side:
                break
            if amount > 0 and self._asks(side, amount):
                asked_before += 1
        self.answered = len(self.shield_answers) - 1 - asked_before
        self.deal(hits, shieldable=True, source=ask.source)
        if ask.source == STEP1_SOURCE:
            self.after_counters(attack, defense)
        return True

    def _asks(self, side: int, amount: int) -> bool:
        """Would ``_shields_spent`` ask ``side`` about ``amount`` damage?"""
        current = self.sides[side]
        return (min(current.shields, amount) > 0 and not current.computer
                and self.rules.shield_choice)

def resolve(sides: tuple[Side, Side], attacker: int, attack: tuple[str, ...],
            defense: Defense, rules: Ruleset,
            shield_answers: tuple[int, ...] = (), settle: bool = False) -> Resolution:
    """Resolve one Attack and its Defense in Resolution Order, as far as the Shield
    decisions given so far (``shield_answers``, in the order they were asked) allow.

    ``settle``: once the resolution is over (not paused), the played cards go to their
    discard piles: the Attacker's (a player's; the Computer's are virtual) and the defence's.
    """
    table = Table(sides, attacker, rules, shield_answers)
    resolution = _played(table, attack, defense, settle, lambda: table.run(attack, defense))
    assert resolution is not None  # run answers None, never False
    return resolution


def resume(sides: tuple[Side, Side], attacker: int, attack: tuple[str, ...],
           defense: Defense, rules: Ruleset, shield_answers: tuple[int, ...],
           ask: ShieldAsk, settle: bool = False) -> Resolution | None:
    """:func:`resolve` of a resolution that paused at ``ask`` leaving ``sides``, now that
    ``shield_answers`` (the last one new) answer it: the same sides and pause as resolving
    again from the start, and only the events that come after the pause. ``None`` if the
    pause is not one :meth:`Table.resume` knows (then resolve again from the start)."""
    table = Table(sides, attacker, rules, shield_answers)
    return _played(table, attack, defense, settle, lambda: table.resume(attack, defense, ask))


def _played(table: Table, attack: tuple[str, ...], defense: Defense, settle: bool,
            play: Callable[[], object]) -> Resolution | None:
    """Run ``play`` on ``table`` (``None`` if it answers False: nothing done) until it ends,
    a knockout ends it, or it pauses for a Shield decision; then settle as :func:`resolve`
    says, and the resolution."""
    paused = None
    try:
        if play() is False:
            return None
    except Knockout:
        pass
    except NeedShields as need:
        paused = need.ask
    if settle and paused is None:
        table.put_away(attack, defense.cards)
    return Resolution(table.result(), tuple(table.events), table.knocked_out(), paused)
