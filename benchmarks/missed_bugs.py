"""Are the bugs the unit tests once let through caught now? Each is put back, one at a time.

Issue 24's mutation run (unit tests only) found plausible bugs no test failed on: a fold one exchange
too greedy at the exact boundary, a summarizer's ``shorten`` raising or overshooting, a refused limit
adopted again, a batch one token over its room, load checks dropped, ``rebuild_summary`` unguarded, a
reserve-blind mission check; and the holes the issue fixed (a summary cap larger than the room, a flag
for a re-entrancy guard, unbounded caches, an unlocked table build, keys in URLs and headers, a
traceback on a malformed answer, a 413 after draining). Each entry below is one such bug as a text
substitution in the source, and the test file that must fail with it. The source is restored after
each run, whatever happens. About four minutes:

    python benchmarks/missed_bugs.py

Exit status 1 if any bug goes uncaught.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
MUTANTS = [  # (file, the tests that must fail, the correct text, the bug put back)
    ('nightwatch/memory/budget.py', 'tests/test_missed_behaviours.py',
     'while step < len(pairs) and (step == 0 or base + rest > room):',
     'while step < len(pairs) and (step == 0 or base + rest >= room):'),
    ('nightwatch/memory/compaction.py', 'tests/test_missed_behaviours.py',
     'except Exception:  # a shorten that fails',
     'except ZeroDivisionError:  # a shorten that fails'),
    ('nightwatch/memory/compaction.py', 'tests/test_missed_behaviours.py',
     '        if estimate_tokens(shorter) <= cap:\n            return Draft(shorter)',
     '        if True:\n            return Draft(shorter)'),
    ('nightwatch/summarizers.py', 'tests/test_missed_behaviours.py',
     'int(named[1]) >= self.context_window',
     'int(named[1]) > self.context_window'),
    ('nightwatch/summarizers.py', 'tests/test_missed_behaviours.py',
     'if self._limits_learned >= MAX_LIMITS_LEARNED_PER_FOLD:',
     'if False:'),
    ('nightwatch/summarizers.py', 'tests/test_missed_behaviours.py',
     'self._size(summary, pending[: taken + 1]) <= self._room()',
     'self._size(summary, pending[: taken + 1]) < self._room()'),
    ('nightwatch/summarizers.py', 'tests/test_missed_behaviours.py',
     '        choice = first_choice(response)\n',
     '        choice = response.choices[0]\n'),
    ('nightwatch/memory/saved.py', 'tests/test_missed_behaviours.py',
     'if self.summary and not self.archive:',
     'if False:'),
    ('nightwatch/memory/saved.py', 'tests/test_missed_behaviours.py',
     'if any(record.after_exchange > self.exchanges_added for record in self.failures):',
     'if False:'),
    ('nightwatch/memory/saved.py', 'tests/test_missed_behaviours.py',
     'if numbers != sorted(numbers) or any(',
     'if any('),
    ('nightwatch/memory/tiers.py', 'tests/test_missed_behaviours.py',
     '        self._refuse_reentry("rebuild_summary")\n',
     ''),
    ('nightwatch/memory/tiers.py', 'tests/test_missed_behaviours.py',
     'compaction.checked_answer(self._ask(self.summarize)("", list(self.archive))',
     'compaction.checked_answer(self.summarize("", list(self.archive))'),
    ('nightwatch/memory/tiers.py', 'tests/test_missed_behaviours.py',
     'if policy.context_window is not None and floor + policy.reply_reserve > policy.context_window:',
     'if policy.context_window is not None and floor > policy.context_window:'),
    ('nightwatch/memory/tiers.py', 'tests/test_memory_liveness.py',
     '            if problem:\n                raise ValueError(problem)\n',
     ''),
    ('nightwatch/memory/policy.py', 'tests/test_memory_liveness.py',
     'and self.summary_token_limit + self.reply_reserve >= self.context_window):',
     'and False):'),
    ('nightwatch/memory/tiers.py', 'tests/test_memory_liveness.py',
     'self._summarizer_depth += 1',
     'self._summarizer_depth = 1'),
    ('nightwatch/standin/server.py', 'tests/test_server.py',
     '    return bytes(body) if received <= limit else None',
     '    return bytes(body) if received < limit else None'),
    ('nightwatch/standin/server.py', 'tests/test_server.py',
     '        if declared > max_body_bytes:',
     '        if declared >= max_body_bytes:'),
    ('nightwatch/memory/redaction.py', 'tests/test_live_mode.py',
     '    text = QUERY_SECRET.sub(',
     '    text = text or QUERY_SECRET.sub('),
    ('nightwatch/memory/redaction.py', 'tests/test_live_mode.py',
     '    text = BASIC.sub(',
     '    text = text or BASIC.sub('),
    ('nightwatch/memory/redaction.py', 'tests/test_live_mode.py',
     '    text = SECRET_HEADER.sub(',
     '    text = text or SECRET_HEADER.sub('),
    ('nightwatch/lab/live.py', 'tests/test_live_mode.py',
     '    client = checked_client(openai.OpenAI(',
     '    client = (openai.OpenAI('),
    ('nightwatch/standin/server.py', 'tests/test_server.py',
     '            return _refused_unread(max_body_bytes)\n',
     '            pass\n'),
    ('nightwatch/tokens/encodings.py', 'tests/test_tokens.py',
     '    with _loading:\n        encoding = _loaded.get(encoding_name)\n',
     '    if True:\n'),
    ('nightwatch/tokens/bounded_cache.py', 'tests/test_tokens.py',
     '        if cost <= self.max_entry_bytes:',
     '        if True:'),
    ('nightwatch/tokens/bounded_cache.py', 'tests/test_tokens.py',
     ' or self._bytes > self.max_bytes:',
     ':'),
]


def main() -> int:
    caught = 0
    for path, tests, old, new in MUTANTS:
        file = ROOT / path
        original = file.read_text()
        assert original.count(old) == 1, (path, old)
        file.write_text(original.replace(old, new))
        try:
            run = subprocess.run([sys.executable, "-m", "pytest", tests, "-q", "-x", "-p", "no:cacheprovider"],
                                 cwd=ROOT, capture_output=True, text=True)
        finally:
            file.write_text(original)
        verdict = "caught" if run.returncode != 0 else "MISSED"
        caught += run.returncode != 0
        print(f"{verdict:6} {path}: {old.strip()[:70]!r}", flush=True)
    print(f"{caught}/{len(MUTANTS)} caught")
    return 0 if caught == len(MUTANTS) else 1


if __name__ == "__main__":
    sys.exit(main())
