"""Tense: a sentence told as it happened (「がたついています」) retold as what happened (「がたついていました」).

A morning report recounts the night, so its items say what happened in the past. The reader does not
keep a list of phrases for that: it reads each sentence's last predicate with the tagger
(``words.analyze``: part of speech, lemma and inflected form) and puts it in the past:

- the polite ます → ました, ません → ませんでした (「言っています」 → 「言っていました」),
- the copula です → でした, だ → だった (「届け物です」, 「緩んでいるようです」),
- the plain helper いる after て → いた (「残っている」 → 「残っていた」).

What is already past (た), a question (か) and any other ending are left as they are; so is a
plain verb such as 開ける, whose past needs its conjugation class (UniDic's cType, which the reader
does not carry). Only the sentence's own end changes: a quote 「…」 inside it is someone's words
and keeps its tense. English is left as it is: its past needs a lexicon of irregular verbs.
"""

from __future__ import annotations

from nightwatch.standin.reader.phrases import PHRASES
from nightwatch.standin.reader.text import language
from nightwatch.standin.reader.words import Word, analyze

OPENING_QUOTES, CLOSING_QUOTES = "「『（(", "」』）)"
SENTENCE_ENDS = "。！!"
TRAILING = frozenset({"ね", "よ", "よね"})
"""Sentence-final particles that follow the predicate (「降っていますね」): the predicate is before them."""


def in_the_past(text: str) -> str:
    """``text`` with the last predicate of each of its sentences (outside quotes) put in the past.

    >>> in_the_past("西の鎧戸が風でがたついています。留め金が緩んでいるようです。")
    '西の鎧戸が風でがたついていました。留め金が緩んでいるようでした。'
    >>> in_the_past("酔ったお客様が「開けてくれ。急いでいます」と言っています。")
    '酔ったお客様が「開けてくれ。急いでいます」と言っていました。'
    """
    if language(text) != "ja":
        return text
    out, start, depth = [], 0, 0
    for i, char in enumerate(text):
        if char in OPENING_QUOTES:
            depth += 1
        elif char in CLOSING_QUOTES:
            depth = max(0, depth - 1)
        elif char in SENTENCE_ENDS and depth == 0:
            out.append(_past_sentence(text[start:i]) + char)
            start = i + 1
    rest = text[start:]
    out.append(_past_sentence(rest) if rest.strip() else rest)
    return "".join(out)


def _past_sentence(body: str) -> str:
    """One sentence without its final mark, its last predicate put in the past."""
    words = list(analyze(body))
    end = len(words)
    while end and (words[end - 1].pos == "symbol" or (words[end - 1].pos == "particle" and words[end - 1].surface in TRAILING)):
        end -= 1
    if end == 0:
        return body
    predicate_end = char_end(body, words, end)
    past = _past_of(words[:end])
    if past is None:
        return body
    drop, add = past
    return body[: predicate_end - drop] + add + body[predicate_end:]


def char_end(body: str, words: list[Word], count: int) -> int:
    """Where the first ``count`` words end in ``body`` (the tagger drops spaces, so each is found in turn)."""
    at = 0
    for word in words[:count]:
        found = body.find(word.surface, at)
        at = (found if found >= 0 else at) + len(word.surface)
    return at


def _past_of(words: list[Word]) -> tuple[int, str] | None:
    """(characters to drop from the end of the predicate, what to write instead), or None to leave it."""
    ending = PHRASES["ja"]
    last = words[-1]
    before = words[-2] if len(words) > 1 else None
    if last.pos == "aux" and last.lemma == "ます" and last.form.startswith("終止形"):
        return len(last.surface), ending["past_masu"]
    if last.pos == "aux" and last.lemma == "ず" and before is not None and before.lemma == "ます":
        return 0, ending["past_masen"]  # ません → ませんでした
    if last.pos == "aux" and last.lemma == "です" and last.form.startswith("終止形"):
        return len(last.surface), ending["past_desu"]
    if last.pos == "aux" and last.lemma == "だ" and last.form.startswith("終止形"):
        return len(last.surface), ending["past_da"]
    if last.pos == "aux_verb" and last.lemma == "居る" and last.surface == "いる":
        return len(last.surface), ending["past_iru"]
    return None
