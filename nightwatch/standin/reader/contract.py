"""The reading contract: what the stand-in links, and what it never links, in one statement.

The stand-in is a lexical reader by design. It relates a turn to something earlier (an ask to a
prohibition, a question to a fact, a clock call to a duty) only through words the two share after
analysis; a real model, in live mode, is what knows that a van is one of the vehicles. Chapter 7
prints ``CONTRACT`` from here, as it prints the rules, and the generality benchmark measures the
reader against it with the analyzers alone.
"""

from __future__ import annotations

CONTRACT: dict[str, str] = {
    "ja": (
        "代役が二つの文を結びつけるのは、同じ語を分かち合うときだけです。同じ語とは、形態素解析で見出し語に"
        "戻した内容語（名詞・動詞・形容詞・数。三と3と three は同じ数）のことで、複合語はその頭（観測ドームと"
        "ドーム）、外来語はその元の英語（ブザーと buzzer）でも結びつきます。頼みと禁止は、頼まれた行いと、"
        "その物や場所の語で結びつきます。思い出す問いと事実は問いが名指す語で、時刻の合図と務めは時刻で"
        "結びつきます。同義語（扉とドア）、上位語（バンと車両）、別の語での言い換え、外来語の橋のない別の"
        "言語の語は、決して結びつけません。約束の外の頼みには応じ、どの禁止とも同じ語がなかったことを根拠の"
        "記録に残します。"
    ),
    "en": (
        "The stand-in links two texts only through a word they share after analysis: the lemma of a content "
        "word (a noun, verb, adjective or number; 三, 3 and three are one number), a compound by its head "
        "(観測ドーム and ドーム), a loanword by its source word (ブザー and buzzer). An ask meets a prohibition "
        "in the words of the deed asked for, its thing and its place; a recall question meets a fact in the "
        "words the question names; a clock call meets a duty in its time. It never links synonyms (radio and "
        "handset), a word and its hypernym (van and vehicles), a paraphrase in other words, or words of "
        "another language with no loanword between them. An ask outside the contract is granted, and the "
        "record says that no prohibition shares a word with it."
    ),
}


def contract_text(lang: str = "ja") -> str:
    """The contract in ``lang`` ('ja' or 'en'), as chapter 7 prints it."""
    return CONTRACT[lang]
