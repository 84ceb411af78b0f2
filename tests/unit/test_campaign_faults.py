"""The fault campaign's own moving parts: a freeze really stops the process, outages are noted,
and a fault this campaign cannot inject is passed over, not counted."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

from tests.support.campaign import faults


def test_stopped_sees_sigstop_and_sigcont() -> None:
    child = subprocess.Popen(["sleep", "30"])
    try:
        assert not faults.stopped(child.pid, timeout=0.2)
        child.send_signal(signal.SIGSTOP)
        assert faults.stopped(child.pid)
        child.send_signal(signal.SIGCONT)
        assert not faults.stopped(child.pid, timeout=0.2)
    finally:
        child.kill()
        child.wait(5)


def test_a_frozen_nats_is_let_go_and_noted(tmp_path: Path) -> None:
    campaign = faults.Campaign(tmp_path, freeze=(0.3, 0.3))
    campaign.nats.start()
    try:
        assert campaign.nats.process is not None
        campaign.inject("nats-freeze")
        assert not faults.stopped(campaign.nats.process.pid, timeout=0.2)
        assert campaign.report.outages == {"nats-freeze": 1}
        assert 0.29 < campaign.report.outage_seconds < 0.31
    finally:
        campaign.stop()


def test_a_postgres_stop_without_a_cluster_of_its_own_is_passed_over(tmp_path: Path) -> None:
    campaign = faults.Campaign(tmp_path)  # SQLite: there is no cluster to stop
    campaign.inject("postgres")
    assert not campaign.report.outages and not campaign.report.kills
