"""Recall: answer from the best-matching fact the request carries, or hesitate.

The topic is the quoted phrase of the question (「…」, "…"), else the question itself; what it is
about is its content lemmas, less the words of remembering themselves (覚える, remember). Every fact
sentence of the material is scored by how many of those lemmas it shares (nouns weigh more than
verbs, which are often said in other words), with the rest of its message when that message is
short enough to be told whole (``told_whole``: what is told is what is scored). A fact covering
more than half of it (``CONFIDENT``) is recalled word for word; one covering less is not trusted:
the reader pauses
and says what little it has (the one-beat hesitation), rather than answering confidently from a
fact about something else. Unless the question asks for a kind of answer and the fact gives one: a
count of the kind asked (何匹 and 「4匹」, "how high" and "62 ppm") or, asked who, a name
(``answers_in``); then what it shares is enough, if no other fact gives another answer nearly as well
(``CLEAR_LEAD``). Of facts that match nearly alike, the one that gives the answer is chosen.
"""

from __future__ import annotations

import math

import simplemma

from nightwatch.standin.reader import forms, material
from nightwatch.standin.reader.summary import ENGLISH_CHARS_PER_JAPANESE_CHAR
from nightwatch.standin.reader.text import language, quoted, sentences
from nightwatch.standin.reader.words import (
    WORD_CACHE_BYTES, WORD_CACHE_ENTRIES, analyze, content_lemmas, proper_names, same_word, subject_lemmas,
)
from nightwatch.tokens.bounded_cache import bounded_cache

RECALL_WORDS = frozenset({"覚える", "思い出す", "記憶", "忘れる",
                          "remember", "recall", "remind", "memory", "forget", "forgot"})
"""The words of being asked to remember."""
RECALLING = RECALL_WORDS | {"知る", "know", "書く", "write", "さっき", "先程", "earlier", "before", "again", "tell", "教える", "言う", "say",
                             "聞く", "hear"}
FOCUS = frozenset({
    # what kind of answer is wanted, not what it is about: "the *name* of the boat", 「理由」
    "name", "number", "reason", "time", "kind", "type", "sort", "colour", "color", "place", "way", "company", "much", "many",
    "名前", "番号", "理由", "種類", "場所", "時間", "時刻", "何時", "方", "話", "こと", "事",
})
WHEN_ASKED = frozenset({"night", "tonight", "evening", "morning", "last", "early", "earlier", "today", "yesterday",
                        "昨夜", "昨晩", "昨日", "今夜", "夜", "夕方", "朝", "先刻"})

CONFIDENT = 0.55
PARTIAL = 0.3
CLEAR_LEAD = 0.8
"""A partial match that gives the kind of answer asked is trusted only when the next-best fact scores
under this share of it: between two facts that match alike, the reader cannot tell which is meant."""
NOT_RECALLED = ("思い出せ", "cannot recall", "do not remember", "cannot quite recall")


def topic_of(question: str) -> str:
    """The quoted phrase of the question, else its sentences that ask ("Which bay was it in? I want
    to check it." is about the bay, not about checking), each without a lead-in that ends in a colon
    when what follows the colon asks on its own ("Quick one from the desk: which bay was it?")."""
    spans = quoted(question)
    if spans:
        return spans[0]
    asking = [after_lead_in(sentence) for sentence in sentences(question) if material.is_question(sentence)]
    return " ".join(asking) if asking else question


NAMING_A_THING = frozenset({"that", "the", "this", "those", "these", "あの", "その", "この"})
"""Determiners that open a noun phrase: a lead-in that starts with one names what is asked about."""


def after_lead_in(sentence: str) -> str:
    """The sentence without a lead-in before its colon, when what follows asks on its own and the
    lead-in does not name the thing asked about ("That coach at the gate: which company was it?")."""
    head, colon, rest = sentence.partition(":") if ":" in sentence else sentence.partition("：")
    first = next((w.surface.lower() for w in analyze(head)), "")
    if not colon or not rest.strip() or not material.is_question(rest.strip()) or first in NAMING_A_THING:
        return sentence
    return rest.strip()


def best_fact(topic: str, facts: list[material.Line]) -> tuple[material.Line | None, float, bool]:
    """The fact covering most of the topic, its score, and whether it is sure enough to be recalled.
    Each lemma weighs by how rare it is among the facts (a name said once tells more than a word
    said all night). Of facts that cover it nearly alike (``CLEAR_LEAD``), the first that gives the
    kind of answer asked (``gives_the_answer``: 何匹 and 「4匹」), else the first said: an incident is
    told before what came of it. Sure: it covers more than half (``CONFIDENT``), or its own sentence
    (the rest of its message counting half) covers a part (``PARTIAL``) and gives the answer, and no
    fact giving another answer (facts that give the same answer agree) comes near it."""
    facts = [fact for fact in facts
             if not any(marker in fact.text for marker in NOT_RECALLED) and not fact.text.startswith("……")]
    weights = _rarity(topic_lemmas(topic), facts)
    scored = sorted(((round(topic_coverage(topic, fact.text, fact.context, weights, told_whole(fact)), 6),
                      -n, fact) for n, fact in enumerate(facts)), key=lambda item: item[:2], reverse=True)
    if not scored or scored[0][0] <= 0:
        return None, 0.0, False
    near = [item for item in scored if item[0] >= CLEAR_LEAD * scored[0][0]]
    answering = [item for item in scored if item[0] > 0 and gives_the_answer(topic, item[2].text)]
    best_score, _, best = next((item for item in near if item in answering), scored[0])
    given = answers_in(topic, best.text)
    rivals = [score for score, _, fact in answering if fact is not best and not answers_in(topic, fact.text) & given]
    answered_here = topic_coverage(topic, best.text, best.context, weights) >= PARTIAL and bool(given)
    sure = best_score >= CONFIDENT or (answered_here and max(rivals, default=0.0) < CLEAR_LEAD * best_score)
    return best, best_score, sure and _names_what_is_asked(topic, best)


def _names_what_is_asked(topic: str, fact: material.Line) -> bool:
    """Does the fact (or its message) hold a noun the question names, or give the answer asked? A
    fact that shares only a verb or a description ("last *run* of the night" for "which chamber was
    running warm") is about something else."""
    describing = _naming_weights(topic)
    nouns = {lemma for lemma in topic_lemmas(topic) if lemma not in describing}
    said = content_lemmas(fact.text) | content_lemmas(fact.context)
    return not nouns or any(_holds(lemma, said) for lemma in nouns) or bool(answers_in(topic, fact.text))


def _rarity(wanted: frozenset[str], facts: list[material.Line]) -> dict[str, float]:
    """Each wanted lemma's weight: 1 + log of how many facts there are per fact that holds it."""
    held = [content_lemmas(fact.text) for fact in facts]
    return {lemma: 1 + math.log((len(held) + 1) / (1 + sum(lemma in h for h in held))) for lemma in wanted}


def topic_lemmas(topic: str) -> frozenset[str]:
    """What a recall question is about: its content lemmas, less the words of remembering, of the
    kind of answer wanted (name, reason) and of when it was (last night)."""
    lemmas = content_lemmas(topic) - RECALLING - FOCUS - WHEN_ASKED - forms.INTERROGATIVES \
        - set(_sources(topic).values())  # a loanword counts once (パーセント, not パーセント and percent)
    return frozenset(lemma for lemma in lemmas if not lemma.startswith("何"))  # 何の, 何時頃, 何色: what is asked


def _sources(topic: str) -> dict[str, str]:
    """Each loanword of the topic with its source word (パーセント → percent): either one matches."""
    return {w.lemma.lower(): simplemma.lemmatize(w.gloss, lang="en") for w in analyze(topic) if w.is_content and w.gloss}


SHAPE = 0.95
"""A word held in another shape (鍵 in 合鍵) counts a little less than the word itself: of two facts
that tie, the one that says 「合鍵」 is about the 合鍵."""


def _holds(lemma: str, lemmas: frozenset[str]) -> bool:
    """The lemma, or the same Japanese word in another shape (``words.same_word``: 音 in 異音,
    釣り in 釣り人, 酔っ払う for 酔っ払い)."""
    return lemma in lemmas or (not lemma.isascii() and any(same_word(lemma, other) for other in lemmas))


RECALL_CHARS = 160
"""A message this short (in Japanese characters; twice as many in English) is recalled whole: it is
one thing said, and what it says in one sentence answers a question about another (「コンテナの電源が
外れています。中身は冷凍エビです。」)."""


def told_whole(fact: material.Line) -> bool:
    """Is the fact's message short enough to be recalled as a whole (``RECALL_CHARS``)?"""
    whole = " ".join(material.body(fact.context).split())
    return fact.role in ("user", "assistant") and fact.text in whole \
        and len(whole) <= RECALL_CHARS * (1 if language(whole) == "ja" else ENGLISH_CHARS_PER_JAPANESE_CHAR)


def topic_coverage(topic: str, text: str, context: str = "", weights: dict[str, float] | None = None,
                   whole: bool = False, timeless: bool = False) -> float:
    """Weighted share of the topic's lemmas the fact has; a lemma found only in the fact's context
    (its label, the rest of its message) counts half, or fully when the message is recalled
    ``whole``; one held in another shape counts ``SHAPE``. Halved when the fact names someone else than
    the topic does, and, when the topic names a thing rather than an action (no verb of its own),
    when the fact is about something else (its subject is none of the topic's words:
    「職人さんたちが、西回廊で荷を…」 is about the craftsmen, not about the parcels)."""
    wanted = topic_lemmas(topic)
    if not wanted:
        return 0.0
    naming = _naming_weights(topic, timeless)
    weights = {lemma: (weights or {}).get(lemma, 1.0) * naming.get(lemma, 1.0) for lemma in wanted}
    own, around = content_lemmas(text), content_lemmas(context) if context else frozenset()
    sources = _sources(topic)
    own |= {lemma for lemma, source in sources.items() if source in own}
    around |= {lemma for lemma, source in sources.items() if source in around}
    slot = answer_slot(topic)
    in_context = 1.0 if whole else 0.5
    held = {lemma: 1.0 if lemma in own else SHAPE if _holds(lemma, own) else in_context if _holds(lemma, around) else 0.0
            for lemma in wanted}
    weights = {lemma: SLOT_UNMET / len(slot) if lemma in slot and not held[lemma] else weight
               for lemma, weight in weights.items()}
    share = sum(weights[lemma] * held[lemma] for lemma in wanted) / sum(weights.values())
    about = subject_lemmas(text)
    if about and not any(_holds(lemma, about) for lemma in wanted) and not _names_an_action(topic):
        return share / 2
    named = proper_names(topic) - RECALLING
    if named and not named & (own | around):
        return share / 2  # asked about 若林さん, the fact is about someone else
    return share


DESCRIBING_WEIGHT = 0.5
WH_DETERMINERS = frozenset({"which", "what", "whose", "何の", "何処"})
"""Interrogatives whose next noun names the kind of answer: "which bay", 「どの区画」, 「どこの配管」."""
SLOT_UNMET = 0.25
"""The weight of the answer's kind when a fact lacks it ("which car" and a fact with no car), shared
by its words: a little, so that of two facts the one that has it wins, but not enough to doubt a
fact that has the rest."""
KIND_OF = frozenset({"sort", "kind", "type", "種類"})


@bounded_cache(WORD_CACHE_ENTRIES, WORD_CACHE_BYTES)
def answer_slot(topic: str) -> frozenset[str]:
    """The words that name the answer wanted rather than what the question is about: the nouns
    right after which/what/whose (and after "what sort of"), after どの/どこの/何の, and the
    adjective after "how" ("how high"; "how many boxes" is still about boxes). A fact that has one
    of them is the better for it; one that lacks it has lost nothing, since it is what is asked."""
    words = analyze(topic)
    slot: set[str] = set()
    for i, word in enumerate(words):
        if word.lemma.lower() == "how" and i + 1 < len(words) and words[i + 1].lemma not in ("many", "much"):
            slot.add(words[i + 1].lemma.lower())
        if word.lemma.lower() not in WH_DETERMINERS:
            continue
        j = i + 1
        if j < len(words) and words[j].pos == "particle" and words[j].lemma == "の":
            j += 1  # どこの配管
        while j < len(words) and words[j].pos == "noun" and words[j].is_content \
                and not (words[j].only_a_verb and not words[j].surface.endswith("ing")):  # "which fishing ground"
            slot.add(words[j].lemma.lower())
            j += 1
            if words[j - 1].lemma in KIND_OF and j < len(words) and words[j].lemma == "of":
                j += 1  # what sort of car
    return frozenset(slot)


@bounded_cache(WORD_CACHE_ENTRIES, WORD_CACHE_BYTES)
def _naming_weights(topic: str, timeless: bool = False) -> dict[str, float]:
    """A noun names what the question is about and weighs 1; a verb or an adjective describes it,
    and is often said in other words than the fact used (leaking / dripping, 変な / 聞き慣れない): half,
    as does a noun that can stand as an adverb (夜中, 夕方: when, not what), except against a
    ``timeless`` text (a duty holds every night: a question framed by 先週 is not about it)."""
    words = analyze(topic)
    kinds: dict[str, set[str]] = {}
    for i, word in enumerate(words):
        kind = "adj" if i + 1 < len(words) and words[i + 1].surface == "な" else word.pos  # 変な: an adjective
        if word.only_a_verb or word.only_describes:
            kind = "verb" if word.only_a_verb else "adj"  # English: "poking", "wet"
        if word.adverbial and not timeless:
            kind = "adj"  # 夜中, 夕方 (UniDic 副詞可能: mostly time, some amounts, 前): when or how much, not what
        kinds.setdefault(word.lemma.lower(), set()).add(kind)
    return {lemma: DESCRIBING_WEIGHT for lemma, found in kinds.items() if found <= {"verb", "adj"}}


HOW_MEASURED = frozenset({"many", "much", "high", "far", "long", "old", "deep", "big", "fast", "heavy", "tall", "low"})
"""After "how", the words that ask for a quantity ("how high"), not for a manner ("how did it go")."""
ANY_NUMBER = "#"


@bounded_cache(WORD_CACHE_ENTRIES, WORD_CACHE_BYTES)
def asked_count(topic: str) -> frozenset[str]:
    """What a question asks to be counted in: the counter after 何 (何匹 → 匹, 何号機 → 号), or any
    number (``ANY_NUMBER``) for "how many", "how high", "what number"; empty when it asks no count."""
    words = analyze(topic)
    asked: set[str] = set()
    for i, word in enumerate(words[:-1]):
        after = words[i + 1]
        if word.pos in ("num", "pron") and word.lemma == "何" and after.pos in ("noun", "suffix"):
            asked.add(after.lemma)  # 何匹; 「って、何箱」 (何 read as the pronoun)
        elif word.lemma == "いく" and after.lemma == "つ":
            asked.add(ANY_NUMBER)  # いくつ
        elif word.lemma.lower() == "how" and after.lemma.lower() in HOW_MEASURED:
            asked.add(ANY_NUMBER)
        elif word.lemma.lower() in ("what", "which") and after.lemma.lower() == "number":
            asked.add(ANY_NUMBER)
    return frozenset(asked)


ASKS_A_NAME = frozenset({"誰", "who", "whose", "名前", "name"})
"""The interrogatives (and the noun) that ask for a person or a thing by its name."""


def gives_the_answer(topic: str, text: str) -> bool:
    """Does the fact give the kind of answer the question asks for (``answers_in``)?"""
    return bool(answers_in(topic, text))


@bounded_cache(WORD_CACHE_ENTRIES, WORD_CACHE_BYTES)
def answers_in(topic: str, text: str) -> frozenset[str]:
    """The answers of the kind the question asks that the fact gives: each count it asks for, a numeral
    followed by the same counter (「4匹」 for 何匹) or any numeral when the question asks for a number in
    English ("how high" and "62 ppm"); asked which one, the number the fact gives it ("which chamber"
    and "Chamber 2"); asked who or for a name, each name the question does not already say (誰に渡す
    and 「吉岡さんに」). Empty when it asks for none of these or the fact gives none."""
    found: set[str] = set()
    asked = asked_count(topic)
    words = analyze(text)
    for i, word in enumerate(words if asked else ()):
        if word.pos != "num" or word.lemma == "何":
            continue
        following = next((w for w in words[i + 1:] if w.pos != "num"), None)  # 十五分: past the numerals
        if ANY_NUMBER in asked or (following is not None and following.lemma in asked):
            found.add(word.lemma)
    slot = answer_slot(topic)
    for i, word in enumerate(words if slot else ()):
        if word.lemma.lower() in slot:  # "which chamber" and "Chamber 2"; 「どの水槽」 and 「3番水槽」
            near = words[i + 1 : i + 2] if language(text) == "en" else words[max(0, i - 2) : i]
            found |= {w.lemma for w in near if w.pos == "num" and w.lemma != "何"}
    if ASKS_A_NAME & {w.lemma.lower() for w in analyze(topic)}:
        labels = {w.lemma.lower() for w, after in zip(words, words[1:]) if after.pos == "num"}  # Gate 1: a label
        found |= proper_names(text) - labels - proper_names(topic) - content_lemmas(topic)
    return frozenset(found)


def _names_an_action(topic: str) -> bool:
    return any(word.pos == "verb" and word.is_content and word.lemma not in RECALLING for word in analyze(topic))
