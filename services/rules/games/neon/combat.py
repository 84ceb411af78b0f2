"""Attack in four stages: target, attack roll, defense roll, results.

An attack is a typed frame on the stack (:class:`~services.rules.games.neon.attack.Attack`)
that walks through its stages; each stage is a response window in which one side may apply
effects before passing ("roll" or "done"). Windows with nothing to apply pass by themselves.
"""

from __future__ import annotations

import functools
from itertools import combinations
from typing import Any

from services.rules.games.neon import state as state_module
from services.rules.games.neon.attack import DEFENDER_STAGES, AlliesWindow, Attack, new_attack
from services.rules.games.neon.cards import round_order
from services.rules.games.neon.content import (
    ATTACK_DIE,
    AUTOMA,
    DEFENSE_DIE,
    FIGHTERS,
    LOOT,
    MAX_ATTACK_DICE,
    MAX_DEFENSE_DICE,
    SECTOR_BY_EFFECT,
    SECTORS,
)
from services.rules.games.neon.defeat import take_damage
from services.rules.games.neon.fighters import (
    allies,
    can_afford,
    gain_energy,
    in_sector,
    manoeuvre_cost,
    spend_energy,
    token_at,
    usable_unique,
)
from services.rules.games.neon.loot import payments, spend_supply
from services.rules.games.neon.ring import distance, neighbours
from services.rules.games.neon.sectors import enter
from services.rules.games.neon.state import Draft, Fighter, State
from services.rules.games.windows import ResponseWindow

Action = dict[str, Any]
AUTO_STAGES = ("next", "finish")
RESUME = "resume_"
"""An allies' window whose last helper left the game goes on by itself (``resume_<which>``)."""


def is_auto_stage(stage: str) -> bool:
    return stage in AUTO_STAGES or stage.startswith(RESUME)


def limited_per_attack(s: State, key: str) -> bool:
    """Equipment effects are used once per attack; abilities and sector effects "any number
    of times per round as long as you have enough energy" (ruleset 2: once per attack)."""
    return not s.rules.abilities_any_number_of_times or key.startswith(("equip:", "team:"))


def unused(s: State, keys: list[str], used: tuple[str, ...]) -> list[str]:
    return [k for k in keys if k not in used or not limited_per_attack(s, k)]


# ---- targets and weapons -------------------------------------------------------------------

def weapon_range(s: State, idx: int, weapon: str) -> tuple[int | None, ...]:
    if weapon == "base":
        return (FIGHTERS[s.fighters[idx].fighter].base_weapon, None, None)
    return LOOT[weapon].range


def is_melee(weapon: str) -> bool:
    return weapon == "base" or (weapon in LOOT and LOOT[weapon].type == "melee")


def target_sector(s: State, target: str) -> int | None:
    parsed = _TARGETS.get(target)
    if parsed is None:
        kind, _, ref = target.partition(":")
        parsed = (kind == "bot", int(ref))
        if len(_TARGETS) < _PARSED_LIMIT:
            _TARGETS[target] = parsed
    if parsed[0]:  # a bot: its sector is in its name
        return parsed[1]
    return s.fighters[parsed[1]].sector


_TARGETS: dict[str, tuple[bool, int]] = {}
"""Targets as ``target_sector`` reads them: (a bot?, the number after the colon), by name
(a handful of names: ``f:<fighter>``, ``bot:<sector>``; a name that is no such pair raises,
as before, and is not kept)."""
_PARSED_LIMIT = 4096


def opponents(s: State, idx: int) -> list[tuple[str, int]]:
    """Every opponent on the arena, as (target, sector): fighters, the Automa, then bots.

    :func:`opponents_by_filter` in one pass, the names written once per number
    (:func:`_fighter_name`, :func:`_bot_name`); allies only in Coalition (``allies``)."""
    fighters = s.fighters
    team = None
    if s.mode == "coalition":
        try:
            team = fighters[idx].team
        except (IndexError, TypeError):  # no such fighter: as the filter decides it
            return opponents_by_filter(s, idx)
    out = []
    for f in fighters:
        sector = f.sector
        if sector is not None and f.idx != idx and not f.eliminated \
                and (team is None or f.team != team):
            out.append((_FIGHTER_NAMES.get(f.idx) or _fighter_name(f.idx), sector))
    for sector, _ in s.bots:
        if sector is not None:
            out.append((_BOT_NAMES.get(sector) or _bot_name(sector), sector))
    return out


def opponents_by_filter(s: State, idx: int) -> list[tuple[str, int]]:
    """:func:`opponents` as the rules read: each fighter on the arena that is not ``idx``
    and not its ally, then each bot."""
    out = [(f"f:{f.idx}", f.sector) for f in s.fighters
           if f.idx != idx and f.sector is not None and not f.eliminated  # on the arena
           and not allies(s, idx, f.idx)]
    out += [(f"bot:{sector}", sector) for sector, _ in s.bots]
    return [(t, sec) for t, sec in out if sec is not None]


def _fighter_name(n: int) -> str:
    name = f"f:{n}"
    if type(n) is int and len(_FIGHTER_NAMES) < _PARSED_LIMIT:
        _FIGHTER_NAMES[n] = name
    return name


def _bot_name(sector: int) -> str:
    name = f"bot:{sector}"
    if type(sector) is int and len(_BOT_NAMES) < _PARSED_LIMIT:
        _BOT_NAMES[sector] = name
    return name


_FIGHTER_NAMES: dict[int, str] = {}
"""``f"f:{n}"`` by fighter number (a handful), made once."""
_BOT_NAMES: dict[int, str] = {}
"""``f"bot:{sector}"`` by sector number (a handful), made once."""


def opponents_named(s: State, idx: int, target: Any) -> list[tuple[str, int]]:
    """``[foe for foe in opponents(s, idx) if foe[0] == target]``, without listing the
    others when ``target`` names a fighter (``f:<idx>``) or a bot (``bot:<sector>``) as
    ``opponents`` writes it; every opponent for a ``sector:`` target (an area weapon's
    answers need them all); anything else the filter itself."""
    if type(target) is str:
        if target.startswith("f:"):
            n = _written_int(target[2:])
            if n is None:
                return []
            return [(target, f.sector) for f in s.fighters
                    if f.idx == n and f.idx != idx and f.sector is not None
                    and not f.eliminated and not allies(s, idx, f.idx)]
        if target.startswith("bot:"):
            n = _written_int(target[4:])
            if n is None:
                return []
            return [(target, sector) for sector, _ in s.bots if sector == n]
        if not target.startswith("sector:"):
            return []  # opponents names fighters and bots only
        return opponents(s, idx)
    return [foe for foe in opponents(s, idx) if foe[0] == target]


def _written_int(text: str) -> int | None:
    """The int ``text`` is the ``f"{n}"`` of, else ``None`` (``"03"``, ``"+3"``, ``" 3"``:
    no target ``opponents`` writes)."""
    try:
        n = int(text)
    except ValueError:
        return None
    return n if str(n) == text else None


def dice_at(rng: tuple[int | None, ...], d: int) -> int:
    return (rng[d] or 0) if d < len(rng) else 0


def attack_options(s: State, idx: int, weapon: Any = None, target: Any = None) -> list[Action]:
    """The fighter's attacks: each weapon's targets in range (an area weapon's sectors),
    with Hook's pulls, then the Howitzer's. ``weapon`` and ``target`` (when not ``None``):
    those with that weapon and that target alone, in the same order (``validate`` checks a
    declared attack against those)."""
    f = s.fighters[idx]
    here = f.sector
    if here is None or f.eliminated:  # not on the arena
        return []
    # a fighter or bot target (an answer being checked) needs only that opponent: an area
    # weapon's answers (``sector:`` targets) cannot equal it, whatever the others are
    foes = opponents(s, idx) if target is None else opponents_named(s, idx, target)
    ring = s.ring
    out: list[Action] = []
    weapons = ["base"] + [e.card for e in f.equipment if LOOT[e.card].is_weapon]
    if weapon is not None:
        weapons = [w for w in weapons if w == weapon]
    pull = bool(weapons) and FIGHTERS[f.fighter].ability("pull") and \
        usable_unique(s, idx, "pull") is not None
    far: list[tuple[str, int, int]] | None = None  # (target, sector, distance), once
    for weapon_id in weapons:
        rng = weapon_range(s, idx, weapon_id)
        if weapon_id in LOOT and LOOT[weapon_id].area:
            foe_sectors = {sec for _, sec in foes}
            for sector in ring:
                if sector in foe_sectors and dice_at(rng, distance(ring, here, sector)):
                    area = f"sector:{sector}"
                    if target is None or area == target:
                        out.append({"type": "attack", "weapon": weapon_id, "target": area})
            continue
        if far is None:
            far = _distances(ring, here, foes, target)
        reach = len(rng)
        # dice_at(rng, d), written out: a weapon's dice at each foe's distance
        if not (pull and reach > 0 and rng[0]):  # no Hook: the foes in range, in order
            out += [{"type": "attack", "weapon": weapon_id, "target": foe}
                    for foe, _, d in far if d < reach and rng[d]]
            continue
        for foe, _, d in far:
            if d < reach and rng[d]:
                out.append({"type": "attack", "weapon": weapon_id, "target": foe})
            if d == 1 and hookable(s, foe, here):
                out.append({"type": "attack", "weapon": weapon_id, "target": foe,
                            "pull": True})
    if weapon is not None and weapon != "howitzer":
        return out
    howitzer = FIGHTERS[f.fighter].ability("howitzer")
    if howitzer and usable_unique(s, idx, "howitzer") is not None:
        if far is None:
            far = _distances(ring, here, foes, target)
        for foe, _, d in far:
            if d >= howitzer.min_range:
                out.append({"type": "attack", "weapon": "howitzer", "target": foe})
    return out


def _distances(ring: tuple[int, ...], here: int, foes: list[tuple[str, int]],
               target: Any = None) -> list[tuple[str, int, int]]:
    """(target, sector, ``distance(ring, here, sector)``) of each foe (``target``: of that
    target alone, when not ``None``), the ring's places found once."""
    if target is not None:
        foes = [foe for foe in foes if foe[0] == target]
    if not foes:
        return []
    n = len(ring)
    at = ring.index(here)
    # the shorter way round to the place k steps clockwise, for each k
    shorter = [k if k < n - k else (n - k) % n for k in range(n)]
    index = ring.index
    return [(foe, sector, shorter[(index(sector) - at) % n]) for foe, sector in foes]


def hookable(s: State, target: str, here: int) -> bool:
    """Hook moves "the target of the attack": a fighter, or (ruleset 3) a bot, which comes
    only into a sector without a bot (a sector holds one bot; bots are named by sector)."""
    if target.startswith("f:"):
        return True
    return s.rules.hook_reaches_bots and target.startswith("bot:") and here not in dict(s.bots)


def declare(w: Draft, idx: int, action: Action) -> None:
    weapon, target = action["weapon"], action["target"]
    here = w.f(idx).sector
    assert here is not None
    if action.get("pull"):
        spend_energy(w, idx, usable_unique(w.s, idx, "pull") or 0)
        w.emit("ability", {"fighter": idx, "ability": "pull", "target": target})
        if target.startswith("bot:"):
            w.set(bots=tuple(sorted((here if sector == int(target[4:]) else sector, token)
                                    for sector, token in w.s.bots)))
            w.emit("bot_moved", {"from": int(target[4:]), "sector": here})
            target = f"bot:{here}"
        else:
            enter(w, int(target[2:]), here)
    if weapon == "howitzer":
        howitzer = FIGHTERS[w.f(idx).fighter].ability("howitzer")
        assert howitzer is not None
        spend_energy(w, idx, usable_unique(w.s, idx, "howitzer") or 0)
        count = howitzer.dice
    else:
        sector = int(target[7:]) if target.startswith("sector:") else target_sector(w.s, target)
        if sector is None:  # a pulled target fell into a Trap and left the arena
            w.emit("attack_fizzled", {"fighter": idx, "target": target})
            return
        count = dice_at(weapon_range(w.s, idx, weapon), distance(w.s.ring, here, sector))
    if target.startswith("sector:"):
        sector = int(target[7:])
        targets = tuple(t for t, sec in opponents(w.s, idx) if sec == sector)
    else:
        targets = (target,)
    if not w.f(idx).on_arena or not targets:
        return
    w.emit("attack_declared", {"fighter": idx, "weapon": weapon, "targets": list(targets),
                               "dice": count})
    w.push(new_attack(idx, weapon, targets, count))


# ---- who owes the answer in each stage ---------------------------------------------------------

def attack_on_top(s: State) -> Attack:
    fr = s.stack[-1]
    assert isinstance(fr, Attack), f"the top frame is {fr.kind}, not an attack"
    return fr


def defender_of(fr: Attack) -> int | None:
    """``fr.defending_fighter``, written out (a property read is a generic lookup), the
    fighter read from a name met before without parsing it again."""
    defender = fr.defender
    found = _DEFENDERS.get(defender, _UNSEEN)
    if found is _UNSEEN:
        found = int(defender[2:]) if defender.startswith("f:") else None
        if len(_DEFENDERS) < _PARSED_LIMIT:
            _DEFENDERS[defender] = found
    return found  # type: ignore[return-value]


_DEFENDERS: dict[str, int | None] = {}
"""``defender_of`` by the defender's name (``f:<fighter>``, a bot's, ``""``)."""
_UNSEEN = object()


def window_owner(fr: Attack) -> int:
    """``fr.answering.current``, without building the window of a one-seat stage."""
    stage = fr.stage
    if stage in DEFENDER_STAGES:
        owner = defender_of(fr)
    elif stage == "help":
        owner = fr.answering.current
    else:
        return fr.attacker
    assert owner is not None
    return owner


def simultaneous(s: State, target: str) -> bool:
    """Bots and the Automa roll their defense dice together with the attack dice."""
    return target.startswith("bot:") or s.fighters[int(target[2:])].fighter == "automa"


def defense_dice(s: State, target: str) -> int:
    sector = target_sector(s, target)
    smoke = token_at(s, "smoke")
    extra = 1 if smoke is not None and smoke[1] == sector else 0
    if target.startswith("bot:"):
        return 1 + extra
    f = s.fighters[int(target[2:])]
    if f.fighter == "automa":
        return AUTOMA["defense_dice"] + extra
    base = FIGHTERS[f.fighter].base_armour + (1 if "reactive-plating" in f.upgrades else 0)
    return base + f.shields + extra


def weapon_effects(s: State, idx: int, weapon: str, when: str) -> list[tuple[str, str]]:
    """(key, supply) of the still-equipped weapon's effects of one timing."""
    f = s.fighters[idx]
    if weapon not in LOOT:
        return []
    for e in f.equipment:  # any(e.card == weapon ...), without a generator
        if e.card == weapon:
            break
    else:
        return []
    return [(f"equip:{weapon}:{i}", eff.supply) for i, eff in enumerate(LOOT[weapon].effects)
            if eff.when == when]


def worn_effects(f: Fighter, when: str) -> list[tuple[str, str, str]]:
    """(key, supply, hit) of armour and helmet effects of one timing."""
    out = []
    for e in f.equipment:
        card = LOOT[e.card]
        if card.type in ("armour", "helmet"):
            out += [(f"equip:{e.card}:{i}", eff.supply, eff.hit)
                    for i, eff in enumerate(card.effects) if eff.when == when]
    return out


def reroll_actions(dice: tuple[str, ...], by: str, single: bool) -> tuple[Action, ...]:
    return reroll_choices(len(dice), by, single)


@functools.lru_cache(maxsize=256)
def reroll_choices(count: int, by: str, single: bool) -> tuple[Action, ...]:
    """Which of ``count`` dice to roll again: the same answers for every roll of that many
    dice (legal answers are read, never changed, so they are made once)."""
    sizes = (1,) if single else range(1, count + 1)
    return tuple({"type": "reroll", "by": by, "dice": list(c)}
                 for n in sizes for c in combinations(range(count), n))


def can_reroll(s: State, idx: int) -> bool:
    return not in_sector(s, idx, "police")


# ---- legal answers per stage -------------------------------------------------------------------

def with_payments(s: State, idx: int, fr: Attack, actions: list[Action]) -> list[Action]:
    """Ruleset 3: an equipment effect is offered once per way to pay it (``pay``)."""
    if (len(actions) == 1 and actions[0]["type"] not in ("boost", "effect")) or \
            not s.rules.player_chooses_supply:
        return actions  # nothing to pay for (a window's pass alone: most windows)
    out: list[Action] = []
    f = s.fighters[idx]
    card_last = s.rules.card_pays_only_without_supply
    for a in actions:
        key = str(a.get("effect", ""))
        if a["type"] in ("boost", "effect") and key.startswith(("equip:", "team:")):
            card, supply = effect_supply(key)
            out += [{**a, "pay": p} for p in payments(f, card, supply, fr.bots_won, card_last)]
        else:
            out.append(a)
    return out


def effect_supply(key: str) -> tuple[str, str]:
    """(card, supply type) of an equipment effect key ``equip:<card>:<i>`` / ``team:<card>``."""
    parts = key.split(":")
    card = parts[1]
    if parts[0] == "team":
        team = LOOT[card].team_effect
        assert team is not None
        return card, team.supply
    return card, LOOT[card].effects[int(parts[2])].supply


def attack_legal(s: State, fr: Attack) -> list[Action]:
    """The legal answers to the attack ``fr`` in ``s``. ``advance`` asks whether the top
    attack needs an answer, then ``pending`` asks for the same list about the same state:
    the last (state, frame, answer) is kept (``state.LEGAL_MEMO``: a draft's state changes
    in place, and each change forgets it; answers are read, never changed)."""
    last = state_module.LEGAL_MEMO
    if last[0] is s and last[1] is fr:
        return last[2]  # type: ignore[no-any-return]
    stage = fr.stage
    legal = stage_legal(s, fr)
    if stage not in ("blocks", "worn") and \
            (len(legal) != 1 or legal[0]["type"] in ("boost", "effect")):
        # with_payments' own first test, before the call: a window's pass alone (most
        # windows) has nothing to pay for
        legal = with_payments(s, window_owner(fr), fr, legal)
    state_module.LEGAL_MEMO = (s, fr, legal)
    return legal


def full_block_choices(s: State, fr: Attack) -> range:
    """How many full blocks the defender may put on critical hits (the rest on normal hits).

    Empty unless the choice matters: the defender wears a mandatory helmet or armour effect,
    or the attacker's upgrade makes critical hits deal more damage.
    """
    defender = defender_of(fr)
    if not s.rules.defender_assigns_full_blocks or defender is None or \
            s.fighters[defender].fighter == "automa":
        return range(0)
    if not worn_effects(s.fighters[defender], "mandatory") and \
            "critical-core" not in s.fighters[fr.attacker].upgrades:
        return range(0)
    crits, hits, full = after_normal_blocks(s, fr)
    low, high = max(0, full - hits), min(full, crits)
    return range(low, high + 1) if high > low else range(0)


def stage_legal(s: State, fr: Attack) -> list[Action]:
    """The answers of the stage's window; its pass (``roll`` or ``done``), when it has one,
    comes last and once (``engine.pass_last`` relies on it)."""
    stage = fr.stage
    idx = fr.attacker
    me = s.fighters[idx]
    used = fr.attacker_used
    if stage == "blocks":
        return [{"type": "assign_blocks", "on_crits": k}
                for k in reversed(full_block_choices(s, fr))]
    if stage == "worn":
        return worn_legal(s, fr)
    if stage == "prep":
        out: list[Action] = []
        if me.fighter != "automa" and fr.attack_dice < MAX_ATTACK_DICE:
            out += [{"type": "boost", "effect": k} for k in attack_boosts(s, fr)]
        return out + [{"type": "roll"}]
    if stage == "after":
        out = []
        if me.fighter != "automa":
            dice = fr.attack_roll
            if not fr.attack_rerolled and can_reroll(s, idx) and dice:
                if in_sector(s, idx, "highway"):
                    out += reroll_actions(dice, "highway", True)
                if can_afford(s, idx, manoeuvre_cost(s, idx, "A")):
                    out += reroll_actions(dice, "manoeuvre_a", False)
            out += [{"type": "effect", "effect": k} for k in attack_flips(s, fr)]
        return out + [{"type": "done"}]
    if stage == "dprep":
        defender = defender_of(fr)
        assert defender is not None
        out = []
        if fr.defense_dice < MAX_DEFENSE_DICE:
            out += [{"type": "boost", "effect": k} for k in defense_boosts(s, fr, defender)]
        return out + [{"type": "roll"}]
    if stage == "dafter":
        defender = defender_of(fr)
        assert defender is not None
        out = []
        ddice = fr.defense_roll
        if not fr.defense_rerolled and ddice and \
                can_reroll(s, defender) and \
                can_afford(s, defender, manoeuvre_cost(s, defender, "A")):
            out += reroll_actions(ddice, "manoeuvre_a", False)
        if unused(s, ["phantom"], fr.defender_used) and \
                usable_unique(s, defender, "phantom") is not None and settle_current(s, fr)[1] > 0:
            out.append({"type": "effect", "effect": "phantom"})
        return out + [{"type": "done"}]
    if stage == "counter":
        out = []
        if me.fighter != "automa" and blocks_left(s, fr) > 0:
            out += [{"type": "effect", "effect": k}
                    for k, _ in weapon_effects(s, idx, fr.weapon, "after_defense")
                    if k not in used]
        return out + [{"type": "done"}]
    if stage == "help":
        return help_legal(s, fr, window_owner(fr)) + [{"type": "done"}]
    if stage == "dodge":
        here = me.sector
        moves = [{"type": "dodge", "sector": n} for n in neighbours(s.ring, here)] \
            if here is not None else []
        return moves + [{"type": "done"}]
    return []


def effect_cost(effect: str) -> int:
    return SECTORS[SECTOR_BY_EFFECT[effect]].cost


def attack_boosts(s: State, fr: Attack) -> list[str]:
    idx, used, weapon = fr.attacker, fr.attacker_used, fr.weapon
    me = s.fighters[idx]
    out = []
    if in_sector(s, idx, "factory") and me.energy >= effect_cost("factory"):
        out.append("factory")
    if usable_unique(s, idx, "focus") is not None:
        out.append("focus")
    if is_melee(weapon) and usable_unique(s, idx, "venom") is not None:
        out.append("venom")
    if "targeting-module" in me.upgrades and "targeting-module" not in me.used_upgrades:
        out.append("targeting-module")
    out += [k for k, _ in weapon_effects(s, idx, weapon, "before_attack")]
    return unused(s, out, used)


def attack_flips(s: State, fr: Attack) -> list[str]:
    idx, used, dice = fr.attacker, fr.attacker_used, fr.attack_roll
    me = s.fighters[idx]
    out = []
    if "maybe" in dice:
        if in_sector(s, idx, "park") and me.energy >= effect_cost("park"):
            out.append("park")
        if "stabilizer" in me.upgrades and "stabilizer" not in me.used_upgrades:
            out.append("stabilizer")
        out += [k for k, _ in weapon_effects(s, idx, fr.weapon, "after_attack")]
    if "miss" in dice and usable_unique(s, idx, "overload") is not None:
        out.append("overload")
    return unused(s, out, used)


def defense_boosts(s: State, fr: Attack, defender: int) -> list[str]:
    me = s.fighters[defender]
    out = [a for a in ("shield", "static") if usable_unique(s, defender, a) is not None]
    if "cortex-link" in me.upgrades and "cortex-link" not in me.used_upgrades:
        out.append("cortex-link")
    out += [k for k, _, _ in worn_effects(me, "optional_before_defense")]
    return unused(s, out, fr.defender_used)


# ---- dice arithmetic ---------------------------------------------------------------------------

def normal_blocked(attack: tuple[str, ...], defense: tuple[str, ...], stadium: bool,
                   block_to_fail: int) -> tuple[int, int, int]:
    """(critical hits, normal hits, full blocks) once normal blocks cancelled normal hits.
    In the Stadium normal blocks count as fails."""
    crits, hits = attack.count("crit"), attack.count("hit")
    blocks = 0 if stadium else defense.count("block")
    blocks = max(0, blocks - block_to_fail)
    return crits, hits - min(blocks, hits), defense.count("full")


def settle(attack: tuple[str, ...], defense: tuple[str, ...], stadium: bool, block_to_fail: int,
           cancel_hits: int, on_crits: int | None = None) -> tuple[int, int]:
    """Uncancelled (critical hits, normal hits).

    Normal blocks cancel normal hits; "each full block cancels 1 critical hit or 1 normal hit,
    at the defender's choice": ``on_crits`` full blocks go on critical hits (``None``:
    critical hits first, ruleset 2's fixed choice and the default), the rest on normal hits.
    """
    crits, hits, full = normal_blocked(attack, defense, stadium, block_to_fail)
    low, high = max(0, full - hits), min(full, crits)
    on_crits = high if on_crits is None else max(low, min(high, on_crits))
    crits, full = crits - on_crits, full - on_crits
    hits -= min(full, hits)
    return crits, max(0, hits - cancel_hits)


def in_stadium(s: State, target: str) -> bool:
    sector = target_sector(s, target)
    return sector is not None and SECTORS[sector].effect == "stadium"


def settle_current(s: State, fr: Attack) -> tuple[int, int]:
    cur = fr.defender
    return settle(fr.attack_roll, fr.defense_roll, in_stadium(s, cur),
                  fr.blocks_as_fails, fr.hits_cancelled, fr.full_blocks_on_crits)


def after_normal_blocks(s: State, fr: Attack) -> tuple[int, int, int]:
    return normal_blocked(fr.attack_roll, fr.defense_roll,
                          in_stadium(s, fr.defender), fr.blocks_as_fails)


def blocks_left(s: State, fr: Attack) -> int:
    if in_stadium(s, fr.defender):
        return 0
    return fr.defense_roll.count("block") - fr.blocks_as_fails


# ---- applying answers --------------------------------------------------------------------------

def pay_effect(w: Draft, idx: int, key: str, fr: Attack, pay: str | None = None) -> None:
    """Pay for an effect by its key: energy for abilities and sectors, a supply for equipment
    (the one the player named in ``pay``, ruleset 3)."""
    s = w.s
    if key.startswith("equip:"):
        _, card, i = key.split(":")
        spend_supply(w, idx, card, LOOT[card].effects[int(i)].supply, fr.bots_won, pay)
    elif key in ("factory", "park"):
        spend_energy(w, idx, effect_cost(key))
    elif key in ("stabilizer", "targeting-module", "cortex-link"):
        w.update(idx, used_upgrades=w.f(idx).used_upgrades + (key,))
    else:
        spend_energy(w, idx, usable_unique(s, idx, key) or 0)
    w.emit("effect_used", {"fighter": idx, "effect": key})


def flip_first(dice: tuple[str, ...], face: str, to: str) -> tuple[str, ...]:
    out = list(dice)
    out[out.index(face)] = to
    return tuple(out)


def attack_apply(w: Draft, seat: int, action: Action) -> None:
    fr = w.s.stack[-1]  # attack_on_top(w.s), written out
    assert isinstance(fr, Attack), f"the top frame is {fr.kind}, not an attack"
    stage, kind = fr.stage, action["type"]
    if stage == "prep":
        if kind == "boost":
            key = action["effect"]
            pay_effect(w, seat, key, fr, action.get("pay"))
            w.replace_top(fr.but(attack_dice=fr.attack_dice + 1, attacker_used=fr.attacker_used + (key,)))
        else:
            ask_allies(w, fr, "attack_prep")
    elif stage == "after":
        if kind == "reroll":
            reroll(w, seat, action, fr, "attack")
        elif kind == "effect":
            key = action["effect"]
            pay_effect(w, seat, key, fr, action.get("pay"))
            face = "miss" if key == "overload" else "maybe"
            dice = flip_first(fr.attack_roll, face, "hit")
            w.emit("dice_changed", {"fighter": seat, "dice": list(dice)})
            w.replace_top(fr.but(attack_roll=dice, attacker_used=fr.attacker_used + (key,)))
        else:
            ask_allies(w, fr, "attack_after")
    elif stage == "dprep":
        if kind == "boost":
            key = action["effect"]
            pay_effect(w, seat, key, fr, action.get("pay"))
            bonus = 2 if key == "shield" else 1
            w.replace_top(fr.but(defense_dice=fr.defense_dice + bonus, defender_used=fr.defender_used + (key,)))
        else:
            ask_allies(w, fr, "defense_prep")
    elif stage == "dafter":
        if kind == "reroll":
            reroll(w, seat, action, fr, "defense")
        elif kind == "effect":
            pay_effect(w, seat, "phantom", fr)
            w.replace_top(fr.but(hits_cancelled=fr.hits_cancelled + 1,
                                 defender_used=fr.defender_used + ("phantom",)))
        else:
            ask_allies(w, fr, "defense_after")
    elif stage == "help":
        help_apply(w, seat, action, fr)
    elif stage == "blocks":
        resolve(w, fr.but(full_blocks_on_crits=int(action["on_crits"]), blocks_assigned=True))
    elif stage == "worn":
        nxt = worn_left(w.s, fr)[2]
        assert nxt is not None
        resolve(w, apply_worn(w, fr, nxt[0], nxt[1], action.get("pay")))
    elif stage == "counter":
        if kind == "effect":
            key = action["effect"]
            pay_effect(w, seat, key, fr, action.get("pay"))
            w.replace_top(fr.but(blocks_as_fails=fr.blocks_as_fails + 1,
                                 attacker_used=fr.attacker_used + (key,)))
        elif full_block_choices(w.s, fr):
            w.replace_top(fr.but(stage="blocks"))
        else:
            resolve(w, attack_on_top(w.s))
    elif stage == "dodge":
        w.pop()
        if kind == "dodge":
            spend_energy(w, seat, manoeuvre_cost(w.s, seat, "B"))
            w.emit("ability", {"fighter": seat, "ability": "manoeuvre_b"})
            enter(w, seat, action["sector"])


def reroll(w: Draft, seat: int, action: Action, fr: Attack, side: str) -> None:
    """The one reroll of the attack (``side`` "attack") or defense dice of this attack."""
    if action["by"] == "manoeuvre_a":
        spend_energy(w, seat, manoeuvre_cost(w.s, seat, "A"))
    dice = rerolled(w, action, fr, side)
    w.emit("reroll", {"fighter": seat, "by": action["by"], "dice": list(dice)})
    if side == "attack":
        w.replace_top(fr.but(attack_roll=dice, attack_rerolled=True,
                             attacker_used=fr.attacker_used + (action["by"],)))
    else:
        w.replace_top(fr.but(defense_roll=dice, defense_rerolled=True,
                             defender_used=fr.defender_used + (action["by"],)))


def rerolled(w: Draft, action: Action, fr: Attack, side: str) -> tuple[str, ...]:
    """The attack or defense roll with the dice the action picked rolled again."""
    faces = ATTACK_DIE if side == "attack" else DEFENSE_DIE
    dice = list(fr.attack_roll if side == "attack" else fr.defense_roll)
    picked = list(action["dice"])
    for i, face in zip(picked, w.rng.roll(faces, len(picked)), strict=True):
        dice[i] = face
    return tuple(dice)


def roll_attack(w: Draft, fr: Attack) -> None:
    count = min(fr.attack_dice, MAX_ATTACK_DICE)
    dice = tuple(w.rng.roll(ATTACK_DIE, count))
    sim = []
    for target in fr.targets:
        if simultaneous(w.s, target):
            n = min(defense_dice(w.s, target), MAX_DEFENSE_DICE)
            sim.append((target, tuple(w.rng.roll(DEFENSE_DIE, n))))
    w.emit("attack_roll", {"fighter": fr.attacker, "dice": list(dice),
                           "defense": [[t, list(d)] for t, d in sim]})
    w.replace_top(fr.but(stage="after", attack_roll=dice, simultaneous_defense=tuple(sim)))


def target_order(s: State, targets: tuple[str, ...]) -> tuple[str, ...]:
    """Defenders in turn order, bots last (in ring order)."""
    if len(targets) == 1 and targets[0].startswith(("f:", "bot:")):
        return targets  # one target (most attacks): no turn order to find
    order = {idx: n for n, idx in enumerate(round_order(s))}
    fighters = sorted((t for t in targets if t.startswith("f:")),
                      key=lambda t: order.get(int(t[2:]), 99))
    return tuple(fighters) + tuple(t for t in targets if t.startswith("bot:"))


def step(w: Draft) -> None:
    """Advance an automatic stage of the attack on top of the stack."""
    fr = w.s.stack[-1]  # attack_on_top(w.s), written out
    assert isinstance(fr, Attack), f"the top frame is {fr.kind}, not an attack"
    if fr.stage.startswith(RESUME):
        after_help(w, fr.but(stage=""), fr.stage[len(RESUME):])
        return
    if fr.stage == "next":
        queue = fr.defenders_left
        if not queue:
            w.replace_top(fr.but(stage="finish"))
            return
        cur, rest = queue[0], queue[1:]
        # the next defender's fields and its stage in one new attack (not one, then another)
        if target_sector(w.s, cur) is None and cur.startswith("f:"):
            w.replace_top(fr.but(defenders_left=rest, defender=cur, defense_roll=(),
                                 defense_rerolled=False, defender_used=(), hits_cancelled=0,
                                 blocks_as_fails=0))
        elif simultaneous(w.s, cur):
            ddice = dict(fr.simultaneous_defense).get(cur, ())
            w.replace_top(fr.but(defenders_left=rest, defender=cur, defense_roll=ddice,
                                 defense_rerolled=False, defender_used=(), hits_cancelled=0,
                                 blocks_as_fails=0, stage="counter"))
        else:
            w.replace_top(fr.but(defenders_left=rest, defender=cur, defense_roll=(),
                                 defense_rerolled=False, defender_used=(), hits_cancelled=0,
                                 blocks_as_fails=0, stage="dprep",
                                 defense_dice=defense_dice(w.s, cur)))
        return
    w.pop()
    attacker = fr.attacker
    me = w.f(attacker)
    if not fr.damage_dealt and me.fighter != "automa" and me.on_arena and \
            can_afford(w.s, attacker, manoeuvre_cost(w.s, attacker, "B")) and \
            neighbours(w.s.ring, me.sector):  # type: ignore[arg-type]
        w.push(fr.but(stage="dodge"))


def worn_left(s: State, fr: Attack) -> tuple[int, int, tuple[str, str] | None]:
    """Uncancelled (critical hits, normal hits) after the mandatory helmet and armour effects
    already applied (their card may be gone, paid for with itself), and the next one that
    must apply: (key, supply), or ``None``."""
    crits, hits = settle_current(s, fr)
    defender = defender_of(fr)
    if defender is None or s.fighters[defender].fighter == "automa":
        return crits, hits, None
    used = fr.defender_used
    for key in used:
        if key.startswith("equip:"):
            _, card, i = key.split(":")
            effect = LOOT[card].effects[int(i)]
            if effect.when == "mandatory" and effect.hit == "crit":
                crits = max(0, crits - 1)
            elif effect.when == "mandatory" and effect.hit == "hit":
                hits = max(0, hits - 1)
    for key, supply, hit in worn_effects(s.fighters[defender], "mandatory"):
        if key not in used and ((hit == "crit" and crits > 0) or (hit == "hit" and hits > 0)):
            return crits, hits, (key, supply)
    return crits, hits, None


def worn_legal(s: State, fr: Attack) -> list[Action]:
    defender = defender_of(fr)
    nxt = worn_left(s, fr)[2]
    if defender is None or nxt is None:
        return []
    card = nxt[0].split(":")[1]
    return [{"type": "effect", "effect": nxt[0], "pay": p}
            for p in payments(s.fighters[defender], card, nxt[1], (),
                              s.rules.card_pays_only_without_supply)]


def apply_worn(w: Draft, fr: Attack, key: str, supply: str, pay: str | None) -> Attack:
    defender = defender_of(fr)
    assert defender is not None
    spend_supply(w, defender, key.split(":")[1], supply, (), pay)
    w.emit("effect_used", {"fighter": defender, "effect": key, "mandatory": True})
    return fr.but(defender_used=fr.defender_used + (key,))


def resolve(w: Draft, fr: Attack) -> None:
    """Apply mandatory helmet and armour effects (ruleset 3: the defender names the supply
    when there is more than one way to pay), then the damage of the current target."""
    while True:
        crits, hits, nxt = worn_left(w.s, fr)
        if nxt is None:
            break
        if w.s.rules.player_chooses_supply and len(worn_legal(w.s, fr)) > 1:
            w.replace_top(fr.but(stage="worn"))
            return
        fr = apply_worn(w, fr, nxt[0], nxt[1], None)
    s = w.s
    cur = fr.defender
    dused = fr.defender_used
    defender = defender_of(fr)
    if defender is not None and s.fighters[defender].fighter != "automa":
        energy = fr.defense_roll.count("fail_energy")
        if energy:
            gain_energy(w, defender, energy)
    attacker = w.f(fr.attacker)
    damage = crits + hits + (crits if "critical-core" in attacker.upgrades else 0)
    fresh = fr.bots_won
    w.emit("attack_result", {"fighter": fr.attacker, "target": cur, "damage": damage})
    if cur.startswith("bot:") and damage > 0:
        sector = int(cur[4:])
        token = dict(w.s.bots)[sector]
        w.set(bots=tuple(b for b in w.s.bots if b[0] != sector))
        w.update(fr.attacker, bots=attacker.bots + ((token, False),))
        w.emit("bot_destroyed", {"fighter": fr.attacker, "sector": sector, "token": token})
        fresh += (token,)
    done = fr.but(stage="next", damage_dealt=fr.damage_dealt or damage > 0, bots_won=fresh,
                  defender_used=dused, defender="")
    if fr.full_blocks_on_crits is not None:
        done = done.but(full_blocks_on_crits=None)
    w.replace_top(done)
    if defender is not None and damage > 0:
        take_damage(w, defender, damage, fr.attacker)


# ---- allies (Coalition): Manoeuvre A on an ally's dice, team effects ------------------------------

HELP_SIDE = {"attack_prep": "attack", "attack_after": "attack", "defense_prep": "defense",
             "defense_after": "defense"}


def side_fighter(fr: Attack, side: str) -> int | None:
    return fr.attacker if side == "attack" else defender_of(fr)


def allies_in_sector(s: State, idx: int) -> tuple[int, ...]:
    """The fighters on the arena in ``idx``'s sector that are its allies: ``f.on_arena and
    f.sector == me.sector and allies(s, idx, f.idx)`` for each, its tests written out in the
    cheapest order (none outside Coalition, none for a fighter off the arena: no fighter on
    the arena shares its sector ``None``)."""
    fighters = s.fighters
    me = fighters[idx]
    sector = me.sector
    if sector is None or s.mode != "coalition":
        return ()
    team = me.team
    return tuple(f.idx for f in fighters
                 if f.sector == sector and not f.eliminated and f.idx != idx
                 and fighters[f.idx].team == team)


def team_effects(s: State, ally: int, when: str) -> list[tuple[str, str, str]]:
    """(key, card, supply) of the ally's team effects of one timing."""
    out = []
    for e in s.fighters[ally].equipment:
        team = LOOT[e.card].team_effect
        if team is not None and team.when == when:
            out.append((f"team:{e.card}", e.card, team.supply))
    return out


def help_legal(s: State, fr: Attack, ally: int) -> list[Action]:
    assert fr.allies is not None
    which = fr.allies.moment
    side = HELP_SIDE[which]
    helped = side_fighter(fr, side)
    if helped is None:
        return []
    used = fr.attacker_used if side == "attack" else fr.defender_used
    if which in ("attack_prep", "defense_prep"):
        limit = MAX_ATTACK_DICE if side == "attack" else MAX_DEFENSE_DICE
        count = fr.attack_dice if side == "attack" else fr.defense_dice
        if count >= limit:
            return []
        when = "ally_before_attack" if side == "attack" else "ally_before_defense"
        return [{"type": "boost", "effect": key} for key, _, _ in team_effects(s, ally, when)
                if key not in used]
    dice = fr.attack_roll if side == "attack" else fr.defense_roll
    rerolled = fr.attack_rerolled if side == "attack" else fr.defense_rerolled
    if rerolled or not dice or not can_reroll(s, helped) or \
            not can_afford(s, ally, manoeuvre_cost(s, ally, "A")):
        return []
    return list(reroll_actions(dice, "ally_manoeuvre_a", False))


def ask_allies(w: Draft, fr: Attack, which: str) -> None:
    """Open a window for each ally in the sector of the side that just passed, then go on."""
    helpers: tuple[int, ...] = ()
    if w.s.mode == "coalition":  # allies only there: the helped side read only then
        helped = side_fighter(fr, HELP_SIDE[which])
        if helped is not None and w.f(helped).fighter != "automa":
            helpers = allies_in_sector(w.s, helped)
    if helpers:
        w.replace_top(fr.but(stage="help", allies=AlliesWindow(which, ResponseWindow(helpers))))
    else:
        after_help(w, fr, which)


def after_help(w: Draft, fr: Attack, which: str) -> None:
    if which == "attack_prep":
        roll_attack(w, fr)
    elif which == "attack_after":
        w.replace_top(fr.but(stage="next", defenders_left=target_order(w.s, fr.targets)))
    elif which == "defense_prep":
        ddice = w.rng.roll(DEFENSE_DIE, min(fr.defense_dice, MAX_DEFENSE_DICE))
        w.emit("defense_roll", {"fighter": defender_of(fr), "dice": list(ddice)})
        w.replace_top(fr.but(stage="dafter", defense_roll=tuple(ddice)))
    else:
        w.replace_top(fr.but(stage="counter"))


def help_apply(w: Draft, ally: int, action: Action, fr: Attack) -> None:
    """An ally's answer: a team effect or Manoeuvre A (the window waits for its next answer),
    or ``done`` (the window moves on to the next ally, or closes and the attack goes on)."""
    allies_window = fr.allies
    assert allies_window is not None
    which = allies_window.moment
    side = HELP_SIDE[which]
    if action["type"] == "boost":
        key = action["effect"]
        card = key.split(":", 1)[1]
        team = LOOT[card].team_effect
        assert team is not None
        spend_supply(w, ally, card, team.supply, fr.bots_won, action.get("pay"))
        w.emit("effect_used", {"fighter": ally, "effect": key, "team": True})
        if side == "attack":
            w.replace_top(fr.but(attack_dice=fr.attack_dice + 1, attacker_used=fr.attacker_used + (key,)))
        else:
            w.replace_top(fr.but(defense_dice=fr.defense_dice + 1, defender_used=fr.defender_used + (key,)))
        return
    if action["type"] == "reroll":
        spend_energy(w, ally, manoeuvre_cost(w.s, ally, "A"))
        dice = rerolled(w, action, fr, side)
        w.emit("reroll", {"fighter": ally, "by": "ally_manoeuvre_a", "dice": list(dice)})
        if side == "attack":
            w.replace_top(fr.but(attack_roll=dice, attack_rerolled=True))
        else:
            w.replace_top(fr.but(defense_roll=dice, defense_rerolled=True))
        return
    window = allies_window.window.pass_(ally)
    fr = fr.but(allies=AlliesWindow(which, window))
    if window.closed:
        after_help(w, fr.but(stage=""), which)
    else:
        w.replace_top(fr)
