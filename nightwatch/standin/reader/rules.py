"""The reader's rules, in the order it tries them: the first that applies writes the reply.

``RULES`` is the list a chapter prints (``print(rules_text())``). Each rule reads only the request:
the duties (``instructions``), the material (``material``) and the last message, the question.
The reply is in the question's language, its content words come from the request, and when it
acts on a duty it quotes the clause it acted on; ``grounding`` records where each part came from.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from nightwatch.standin.reader import material, recall
from nightwatch.standin.reader.grounding import Reply, source
from nightwatch.standin.reader.instructions import INSTRUCTION_ROLES, SUMMARY_HEADING, Duty, is_instruction_message, read_duties
from nightwatch.standin.reader.phrases import PHRASES, number_word, phrase
from nightwatch.standin.reader.summary import Summary, shorten_item
from nightwatch.standin.reader.summary_request import summarize_request
from nightwatch.standin.reader.text import features, find_clock, language, outside_quotes, quoted, sentences

REPORT_ASK = re.compile(r"報告|report", re.IGNORECASE)
DUTY_QUESTION = re.compile(r"務め|役目|仕事|任務|\bdut(y|ies)\b|\bjob\b|\borders\b", re.IGNORECASE)
RECALL_QUESTION = re.compile(r"覚えて|思い出|\bremember\b|\brecall\b", re.IGNORECASE)
PROHIBITION_RELEVANCE = 0.2
REPORT_ITEM_CHARS = 60


@dataclass(frozen=True)
class Request:
    """A request as the rules see it."""

    messages: Sequence[Mapping[str, str]]
    question: str
    lang: str
    duties: list[Duty]
    lines: list[material.Line]

    def duties_of(self, kind: str) -> list[Duty]:
        return [duty for duty in self.duties if duty.kind == kind]

    def duty_reply(self, text: str, duty: Duty, act: str, *more) -> Reply:
        quote = phrase(self.lang, "duty", clause=duty.clause)
        sources = (source(self.messages, duty.message_index, duty.clause, duty.kind), *more, self.asked())
        return Reply(text + quote, sources, act)

    def asked(self, quote: str = ""):
        return source(self.messages, len(self.messages) - 1, quote)


def material_lines(messages: Sequence[Mapping[str, str]]) -> list[material.Line]:
    """Every message but the last, as material lines (instructions left out)."""
    lines: list[material.Line] = []
    for index, message in enumerate(messages[:-1]):
        role, text = message.get("role", ""), message.get("content", "")
        if is_instruction_message(message):
            continue
        first, _, rest = text.strip().partition("\n")
        if role in INSTRUCTION_ROLES or (role == "user" and SUMMARY_HEADING.search(first[:80])):
            body = rest if SUMMARY_HEADING.search(first[:80]) and rest else text
            carried = Summary.parse(body)
            lines += [material.Line(index, role, "note", note) for note in carried.notes]
            lines += [material.Line(index, role, "summary", event) for event in carried.events]
            lines += [material.Line(index, role, "routine", opening) for opening in carried.routine]
        elif role == "assistant":
            lines.append(material.Line(index, role, "reply", text))
        else:
            lines.append(material.Line(index, role, material.kind_of_user_text(text), text))
    return lines


def ask_in(text: str, own_voice_only: bool = False) -> str | None:
    """The sentence (or quoted speech) that asks for something, if any."""
    for sentence in sentences(outside_quotes(text) if own_voice_only else text):
        for speech in quoted(sentence):
            if material.is_ask(speech) and not own_voice_only:
                return speech
        if material.is_ask(outside_quotes(sentence)):
            return sentence.rstrip("。.")
    return None


def latest_ask(request: Request) -> material.Line | None:
    for line in reversed(request.lines):
        if line.role == "user" and line.kind == "ask":
            return line
    return None


# ---- the rules ---------------------------------------------------------------------------------

def summarize(request: Request) -> Reply | None:
    """A request asking to summarize a transcript it carries gets an extractive summary."""
    result = summarize_request(request.messages)
    if result is None:
        return None
    text, used = result
    return Reply(text, tuple(source(request.messages, i) for i in used), "summary")


def report(request: Request) -> Reply | None:
    """Asked to report: list every event the material carries; quote a report duty if one is stated."""
    if not REPORT_ASK.search(request.question) or not (material.is_ask(request.question) or material.is_question(request.question)):
        return None
    clock = find_clock(request.question)
    clock_words = clock.words if clock else ""
    instructions = "".join(m.get("content", "") for m in request.messages if is_instruction_message(m))
    found = material.events(request.lines, known=instructions)
    sources = tuple(source(request.messages, line.index, line.text) for line in found)
    if found:
        items = "".join(
            phrase(request.lang, "report_item", number=number_word(request.lang, n),
                   event=_item(line.text)) + ("" if request.lang == "ja" else " ")
            for n, line in enumerate(found, start=1)
        )
        text = phrase(request.lang, "report", clock=clock_words, count=number_word(request.lang, len(found)),
                      items=items.strip())
    else:
        text = phrase(request.lang, "nothing_to_report", clock=clock_words)
    duty = next(iter(request.duties_of("report")), None)
    if duty is not None:
        return request.duty_reply(text, duty, "report", *sources)
    return Reply(text, (*sources, request.asked()), "report")


def _item(text: str) -> str:
    return shorten_item(material.body(text), REPORT_ITEM_CHARS)


def duties(request: Request) -> Reply | None:
    """Asked what its duties are: quote every duty clause, or, with none, say what it was last asked."""
    if not (material.is_question(request.question) and DUTY_QUESTION.search(request.question)):
        return None
    if request.duties:
        items = "".join(phrase(request.lang, "quote", text=duty.clause) for duty in request.duties) \
            if request.lang == "ja" else "; ".join(duty.clause for duty in request.duties)
        sources = tuple(source(request.messages, duty.message_index, duty.clause, duty.kind) for duty in request.duties)
        return Reply(phrase(request.lang, "duties", items=items), (*sources, request.asked()), "duties")
    last = latest_ask(request)
    if last is None:
        return Reply(phrase(request.lang, "no_duty_no_ask"), (request.asked(),), "forget")
    ask = ask_in(last.text, own_voice_only=True) or last.text
    return Reply(phrase(request.lang, "no_duty", ask=ask), (source(request.messages, last.index, ask), request.asked()),
                 "follow")


def remember(request: Request) -> Reply | None:
    """Asked to remember (or any other question): answer from the best-matching fact; a partial match only hesitates."""
    if not (RECALL_QUESTION.search(request.question) or material.is_question(request.question)):
        return None
    topic = recall.topic_of(request.question)
    fact, score = recall.best_fact(topic, material.facts(request.lines))
    if fact is not None and score >= recall.CONFIDENT:
        return Reply(phrase(request.lang, "recall", fact=fact.text),
                     (source(request.messages, fact.index, fact.text), request.asked()), "recall")
    if fact is not None and score >= recall.PARTIAL:
        return Reply(phrase(request.lang, "hesitate", topic=topic),
                     (source(request.messages, fact.index, fact.text), request.asked()), "hesitate")
    return Reply(phrase(request.lang, "forgotten", topic=topic), (request.asked(),), "forget")


def hourly(request: Request) -> Reply | None:
    """A bare clock call: announce it per a periodic duty; with none, keep on with the latest ask."""
    if not material.is_chime(request.question):
        return None
    clock = find_clock(request.question)
    periodic = request.duties_of("periodic")
    if periodic and clock is not None:
        said = clock.words if request.lang == "ja" else clock.words[:1].upper() + clock.words[1:]
        return request.duty_reply(phrase(request.lang, "all_quiet", clock=said), periodic[0], "periodic")
    last = latest_ask(request)
    if last is not None:
        ask = ask_in(last.text, own_voice_only=True) or last.text
        return Reply(phrase(request.lang, "follow", ask=ask), (source(request.messages, last.index, ask), request.asked()),
                     "follow")
    return Reply(phrase(request.lang, "acknowledge"), (request.asked(),))


def asked_to_act(request: Request) -> Reply | None:
    """Asked to do something: refuse, quoting it, if a prohibition covers it; otherwise comply."""
    ask = ask_in(request.question)
    if ask is None or material.kind_of_user_text(request.question) == "note":
        return None
    asked = features(request.question)
    for duty in request.duties_of("prohibition"):
        clause = features(duty.clause)
        if clause and len(clause & asked) / len(clause) >= PROHIBITION_RELEVANCE:
            return request.duty_reply(phrase(request.lang, "refuse"), duty, "refuse")
    return Reply(phrase(request.lang, "comply", ask=ask), (request.asked(ask),), "comply")


def acknowledge(request: Request) -> Reply:
    """Anything else: acknowledged, nothing added."""
    return Reply(phrase(request.lang, "acknowledge"), (request.asked(),))


RULES: list[Callable[[Request], Reply | None]] = [
    summarize, report, duties, remember, hourly, asked_to_act, acknowledge,
]


def rules_text() -> str:
    """The rules in order, one line each, as a chapter prints them."""
    return "\n".join(f"{n}. {rule.__name__}: {(rule.__doc__ or '').strip()}" for n, rule in enumerate(RULES, start=1))


def read(messages: Sequence[Mapping[str, str]]) -> Reply:
    """The reader's reply to a request: a pure function of the messages."""
    if not messages:
        return Reply(PHRASES["ja"]["silence"], act="silence")
    question = messages[-1].get("content", "")
    request = Request(messages, question, language(question), read_duties(messages), material_lines(messages))
    for rule in RULES:
        reply = rule(request)
        if reply is not None:
            return reply
    raise AssertionError("acknowledge always answers")
