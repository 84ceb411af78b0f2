"""Rules host throughput: actions through gRPC + dice + store, against the pure engine.

Usage: python bench/bench_rules.py [--game toy --mode race] [--matches 20] [--persistence sqlite]

Prints actions per second for (a) the pure engine with local draws (the baseline, same run)
and (b) bots playing the same number of matches over real gRPC against an in-process backend
(dice service, rules service, store, NATS outbox), and the ratio between them.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from services.cli.backend import start_backend  # noqa: E402
from services.cli.client import RulesClient  # noqa: E402
from services.cli.play import play_match  # noqa: E402
from services.platform.draws import SeededRandomness  # noqa: E402
from services.platform.settings import DEFAULT_PORTS, Settings  # noqa: E402
from services.rules.bots import RandomBot  # noqa: E402
from services.rules.games import load_engine  # noqa: E402
from services.rules.games.contract import MatchConfig  # noqa: E402


def pure(game: str, mode: str, seats: int, matches: int) -> tuple[int, float]:
    engine = load_engine(game)
    actions = 0
    start = time.perf_counter()
    for m in range(matches):
        rng = SeededRandomness(m)
        bot = RandomBot(m)
        state = engine.setup(MatchConfig(mode, seats), rng)
        while pending := engine.pending(state):
            decision = pending[0]
            state = engine.apply(state, decision.seat, bot.choose(decision), rng).state
            actions += 1
    return actions, time.perf_counter() - start


async def served(game: str, mode: str, seats: int, matches: int, persistence: str) -> tuple[int, float]:
    with tempfile.TemporaryDirectory() as tmp:
        settings = dataclasses.replace(
            Settings(), var_dir=Path(tmp), persistence=persistence,
            ports={n: 0 for n in DEFAULT_PORTS}, log_level="error",
            max_calls_per_second=0,  # capacity, not a deployment's policy per seat
        )
        backend = await start_backend(settings, games=[game])
        client = RulesClient(backend.address(f"rules-{game}"))
        organiser = backend.bot_driver_token()  # only a service token may seat bot- players
        actions = 0
        start = time.perf_counter()
        for m in range(matches):
            result = await play_match(client, organiser, mode=mode, seats=["random"] * seats, seed=m)
            actions += result.steps
        elapsed = time.perf_counter() - start
        await client.close()
        await backend.stop(1)
        del backend, client
        gc.collect()  # grpc's servers go while the loop runs (else: "Event loop is closed")
        return actions, elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", default="toy")
    parser.add_argument("--mode", default="race")
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--persistence", default="sqlite")
    args = parser.parse_args()
    if args.game == "toy":
        import os

        os.environ.setdefault("NEON_ENGINES", "toy=tests.support.toy")
    from services.platform import logs

    logs.configure("error")
    a_pure, t_pure = pure(args.game, args.mode, args.seats, args.matches)
    a_srv, t_srv = asyncio.run(served(args.game, args.mode, args.seats, args.matches, args.persistence))
    rate_pure, rate_srv = a_pure / t_pure, a_srv / t_srv
    print(f"game {args.game} mode {args.mode}, {args.matches} matches of random bots")
    print(f"pure engine (baseline): {a_pure} actions in {t_pure:.2f}s = {rate_pure:,.0f} actions/s")
    print(f"served ({args.persistence}, gRPC, dice, outbox): {a_srv} actions in {t_srv:.2f}s = "
          f"{rate_srv:,.0f} actions/s, {1000 * t_srv / max(a_srv, 1):.2f} ms per action")
    print("served actions include a GetView, a ListLegalActions and a SubmitAction call each")
    print(f"ratio served/pure: {rate_srv / rate_pure:.4f} (the service costs {rate_pure / rate_srv:.0f}x the engine)")


if __name__ == "__main__":
    main()
