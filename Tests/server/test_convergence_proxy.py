"""Issue 30 with real processes: quire.Client processes editing through fault-injecting TCP
proxies to quire-server (a partition, cuts, loss, delays, a SIGKILL of the server), then
the network heals; every client must equal the server within 30 s, nothing lost
(Tests/server/convergence_net.py; 60 s of edits).
"""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import convergence_net  # noqa: E402
from sync_support import QUIRE_SERVER  # noqa: E402


@pytest.mark.skipif(not QUIRE_SERVER.exists(), reason="needs build/bin/quire-server (make)")
def test_clients_converge_through_a_faulty_network(tmp_path: Path) -> None:
    seed = int(os.environ.get("QUIRE_CONVERGENCE_SEED", "1"))
    result = convergence_net.run(duration=60, clients=4, seed=seed, workdir=tmp_path)
    assert result["converged_after"] is not None and result["converged_after"] < 30
    assert result["edits"] > 200 and result["changes"] > 100, result
    assert result["lost"] == 0
