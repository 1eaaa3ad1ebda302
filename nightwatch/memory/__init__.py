"""The memory of the rebuilt watchman, and everything that keeps it honest.

* ``tiers``       ``ConversationMemory``: 銘・束ね・窓, the lesson itself (read this first)
* ``compaction``  a compaction as a transaction: draft on the side, commit only what is usable
* ``budget``      request sizes tier by tier and the summary's cap: arithmetic, no memory in it
* ``policy``      ``MemoryPolicy``: what the memory is told, checked at the door
* ``records``     ``Exchange``, ``Compaction``, ``CompactionFailure``: what it holds and logs
* ``saved``       the whole memory as versioned JSON, checked when read back
* ``strict``      strict models and text that can always be saved
* ``redaction``   API keys masked in anything the memory or live mode writes down
"""

from nightwatch.memory.budget import ContextBudgetExceeded
from nightwatch.memory.compaction import SummaryRejected
from nightwatch.memory.policy import MemoryPolicy
from nightwatch.memory.records import Compaction, CompactionFailure, Exchange
from nightwatch.memory.tiers import (
    SUMMARY_HEADER, ConversationMemory, ReentrantCallError, Summarizer, TokenEstimator, compose_request,
)

__all__ = [
    "SUMMARY_HEADER", "Compaction", "CompactionFailure", "ContextBudgetExceeded", "ConversationMemory",
    "Exchange", "MemoryPolicy", "ReentrantCallError", "Summarizer", "SummaryRejected", "TokenEstimator",
    "compose_request",
]
