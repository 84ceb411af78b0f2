"""The outbox relay's marks of what it published (bus.thin_marks): a bounded list, spaced
more widely the older, so that a store restored from a backup of any age is published again
from a little before the backup's end, not from its first event."""

from __future__ import annotations

from types import SimpleNamespace

from services.platform.bus import MARKS, notification_digest, thin_marks


def _marked(positions: range) -> list[tuple[int, str]]:
    marks: list[tuple[int, str]] = []
    for position in positions:
        marks = thin_marks([*marks, (position, f"d{position}")])
    return marks


def test_marks_stay_bounded_keeping_the_first_and_newest() -> None:
    marks = _marked(range(1, 100_001, 7))
    assert len(marks) == MARKS
    assert marks[0][0] == 1 and marks[-1][0] == 99_996
    assert [p for p, _ in marks] == sorted(p for p, _ in marks)


def test_a_restore_of_any_age_finds_a_mark_not_far_before_it() -> None:
    """Whatever the backup's end, the newest mark at or before it lies within a fraction of
    its age (what the relay publishes again), not the whole store."""
    marks = _marked(range(1, 1_000_001, 50))
    newest = marks[-1][0]
    for lost in (100, 1_000, 10_000, 100_000, 500_000):
        backup_end = newest - lost
        before = max(p for p, _ in marks if p <= backup_end)
        assert newest - before <= 2.5 * lost + 100, (lost, newest - before)


def test_the_digest_tells_events_stored_at_one_id_apart() -> None:
    def note(state: bytes, version: int = 1) -> SimpleNamespace:
        return SimpleNamespace(id=5, originator_id="a", originator_version=version,
                               topic="t", state=state)

    assert notification_digest(note(b"x")) == notification_digest(note(b"x"))
    assert notification_digest(note(b"x")) != notification_digest(note(b"y"))
    assert notification_digest(note(b"x")) != notification_digest(note(b"x", version=2))
