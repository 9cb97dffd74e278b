"""pytest hooks that every suite's conftest.py imports (so pytest registers them there):
:class:`~quire_testing.peers.PeerMissing` raised during a test's setup or call skips it
(the one rule, :mod:`quire_testing.peers`), and the header names the package and library
under test."""

from __future__ import annotations

from typing import Any, List

import pytest

from .peers import PeerMissing, missing


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Any:
    try:
        return (yield)
    except PeerMissing as error:
        missing(error)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    try:
        return (yield)
    except PeerMissing as error:
        missing(error)


def pytest_report_header(config: pytest.Config) -> List[str]:
    from .library import describe

    try:
        return ["under test: " + describe()]
    except Exception as error:  # the import's own failure is reported by the tests
        return ["under test: quire does not import: %s" % error]
