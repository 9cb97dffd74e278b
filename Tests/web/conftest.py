"""The web test's fixtures are in test_web_review.py; here, what every suite shares
(Tests/support/quire_testing): its pytest hooks (the header names the package and library
under test; a missing peer is the one rule's skip, but this suite's browser is never
skipped: see the browser fixture)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

from quire_testing.plugin import pytest_report_header, pytest_runtest_call, pytest_runtest_setup  # noqa: E402,F401
