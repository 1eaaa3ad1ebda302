"""Recognising a summary request, in any framework's shape, and finding its transcript.

Recognised by form, not by framework: the asking text says 要約 / まとめ / 束ね直 / summarize, and
the transcript is either written into the request (lines labelled Human:/AI:, user:/assistant:,
問:/答:, messages tagged ``<message type="human">…</message>``, or message objects printed as
``HumanMessage(content='…')``) or is the conversation the request itself carries before the ask.
Where the ask may sit: in the last message, as long as it is not a mere question ("要約した紙は
どこですか" is not an ask), with the transcript written into that message or, if it has none, the
conversation before it (langmem); or in a system or developer message (an instruction, or one that
asks in so many words though it states no duty, "Write a concise summary…"), but only when the
last message carries a written transcript (LlamaIndex, nightwatch's own ``LLMSummarizer``): a
mission that mentions 要約 does not turn the night's ordinary turns into summary requests. Only the
last message is read for a written transcript, so tags a user pasted earlier stay material.
Worked examples (a block between "EXAMPLE" and "END OF EXAMPLE", or inside <example> tags) are
removed first: they illustrate, they are not the transcript.
A previous summary is any block under a heading that names a summary ("Current summary:",
"これまでの束ね:", "…summary of the conversation so far: …"), a transcript message that opens with
such a heading ("Here is a summary of the conversation to date:"), or a transcript line spoken by
``system``; its facts are carried into the new one. A ``system`` line of the transcript that gives
orders (a mission kept in the history) is not a summary: its sentences are kept as notes, so the
new summary records the orders as facts, never as events and never as orders. The summary is in
the transcript's language.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from xml.sax.saxutils import unescape

from nightwatch.standin.reader import forms
from nightwatch.standin.reader.instructions import (
    INSTRUCTION_ROLES, SUMMARY_HEADING, SUMMARY_LABEL, duty_clauses, is_instruction_message, reads_as_record,
)
from nightwatch.standin.reader.material import Line, is_ask, is_question
from nightwatch.standin.reader.summary import classify, fold
from nightwatch.standin.reader.text import sentences

ASK_VERB = re.compile(
    r"(?:^|[.。!?！？]\s*)(?:please\s+)?(?:write|create|produce|provide|give|summari[sz]e|extract)\b|要約|束ね直",
    re.IGNORECASE | re.MULTILINE,
)
SUMMARY_ASK = re.compile(r"要約|まとめ直|束ね直|summar(?:i[sz]e|y)|extract .{0,60}context", re.IGNORECASE)
SUMMARIZING = frozenset({
    # lemmas that ask for a condensed account of a transcript
    "要約", "纏める", "束ねる", "束ね直す", "まとめ直す", "概要", "圧縮", "申し送り", "申し送る", "引き継ぎ",
    "summarize", "summarise", "summary", "summarization", "summarisation", "compress", "condense", "recap",
    "digest", "handover", "snapshot", "synopsis",
})
CONVERSATION = frozenset({"conversation", "dialog", "dialogue", "chat", "history", "above", "transcript", "exchange",
                          "会話", "やり取り", "遣り取り", "履歴", "対話", "記録"})
EXAMPLE_BLOCK = re.compile(r"(?ms)^\s*(?:EXAMPLE|例)\s*$.*?^\s*END OF (?:EXAMPLE|例)\s*$|<example>.*?</example>")
REPR_MESSAGE = re.compile(
    r"(?P<cls>HumanMessage|AIMessage|SystemMessage|ToolMessage)\(content=(?P<lit>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
)
XML_MESSAGE = re.compile(r"<message type=([\"'])(?P<role>[^\"']+)\1[^>]*>(?P<body>.*?)</message>", re.DOTALL)
INNER_TAG = re.compile(r"</?[a-z_]+(?:\s[^>]*)?>")
ROLE_LINE = re.compile(
    r"(?m)(?:^(?:\[[^\]\n]{1,20}\]\s*)?|(?<=[:：] ))\"?(?P<role>Human|AI|User|Assistant|System|Tool|HUMAN|USER|ASSISTANT|SYSTEM|TOOL"
    r"|user|assistant|system|tool|問|答|ユーザー|ユーザ|アシスタント|システム)\s*[:：] ?"
)
ROLES = {"human": "user", "user": "user", "問": "user", "ai": "assistant", "assistant": "assistant", "答": "assistant",
         "system": "summary", "tool": "user", "function": "user", "ユーザー": "user", "ユーザ": "user",
         "アシスタント": "assistant", "システム": "summary"}
SUMMARY_BLOCK = re.compile(r"(?m)^(?P<head>[^\n:：]{0,60}(?:summary|要約|束ね|まとめ)[^\n:：]{0,40})[:：][ \t]*(?P<body>.*?)(?=\n\s*\n|\Z)", re.IGNORECASE | re.DOTALL)
OUTPUT_SLOT = re.compile(r"\bnew\b|新しい", re.IGNORECASE)
PLACEHOLDER = re.compile(r"^\s*[（(][^）)]*[）)]\s*$")


def asking_text(messages: Sequence[Mapping[str, str]]) -> str | None:
    """The text that asks for a summary, if the request asks for one (see the module docstring)."""
    last = messages[-1]["content"]
    written = bool(transcript_in(_transcript_part(last)))
    if _asks(last, of_the_conversation=not written):
        return last
    if written and _asks_of_transcript(last):
        return last
    if written:
        for message in messages[:-1]:
            if _may_instruct(message) and _asks(message["content"]):
                return message["content"]
    return None


def _asks(text: str, of_the_conversation: bool = False) -> bool:
    """Some sentence of ``text`` (outside carried summaries and worked examples) asks for a summary:
    it has a lemma of summarizing and is not a mere question. With ``of_the_conversation`` (no
    transcript is written out) it must also name the conversation, so that "give me the handover"
    at dawn stays a report, not a summary of the night's requests."""
    cleaned = EXAMPLE_BLOCK.sub("", _without_summary_blocks(text)[:4000])
    for sentence in sentences(XML_MESSAGE.sub("", cleaned)):
        found = forms.lemmas(sentence)
        if not (SUMMARY_ASK.search(sentence) or SUMMARIZING & found):
            continue
        if of_the_conversation and not CONVERSATION & found:
            continue
        if is_ask(sentence) or not is_question(sentence):
            return True
    return False


def _asks_of_transcript(text: str) -> bool:
    """A request made in front of a written transcript ("Boil it down to a few lines.", "Write a few
    lines summing it up."): whatever verb it uses, what it asks to be done is to the transcript."""
    head = text[: first.start()] if (first := ROLE_LINE.search(text)) else ""
    return any(forms.is_request(sentence) and not is_question(sentence) for sentence in sentences(head))


def _transcript_part(text: str) -> str:
    """The part of a message a written transcript is read from (worked examples and, unless the
    transcript is tagged, carried summaries removed)."""
    content = EXAMPLE_BLOCK.sub("", text)
    return content if XML_MESSAGE.search(content) else _split_previous(content)[1]


def _may_instruct(message: Mapping[str, str]) -> bool:
    """An instruction, or a system/developer message that asks outright though it states no duty.

    A carried summary never asks, whatever words it holds ("In summary, …")."""
    if message.get("role") not in INSTRUCTION_ROLES:
        return False
    content = message.get("content", "")
    return is_instruction_message(message) or (not reads_as_record(content) and bool(ASK_VERB.search(content)))


def _headed_summary(text: str) -> str:
    """The body of a message that opens with a summary heading ("Here is a summary …:"), else ""."""
    first_line, _, rest = text.strip().partition("\n")
    first_line = first_line.rstrip()
    if first_line[-1:] not in (":", "：") or not SUMMARY_HEADING.search(first_line[:100]):
        return ""
    return rest.strip()


def _is_rule(head: str) -> bool:
    """A heading that lays down what the summary must do ("This summary must always:"), not one."""
    return bool(forms.lemmas(head) & {"must", "should", "never", "always", "shall", "べき", "必ず"}) or forms.is_negated(head)


def _without_summary_blocks(text: str) -> str:
    """The text without carried summaries (a heading with nothing under it is the ask itself)."""
    return SUMMARY_BLOCK.sub(lambda m: m.group(0) if not m["body"].strip() or _is_rule(m["head"]) else "", text)


def _split_previous(text: str) -> tuple[str, str]:
    """(previous summary, the text with that block removed)."""
    previous = []
    for match in SUMMARY_BLOCK.finditer(text):
        if OUTPUT_SLOT.search(match["head"]) or _is_rule(match["head"]):
            continue
        content = match["body"].strip().strip('"')
        if content and not PLACEHOLDER.match(content) and not ROLE_LINE.match(content):
            previous.append(content)
    return "\n".join(previous), SUMMARY_BLOCK.sub(lambda m: m.group(0) if _is_rule(m["head"]) else "", text)


def transcript_in(text: str) -> list[tuple[str, str]]:
    """(role, content) pairs written into a prompt, in any of the recognised layouts."""
    tagged = list(XML_MESSAGE.finditer(text))
    if tagged:
        pairs = [(ROLES.get(m["role"].lower(), "user"), unescape(INNER_TAG.sub(" ", m["body"])).strip()) for m in tagged]
        return [(role, content) for role, content in pairs if content]
    reprs = list(REPR_MESSAGE.finditer(text))
    if reprs:
        out = []
        for match in reprs:
            role = {"HumanMessage": "user", "AIMessage": "assistant"}.get(match["cls"], "summary")
            out.append((role, ast.literal_eval(match["lit"])))
        return out
    marks = list(ROLE_LINE.finditer(text))
    out = []
    for number, match in enumerate(marks):
        end = marks[number + 1].start() if number + 1 < len(marks) else len(text)
        content = text[match.end() : end]
        content = re.split(r"\n\s*\n", content.strip(), maxsplit=1)[0] if number + 1 == len(marks) else content
        out.append((ROLES[match["role"].lower()], content.strip().strip('"').strip()))
    return [(role, content) for role, content in out if content]


def _carried_summary(role: str, text: str) -> tuple[str, list[str]]:
    """(previous summary, notes) that a transcript line carries.

    A ``system`` line is a previous summary (whole, when it is headed or opens with a summary
    label), except for the sentences of a free-text one phrased as duties, which become notes; when
    most of its sentences are duties it is a mission, kept whole as one note.
    A user message carries a previous summary when it opens with a summary heading."""
    if role == "summary":
        headed = _headed_summary(text)
        if headed or SUMMARY_LABEL.match(text):  # a summary in the reader's own layout: whole
            return headed or text, []
        said = sentences(text)
        duties = [sentence for sentence in said if duty_clauses(sentence) or forms.is_request(sentence)]
        if duties and 2 * len(duties) > len(said):
            return "", [text]
        for duty in duties:
            text = text.replace(duty, "")
        return text.strip(), duties
    if role == "user":
        return _headed_summary(text) or _split_previous(text)[0], []
    return "", []


def summarize_request(messages: Sequence[Mapping[str, str]]) -> tuple[str, list[int]] | None:
    """The extractive summary a summary request asks for, and the message indices it drew on."""
    ask = asking_text(messages)
    if ask is None:
        return None
    previous_parts, lines, used = [], [], []
    for index, message in enumerate(messages):
        content = EXAMPLE_BLOCK.sub("", message["content"])
        previous, _ = _split_previous(XML_MESSAGE.sub("", content))  # headings inside tags belong to messages
        if previous:
            previous_parts.append(previous)
            used.append(index)
    written = transcript_in(_transcript_part(messages[-1]["content"]))
    for role, text in written:
        carried, notes = _carried_summary(role, text)
        if carried:
            previous_parts.append(carried)
        lines += [Line(-1, "system", "note", note) for note in notes]
        if not carried and not notes:
            lines.append(classify(role, text))
    if written:
        used.append(len(messages) - 1)
    else:  # the transcript is the conversation itself (langmem)
        for index, message in enumerate(messages[:-1]):
            if message["content"] == ask or is_instruction_message(message):
                continue
            role = message["role"] if message["role"] in ("user", "assistant") else "summary"
            lines.append(classify(role, message["content"]))
            used.append(index)
    if not lines and not previous_parts:
        return None
    return fold("\n".join(previous_parts), lines), sorted(set(used))
