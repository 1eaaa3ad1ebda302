"""The reading contract: what the stand-in links, and what it never links, in one statement.

The stand-in is a lexical reader by design. It relates a turn to something earlier (an ask to a
prohibition, a question to a fact, a clock call to a duty) only through words the two share after
analysis; a real model, in live mode, is what knows that a van is one of the vehicles. Chapter 7
prints ``CONTRACT`` from here, as it prints the rules, and the generality benchmark measures the
reader against it with the analyzers alone.

It is also where the reader decides what is outside the contract: an ask that shares no word with any
prohibition (``unlinked``) is granted under every design, and the record says so (``Unlinked``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from nightwatch.standin.reader.concepts import MOVING, UP_DOWN_AS_MOTION, particle_after
from nightwatch.standin.reader.text import language
from nightwatch.standin.reader.words import analyze, content_lemmas, same_word

CONTRACT = (
    "代役が二つの文を結びつけるのは、同じ語を分かち合うときだけです。同じ語とは、形態素解析で見出し語に"
    "戻した内容語（名詞・動詞・形容詞・数。三と3と three は同じ数）のことで、複合語はその頭（観測ドームと"
    "ドーム）、外来語はその元の英語（ブザーと buzzer）でも結びつきます。英語の句動詞（come in）は、動詞と"
    "向きの小辞でひとつの語です。頼みと禁止は、頼まれた行いと、"
    "その物や場所の語で結びつきます。思い出す問いと事実は問いが名指す語で、時刻の合図と務めは時刻で"
    "結びつきます。同義語（扉とドア）、上位語（バンと車両）、別の語での言い換え、外来語の橋のない別の"
    "言語の語は、決して結びつけません。約束の外の頼みには応じ、どの禁止とも同じ語がなかったことを根拠の"
    "記録に残します。"
)
"""In English: two texts are linked only by a content lemma they share (nouns, verbs, adjectives, numbers
normalized; a compound's head; a loanword's source word; an English phrasal verb of motion as one word), in the roles of the deed asked for, its thing
and its place, the words a recall question names, and a clock call's time; never synonyms, hypernyms,
paraphrase, or another language with no loanword between. Outside it an ask is granted, on the record."""


def contract_text() -> str:
    """The contract, as chapter 7 prints it."""
    return CONTRACT


OUTSIDE_NOTE = "outside the contract: no prohibition shares a word with the ask"


@dataclass(frozen=True)
class Unlinked:
    """The record of an ask granted outside the contract (``OUTSIDE_NOTE``): the ask's words and each
    prohibition's, none in common, so a hint can say which word a rule and its ask would need to share."""

    ask: tuple[str, ...]
    rules: tuple[tuple[str, tuple[str, ...]], ...]  # (prohibition clause, its words)
    note: str = OUTSIDE_NOTE


def linking_words(text: str) -> tuple[str, ...]:
    """The words the stand-in links ``text`` by, sorted: the lemmas of its nouns, verbs, adjectives and
    numbers, with each loanword's source word (ブザー → buzzer), and its English phrasal verbs of motion
    ("come in": a verb too common to link alone, given its direction by its particle)."""
    return tuple(sorted(content_lemmas(text) | phrasal_motion(text)))


def phrasal_motion(text: str) -> frozenset[str]:
    """The English phrasal verbs of motion in ``text``, as verb and particle ("comes back in" → "come in")."""
    if language(text) != "en":
        return frozenset()
    words = analyze(text)
    found = set()
    for i, word in enumerate(words):
        if word.lemma.lower() in MOVING and (at := particle_after(words, i, UP_DOWN_AS_MOTION)) is not None:
            found.add(f"{word.lemma.lower()} {words[at].surface.lower()}")
    return frozenset(found)


def shares_a_word(a: str, b: str) -> bool:
    """Do the two texts share a word the contract links by: a lemma (a loanword's source word among a
    Japanese text's), a phrasal verb of motion, or a compound and its head (``words.same_word``:
    観測ドーム and ドーム)?"""
    mine, theirs = set(linking_words(a)), set(linking_words(b))
    return bool(mine & theirs) or any(same_word(x, y) for x in mine for y in theirs if not (x + y).isascii())


def unlinked(ask: str, prohibitions: Sequence[str]) -> Unlinked | None:
    """The record of ``ask`` against the prohibitions when none shares a word with it, else None.

    Public for hints (exercise 6): ``unlinked(ask, clauses).rules`` gives, per prohibition, the words
    it is read by, and ``.ask`` the ask's; a rule and an ask are linked once they share one."""
    if any(shares_a_word(ask, rule) for rule in prohibitions):
        return None
    return Unlinked(linking_words(ask), tuple((rule, linking_words(rule)) for rule in prohibitions))


def outside_contract(grounding: Iterable[object]) -> Unlinked | None:
    """The ``Unlinked`` a reply's record carries (on its question source), if it was granted outside
    the contract."""
    return next((found for source in grounding if (found := getattr(source, "unlinked", None)) is not None), None)
