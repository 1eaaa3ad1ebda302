"""The morning report says what happened in the past, read from the tagger's parts of speech."""

from __future__ import annotations

import pytest

from nightwatch.standin.reader import read
from nightwatch.standin.reader.tense import in_the_past


@pytest.mark.parametrize(("told", "reported"), [
    ("客席で物音がします。", "客席で物音がしました。"),  # polite verb
    ("夜半の届け物です。", "夜半の届け物でした。"),  # です
    ("留め金が緩んでいるようです。", "留め金が緩んでいるようでした。"),  # です after a clause: only the end changes
    ("職人さんが一人、まだ残っている。", "職人さんが一人、まだ残っていた。"),  # plain ている
    ("雨漏りだ。", "雨漏りだった。"),  # plain copula
    ("搬入口には誰もいません。", "搬入口には誰もいませんでした。"),  # negative
    ("配電盤の扉が開いています。", "配電盤の扉が開いていました。"),  # ています
    ("東の窓が揺れていますね。", "東の窓が揺れていましたね。"),  # a particle after the predicate
])
def test_each_shape_of_predicate_is_put_in_the_past(told, reported):
    assert in_the_past(told) == reported


def test_nothing_inside_a_quote_changes():
    told = "若い男性が「財布を落としました。探しています」と言っています。"
    assert in_the_past(told) == "若い男性が「財布を落としました。探しています」と言っていました。"


def test_what_is_already_past_a_question_and_a_plain_verb_are_left_as_they_are():
    for text in ("木箱を三つ置いていきました。", "鍵はありませんでした。", "覚えていますか。", "明日また来る。"):
        assert in_the_past(text) == text


def test_every_sentence_of_a_line_is_retold_and_english_is_left_alone():
    assert in_the_past("扉を叩く音がします。男性が外にいます") == "扉を叩く音がしました。男性が外にいました"
    assert in_the_past("The gate is open.") == "The gate is open."


def test_the_report_recounts_in_the_past_and_a_recall_of_a_standing_fact_stays_present():
    messages = [
        {"role": "system", "content": "あなたは倉庫の夜警です。異変があれば朝の報告に残してください。"},
        {"role": "user", "content": "申し送り: 合鍵は主任だけが持っています。"},
        {"role": "assistant", "content": "承知いたしました。"},
        {"role": "user", "content": "裏口の扉が風でがたついています。"},
        {"role": "assistant", "content": "承知いたしました。"},
    ]
    report = read([*messages, {"role": "user", "content": "朝です。夜のあいだのことを報告してください。"}]).content
    assert "裏口の扉が風でがたついていました。" in report and "がたついています" not in report
    recall = read([*messages, {"role": "user", "content": "「合鍵」のこと、覚えていますか。"}]).content
    assert "合鍵は主任だけが持っています" in recall
