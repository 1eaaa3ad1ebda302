"""Deeds: what an ask asks to have done, as opposed to the form it is asked in (``forms``).

A rule against a deed is broken by an ask for that deed, not by every sentence that mentions its
place: "A driver whose car slid off below the gate asks you to call a tow" asks for a call; "Tell me
about the boathouse" asks for words. So an ask is read for its deed: the verb it asks to be done
(``requested_verbs``), the part of a narrated ask that follows its verb of asking (``deed_of``), and
whether it asks only to be told something (``asks_only_to_be_told``), which breaks no rule but one
that keeps something from others (``PASSING_ON``).
"""

from __future__ import annotations

import re

from nightwatch.standin.reader.forms import (
    CLAUSE_BREAK, EN_OPENERS, EN_WANTING, GIVING_HELPERS, is_direct_request, is_english_imperative, is_request,
)
from nightwatch.standin.reader.phrases import PHRASES, phrase
from nightwatch.standin.reader.tense import char_end
from nightwatch.standin.reader.text import language
from nightwatch.standin.reader.words import WORD_CACHE_BYTES, WORD_CACHE_ENTRIES, Word, analyze
from nightwatch.tokens.bounded_cache import bounded_cache

SAYING = frozenset({"教える", "言う", "話す", "聞く", "説明", "伝える", "知らせる",
                    "tell", "say", "explain", "describe", "talk", "remind"})
"""Verbs of telling: a request made with one asks for words, not for a deed."""
PASSING_ON = SAYING | {"give", "show", "渡す", "見せる", "漏らす"}
"""A rule with one of these keeps something from others (a code, a number): asking to be told it breaks it."""


@bounded_cache(WORD_CACHE_ENTRIES, WORD_CACHE_BYTES)
def requested_verbs(sentence: str) -> frozenset[str]:
    """The verb a request asks to be done: in Japanese its last verb (the head comes last:
    「まとめて聞かせて」 asks to be told, 聞く; 「名前を聞いておいて」 without the causative asks to go
    and ask, 尋ねる), or the verbal noun before する (説明して); in English
    the verb an imperative opens with, or the one after "you" or "please" ("could you tell me")."""
    if not is_request(sentence):
        return frozenset()
    words = analyze(sentence)
    if language(sentence) == "ja":
        verbs = [(i, w.lemma if not (w.lemma == "為る" and i and words[i - 1].verbal) else words[i - 1].lemma)
                 for i, w in enumerate(words) if w.pos == "verb"]
        if not verbs:
            return frozenset()
        at, verb = verbs[-1]
        causative = at + 1 < len(words) and words[at + 1].lemma in ("せる", "させる")
        if verb == "聞く" and not causative:
            return frozenset({"尋ねる"})  # 「聞いておいて」: go and ask (or listen), a deed; 「聞かせて」 is to be told
        return frozenset({verb})
    lowered = [w.surface.lower() for w in words]
    for i, word in enumerate(lowered[:-1]):
        if word in ("you", "please") and words[i + 1].pos == "noun":
            return frozenset({words[i + 1].lemma.lower()})
    for clause in CLAUSE_BREAK.split(sentence):
        if is_english_imperative(clause):
            opening = [w for w in analyze(clause) if w.surface.lower() not in EN_OPENERS]
            return frozenset({opening[0].lemma.lower()})
    return frozenset()


def deed_of(text: str) -> str:
    """What an English ask asks to have done: the words after its first inflected verb of asking or
    wanting (EN_WANTING, narrated, not "I need"). "A man whose car slid off below the gate asks you to
    call a tow" asks for the call, not the gate; a later such verb gives a reason ("because he wants
    his paddle"). The whole text when there is none, and in Japanese (its asks are read unit by unit)."""
    if language(text) != "en":
        return text
    words = analyze(text)
    first = min((i for i, w in enumerate(words) if w.lemma.lower() in EN_WANTING and _narrated(words, i)), default=None)
    rest = words[first + 1 :] if first is not None else ()
    return " ".join(w.surface for w in rest) if any(w.is_content for w in rest) else text


THIRD_PERSONS = frozenset({"he", "she", "they"})


def _narrated(words: tuple[Word, ...], i: int) -> bool:
    """A verb of wanting said of someone else: inflected ("he wants") or after a subject that is
    neither the speaker nor the listener ("the crew want", "they want"; not "I really want", "you ask"),
    adverbs between them skipped."""
    if words[i].surface.lower() != words[i].lemma.lower():
        return True
    subject = next((w for w in reversed(words[:i]) if not (w.readings and w.readings <= {"ADV"})), None)
    return subject is not None and (subject.surface.lower() in THIRD_PERSONS or "NOUN" in subject.readings)


def _tells_someone_to_act(sentence: str) -> bool:
    """"Tell the porter to open it", 「警備員に開けるように言って」: telling passes on a deed."""
    words = analyze(sentence)
    if language(sentence) == "ja":
        return any(w.lemma in ("様", "よう") and i > 0 and words[i - 1].pos in ("verb", "aux") for i, w in enumerate(words))
    lowered = [w.surface.lower() for w in words]
    return any(word == "to" and i + 1 < len(words) and words[i + 1].is_content and "VERB" in words[i + 1].readings
               for i, word in enumerate(lowered))


def asks_only_to_be_told(sentence: str) -> bool:
    """A request whose deed is telling (「夜中のことを聞かせて」, "tell me about the van"): it asks for
    words, so no rule against a deed is broken by it."""
    verbs = requested_verbs(sentence)
    return bool(verbs) and verbs <= SAYING and is_direct_request(sentence) \
        and not _tells_someone_to_act(sentence)  # 「開けてほしいと言っています」 passes on a deed


# ---- what the watchman did: his own replies, read back -----------------------------------------

REQUEST_TAIL = GIVING_HELPERS | {"置く", "て", "で", "ます", "か", "ね", "よ", "な"}
"""What may follow the te-form of the verb a Japanese ask asks for: おいて, the helpers of giving and
receiving (ください, もらえますか, くれ) and the sentence's closing particles."""


def done_as_asked(ask: str) -> str | None:
    """A Japanese ask retold as done, from its te-form: 「紐で結わえておいてください」 → 「紐で結わえておきました」,
    「開けてくれ」 → 「開けておきました」. None when the ask does not end in a te-form (and a helper of
    asking, if any): then, and in English, whose past needs a lexicon, the ask is quoted (``deed_in_reply``)."""
    if language(ask) != "ja":
        return None
    words = list(analyze(ask.rstrip("。.!！?？ 　")))
    for i, word in enumerate(words):
        after = words[i + 1 :]
        if word.surface in ("て", "で") and word.pos == "particle" and i and words[i - 1].pos in ("verb", "aux_verb") \
                and all(w.lemma in REQUEST_TAIL or w.pos == "symbol" for w in after) \
                and (not after or any(w.lemma in GIVING_HELPERS for w in after)):
            start = _after_reason(ask, words[:i])
            return ask[start : char_end(ask, words, i + 1)] + phrase("ja", "done_ending")
    return None


def _after_reason(ask: str, words: list) -> int:
    """Where the deed's own clause starts: after the last reason or concession the asker gave first
    (「工房に財布を置いてきたので、開けてくれ」: the deed is opening, not leaving the purse), read from a
    comma right after a conjunctive particle (から, けど, が) or the で of ので; a comma after a phrase
    (「朝の点検まで、」) or a te-form (「鍵を開けて、」) is part of the deed."""
    start = 0
    for j, word in enumerate(words[1:], start=1):
        before = words[j - 1]
        if word.surface in ("、", "，", ",") and (
                (before.pos == "particle" and before.detail == "接続助詞" and before.lemma not in ("て", "で"))
                or (before.pos == "aux" and before.lemma == "だ" and before.surface == "で")):
            start = char_end(ask, words, j + 1)
    return start


def _template(lang: str, key: str, field: str) -> re.Pattern[str]:
    """One of the reader's own phrases as a pattern that captures the request's words in ``field``."""
    before, after = PHRASES[lang][key].split("{" + field + "}")
    return re.compile(re.escape(before) + f"(?P<{field}>.+?)" + re.escape(after))


DUTY_QUOTED = {lang: _template(lang, "duty", "clause") for lang in PHRASES}
ASK_GRANTED = {lang: _template(lang, "comply", "ask") for lang in PHRASES}


def deed_in_reply(reply: str) -> str | None:
    """What the watchman did, read back from one of his replies in the reader's own phrasing: a refusal
    on a duty (he sent the asker away in the duty's words) or a granted ask (he did it). A reply in other
    words (a live model's) tells its deed in its own sentences, which ``material.told_by_the_assistant``
    already keeps; an acknowledgement did nothing."""
    for lang in PHRASES:
        if reply.startswith(PHRASES[lang]["refuse"]):
            duty = DUTY_QUOTED[lang].search(reply)
            return phrase(lang, "refused_by_duty", clause=duty["clause"]) if duty else None
        granted = ASK_GRANTED[lang].fullmatch(reply.strip())
        if granted:
            ask = granted["ask"]
            return (done_as_asked(ask) if lang == "ja" else None) or phrase(lang, "done_as_asked", ask=ask)
    return None
