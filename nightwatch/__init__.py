"""nightwatch: how a night-watch agent's conversation memory survives a full context window.

The library behind the notebooks, laid out like the book:

* the lesson: ``before`` (the spring design and act 2's ``history[-12:]``), ``after`` (the three
  tiers), the ``memory`` they rebuild on (銘・束ね・窓), ``agent`` (what every design shares),
  ``summarizers``, ``tokens`` and the scripted ``nights``;
* the stand-in model, a wing: ``standin`` (the offline model, its protocol, server and reader);
* the lab, a wing: ``lab`` (running nights, judging them, plots, live mode), ``workshop`` (the
  exercises' checks) and ``frameworks`` (the same night through LangChain and LlamaIndex).

Nothing in the lesson imports a wing. ``import nightwatch`` stays light: pandas and matplotlib are
imported only by the functions that draw tables and plots.
"""

from nightwatch.memory import Compaction, ConversationMemory, Exchange, MemoryPolicy
from nightwatch.nights import MISSION, Night, Turn, busy_night, celebration_eve, spring_night
from nightwatch.summarizers import LLMSummarizer, concatenating_summarizer
from nightwatch.tokens import count_message_tokens, count_text_tokens, estimate_tokens_by_chars

__all__ = [
    "MISSION", "Compaction", "ConversationMemory", "Exchange", "LLMSummarizer", "MemoryPolicy",
    "Night", "Turn", "busy_night", "celebration_eve", "concatenating_summarizer", "count_message_tokens",
    "count_text_tokens", "estimate_tokens_by_chars", "spring_night",
]
