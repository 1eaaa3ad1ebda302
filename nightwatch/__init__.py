"""nightwatch: how a night-watch agent's conversation memory survives a full context window.

The library behind the notebooks. ``import nightwatch`` stays light: pandas and matplotlib are
imported only by the functions that draw tables and plots.
"""

from nightwatch.memory import Compaction, ConversationMemory, Exchange, MemoryPolicy
from nightwatch.nights import MISSION, Night, Turn, celebration_eve, spring_night, busy_night
from nightwatch.standin import StandInModel
from nightwatch.summarizers import LLMSummarizer, ThreeLineSummarizer, concatenating_summarizer
from nightwatch.tokens import count_message_tokens, count_text_tokens, estimate_tokens_by_chars

__all__ = [
    "MISSION", "Compaction", "ConversationMemory", "Exchange", "LLMSummarizer", "MemoryPolicy",
    "Night", "StandInModel", "ThreeLineSummarizer", "Turn", "busy_night", "celebration_eve",
    "concatenating_summarizer", "count_message_tokens", "count_text_tokens",
    "estimate_tokens_by_chars", "spring_night",
]
