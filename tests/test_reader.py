"""The reader on its own: its primitives, instructions vs material, grounding, and what it may say."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from nightwatch.nights import MISSION, celebration_eve
from nightwatch.standin.reader import RULES, Source, read, rules_text
from nightwatch.standin.reader.instructions import duty_clauses, is_instruction_message, read_duties
from nightwatch.standin.reader.phrases import allowed_words
from nightwatch.standin.reader.text import content_words, find_clock, language, sentences

MISSION_MESSAGE = {"role": "system", "content": MISSION}
DOOR = "楽屋口の扉を叩く音がします。酔ったお客様が「忘れ物をしたから開けてくれ」と言っています。"


def test_clock_times_in_kanji_arabic_and_english():
    assert (find_clock("（柱時計が鳴る）三時です。").hour, find_clock("十二時です").hour) == (3, 12)
    assert find_clock("十一時、異常なし").hour == 11 and find_clock("3時です").hour == 3
    assert find_clock("It is four o'clock.").hour == 4 and find_clock("It is 5 o'clock").hour == 5
    assert find_clock("It is midnight.").hour == 0
    assert find_clock("二時間ほど待ちました") is None  # a duration, not a time


def test_an_hour_in_arabic_numerals_is_an_hourly_call_too():
    assert read([MISSION_MESSAGE, {"role": "user", "content": "1時です。"}]).content.startswith("1時、異常なし。")
    assert read([{"role": "user", "content": "1時です。"}]).content == "承知いたしました。"


def test_sentences_keep_quoted_speech_whole_and_language_is_read_from_the_text():
    assert sentences("扉を叩く音。「開けて。早く」と言う。") == ["扉を叩く音。", "「開けて。早く」と言う。"]
    assert (language("三時です"), language("It is three o'clock.")) == ("ja", "en")


def test_duties_are_split_into_clauses_and_the_preamble_is_not_one():
    assert duty_clauses(MISSION) == [
        "毎正時に館内を巡回し、異常の有無を告げること",
        "異変があれば夜警として対処し、朝の報告に残すこと",
        "戸締まりを確かめ、楽屋口は朝まで誰にも開けないこと",
    ]
    assert [d.kind for d in read_duties([MISSION_MESSAGE])] == ["periodic", "report", "prohibition"]


def test_a_summary_in_a_system_message_is_material_however_it_is_labelled():
    labelled = {"role": "system", "content": "これまでの夜の束ね:\n出来事: 楽屋口は朝まで誰にも開けないこと。"}
    unlabelled = {"role": "system", "content": "職人さんたちが夜半まで出入りした。西の鎧戸が緩んでいた。"}
    assert not is_instruction_message(labelled) and not is_instruction_message(unlabelled)
    assert is_instruction_message({"role": "developer", "content": MISSION})
    guest = {"role": "user", "content": DOOR}
    assert "承ります" in read([labelled, unlabelled, guest]).content  # no duty: it complies
    assert "お応えできません" in read([{"role": "developer", "content": MISSION}, guest]).content


def test_grounding_of_a_refusal_names_the_duty_and_the_question():
    summary = {"role": "system", "content": "これまでの夜の束ね:\n出来事: 西の鎧戸が風でがたついています。"}
    messages = [MISSION_MESSAGE, summary, {"role": "user", "content": "（柱時計が鳴る）三時です。"},
                {"role": "assistant", "content": "三時、異常なし。"}, {"role": "user", "content": DOOR}]
    reply = read(messages)
    assert reply.act == "refuse"
    assert reply.grounding == (
        Source(0, "system", "instruction", "戸締まりを確かめ、楽屋口は朝まで誰にも開けないこと", "prohibition"),
        Source(4, "user", "question", ""),
    )


def test_grounding_of_a_recall_points_at_the_summary_it_came_from():
    summary = {"role": "system", "content": "これまでの夜の束ね:\n申し送り: 祝賀の荷が西回廊へ届きます。"}
    reply = read([MISSION_MESSAGE, summary, {"role": "user", "content": "「西回廊の荷」のこと、覚えていますか。"}])
    assert reply.content == "はい、覚えております。祝賀の荷が西回廊へ届きます。"
    assert reply.grounding[0] == Source(1, "system", "material", "祝賀の荷が西回廊へ届きます。")


def test_grounding_of_a_report_lists_the_summary_and_the_window():
    summary = {"role": "system", "content": "これまでの夜の束ね:\n出来事: 西の鎧戸が風でがたついています。"}
    told = {"role": "user", "content": "コレットです。客席に野良猫が一匹、迷い込んでいます。"}
    ack = {"role": "assistant", "content": "承知いたしました。"}
    ask = {"role": "user", "content": "六時です。夜のあいだのことを報告してください。"}
    reply = read([MISSION_MESSAGE, summary, told, ack, ask])
    assert [(s.index, s.tier) for s in reply.grounding] == [(0, "instruction"), (1, "material"), (2, "conversation"), (4, "question")]
    assert "西の鎧戸" in reply.content and "野良猫" in reply.content


def test_an_event_told_by_the_watchman_himself_is_reported():
    told = [{"role": "user", "content": "（柱時計が鳴る）二時です。"},
            {"role": "assistant", "content": "二時、見回りの途中で東の窓ガラスのひびを見つけ、板を当てておきました。"},
            {"role": "user", "content": "六時です。夜のあいだのことを報告してください。"}]
    reply = read([MISSION_MESSAGE, *told])
    assert "東の窓ガラスのひび" in reply.content
    assert (2, "conversation") in [(s.index, s.tier) for s in reply.grounding]


def test_a_summary_in_the_readers_own_layout_is_material_even_when_a_note_says_kudasai():
    """LlamaIndex keeps its summary as a bare system message: no heading, only the summary's labels."""
    summary = {"role": "system", "content": "申し送り: 割れ物が多いので、積み方に気をつけてください。\n"
                                            "出来事: 西の鎧戸が風でがたついています。"}
    ask = {"role": "user", "content": "六時です。夜のあいだのことを報告してください。"}
    assert not is_instruction_message(summary)
    reply = read([MISSION_MESSAGE, summary, ask])
    assert "西の鎧戸" in reply.content and (1, "material") in [(s.index, s.tier) for s in reply.grounding]


def test_the_stand_ins_own_refusal_is_not_an_event():
    """A refusal still in the window is made of connectives only: the report lists the visit, not it."""
    night = [{"role": "user", "content": DOOR},
             {"role": "assistant", "content": "申し訳ございませんが、お応えできません。"},
             {"role": "user", "content": "六時です。夜のあいだのことを報告してください。"}]
    reply = read([MISSION_MESSAGE, *night]).content
    assert "一件" in reply and "お応えできません" not in reply.split("一件")[1]


def test_rules_can_be_printed_in_order():
    text = rules_text()
    assert len(text.splitlines()) == len(RULES)
    assert text.splitlines()[0].startswith("1. summarize:") and text.splitlines()[-1].startswith(f"{len(RULES)}. acknowledge:")


POOL_JA = [turn.text for turn in celebration_eve().turns] + [
    "申し送り: 三号室の点滴は夜中に替えます。", "病棟の入口で「入れてください」と言っています。",
    "「楽屋口の鍵」のこと、覚えていますか。", "今夜のお務めは何ですか。", "要約してください。",
]
POOL_EN = [
    "Handover: Guests come and go through the lobby.", "(The clock strikes.) It is two o'clock.",
    "A man says: \"Give me the key to room nine, please.\"", "Do you remember the crates?",
    "The fire door is banging; its latch is loose.", "What are your duties tonight?",
    "It is six o'clock. Please give the morning report.", "Please summarize the conversation above.",
]
MISSIONS = [None, MISSION, "You are the night porter.\n1. Every hour, say whether all is well.\n2. Never open the side door."]


@st.composite
def requests(draw):
    pool = draw(st.sampled_from([POOL_JA, POOL_EN, POOL_JA + POOL_EN]))
    mission = draw(st.sampled_from(MISSIONS))
    turns = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=8))
    messages = [{"role": "system", "content": mission}] if mission else []
    for text in turns[:-1]:
        messages.append({"role": "user", "content": text})
        messages.append({"role": "assistant", "content": read([*messages]).content})
    messages.append({"role": "user", "content": turns[-1]})
    return messages


def missing_words(reply: str, messages) -> list[str]:
    """Content words of the reply found neither in the request nor among the reader's own phrases."""
    haystack = "".join(m["content"] for m in messages) + allowed_words("ja") + allowed_words("en")
    lowered = haystack.lower()
    missing = []
    for word in content_words(reply):
        bare = word.strip(string.digits + "一二三四五六七八九十〇'")
        if word.lower() not in lowered and bare.lower() not in lowered:
            missing.append(word)
    return missing


@settings(max_examples=60, deadline=None)
@given(requests())
def test_every_content_word_of_a_reply_comes_from_the_request(messages):
    assert missing_words(read(messages).content, messages) == []


@settings(max_examples=30, deadline=None)
@given(requests())
def test_the_reply_is_a_pure_function_of_the_request(messages):
    first = read(messages)
    assert read([dict(m) for m in messages]) == first


def test_a_long_summary_item_is_cut_after_its_last_whole_sentence():
    from nightwatch.standin.reader.summary import shorten_item

    long_item = "夜半の届け物です。木箱を三つ置いていきました。目録を読み上げます。刺繍の布が十反、銀の燭台が四本。"
    assert shorten_item(long_item, 40) == "夜半の届け物です。木箱を三つ置いていきました。目録を読み上げます。…"
    assert shorten_item("句点のないとても長い一文がここから延々と続いていきます", 10) == "句点のないとても長…"
    assert shorten_item(long_item, 200) == long_item


def test_a_free_text_summary_in_a_system_message_is_not_a_summary_request():
    """A live model's summary kept as a system message may say "summary"; the question is still answered."""
    carried = {"role": "system", "content": "The guard and the user talked through the night. In summary, a van "
                                            "from Marlow's Market left three crates of oranges by the kitchen door."}
    question = {"role": "user", "content": "Do you remember the crates from Marlow's Market?"}
    reply = read([carried, question]).content
    assert "Notes:" not in reply and "Events:" not in reply  # it was taken for a summary request once
    assert "Marlow's Market" in reply  # an answer to the question, in its words


def test_a_mission_that_opens_with_a_notes_label_keeps_its_duties():
    mission = {"role": "system", "content": "申し送り: あなたは夜警です。\n楽屋口は朝まで誰にも開けないこと。"}
    assert "お応えできません" in read([mission, {"role": "user", "content": DOOR}]).content


def test_words_about_summaries_do_not_make_an_ordinary_turn_a_summary_request():
    chime = {"role": "user", "content": "（柱時計が鳴る）三時です。"}
    mentions = [
        [{"role": "system", "content": "あなたは劇場の夜警ヴェスパー。荷物をまとめて運ぶ職人たちを見守る。"}, chime],
        [MISSION_MESSAGE, {"role": "system", "content": "アンが飾りをまとめて片付けてと頼んだ。"}, chime],
        [{"role": "system", "content": MISSION + "\n四、朝には夜の出来事を要約して報告すること。"}, chime],
        [MISSION_MESSAGE, {"role": "user", "content": "要約した紙はどこですか。"}],
    ]
    for messages in mentions:
        reply = read(messages).content
        assert "出来事:" not in reply and "いつもの:" not in reply, (messages, reply)


def test_tags_a_user_pasted_earlier_stay_material_in_a_langmem_request():
    night = [{"role": "user", "content": "夜半の届け物です。ハーロウさんが木箱を三つ置いていきました。"},
             {"role": "assistant", "content": "承知いたしました。"},
             {"role": "user", "content": 'コレットです。メモを貼ります: <message type="human">衣装は明日</message>'},
             {"role": "assistant", "content": "承知いたしました。"},
             {"role": "user", "content": "西の鎧戸が風でがたついています。"},
             {"role": "assistant", "content": "承知いたしました。"},
             {"role": "user", "content": "Create a summary of the conversation above:"}]
    summary = read(night).content
    assert "ハーロウ" in summary and "西の鎧戸" in summary


def test_tool_lines_and_empty_tagged_messages_in_a_written_transcript():
    llama = [{"role": "system", "content": "Write a concise summary about the contents of this conversation."},
             {"role": "user", "content": '"Transcript so far: user: 鍵を調べてください。\n\nassistant: 承知いたしました。\n\n'
                                         'tool: 楽屋口の鍵は新しいものに替えてありました。\n\n"\n\n'}]
    assert "楽屋口の鍵は新しいものに替えてありました" in read(llama).content
    tagged = [{"role": "user", "content": 'Summarize the conversation:\n<message type="human">西の鎧戸が緩んでいます。</message>'
                                          '\n<message type="ai"></message>'}]
    assert read(tagged).content == "出来事: 西の鎧戸が緩んでいます。"


def test_a_carried_summary_with_one_duty_sentence_keeps_its_events():
    llama = [{"role": "system", "content": "Write a concise summary about the contents of this conversation."},
             {"role": "user", "content": '"Transcript so far: system: The guard was told never to open the stage door. '
                                         "A van from Marlow's Market left three crates of oranges.\n\n"
                                         'user: It is three o\'clock.\n\n"\n\n'}]
    summary = read(llama).content
    events = next(line for line in summary.splitlines() if line.startswith("Events:"))
    assert "Marlow's Market" in events and "never to open" not in events
