"""Set-up and the round: choosing cards, player actions, the end check, closing sectors."""

from __future__ import annotations

from services.rules.games.contract import EngineEvent, MatchConfig, Randomness
from services.rules.games.frozen import event, replace
from services.rules.games.neon.attack import Attack
from services.rules.games.neon.automa import automa_turn
from services.rules.games.neon.cards import (
    choice_actions,
    choice_of,
    choosers,
    discard_played,
    draw_cards,
    next_actor,
    reveal,
)
from services.rules.games.neon.combat import (
    AUTO_STAGES,
    RESUME,
    attack_apply,
    attack_legal,
    is_auto_stage,
    step,
    window_owner,
)
from services.rules.games.neon.content import (
    AUTOMA_HEALTH_ROWS,
    BOT_TOKENS,
    ENERGY_START,
    FIGHTER_HEALTH_ROWS,
    HAND_SIZE,
    HEALTH_TOKENS,
    SEARCH_TOKENS,
    SECTORS,
    UPGRADES,
    fighter_cards,
    loot_deck,
    round_board,
)
from services.rules.games.neon.defeat import maintain
from services.rules.games.neon.fighters import return_tokens_of
from services.rules.games.neon.loot import strip_equipment
from services.rules.games.neon.scoring import end_reason
from services.rules.games.neon.sectors import (
    automa_evacuate,
    final_close,
    finish_close,
    start_close,
)
from services.rules.games.neon.state import Draft, Fighter, State


def setup_state(config: MatchConfig, rng: Randomness, fighters: tuple[str, ...],
                teams: tuple[tuple[int, ...], ...], automa: bool,
                board_side: str | None = None) -> State:
    """Steps 1-6 of the set-up, every shuffle through the injected randomness."""
    seats = config.seats
    participants = seats + (1 if automa else 0)
    ring = tuple(rng.shuffle(sorted(SECTORS)))
    scoreboard = tuple(rng.shuffle(sorted(SECTORS)))
    bots = tuple(rng.shuffle(BOT_TOKENS))
    board = round_board(participants, board_side)
    loot = tuple(tuple(rng.shuffle(loot_deck(cls))) for cls in (1, 2, 3))
    upgrades = tuple(rng.shuffle(sorted(UPGRADES))) if config.mode != "battle-royale" else ()
    team_of = {i: t for t, members in enumerate(teams) for i in members}
    side = "B" if config.mode == "battle-royale" else "A"
    supply = dict(HEALTH_TOKENS)
    people = []
    for i in range(seats):
        deck = tuple(rng.shuffle(fighter_cards(fighters[i])))
        for row in FIGHTER_HEALTH_ROWS:
            for v in row:
                supply[v] -= 1
        people.append(Fighter(i, fighters[i], team_of.get(i, i), side=side, energy=ENERGY_START,
                              health=FIGHTER_HEALTH_ROWS, hand=deck[:HAND_SIZE],
                              deck=deck[HAND_SIZE:]))
    if automa:
        for row in AUTOMA_HEALTH_ROWS:
            for v in row:
                supply[v] -= 1
        people.append(Fighter(seats, "automa", seats, side="B", sector=scoreboard[0], energy=0,
                              health=AUTOMA_HEALTH_ROWS))
    leader = rng.randbelow(seats)
    return State(
        mode=config.mode, seats=seats, automa=automa, teams=teams,
        cells=tuple(board["cells"]), fighters=tuple(people), ring=ring, scoreboard=scoreboard,
        bots=tuple(zip(ring, bots, strict=False)), search_supply=SEARCH_TOKENS,
        loot_decks=loot, upgrade_deck=upgrades,
        health_supply=(supply[1], supply[2], supply[3]), leader=leader)


def setup_events(s: State, dealt: bool) -> list[EngineEvent]:
    """The events of the set-up that made ``s`` (``setup_state``), in the rulebook's order,
    read from ``s`` alone (no draw). Public: the arena (step 2: the ring, the bot in each
    sector, the top scoreboard token and how many are stacked, the round board's cells),
    the shared decks' sizes (step 3), each seat's fighter (4a; ``dealt``: at random, else
    from option ``fighters``) and how many cards it drew (4d), the Automa's sector, the
    leader (step 6). Private to each seat: the cards of its own opening hand (the same
    ``cards_drawn``/``cards_drawn_private`` pair a draw makes in play). Deck orders, the
    rest of the scoreboard stack and the bots' supply sides stay hidden, as in the views."""
    on = dict(s.bots)
    out = [
        event("arena_built", {"ring": list(s.ring),
                              "bots": [{"sector": n, "bot": on.get(n)} for n in s.ring],
                              "next_to_close": s.scoreboard[0] if s.scoreboard else None,
                              "scoreboard_left": len(s.scoreboard), "cells": list(s.cells)}),
        event("decks_formed", {"loot_decks": [len(d) for d in s.loot_decks],
                               "upgrade_deck": len(s.upgrade_deck)}),
    ]
    for f in s.fighters[:s.seats]:
        out.append(event("fighter_taken", {"fighter": f.idx, "name": f.fighter, "team": f.team,
                                           "side": f.side, "energy": f.energy,
                                           "by": "random" if dealt else "choice"}))
        out.append(event("cards_drawn", {"fighter": f.idx, "count": len(f.hand)}))
        out.append(event("cards_drawn_private", {"fighter": f.idx, "cards": list(f.hand)},
                         frozenset({f.idx})))
    for f in s.fighters[s.seats:]:
        out.append(event("automa_placed", {"fighter": f.idx, "sector": f.sector}))
    out.append(event("leader", {"fighter": s.leader}))
    return out


def frame_needs_answer(s: State) -> bool:
    top = s.top
    if top is None:
        return False
    if top.kind in ("maintain", "strip"):
        return False
    if isinstance(top, Attack):
        if is_auto_stage(top.stage):
            return False
        legal = attack_legal(s, top)
        return not (len(legal) == 1 and legal[0]["type"] in ("roll", "done"))
    if top.kind == "evacuate":
        f = s.fighters[top.owner]
        return f.fighter != "automa" and f.on_arena
    return True


def run_frame(w: Draft) -> None:
    """Resolve the top frame when it needs nobody's answer."""
    top = w.s.stack[-1]
    if top.kind == "maintain":
        w.pop()
        maintain(w, top.owner)
    elif top.kind == "strip":
        w.pop()
        strip_equipment(w, top.owner)
    elif isinstance(top, Attack):
        if is_auto_stage(top.stage):
            step(w)
        else:
            only = attack_legal(w.s, top)[0]
            attack_apply(w, window_owner(top), only)
    elif top.kind == "evacuate":
        f = w.f(top.owner)
        if f.fighter == "automa" and f.on_arena:
            automa_evacuate(w, top.owner)
        else:
            w.pop()
            queue = top.get("queue")[1:]
            if queue:
                w.push(replace(top.but(queue=queue), owner=queue[0]))


def advance(w: Draft) -> None:
    """Run everything automatic until someone owes an answer or the game is over."""
    for _ in range(100_000):
        s = w.s
        if s.ended:
            return
        stack = s.stack
        if stack:
            top = stack[-1]
            if isinstance(top, Attack):
                # frame_needs_answer, then run_frame, for an attack (most frames), in one
                # step: the stage and the window's answers looked up once
                stage = top.stage
                if stage in AUTO_STAGES or stage.startswith(RESUME):
                    step(w)
                    continue
                legal = attack_legal(s, top)
                if len(legal) == 1 and legal[0]["type"] in ("roll", "done"):
                    attack_apply(w, window_owner(top), legal[0])
                    continue
                return
            if frame_needs_answer(s):
                return
            run_frame(w)
            continue
        if s.phase == "choose":
            waiting = [i for i in choosers(s) if s.fighters[i].choice is None]
            if waiting:
                if s.rules.secret_defaults:
                    draw_choice_defaults(w, waiting)
                return
            reveal(w)
            w.set(phase="act", defaults=())
            continue
        if s.phase == "act":
            if not act_step(w):
                return
            continue
        if s.phase == "closing":
            closing_step(w)
            continue
    raise RuntimeError("the round did not settle")


def draw_choice_defaults(w: Draft, waiting: list[int]) -> None:
    """Engine 6: each fighter asked for its hidden card choice gets its default (what a clock
    applies if its time runs out) drawn at random among its legal answers, one draw each, in
    fighter order, when the choice is asked; kept in ``State.defaults`` until it answers or
    the cards are revealed. The first legal answer, engine 5's default, laid the first two
    cards of the hand the same way every time, and a timeout is public (RULES.md, "Hidden
    information")."""
    defaults = w.s.defaults
    asked = {idx for idx, _ in defaults}
    drawn = []
    for idx in waiting:
        if idx in asked:
            continue
        legal = choice_actions(w.s.fighters[idx].hand)
        if legal:
            drawn.append((idx, choice_of(legal[w.rng.randbelow(len(legal))])))
    if drawn:
        w.set(defaults=tuple(sorted((*defaults, *drawn), key=lambda entry: entry[0])))


def act_step(w: Draft) -> bool:
    """One automatic step of the action phase; False when the current fighter must answer."""
    s = w.s
    if s.current is not None:
        f = s.fighters[s.current]
        if f.fighter == "automa" or f.eliminated or f.step >= len(f.row):
            end_turn(w, f.idx)
            return True
        return False
    nxt = next_actor(s)
    if nxt is not None:
        w.set(current=nxt)
        return_tokens_of(w, nxt)
        w.emit("turn", {"fighter": nxt})
        return True
    automa = next((f for f in s.fighters if f.fighter == "automa" and not f.acted), None)
    if automa is not None:
        automa_turn(w, automa.idx)
        return True
    reason = end_reason(s)
    if reason:
        w.set(ended=reason, phase="over", current=None)
        w.emit("game_over", {"reason": reason})
        return True
    closes = s.cells[s.round - 1] if s.round <= len(s.cells) else 0
    w.set(phase="closing", closes_left=closes)
    if closes == 0:
        final_close(w)
    return True


def end_turn(w: Draft, idx: int) -> None:
    f = w.f(idx)
    if f.fighter != "automa":
        w.update(idx, acted=True)
        w.set(acted_order=w.s.acted_order + (idx,))
        if not f.eliminated:
            discard_played(w, idx)
            draw_cards(w, idx, 2)
    w.set(current=None)


def closing_step(w: Draft) -> None:
    s = w.s
    if s.closing_sector is not None:
        finish_close(w)
        return
    if s.closes_left > 0 and s.scoreboard and len(s.ring) > 2:
        start_close(w)
        return
    if s.closes_left > 0 and len(s.ring) <= 2:
        w.set(closes_left=0)
        final_close(w)
        return
    end_round(w)


def end_round(w: Draft) -> None:
    """Shields come off, once-per-round upgrades turn back, eliminated fighters' tokens go."""
    for f in w.s.fighters:
        discard_played(w, f.idx)
        w.update(f.idx, shields=0, used_upgrades=(), step=0, row=(), acted=False, initiative=0,
                 choice=None)
        if f.eliminated:
            return_tokens_of(w, f.idx)
    w.set(round=w.s.round + 1, phase="choose", current=None, acted_order=(), closes_left=0)
    w.emit("round", {"round": w.s.round})
