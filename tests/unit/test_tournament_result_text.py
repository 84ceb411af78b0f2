"""`neon tournament round` says who won a table, not the bare placements per seat."""

from services.cli.tournament_commands import result_text


def test_two_seats_name_the_winner_or_a_draw() -> None:
    assert result_text(["alice", "bob"], [2, 1]) == "bob wins"
    assert result_text(["alice", "bob"], [1, 2]) == "alice wins"
    assert result_text(["alice", "bob"], [1, 1]) == "draw"


def test_more_seats_list_the_places_in_order() -> None:
    assert result_text(["ann", "bo", "cy", "di"], [3, 1, 2, 2]) == "1 bo, 2 cy, 2 di, 3 ann"
    assert result_text(["ann"], [1, 2]) == "1 2"  # a result that does not fit the table: as given
