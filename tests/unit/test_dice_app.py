"""The dice Application: reserved blocks, dev seeds, match keys, concurrency (issues 9 and 17)."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import pytest

from services.dice.app import DiceApplication
from services.dice.domain import dev_secret, session_id
from services.platform.draws import BlockStream, DrawStream, perform, state_key, word
from services.platform.errors import FailedPrecondition, InvalidArgument, NotFound

MEMORY = {"PERSISTENCE_MODULE": "eventsourcing.popo"}


def app(**kw: object) -> DiceApplication:
    return DiceApplication(env=dict(MEMORY), **kw)  # type: ignore[arg-type]


def events_of(dice: DiceApplication, key: str) -> list[str]:
    return [type(e).__name__ for e in dice.repository.event_store.get(session_id(key))]


def test_reserved_blocks_are_the_seeds_words_and_draw_like_the_dice_service() -> None:
    dice = app()
    dice.open("neon-reign/m1")
    dice.add_client_seed("neon-reign/m1", 0, "amy")
    blocks = dice.reserve_blocks("neon-reign/m1", 0, 64)
    more = dice.reserve_blocks("neon-reign/m1", 64, 64)
    closed = dice.close_session("neon-reign/m1")
    seed = bytes.fromhex(closed.seed_hex)
    assert hashlib.sha256(seed).hexdigest() == closed.commitment
    assert list(blocks.words) == [word(seed, "neon-reign/m1", [(0, "amy")], n) for n in range(64)]
    stream = BlockStream(0, blocks.words)
    stream.add(more.first, more.words)
    reference = DrawStream(seed, "neon-reign/m1", [(0, "amy")])
    for op, n, c in [("shuffle", 40, 1), ("roll", 6, 5), ("randbelow", 1000, 1)]:
        assert perform(stream, op, n, c) == perform(reference, op, n, c)


def test_a_reservation_is_one_event_raises_the_mark_and_fixes_the_client_seeds() -> None:
    dice = app()
    dice.open("g/m")
    dice.reserve_blocks("g/m", 0, 4096)
    dice.reserve_blocks("g/m", 0, 10)  # a re-read below the mark records nothing
    dice.reserve_blocks("g/m", 4096, 100)
    assert events_of(dice, "g/m") == ["Opened", "BlocksReserved", "BlocksReserved"]
    assert dice.session("g/m").reserved == 4196
    with pytest.raises(FailedPrecondition, match="before the first draw or reservation"):
        dice.add_client_seed("g/m", 1, "late")
    with pytest.raises(FailedPrecondition, match="reserved blocks"):
        dice.draw("g/m", "r1", "randbelow", 6, 1)  # the old Draw RPC: never on a reserving session


@pytest.mark.parametrize(("first", "count"), [(0, 0), (0, 4097), (-1, 5), (1 << 41, 1)])
def test_bad_reservations_are_invalid_arguments(first: int, count: int) -> None:
    dice = app()
    dice.open("g/m")
    with pytest.raises(InvalidArgument):
        dice.reserve_blocks("g/m", first, count)


def test_a_closed_or_missing_session_reserves_nothing_new() -> None:
    dice = app()
    dice.open("g/m")
    before = dice.reserve_blocks("g/m", 0, 8)
    dice.close_session("g/m")
    with pytest.raises(FailedPrecondition, match="closed"):
        dice.reserve_blocks("g/m", 8, 1)
    assert dice.reserve_blocks("g/m", 4, 100) == type(before)(4, before.words[4:])  # up to the mark
    # What was reserved before the close reads again the same (a crashed rules service
    # replays the match's last action with the same draws).
    assert dice.reserve_blocks("g/m", 2, 6) == type(before)(2, before.words[2:])
    with pytest.raises(NotFound) as missing:
        dice.reserve_blocks("g/other", 0, 8)
    assert str(missing.value) == "no dice session for match 'g/other'"
    with pytest.raises(NotFound) as bare:  # a client author's first try: the match id alone
        dice.session("m")
    assert str(bare.value) == ("no dice session for match 'm': a match's dice session is named "
                               "<game>/<match id>, e.g. neon-reign/m")


def test_a_dev_seed_is_not_published_yet_still_reproduces_on_one_deployment() -> None:
    secret = dev_secret(b"token-secret-of-this-deployment")
    a, b = app(dev_secret=secret), app(dev_secret=secret)
    other = app(dev_secret=dev_secret(b"another deployment"))
    opened = a.open("neon-reign/m1", dev_seed="bot-7")
    assert opened.dev and opened.stream_id == "dev"
    stored = repr(list(a.repository.event_store.get(session_id("neon-reign/m1"))))
    assert "bot-7" not in stored
    b.open("x/m2", dev_seed="bot-7")
    same = [a.reserve_blocks("neon-reign/m1", 0, 32).words, b.reserve_blocks("x/m2", 0, 32).words]
    assert same[0] == same[1]  # same dev seed, same deployment: same draws, any match
    other.open("neon-reign/m1", dev_seed="bot-7")
    assert other.reserve_blocks("neon-reign/m1", 0, 32).words != same[0]
    # A spectator knowing the dev seed cannot rebuild the draws as before ("dev:<seed>").
    old_style = hashlib.sha256(b"neon-arena/dev-seed/v1:bot-7").digest()
    assert word(old_style, "dev", [], 0) != same[0][0]
    revealed = a.close_session("neon-reign/m1")
    seed = bytes.fromhex(revealed.seed_hex)
    assert hashlib.sha256(seed).hexdigest() == opened.commitment
    assert revealed.state_key_hex == state_key(seed, "dev").hex()


def test_two_games_with_one_match_id_have_independent_sessions() -> None:
    dice = app()
    reign, neon = dice.open("neon-reign/m-1"), dice.open("neon/m-1")
    assert reign.commitment != neon.commitment
    assert (reign.stream_id, neon.stream_id) == ("neon-reign/m-1", "neon/m-1")
    dice.draw("neon-reign/m-1", "r", "roll", 6, 3)
    dice.close_session("neon-reign/m-1")
    assert dice.session("neon/m-1").counter == 0 and not dice.session("neon/m-1").closed
    assert dice.draw("neon/m-1", "r", "roll", 6, 3).first == 0


@pytest.mark.parametrize("key", ["", "a b", "neon//m", "/m", "m/", "a/b/c/d", "x" * 65, "neon/m\n", "é"])
def test_malformed_match_keys_are_invalid_arguments(key: str) -> None:
    with pytest.raises(InvalidArgument, match="match_id"):
        app().open(key)


def test_reads_racing_draws_never_fail() -> None:
    """Defect 6: the aggregate cache deep-copied a session while a draw changed it.

    The app is built with the environment the dice service used to pass (an aggregate
    cache of 2,000); it must not matter.
    """
    dice = DiceApplication(env={**MEMORY, "AGGREGATE_CACHE_MAXSIZE": "2000"})
    dice.open("g/hot")
    errors: list[BaseException] = []
    stop = threading.Event()

    def draw(worker: int) -> None:
        try:
            for i in range(300):
                dice.draw("g/hot", f"w{worker}-{i}", "roll", 6, 2)
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)
        finally:
            stop.set()

    def read() -> None:
        try:
            while not stop.is_set():
                dice.session("g/hot")
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=draw, args=(w,)) for w in range(2)]
    threads += [threading.Thread(target=read) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert dice.session("g/hot").counter == 1200


def test_a_concurrent_save_by_another_writer_is_retried_not_internal(tmp_path: Path) -> None:
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "dice.db")}
    first, second = DiceApplication(env=dict(env)), DiceApplication(env=dict(env))
    first.open("g/m")
    second.session("g/m")  # second now holds version 1 in memory
    a = first.draw("g/m", "a", "randbelow", 6, 1)
    b = second.draw("g/m", "b", "randbelow", 6, 1)  # stale: conflicts, reloads, retries
    assert (a.first, b.first) == (0, 1)
    assert first.draw("g/m", "c", "randbelow", 6, 1).first == 2


def test_a_session_in_use_does_not_hold_up_another() -> None:
    """One lock per session: a slow command on one match never blocks another match."""
    dice = app()
    dice.open("g/slow")
    dice.open("g/fast")
    entered, release = threading.Event(), threading.Event()

    def slow(session: object) -> None:
        entered.set()
        release.wait(10)

    blocker = threading.Thread(target=dice._read, args=("g/slow", slow))
    blocker.start()
    assert entered.wait(5)
    done = threading.Event()
    threading.Thread(target=lambda: (dice.draw("g/fast", "r", "roll", 6, 1), done.set())).start()
    assert done.wait(5), "a draw on another session waited for the slow one"
    release.set()
    blocker.join(5)


def test_one_key_keeps_one_lock_even_when_evicted_from_the_table() -> None:
    from services.dice.sessions import SessionTable

    table: SessionTable[int] = SessionTable(keep=1)
    inside, release, second_in = threading.Event(), threading.Event(), threading.Event()

    def first() -> None:
        with table.hold("a", lambda: 1):
            inside.set()
            release.wait(10)

    def second() -> None:
        with table.hold("a", lambda: 1):
            second_in.set()

    t1 = threading.Thread(target=first)
    t1.start()
    assert inside.wait(5)
    with table.hold("b", lambda: 2):  # evicts "a" from the recent list
        pass
    t2 = threading.Thread(target=second)
    t2.start()
    assert not second_in.wait(0.3), "two holders of one key at once"
    release.set()
    assert second_in.wait(5)
    t1.join(5)
    t2.join(5)


def test_a_save_that_keeps_conflicting_is_aborted_not_internal(monkeypatch: pytest.MonkeyPatch) -> None:
    from eventsourcing.persistence import IntegrityError

    from services.platform.errors import Aborted

    dice = app()
    dice.open("g/m")
    calls = []

    def conflict(*args: object, **kw: object) -> None:
        calls.append(1)
        raise IntegrityError("version taken")

    monkeypatch.setattr(dice, "save", conflict)
    with pytest.raises(Aborted, match="changed concurrently"):
        dice.draw("g/m", "r", "roll", 6, 1)
    assert len(calls) == 3
    monkeypatch.undo()
    assert dice.session("g/m").counter == 0  # nothing unsaved stayed in memory


def test_a_replica_reads_what_another_replica_wrote(tmp_path: Path) -> None:
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "dice.db")}
    first, second = DiceApplication(env=dict(env)), DiceApplication(env=dict(env))
    first.open("g/m")
    assert not second.session("g/m").closed
    first.reserve_blocks("g/m", 0, 16)
    first.close_session("g/m")
    seen = second.session("g/m")
    assert seen.closed and seen.reserved == 16


def test_draw_never_hands_out_a_block_that_a_reservation_hands_out_too() -> None:
    """A Draw (organiser or service token) made past a running match's reserved blocks was
    the match's next reservation, word for word: whoever drew saw the match's future rolls
    and deck orders before its players did. A session that reserves takes no Draw, and no
    reservation hands out a block a Draw has."""
    dice = app()
    dice.open("g/live")
    dice.reserve_blocks("g/live", 0, 256)
    with pytest.raises(FailedPrecondition, match="reserved blocks"):
        dice.draw("g/live", "peek", "roll", 6, 10)
    assert events_of(dice, "g/live") == ["Opened", "BlocksReserved"]
    dice.open("g/new")  # created, not started: the set-up shuffle is its first blocks
    dice.draw("g/new", "peek", "shuffle", 20, 1)
    with pytest.raises(FailedPrecondition, match="Draw"):
        dice.reserve_blocks("g/new", 0, 256)
    assert dice.reserve_blocks("g/new", dice.session("g/new").counter, 8).words


def test_a_closed_session_is_not_opened_again() -> None:
    """Its seed is public (RevealSeed): a match created on it (its id used again after its
    rules store lost the first one) would draw what anyone can compute."""
    dice = app()
    dice.open("g/m")
    dice.reserve_blocks("g/m", 0, 8)
    dice.close_session("g/m")
    with pytest.raises(FailedPrecondition, match="closed"):
        dice.open("g/m")
    assert dice.session("g/m").closed


@pytest.mark.parametrize("seat", [-1, 256, 1 << 30])
def test_client_seeds_of_seats_out_of_range_are_invalid_arguments(seat: int) -> None:
    dice = app()
    dice.open("g/m")
    with pytest.raises(InvalidArgument, match="seat"):
        dice.add_client_seed("g/m", seat, "x")
    assert dice.session("g/m").client_seeds == ()


def test_an_oversized_request_id_is_an_invalid_argument() -> None:
    dice = app()
    dice.open("g/m")
    with pytest.raises(InvalidArgument, match="request_id"):
        dice.draw("g/m", "r" * 129, "randbelow", 6, 1)
    assert dice.draw("g/m", "r" * 128, "randbelow", 6, 1).first == 0


def test_a_session_is_opened_again_only_with_the_dev_seed_it_was_made_from() -> None:
    """OpenSession is idempotent, but a dev seed asks for one seed: a session made from
    another dev seed, or from none, answered the caller as if it were that one (the match
    recorded and drew from a seed it had not asked for). Opening without a dev seed stays
    possible for any session (the rules service's rebuild asks for its state key so)."""
    dice = app(dev_secret=dev_secret(b"secret"))
    dice.open("g/dev", dev_seed="x")
    assert dice.open("g/dev", dev_seed="x").dev and dice.open("g/dev").dev
    with pytest.raises(FailedPrecondition, match="another seed"):
        dice.open("g/dev", dev_seed="y")
    dice.open("g/plain")
    with pytest.raises(FailedPrecondition, match="another seed"):
        dice.open("g/plain", dev_seed="x")
    assert not dice.session("g/plain").dev


def test_a_session_opened_for_a_match_takes_no_draw_before_its_first_reservation() -> None:
    """A rules service opens its match's session (for_match: a service token) at
    CreateMatch and reserves from block 0 at StartMatch; a Draw in between moved the counter
    and the match could never start. Marked once (OpenedForMatch), also when an organiser
    opened it first; an organiser's own session draws as before."""
    dice = app()
    dice.open("g/m", for_match=True)
    with pytest.raises(FailedPrecondition, match="ReserveBlocks"):
        dice.draw("g/m", "peek", "roll", 6, 1)
    assert events_of(dice, "g/m") == ["Opened", "OpenedForMatch"]
    dice.add_client_seed("g/m", 0, "seed")
    assert dice.reserve_blocks("g/m", 0, 8).first == 0
    dice.open("g/ahead")  # an organiser's, then the rules service's for its match
    dice.open("g/ahead", for_match=True)
    dice.open("g/ahead", for_match=True)
    dice.open("g/ahead")
    with pytest.raises(FailedPrecondition, match="ReserveBlocks"):
        dice.draw("g/ahead", "peek", "shuffle", 20, 1)
    assert events_of(dice, "g/ahead") == ["Opened", "OpenedForMatch"]
    dice.open("g/own")
    assert dice.draw("g/own", "r", "roll", 6, 2).first == 0
    assert events_of(dice, "g/own") == ["Opened", "Drawn"]
