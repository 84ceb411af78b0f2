"""Shortcuts of the attack's steps give what the general steps give, on states of seeded
games of every mode (rule and random bots)."""

from __future__ import annotations

from services.rules.games.neon.attack import Attack
from services.rules.games.neon.cards import round_order
from services.rules.games.neon.combat import (
    attack_options,
    effect_supply,
    is_auto_stage,
    opponents,
    opponents_named,
    stage_legal,
    target_order,
    window_owner,
    with_payments,
)
from services.rules.games.neon.loot import payments

from .helpers import every_mode


def _states():
    return every_mode("combat-shortcuts", 4)


def _in_turn_order(s, targets):
    """``target_order`` without its one-target shortcut."""
    order = {idx: n for n, idx in enumerate(round_order(s))}
    fighters = sorted((t for t in targets if t.startswith("f:")),
                      key=lambda t: order.get(int(t[2:]), 99))
    return tuple(fighters) + tuple(t for t in targets if t.startswith("bot:"))


def test_a_single_target_is_its_own_order_and_several_keep_the_turn_order():
    checked = 0
    for s in _states():
        for f in s.fighters:
            foes = tuple(t for t, _ in opponents(s, f.idx))
            for t in foes:
                assert target_order(s, (t,)) == _in_turn_order(s, (t,)) == (t,)
                checked += 1
            assert target_order(s, foes) == _in_turn_order(s, foes)
            assert target_order(s, foes[::-1]) == _in_turn_order(s, foes[::-1])
    assert checked > 1000


def _with_every_payment(s, idx, fr, actions):
    """``with_payments`` without its shortcut for a list of one pass."""
    if not s.rules.player_chooses_supply:
        return actions
    out = []
    f = s.fighters[idx]
    for a in actions:
        key = str(a.get("effect", ""))
        if a["type"] in ("boost", "effect") and key.startswith(("equip:", "team:")):
            card, supply = effect_supply(key)
            out += [{**a, "pay": p} for p in payments(f, card, supply, fr.bots_won)]
        else:
            out.append(a)
    return out


def test_a_window_with_its_pass_alone_has_nothing_to_pay_for():
    """Windows answered by their pass alone go on by themselves (so no decision shows
    one): every window's list, and each of its answers alone, is checked."""
    checked = 0
    for s in _states():
        fr = s.stack[-1] if s.stack else None
        if not isinstance(fr, Attack) or fr.stage in ("blocks", "worn") or \
                is_auto_stage(fr.stage):
            continue
        legal = stage_legal(s, fr)
        owner = window_owner(fr)
        for actions in (legal, *([a] for a in legal)):
            assert with_payments(s, owner, fr, actions) == \
                _with_every_payment(s, owner, fr, actions)
            checked += 1
    assert checked > 1000


_ODD_TARGETS = ("f:03", "f:+1", "f: 1", "f:1 ", "f:", "f:x", "f:99", "f:-1", "bot:", "bot:03",
                "bot:+2", "bot:x", "sector:1", "sector:9", "", "F:1", 1, None, ["f:1"])


def test_opponents_named_is_the_opponents_filtered_to_that_target():
    """The opponent a declared attack names, found without listing the others, is the one
    ``opponents`` lists under that name (none for names it never writes; every opponent
    for an area's ``sector:`` target, which the area's answers need); and the attacks
    with one weapon and one target are those of the whole list with them, in order."""
    checked = 0
    for n, s in enumerate(_states()):
        if n % 3:
            continue
        targets = {t for f in s.fighters for t in (f"f:{f.idx}", f"f:{f.idx}0")}
        targets |= {f"bot:{sector}" for sector, _ in s.bots} | {f"sector:{c}" for c in s.ring}
        for f in s.fighters:
            everyone = opponents(s, f.idx)
            for t in (*sorted(targets), *_ODD_TARGETS):
                area = isinstance(t, str) and t.startswith("sector:")  # an area's: all
                assert opponents_named(s, f.idx, t) == \
                    (everyone if area else [x for x in everyone if x[0] == t]), t
                checked += 1
            if f.fighter == "automa":
                continue  # the Automa's attacks are not answers (automa.py plays them)
            every_attack = attack_options(s, f.idx)
            for a in every_attack:
                assert attack_options(s, f.idx, a["weapon"], a["target"]) == \
                    [b for b in every_attack
                     if b["weapon"] == a["weapon"] and b["target"] == a["target"]]
            for t in _ODD_TARGETS[:10]:
                assert attack_options(s, f.idx, "base", t) == [], t
    assert checked > 10_000
