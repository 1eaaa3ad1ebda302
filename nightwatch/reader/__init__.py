"""The stand-in model's reader: a small, general, deterministic reader of chat requests.

``read(messages) -> Reply`` answers any request from its messages alone, with the grounding trace
of where the answer came from. Modules, each one idea: ``text`` (sentences, features, clock times),
``instructions`` (duties vs material), ``material`` (line kinds, events), ``recall``, ``summary``
(extractive summaries of any summary request), ``grounding`` (the trace), ``phrases`` (the only
words of its own), ``rules`` (the ordered rules; ``print(rules_text())`` lists them).
"""

from nightwatch.reader.grounding import Reply, Source
from nightwatch.reader.rules import RULES, read, rules_text

__all__ = ["RULES", "Reply", "Source", "read", "rules_text"]
