"""Default summary prompts of summarizers the collection does not install, copied with their sources.

LangChain's classic ``ConversationSummaryBufferMemory`` and langmem are not in any extra, so their
prompts cannot be imported; the stand-in's tests and ``benchmarks/reader_generality.py`` send these
copies. (LangChain v1's middleware and LlamaIndex's buffer are installed: their requests are built
by the frameworks' own code.)
"""

# LangChain classic, ConversationSummaryBufferMemory: SUMMARY_PROMPT (_DEFAULT_SUMMARIZER_TEMPLATE) from
# langchain-ai/langchain, libs/langchain/langchain_classic/memory/prompt.py; the buffer is
# get_buffer_string's "Human: …" / "AI: …" lines, and the prompt goes out as one human message.
LANGCHAIN_SUMMARY_PROMPT = """Progressively summarize the lines of conversation provided, adding onto the previous summary returning a new summary.

EXAMPLE
Current summary:
The human asks what the AI thinks of artificial intelligence. The AI thinks artificial intelligence is a force for good.

New lines of conversation:
Human: Why do you think artificial intelligence is a force for good?
AI: Because artificial intelligence will help humans reach their full potential.

New summary:
The human asks what the AI thinks of artificial intelligence. The AI thinks artificial intelligence is a force for good because it will help humans reach their full potential.
END OF EXAMPLE

Current summary:
{summary}

New lines of conversation:
{new_lines}

New summary:"""

# langmem, summarize_messages: DEFAULT_INITIAL_SUMMARY_PROMPT and DEFAULT_EXISTING_SUMMARY_PROMPT from
# langchain-ai/langmem, src/langmem/short_term/summarization.py.
LANGMEM_INITIAL = "Create a summary of the conversation above:"
LANGMEM_EXISTING = "This is summary of the conversation so far: {existing_summary}\n\nExtend this summary by taking into account the new messages above:"
