"""No-shows: who lost a round by never coming to their table, and whom the format drops.

A no-show of round N sat at a table whose match started without them (the log's
``MatchStarted`` names their seat absent: not ready when the check-in window ran out) and
whose result counts them as forfeited (the no-show policy "forfeit" forfeited the seat, or
the organiser's CorrectResult kept that forfeit). These are not no-shows:

- a player who came and lost, on time or by the clock's forfeit in play: their seat was
  not absent, and the result names no one forfeited;
- a player who came and whom the organiser set as a forfeit loss by hand: not absent;
- an absent player whose seat a bot played (policy "bot": not forfeited), or whose table
  the organiser set as played (a check-in that went wrong): not forfeited.

With ``FormatConfig.drop_no_shows``, NextRound records the drops of the no-shows of the
round just played (``NoShowDropped``, reason "no-show in round N") before it pairs the next
round, so the pairing, and a verifier's recomputation of it from the log, leaves them out.
The organiser may reinstate such a player (``PlayerReinstated``, ReinstatePlayer): they
are paired again from the next round paired after it. The bundle check (:func:`problems`)
recomputes the no-shows from the log: every such drop must be of a no-show, and every
no-show of a round must be dropped after that round was paired and before the next one was
(a drop by the organiser counts, even if a reinstatement followed it).

Pure code over the replayed log (:mod:`services.tournament.log`): the service and the
offline verifier read the same records the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.tournament import log as tlog


@dataclass(frozen=True)
class NoShow:
    player_id: str
    round: int
    table: int
    match_id: str

    @property
    def reason(self) -> str:
        return f"no-show in round {self.round}"


def of_round(replayed: tlog.Replayed, number: int, before: int | None = None) -> list[NoShow]:
    """The no-shows of round ``number`` as the log stood before its record ``before``
    (0-based position; None: the whole log), in table and seat order."""
    cut = tlog.END if before is None else before
    rnd = replayed.rounds[number - 1]
    found = []
    for table in rnd["tables"]:
        if table.bye:
            continue
        result = tlog.result_before(rnd, table.number, cut)
        if result is None or not result.forfeited:
            continue
        started = rnd["started"].get(result.match_id)
        if started is None or started[0] >= cut:
            continue  # the match never started (the organiser decided the table first)
        found += [NoShow(p, number, table.number, result.match_id)
                  for seat, p in enumerate(table.seats)
                  if seat in started[1] and p in result.forfeited]
    return found


def dropped_between(replayed: tlog.Replayed, start: int, cut: int) -> set[str]:
    """The players with a drop recorded at a log position in [start, cut)."""
    return {p for (p, _), at in zip(replayed.dropped, replayed.dropped_at) if start <= at < cut}


def due(replayed: tlog.Replayed) -> list[NoShow]:
    """The drops NextRound records before it pairs the next round: the no-shows of the
    last round paired who were not dropped since it was paired (none unless the format
    drops them). A player dropped since then and already reinstated is not dropped again:
    the organiser's reinstatement stands."""
    config = replayed.config
    if config is None or not config.drop_no_shows or not replayed.rounds:
        return []
    dropped = dropped_between(replayed, replayed.rounds[-1]["log_length_before"], tlog.END)
    return [n for n in of_round(replayed, len(replayed.rounds)) if n.player_id not in dropped]


def problems(replayed: tlog.Replayed) -> list[str]:
    """What the log's no-show drops get wrong, in words: a drop that is not of a no-show
    (or in a format that keeps them), or a no-show paired in the next round."""
    config = replayed.config
    assert config is not None
    found: list[str] = []
    for drop in replayed.no_show_drops:
        player, number, at = drop["player_id"], drop["after_round"], drop["at"]
        what = f"no-shows: the log drops {player} as a no-show of round {number}"
        paired = sum(1 for r in replayed.rounds if r["log_length_before"] < at)
        if not config.drop_no_shows:
            found.append(f"{what}, but the format does not drop no-shows (drop_no_shows is off)")
        elif number != paired or number < 1:
            found.append(f"{what}, recorded when {paired} round(s) were paired")
        elif (player, drop["table"], drop["match_id"]) not in {
                (n.player_id, n.table, n.match_id) for n in of_round(replayed, number, at)}:
            found.append(f"{what} (table {drop['table']}), but {player} was there (not absent "
                         "when the match started, or not forfeited)")
    if config.drop_no_shows:
        for before, rnd in zip(replayed.rounds, replayed.rounds[1:]):
            number, cut = rnd["number"], rnd["log_length_before"]
            dropped = dropped_between(replayed, before["log_length_before"], cut)
            for n in of_round(replayed, number - 1, cut):
                if n.player_id not in dropped:
                    found.append(
                        f"no-shows: {n.player_id} did not come to round {n.round} (table "
                        f"{n.table}, match {n.match_id}) and was not dropped before round "
                        f"{number} was paired (the format drops no-shows)")
    return found


def summary(replayed: tlog.Replayed) -> str:
    """The bundle check's line for no-show drops that held ("" when the format keeps
    no-shows and the log drops none)."""
    drops = replayed.no_show_drops
    if not drops and not (replayed.config and replayed.config.drop_no_shows):
        return ""
    named = ", ".join(f"{d['player_id']} after round {d['after_round']}" for d in drops)
    return (f"no-shows: {len(drops)} dropped after the round they did not come to"
            + (f" ({named})" if named else ""))
