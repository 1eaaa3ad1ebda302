"""Start-up for every pytest process (the README's test command), nothing else.

nbval reads notebooks with nbformat, which imports jsonschema, whose format checkers import
``rfc3987_syntax`` if it is installed (jupyter pulls it in). That module builds some thirty Earley
parsers for IRI formats at import time: about 2 s in every pytest process, before a single test
runs (python-jsonschema/jsonschema#1428). No notebook schema uses an IRI format, so the test process
marks the module as absent and jsonschema skips those two checkers. Nothing outside pytest changes.

pytest loads installed plugins before any conftest, and nbval imports nbformat at once; so
``pyproject.toml`` keeps pytest from loading nbval itself (``-p no:nbval``) and this file loads it,
after the mark.
"""

from __future__ import annotations

import sys

sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[assignment]

pytest_plugins = ["nbval.plugin"]
