"""Material: what the request tells the reader, line by line, and which lines are events.

Every line of material gets one kind, read from its form alone:

* ``note``     a line under a short label ("申し送り: …", "Handover: …"): kept as a fact, never an event
* ``chime``    a bare clock call ("三時です。", "It is three o'clock."): routine
* ``question`` it asks something (…か。, ？, ?)
* ``ask``      it asks the listener to do something, in the speaker's own voice (…ください, please …)
* ``summary``  an item of a summary the request carries (``routine``: the opening of a line that recurred)
* ``reply``    the assistant's own words
* ``statement`` anything else said by the user

An *event* is a statement (or a summary's event item) that is not routine, or a sentence of the
assistant's own that tells something the rest of the request does not (a live watchman reporting
what he found): at least three content words, half of them said nowhere else. The stand-in's own
replies never qualify, since every word they hold comes from the request or from its connectives
(``phrases``), which count as said. A statement is routine
when the night had already told it: the notes cover most of its words, or another line says nearly
the same. What recurs or was announced is routine; what happens once, unannounced, is an event.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from nightwatch.standin.reader import forms
from nightwatch.standin.reader.phrases import PHRASES, allowed_words
from nightwatch.standin.reader.words import analyze, content_lemmas
from nightwatch.standin.reader.text import (
    content_words, coverage, features, find_clock, language, outside_quotes, sentences, similarity,
)

LABEL = re.compile(r"^\s*(?P<label>[^\s:：。、「」?？!！]{1,12})\s*[:：]\s*(?P<body>\S.*)$", re.DOTALL)
SPEAKER = re.compile(r"^\s*[^:：\n]{1,40}[:：]\s*[「『“\"‘']")
STAGE_DIRECTION = re.compile(r"（[^）]*）|\([^)]*\)")
ROUTINE_COVERAGE = 0.5
NEAR_DUPLICATE = 0.6

LineKind = Literal["note", "chime", "question", "ask", "summary", "routine", "reply", "statement"]


@dataclass(frozen=True)
class Line:
    """One message (or summary item) of material, where it sits in the request, and its kind."""

    index: int
    role: str
    kind: LineKind
    text: str
    context: str = ""  # for a fact sentence: its label and the rest of its message (who, where)


HANDING_OVER = frozenset({"申し送り", "申し送る", "引き継ぎ", "引き継ぐ", "伝言", "メモ", "連絡",
                          "handover", "note", "message", "memo", "notice", "briefing"})
LONG_LABEL = re.compile(r"^\s*(?P<label>[^:：。「」?？!！\n]{1,60})[:：]\s*(?P<body>\S.*)$", re.DOTALL)


def label_of(text: str) -> tuple[str, str] | None:
    """(label, body) when the text opens with a "label:" heading that is not a clock: a short one,
    or a longer one that names a handover ("Handover from Priya on the evening shift:"). A label
    before quoted speech (山口さん：「…」) names who is speaking: that is someone talking, not a note."""
    if SPEAKER.match(text):
        return None
    match = LABEL.match(text)
    if match and find_clock(match["label"]) is None and not match["label"].isdecimal():
        return match["label"], match["body"].strip()
    long = LONG_LABEL.match(text)
    if long and find_clock(long["label"]) is None and HANDING_OVER & content_lemmas(long["label"]):
        return long["label"], long["body"].strip()
    return None


def names_a_speaker(label: str) -> bool:
    """A label that is only a person's name ("Lena", 「岡田さん」) names who speaks: the turn is their
    words, not a note. A label that names a handover, or its source (「日勤より」, "From the day
    shift"), heads a note."""
    words = analyze(label)
    if not words or HANDING_OVER & content_lemmas(label):
        return False
    if language(label) == "ja":
        return words[-1].lemma in ("さん", "様", "君", "ちゃん") or all(w.detail == "固有名詞" for w in words)
    return len(words) <= 2 and all(w.surface[:1].isupper() and w.surface.isalpha() for w in words)


CLOCK_CALL = frozenset({
    # what a bare clock call may say besides the time: the clock, its sound, the time of day
    "時計", "鐘", "鳴る", "打つ", "告げる", "時", "時刻", "午前", "午後", "夜", "朝", "深夜", "真夜中", "正時", "丁度", "回る",
    "clock", "strike", "chime", "bell", "ring", "toll", "hour", "hours", "o'clock", "now", "time", "exactly",
    "am", "pm", "a.m", "p.m", "m", "sharp", "past", "half", "quarter", "midnight", "noon", "bong", "dong",
})


def is_chime(text: str) -> bool:
    """A clock call: its first sentence, or the opening of it before a comma, names a time and at most
    one other thing (the clock, the bell); what follows it is narration (stage directions in parentheses
    aside): 「23時、閉店の時間です。」 is the hour, then what it brings."""
    said = _clock_first(sentences(STAGE_DIRECTION.sub("", text)) or sentences(text.strip().strip("（）()")))
    if not said:
        return False
    clock = find_clock(said[0])
    if clock is None or any(forms.is_request(s) or forms.is_question(s) for s in said):
        return False
    rest = said[0].replace(clock.words, " ")
    extra = {lemma for lemma in content_lemmas(rest) if not lemma.isdecimal()} - CLOCK_CALL
    sounded = bool(content_lemmas(said[0]) & {"時計", "鐘", "鳴る", "clock", "bell", "strike", "chime", "toll"})
    return len(extra) <= (2 if sounded else 1)  # "The clock in the keepers' hut strikes ten."


def _clock_first(said: list[str]) -> list[str]:
    """The sentences, the first split after its opening when that opening is a time and a comma
    ("Five o'clock, first light over the breakwater.")."""
    if said:
        head, comma, rest = (re.split(r"([、,])", said[0], maxsplit=1) + ["", ""])[:3]
        if comma and rest.strip() and (clock := find_clock(head)) is not None and clock.words in head:
            return [head, rest.strip(), *said[1:]]
    return said


def told_after_the_hour(text: str) -> str:
    """What a clock call (a line already read as one) goes on to tell ("It is two. A red van stops at
    the gate."): the sentences after its first, stage directions aside, that say something happened.
    An all-clear or a remark ("All quiet." 「異常ありません。」 "Good morning!" 「寒いですね。」) is not
    news: a negated sentence, or one with fewer than two content words besides the time of day, is
    left with the clock."""
    said = _clock_first(sentences(STAGE_DIRECTION.sub("", text)))
    told = [s for s in said[1:] if not is_chime(s) and not forms.is_negated(s)
            and len(content_lemmas(s) - CLOCK_CALL - {"morning", "night", "evening", "good"}) >= 2]
    return ("" if told and not told[0].isascii() else " ").join(told)


def with_what_the_hour_told(lines: list[Line]) -> list[Line]:
    """The lines, each clock call followed by what it went on to tell, as a statement of its own."""
    out: list[Line] = []
    for line in lines:
        out.append(line)
        if line.kind == "chime" and (told := told_after_the_hour(line.text)):
            out.append(Line(line.index, line.role, "statement", told))
    return out


def is_question(text: str) -> bool:
    return any(forms.is_question(s) for s in sentences(outside_quotes(text)))


def spoken(text: str) -> list[str]:
    """The sentences of a line that is one speaker's quoted words (Name: 「…」), else none."""
    head = SPEAKER.match(text)
    return sentences(text[head.end() - 1 :].strip().strip("「」『』“”\"‘’'")) if head else []


def is_ask(text: str, own_voice_only: bool = True) -> bool:
    """Asks for something to be done (or claims it was allowed): directly, in the speaker's own words
    (a request passed on in narration is something that happened), or, with ``own_voice_only``
    False, in any voice."""
    if own_voice_only:
        return any(forms.is_direct_request(s) for s in sentences(outside_quotes(text)))
    return any(forms.is_request(s) or forms.claims_permission(s) for s in sentences(text))


def kind_of_user_text(text: str) -> LineKind:
    if label_of(text) is not None:
        return "note"
    if is_chime(text):
        return "chime"
    if is_question(text):
        return "question"
    if is_ask(text):
        return "ask"
    return "statement"


def tells_and_asks(line: Line) -> bool:
    """An ask that also tells what happened (「内田さんが寄っていきました。…伝えてほしいとのことです」):
    an incident that contains a request is still an incident. An ask and nothing else (「アンです。
    …片付けておいてください」: who is speaking, then the request; or the hour, then the request) is an
    instruction, not an event."""
    return line.kind == "ask" and any(
        not (forms.is_request(s) or forms.is_question(s) or forms.is_scene(s) or forms.claims_permission(s)
             or is_chime(s))  # 「六時です。…報告してください」: the hour, then the ask
        for s in sentences(STAGE_DIRECTION.sub("", outside_quotes(line.text))))


def body(text: str) -> str:
    """The text without its label heading."""
    labelled = label_of(text)
    return labelled[1] if labelled else text


def is_routine(text: str, notes: list[str], others: list[str], recurring: list[str] = ()) -> bool:
    """Announced in the notes, said (nearly) the same elsewhere, or known to recur: not an event."""
    if notes and coverage(text, " ".join(notes)) >= ROUTINE_COVERAGE:
        return True
    if any(" ".join(text.split()).startswith(opening) for opening in recurring):
        return True
    return any(similarity(text, other) >= NEAR_DUPLICATE for other in others)


def told_by_the_assistant(line: Line, lines: list[Line], known: str = "") -> list[Line]:
    """Sentences of an assistant line that tell something new (see the module docstring)."""
    connectives = "".join(allowed_words(lang) for lang in PHRASES)
    elsewhere = (known + connectives + "".join(other.text for other in lines if other is not line)).lower()
    told = []
    for sentence in sentences(line.text):
        words = content_words(STAGE_DIRECTION.sub("", sentence))
        novel = [w for w in words if w.lower() not in elsewhere]
        if len(words) >= 3 and 2 * len(novel) >= len(words):
            told.append(Line(line.index, line.role, line.kind, sentence))
    return told


def events(lines: list[Line], known: str = "") -> list[Line]:
    """The lines that are events, in the order the request carries them.

    ``known`` is text the request states outside the material (its instructions). A line that
    appears twice (in the summary and again in the window, say) recurs, so it is routine."""
    notes = [body(line.text) for line in lines if line.kind == "note"]
    recurring = [line.text for line in lines if line.kind == "routine"]
    said = [line for line in lines if line.kind in ("summary", "statement") or tells_and_asks(line)]
    found: list[Line] = []
    for line in lines:
        if line in said:
            others = [other.text for other in said if other is not line]
            if line.kind != "summary" and is_routine(line.text, notes, [], recurring):
                continue
            if any(similarity(line.text, other) >= NEAR_DUPLICATE for other in others):
                continue
            found.append(line)
        elif line.kind == "reply":
            for told in told_by_the_assistant(line, lines, known):
                if all(similarity(told.text, kept.text) < NEAR_DUPLICATE for kept in found):
                    found.append(told)
    return found


def facts(lines: list[Line]) -> list[Line]:
    """Sentences a question can be answered from: notes, statements, summary items. The watchman's
    own replies are not among them: what he said back (an acknowledgement, a duty he quoted) is not
    something he was told."""
    out = []
    for line in lines:
        if line.kind in ("question", "chime", "routine", "reply"):
            continue
        for sentence in sentences(body(line.text)):
            if not is_question(sentence):
                out.append(Line(line.index, line.role, line.kind, sentence, line.text))
    return out


def feature_count(text: str) -> int:
    return len(features(text))


def recurs(fact: Line, lines: list[Line]) -> bool:
    """A statement said again (nearly the same) elsewhere in the request: passing routine."""
    return fact.kind == "statement" and any(
        other.index != fact.index and other.kind in ("statement", "summary", "routine")
        and similarity(fact.text, other.text) >= NEAR_DUPLICATE for other in lines
    )


FOLLOW_UP_SHARED = 2
FOLLOW_UP_SHARE = 0.4


def with_follow_ups(found: list[Line], lines: list[Line]) -> list[list[Line]]:
    """The events grouped with what came of them: each later statement (not an ask: that is a new
    incident) that shares at least two of an event's rarer content lemmas (used by few lines of
    the night; numbers do not count) follows it
    (「警報が誤作動」 then 「確認の電話…誤作動だと伝えると了解」; a leak, then the leak mended),
    and is not listed again on its own. What recurs all night (a name, the place) does not join."""
    said = [line for line in lines if line.kind in ("statement", "ask", "summary")]
    held = {id(line): {lemma for lemma in content_lemmas(line.text) if not lemma.isdecimal()} for line in [*said, *found]}
    counts: dict[str, int] = {}
    for line in said:
        for lemma in held[id(line)]:
            counts[lemma] = counts.get(lemma, 0) + 1
    common = max(2, len(said) // 8)
    rare = lambda line: {lemma for lemma in held[id(line)] if counts.get(lemma, 0) <= common}  # noqa: E731
    order = {(line.index, line.text): n for n, line in enumerate(lines)}
    # a summary's items share their message's index: their place in the summary orders them
    position = lambda line: (line.index, order.get((line.index, line.text), 0))  # noqa: E731
    groups: list[list[Line]] = []
    taken: set[int] = set()
    for event in found:
        if id(event) in taken:
            continue
        group, about = [event], rare(event)
        for later in [*found, *said]:
            if later.kind == "ask" or id(later) in taken or later is event or position(later) <= position(event) or any(
                    later.text == kept.text for kept in group):
                continue
            shared = about & rare(later)
            if len(shared) >= FOLLOW_UP_SHARED and len(shared) >= FOLLOW_UP_SHARE * min(len(about), len(rare(later))):
                group.append(later)
                taken.add(id(later))
        taken.add(id(event))
        groups.append(group[:1] + sorted(group[1:], key=position))
    return groups
