"""The scoring service (neon.scoring.v1): results, ratings and leaderboards.

What it reads
    MatchEnded events of every rules service from JetStream (stream NEON_EVENTS, subjects
    ``neon.events.results.<game>.<match id>``, where the rules host publishes each MatchEnded
    a second time, signed with its key: rules/results.py), through a durable pull consumer
    (consumer.py). Only results signed by a trusted key (NEON_TRUSTED_RESULT_KEYS, else
    the deployment's own signing key) are scored; anything else is acked, logged and
    counted as refused. The MatchEnded on ``neon.events.rules.>`` is not signed, so a
    NEON_SCORING_FILTER pointing there scores nothing. A message that is not a JSON
    object (garbage, or nested too deep to parse) is terminated and logged, never
    retried, and so is a signed result that cannot be scored (results.parse_match_ended:
    among others a breakdown holding an object of exactly the keys ``_type_`` and
    ``_data_``, which the store would read back as another type or not at all). The public MatchEnded payload carries all it needs: game, mode,
    players (one per seat) and the outcome with placements, scores, draw, breakdown and
    teams. Other match events on those subjects are acked and skipped, and so is the
    MatchEnded of an abandoned match (``outcome.abandoned``, no placements: the rules
    service's AbandonMatch): it is no result, so nothing is recorded or rated.

Once, in order, nothing lost
    Each result is saved in one transaction together with its rating changes and the
    ledger entry that gives it its sequence (domain.py); the message is acked only
    afterwards. The record's id comes from the game and match id, so a redelivery or the same
    result re-published under another Nats-Msg-Id changes nothing. Results are applied
    strictly in stream order, also across a crash (consumer.py explains how), so a run
    that was killed midway ends with the very ratings of a run that was not. The ledger
    names the stream its position counts in (the stream's creation time): a stream deleted
    and made again (JetStream's data lost, a new NATS) while the store survives is read
    again from its first message, with a warning, never skipped up to the old position. A
    store restored from a backup (its identity, and so its JetStream consumer, the same)
    holds fewer results than the consumer acked: at start-up the stream is read again from
    the ledger's position, not the consumer's, and what the store lost is scored again, in
    order, with a warning.

Ratings
    openskill Plackett-Luce with its default parameters (skill.py): one rating per
    player per game, fed by every mode, and one per player per mode, for the mode
    leaderboards. Teams (``outcome.teams``) are rated as openskill teams; the placements
    are the ranks, so a draw or double KO (every seat placed 1st) ranks every side equal,
    and a free-for-all whose first place is shared ties only the seats that share it.
    ``ScoringApplication.replay_ratings`` recomputes ratings from the stored results
    alone, and the tests hold it equal to the stored ratings.

Bots and unrated results
    Seats whose player id starts with ``bot-`` (matchmaking's backfill bots are
    ``bot-random-<n>``) are bots: they get no rating, no standing and no leaderboard
    entry, and they are left out before rating, so humans are rated on their order
    among themselves. A result with fewer than two human sides (solo modes, one human
    against bots), without player ids, or with one player in several seats is recorded,
    shows in histories and counts in the player's matches, wins and best score, but moves
    no rating. Solo modes get a best-score leaderboard (RANKED_BY_BEST_SCORE).

Who created the match
    The signed result names who created the match (``created_by``: the role and name of
    the token that called CreateMatch, which the rules service records). An organiser holds
    every seat token of a match it creates, so it could play "victim against me": the
    result of a match an organiser created is recorded (GetMatchResult and the players'
    histories show it, with ``created_by`` and the reason in words) but moves no rating
    and counts in no standing (no matches, wins or best score), unless
    NEON_SCORING_RATE_ORGANISER_MATCHES=1 (then it is rated as any other). Matches of
    matchmaking, tournaments and the ``neon`` tools on the server are created with service
    tokens and rated; so are results that name no creator (published before the rules
    service recorded it). A match a service made on organisers' behalf (``created_by``
    role "organiser" with ``via``: matchmaking, when an organiser had a hand in a ticket
    of it) is an organiser's match, its reason saying who made it for whom; an unrated
    tournament's (``via`` "tournament") is never rated, whatever the setting. The decision
    is stored with the result (``rated``), and ``replay_ratings`` follows it, whatever the
    setting is later.

A dev-seeded match
    A match created with a dev seed (CreateMatch ``dev_seed``, ``neon play --seed N``)
    draws from a seed shared by every match given that dev seed on the deployment, known
    to the operator and public once any of them is sealed. Its MatchEnded, and so the
    signed result, says ``"dev_seed": true``; scoring records such a result, with the
    reason ("drawn from a dev seed: ..."), but rates it and counts it nowhere, whoever
    created it and whatever NEON_SCORING_RATE_ORGANISER_MATCHES says. Results without the
    field (every other match, and results from before it) are rated as before.

A seat that made no move
    The signed result of a played match names the seats that never made a move of their
    own (``no_move_seats``, written by the rules host: rules/noshow.py). The ruling: a seat
    *made a move* when the match log holds an action the seat sent itself, any action,
    its own resignation included. What the rules service does for a seat is not the
    seat's move: a clock's timeout (the decision's default applied), the forfeit after
    repeated timeouts, a bot's move for a seat the clock handed to a bot. A seat the
    service acted for and that never moved itself is a no-show: a tournament player absent
    at the start (forfeited by the clock, or played by a bot under ``no_show=bot``), a
    ladder player who never touched the match and lost on time. A seat the service never
    acted for is not one, though it never moved: it owed nothing (its opponent resigned
    at once). Why: rating practice (FIDE's rating regulations) rates neither a game won by
    forfeit nor one in which a player made no move; such a game says nothing about either
    player's strength. So a no-move seat is left out of the rated sides, as a bot seat is.
    A result left with fewer than two human sides that moved (every duel with a no-show)
    is recorded (GetMatchResult and the histories show it, ``unrated_reason`` naming the
    seat and player: "seat 1 (bob) made no move: ...") but moves no rating and counts in
    no standing (no match, win, loss or best score: else a second account that never
    moves would farm wins and best scores), for every seat of it. A free-for-all that at
    least two human sides played on (a five-seat NEON match with one absent seat) is
    rated among the seats that moved, on their order among themselves; the no-move seats
    are neither rated nor counted in any standing. A team with a no-move seat (a NEON
    coalition partner who never moved) is left out whole, its other members too: the
    service played the absent seat for the team, so the team is no smaller side that won
    or lost alone (rated as one, a player beating two alone gains more than a duel's win);
    a two-team match with one is a duel with a no-show, unrated and counted nowhere.
    Results stored before this rule (``ranking`` 2) replay as they were rated. A tournament
    keeps its own forfeit win in its standings.
    Results published or stored before the field hold none and are rated (and replayed by
    ``replay_ratings``) as they were. An abandoned match's end holds no field (it is no
    result at all).

    A seat whose only action was its own resignation made a move (ruled 6 December 2026,
    unchanged; ``ranking`` stays 3): the match is rated, the resigning seat the loser. The
    rule tells an absent seat from a present one, and a resignation is the seat's own
    signed decision about the game: the player was there and conceded it. Counting it as no
    move would let a player who dislikes a pairing (a stronger opponent, a bad opening
    deal) resign before moving and keep their rating, taking the opponent's win away with
    it (a duel with a no-move seat is rated for neither), and it would close nothing in
    return: an account farming wins for another makes one legal move and then resigns. A
    move count tells absence, not collusion (one player in several seats and organisers'
    matches are refused apart). A seat whose clock timed out and that then resigned itself
    moved as well.

Wins, draws, losses
    In a result flagged ``draw`` a first place is a draw; otherwise first place is a win.
    Any other place is a loss, also in a drawn free-for-all (NEON's two first places).
    With seats left out for making no move (and their teams), the others are counted on
    their order among themselves (results.result_of, results.places), as they are rated:
    a no-move seat placed above them (a bot played the absent seat and won) or beside them
    (sharing the first place) leaves the best of them a win alone, a draw when another
    side shares that place (movers sharing the first place with each other keep the
    engine's draw flag: Neon Knights' co-winners, flagged no draw, each win), never a loss
    to a seat that is counted nowhere. When no seat
    left out is placed at or above the best of them, the engine's result stands.

Access
    Every query is public (service.py): results and ratings are public information.
"""
