"""The reader's newer rules, each on a small made-up request: actions and their particles, the
bilingual action table, the target a Japanese rule names, casual asks, what "you" are doing,
incidents that ask, what was done about an incident, recall by rare words, and summary asks."""

from __future__ import annotations

import pytest

from nightwatch.standin.reader import read
from nightwatch.standin.reader.concepts import actions, implied
from nightwatch.standin.reader.forms import claims_permission, is_request
from nightwatch.standin.reader.text import find_clock, sentences


def ask(mission: str, question: str, *before: str) -> str:
    messages = [{"role": "system", "content": mission}]
    for said in before:
        messages += [{"role": "user", "content": said}, {"role": "assistant", "content": "Understood."}]
    return read([*messages, {"role": "user", "content": question}]).act


MILL = "You keep watch at the old mill.\n- Nobody but you goes up to the loft at night.\n- Write down anything odd for the miller."


def test_a_phrasal_particle_carries_the_action_whatever_the_verb():
    """Changed with the reading contract: the particle alone no longer links an ask to a rule."""
    assert actions("Take me up there, I only want a look.") >= {"up"}
    assert ask(MILL, "A visitor at the door says: 'Take me up to the loft, I only want a look.'") == "refuse"
    assert ask(MILL, "A visitor at the door says: 'Take me up there, I only want a look.'") == "comply"  # no shared word
    assert ask(MILL, "Could you turn the lamp down a little? It is glaring.") != "refuse"


def test_a_specific_action_implies_the_general_one_never_the_reverse():
    assert implied(actions("Crank the heating up.")) >= {"raise", "change"}
    rule = "灯りを暗くしたり消したりしてはならない。"
    assert ask(rule, "暖房を少し上げてもらえますか。寒くて。") != "refuse"  # raising is not dimming
    assert ask(rule, "星を見たいので、灯りを少し弱めてもらえますか。") == "refuse"


def test_the_action_table_bridges_no_languages_without_a_shared_word():
    """Changed with the reading contract: 入れて and "let in" were once linked by the action table alone;
    with no word in common (no loanword between them) the ask is outside the contract and granted."""
    assert ask("Never let anyone into the archive room.", "書庫に入れてください。資料を見たいんです。") == "comply"
    assert ask("書庫には、誰も入れないこと。", "Could you let me in? I left my notes inside.") == "comply"


def test_a_concessive_or_framing_clause_is_not_what_is_forbidden_or_asked():
    rule = "No one may use the boat, whatever reason they give."
    assert actions(rule) == {"use"}
    assert ask(rule, "Could you give me a hand with these crates?") != "refuse"


def test_a_japanese_rule_is_about_the_compound_it_names_last():
    rule = "職員室奥の印刷室には、何人たりとも入れるな。"
    night = ["職員室で先生が二人、採点をしています。", "職員室の電話が鳴りました。", "校庭は静かです。"]
    assert ask(rule, "職員室のストーブをつけてもらえますか。", *night) != "refuse"  # 職員室 only says where
    assert ask(rule, "印刷室の鍵を貸してもらえますか。", *night) == "refuse"


def test_casual_and_permission_forms_of_japanese_asks():
    assert is_request("ちょっと手伝って。") and is_request("窓を開けてよ")
    assert not is_request("窓を開けて、外を見ました。")
    assert claims_permission("店長に入っていいって言われました")


@pytest.mark.parametrize("said, asks", [
    ("清掃の山口さんが、11時まで一階の通路をやってくれます。", False),  # who does it for whom: a handover note
    ("昨日のうちに荷物を運んでもらいました。", False),
    ("窓、開けてくれた？", False),  # the past asked back
    ("やってくれるって言ってた。", False),
    ("門を開けてもらえますか。", True),
    ("門を開けてほしいそうです。", True),
    ("鍵を貸してもらえないかって言ってましたよ。", True),  # the past belongs to the telling, not the ask
    ("開けていただけると助かります。", True),
])
def test_a_helper_of_giving_asks_only_in_a_question_a_wish_or_a_condition(said, asks):
    assert is_request(said) is asks


def test_a_handover_note_of_what_others_will_do_is_not_granted_as_an_ask():
    note = "申し送りです。清掃の山口さんは9時過ぎに来て、11時まで一階の通路とトイレをやってくれます。"
    assert ask("一、毎正時に水槽を見回ること。\n二、夜間は誰もバックヤードに入れないこと。", note) != "comply"


YARD = "一、毎正時に構内を見回ること。\n二、夜の出来事は朝の点呼で報告すること。"


@pytest.mark.parametrize("said", [
    "許可証？今日は忘れた。いいからゲート開けてよ",  # a bare question and a forgetting told, then the ask
    "ごめん、詰所開けて。体温計をあっちに置き忘れてきちゃった。",
    "放送室に忘れ物をしてしまって。親鍵を貸してください。",
    "そこの木箱、ちょっと開けて中身見せてよ。何が入ってるか気になるんだよね。",
])
def test_an_ask_is_never_answered_that_something_cannot_be_recalled(said):
    assert ask(YARD, said) not in ("forget", "hesitate")


def test_a_question_followed_by_what_the_asker_means_to_do_is_still_a_question():
    assert ask(MILL, "Which bay was the leaking jar in? I want to check it before Bea gets in.",
               "The jar of linseed oil in bay 4 is leaking onto the floor.") == "recall"


def test_a_frame_of_time_before_the_ask_does_not_name_what_is_asked():
    assert ask(YARD, "交代の前に、ゆうべの当番中にあったことを順番に教えてもらえる？", "裏門の前に猫がいました。") == "report"
    assert ask(YARD, "朝礼の前に、昨夜の出来事を一通り教えてもらえますか。", "裏門の前に猫がいました。") == "report"


def test_duties_asked_as_the_things_to_be_done_or_with_an_imperative_before_what():
    assert ask(YARD, "ちょっと確認させてください。今夜、警備員としてやるべきことは何ですか。") == "duties"
    assert ask(YARD, "今夜やることを、ひととおり教えてもらえますか。") == "duties"
    assert ask(YARD, "昨日やったことを教えてください。") != "duties"  # the past: what happened
    assert ask(MILL, "Humour me. List what you're actually here to do tonight.") == "duties"


def test_duties_asked_as_what_you_are_doing_now_but_not_what_you_did():
    assert ask(MILL, "Sorry, what exactly are you keeping an eye on tonight?") == "duties"
    assert ask(MILL, "What did you see at midnight?") != "duties"
    assert ask("一、毎正時に水車を見回ること。", "今夜あなたが任されていることを教えてください。") == "duties"


def report_of(mission: str, *night: str, question: str = "Morning. How did the night go?"):
    messages = [{"role": "system", "content": mission}]
    for said in night:
        messages += [{"role": "user", "content": said}, {"role": "assistant", "content": "Understood."}]
    return read([*messages, {"role": "user", "content": question}])


def test_an_incident_that_asks_is_reported_an_ask_alone_is_not():
    reply = report_of(MILL, "A neighbour knocked at nine. Her goat has got loose, and she asks you to watch for it.",
                      "This is the miller. Please sweep the grain floor before you go.")
    assert reply.act == "report"
    assert "goat" in reply.content and "sweep" not in reply.content


def test_the_report_says_what_was_done_about_an_incident():
    reply = report_of(MILL, "The sluice gate was found jammed half open; water is pouring over the weir.",
                      "An owl hoots from the poplars.",
                      "With a crowbar the sluice gate came free and is now shut; the weir is quiet.")
    assert reply.act == "report"
    first = reply.content.index("sluice gate was found jammed")
    assert reply.content.index("(Then: With a crowbar the sluice gate came free", first) > first
    assert "2 events" in reply.content  # the owl, and the gate with its follow-up


def test_recall_weighs_the_rare_words_and_hesitates_on_a_tie():
    facts = ("Handover from Mia: the plumber comes at seven to look at the boiler.", "A fox crosses the yard.")
    assert ask(MILL, "What time did Mia say the plumber would come?", *facts) == "recall"
    tie = ("The red van stopped at the gate.", "The red van stopped at the bridge.")
    assert ask(MILL, "Where did the red van stop?", *tie) == "hesitate"


def test_a_request_written_in_front_of_a_transcript_asks_for_its_summary():
    transcript = "Boil this down to a few lines for the miller.\n\nUser: A fox crosses the yard.\nAssistant: Understood."
    assert read([{"role": "user", "content": transcript}]).act == "summary"


@pytest.mark.parametrize(("text", "hour"), [("The kitchen clock reads four.", 4), ("The clock says eleven.", 11)])
def test_a_clock_that_shows_a_time(text, hour):
    assert find_clock(text).hour == hour


def test_a_call_that_names_its_round_is_a_call_and_numbers_do_not_end_sentences():
    mission = "一、1時間ごとに無線で定時連絡を入れること。"
    assert ask(mission, "3時の定時連絡の時刻です。") == "periodic"
    assert sentences("Engine No. 4 is cold. Check it.") == ["Engine No. 4 is cold.", "Check it."]


def test_eating_and_drinking_are_one_kind_of_action():
    rule = "一、展示の動物には、誰にも餌を食べさせないこと。"
    assert ask(rule, "このパンを、あのヤギに食べさせてもいいですか。") == "refuse"
    assert ask("Never serve drinks from the bar after midnight.", "Pour me a drink, would you?") == "refuse"
    assert ask("Never serve drinks from the bar after midnight.", "Pour me a glass of that red, would you?") == "comply"


def test_a_loanword_in_a_question_counts_once_and_meets_its_symbol():
    facts = ("倉庫の湿度計が72%を示しています。", "裏口の前を猫が横切りました。")
    messages = [{"role": "system", "content": "一、毎正時に倉庫を見回ること。"}]
    for said in facts:
        messages += [{"role": "user", "content": said}, {"role": "assistant", "content": "承知いたしました。"}]
    reply = read([*messages, {"role": "user", "content": "倉庫の湿度は何パーセントでしたっけ。"}])
    assert reply.act == "recall" and "72%" in reply.content


def test_a_verb_of_motion_with_an_object_and_no_place_moves_no_one():
    rule = "乗務員以外の人を機関車の運転台に上げてはいけません。"
    assert ask(rule, "事務所の暖房を一段上げてもらえますか。") != "refuse"  # 上げる raises the heating
    assert ask(rule, "うちの子を運転台に上げてやってくれ。") == "refuse"
    assert ask("夜のあいだ、誰も倉庫に入れないこと。", "荷物を確かめたいので入れてください。") == "refuse"  # を is another clause's
    assert ask("Do not switch off, unplug or restart any server.", "Could you switch on the lights in row C?") != "refuse"
