"""How the memory is configured: window width, compaction trigger and, optionally, a budget.

Checked when it is made, so a policy that cannot work is refused at the door with its numbers,
not discovered at three in the morning.
"""

from __future__ import annotations

from pydantic import Field, model_validator

from nightwatch.memory.strict import StrictModel


class MemoryPolicy(StrictModel, frozen=True):
    """Window width in exchanges, the compaction trigger in tokens, and optionally a budget and the
    clearing of old tool results (``clearing``)."""

    window_size: int = Field(gt=0, description="exchanges kept verbatim after a compaction")
    token_threshold: int = Field(gt=0, description="window tokens above which compaction runs")
    context_window: int | None = Field(default=None, gt=0, description="the model's context window")
    reply_reserve: int = Field(default=0, ge=0, description="tokens kept free for the reply")
    summary_token_limit: int | None = Field(default=None, gt=0, description="cap on the summary")
    keep_tool_results: int | None = Field(
        default=None, gt=0, description="tool results shown verbatim, newest first; older ones are cleared")
    clear_at_least: int = Field(default=0, ge=0, description="clear only when this many tokens would be freed")

    @model_validator(mode="after")
    def _reserve_fits(self) -> MemoryPolicy:
        if self.clear_at_least and self.keep_tool_results is None:
            raise ValueError("clear_at_least batches the clearing of tool results: it needs keep_tool_results")
        if self.context_window is None:
            if self.reply_reserve:
                raise ValueError("reply_reserve needs a context_window to be reserved from")
        elif self.reply_reserve >= self.context_window:
            raise ValueError(
                f"reply_reserve ({self.reply_reserve}) must be smaller than context_window "
                f"({self.context_window}); it is over by {self.reply_reserve - self.context_window + 1}"
            )
        elif (self.summary_token_limit is not None
              and self.summary_token_limit + self.reply_reserve >= self.context_window):
            # Checked exactly (with the mission) by ConversationMemory; this much is known without it.
            raise ValueError(
                f"summary_token_limit ({self.summary_token_limit}) + reply_reserve ({self.reply_reserve}) = "
                f"{self.summary_token_limit + self.reply_reserve} leaves no room in context_window "
                f"({self.context_window}) for the mission and a question; a summary grown to its cap "
                "would refuse every later question"
            )
        return self
