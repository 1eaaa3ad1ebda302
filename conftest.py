"""Start-up for every pytest process (the README's test command), nothing else.

nbval reads notebooks with nbformat, which imports jsonschema, whose format checkers import
``rfc3987_syntax`` if it is installed (jupyter pulls it in). That module builds some thirty Earley
parsers for IRI formats at import time: about 2 s in every pytest process, before a single test
runs (python-jsonschema/jsonschema#1428). No notebook schema uses an IRI format, so the test process
marks the module as absent and jsonschema skips those two checkers. Nothing outside pytest changes.

pytest loads installed plugins before any conftest, and nbval's imports nbformat at once; so
``pyproject.toml`` keeps pytest from loading nbval itself (``-p no:nbval``) and this file loads it,
after the mark.

Hypothesis's plugin imports all of Hypothesis (about 1 s) for its end-of-run summary, also in a run
that used no Hypothesis test (one notebook, or the controller of ``-n auto``, whose workers run the
tests). When there is nothing for it to report, it is left out of that summary.
"""

from __future__ import annotations

import sys

import pytest

sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[assignment]

pytest_plugins = ["nbval.plugin"]


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Drop Hypothesis's plugin before the summary when no test here used Hypothesis and no
    worker sent back a failing example (the only things its summary reports unless asked)."""
    manager = session.config.pluginmanager
    plugin, reporter = manager.get_plugin("hypothesispytest"), manager.get_plugin("terminalreporter")
    if plugin is None or reporter is None or "hypothesis" in sys.modules \
            or session.config.getoption("hypothesis_show_statistics", False):
        return
    if not any(getattr(report, "_hypothesis_failing_examples", None)
               for reports in reporter.stats.values() for report in reports):
        manager.unregister(plugin)
