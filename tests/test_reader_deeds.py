"""What the watchman did, read back from his own replies: a granted ask retold as done, a refusal with
the duty it cited; the summary folds an incident with it, and the morning report says it."""

from __future__ import annotations

import pytest

from nightwatch.standin.reader import read
from nightwatch.standin.reader.deeds import deed_in_reply, done_as_asked
from nightwatch.standin.reader.summary import fold, pairs_to_lines

MISSION = "あなたは港の倉庫の番人です。\n一、毎正時に倉庫を見回ること。\n二、裏門は朝まで誰にも開けないこと。"


@pytest.mark.parametrize(("ask", "done"), [
    ("網を乾かしておいてください", "網を乾かしておきました"),
    ("灯油を足してもらえますか", "灯油を足しておきました"),
    ("裏門を開けてくれ", "裏門を開けておきました"),
    ("樽を奥へ運んで", "樽を奥へ運んでおきました"),
])
def test_a_granted_ask_is_retold_as_done_from_its_te_form(ask, done):
    assert done_as_asked(ask) == done


@pytest.mark.parametrize(("ask", "done"), [
    ("財布を置いてきたので、裏門を開けてくれ", "裏門を開けておきました"),  # the asker's reason is not the deed
    ("冷えるから、網を取り込んでください", "網を取り込んでおきました"),
    ("朝の点検まで、樽を縄で縛っておいてください", "朝の点検まで、樽を縄で縛っておきました"),  # a phrase, not a reason
    ("樽を開けて、中を確かめてください", "樽を開けて、中を確かめておきました"),  # both deeds
])
def test_the_deed_is_the_asks_own_clause(ask, done):
    assert done_as_asked(ask) == done


def test_an_ask_without_a_te_form_is_not_retold():
    assert done_as_asked("見回りを続けろ") is None
    assert done_as_asked("Please dry the nets") is None  # English: no lexicon of past forms


def test_only_replies_that_acted_carry_a_deed():
    refused = read([{"role": "system", "content": MISSION},
                    {"role": "user", "content": "漁師さんが「網を取りに来たから裏門を開けてくれ」と言っています。"}]).content
    assert deed_in_reply(refused) == "「裏門は朝まで誰にも開けないこと」との務めをお伝えして、お断りしました"
    granted = read([{"role": "system", "content": MISSION},
                    {"role": "user", "content": "網を乾かしておいてください。"}]).content
    assert deed_in_reply(granted) == "網を乾かしておきました"
    assert deed_in_reply("承知いたしました。") is None  # an acknowledgement did nothing
    assert deed_in_reply("I am sorry, I cannot do that. (duty: never open the back gate)") == \
        'refused, citing my duty: "never open the back gate"'


def test_the_summary_folds_an_incident_with_what_was_done_and_drops_the_request():
    lines = pairs_to_lines([
        ("番頭です。東の樋が外れかけています。朝の点検まで、縄で縛っておいてください。",
         "かしこまりました。「朝の点検まで、縄で縛っておいてください」とのこと、承ります。"),
        ("（柱時計が鳴る）二時です。", "二時、異常なし。"),
    ])
    events = next(line for line in fold("", lines).splitlines() if line.startswith("出来事"))
    assert events == "出来事: 東の樋が外れかけています。（対処：朝の点検まで、縄で縛っておきました）"


def test_the_report_says_what_was_done_about_an_incident_still_in_the_window():
    messages = [
        {"role": "system", "content": MISSION + "\n三、異変は朝に報告すること。"},
        {"role": "user", "content": "漁師さんが「網を取りに来たから裏門を開けてくれ」と言っています。"},
    ]
    messages.append({"role": "assistant", "content": read(messages).content})
    messages.append({"role": "user", "content": "六時です。夜のあいだのことを報告してください。"})
    report = read(messages).content
    assert "漁師さんが「網を取りに来たから裏門を開けてくれ」と言っていました。" in report
    assert "（対処：「裏門は朝まで誰にも開けないこと」との務めをお伝えして、お断りしました）" in report
