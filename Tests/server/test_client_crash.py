"""SIGKILL of a sync client process at random moments while it edits and syncs (issue 16):
200 trials here (client_crash.py --trials 1000 for the long run); see client_crash.py."""

from __future__ import annotations

import os
from pathlib import Path

import client_crash
from sync_support import QUIRE_SERVER


def test_client_sigkill_loses_nothing_acknowledged_and_pushes_nothing_twice(tmp_path: Path) -> None:
    trials = int(os.environ.get("QUIRE_CLIENT_CRASH_TRIALS", "200"))
    client_crash.run(trials, 16, str(QUIRE_SERVER), tmp_path)
