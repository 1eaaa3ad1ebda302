"""The stand-in model's reader: a small, general, deterministic reader of chat requests.

``read(messages) -> Reply`` answers any request from its messages alone, with the grounding trace
of where the answer came from. Modules, each one idea:

* ``text``             sentences, features (character n-grams / words), similarity, clock times
* ``instructions``     duties vs material; duties split into clauses and kinds
* ``material``         what each line of material is, and which lines are events
* ``words``            lemmas and parts of speech (MeCab + UniDic, simplemma, lemminflect)
* ``forms``            requests, questions, negation, permission from inflection and function words
* ``deeds``            what an ask asks to have done (its verb, a narrated ask's deed, only being told)
* ``concepts``         kinds of action (phrasal particles, a small bilingual verb table: a limitation)
* ``recall``           the best-matching fact, or a hesitation
* ``summary``          the three-line summary format and how lines are folded into it
* ``summary_request``  recognising any framework's summary request and its transcript
* ``grounding``        the trace of which messages a reply drew on
* ``phrases``          the only words of its own (connectives and labels)
* ``rules``            the ordered rules; ``print(rules_text())`` lists them
* ``contract``         what it links and never links; ``print(contract_text())`` states it
"""

from nightwatch.standin.reader.contract import CONTRACT, contract_text
from nightwatch.standin.reader.grounding import Reply, Source
from nightwatch.standin.reader.rules import RULES, read, rules_text

__all__ = ["CONTRACT", "RULES", "Reply", "Source", "contract_text", "read", "rules_text"]
