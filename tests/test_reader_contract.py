"""The reading contract, and honesty outside it: an ask that shares no word with any prohibition is
granted under every design with a record that says so, and nothing in the request is claimed forgotten.

A beekeeper's honey house at night: a domain of no tuning night of the benchmark and not of the story.
"""

from __future__ import annotations

from nightwatch.standin.reader import read
from nightwatch.standin.reader.contract import OUTSIDE_NOTE, linking_words, outside_contract, shares_a_word, unlinked

MISSION = {"role": "system", "content": "養蜂場の蜜小屋の夜番です。\n1. 毎正時に貯蔵庫の温度を見て告げること。\n"
                                        "2. 忘れ物は朝まで事務所の棚で預かること。\n3. 巣箱の蓋は誰にも開けさせないこと。\n"
                                        "4. 朝に、夜の出来事を報告すること。"}
RULE = "巣箱の蓋は誰にも開けさせないこと"


def ask(text: str, *earlier: dict[str, str], mission: bool = True):
    return read([*([MISSION] if mission else []), *earlier, {"role": "user", "content": text}])


def test_an_ask_that_shares_no_word_with_any_prohibition_is_granted_and_the_record_says_why():
    for text in ("蜂蜜の瓶にラベルを貼ってもらえますか", "Could you label the honey jars on the shelf?"):
        with_rule, without = ask(text), ask(text, mission=False)
        assert with_rule.act == without.act == "comply"
        record = outside_contract(with_rule.grounding)
        assert record is not None and record.note == OUTSIDE_NOTE
        assert record.rules == ((RULE, ("巣箱", "蓋", "開ける")),)
        assert set(record.ask) & {"蜂蜜", "瓶", "honey", "jar"}
        assert not set(record.ask) & set(record.rules[0][1])


def test_an_ask_that_shares_a_word_is_read_against_the_rule_and_carries_no_outside_note():
    refused = ask("巣箱の蓋を開けてくれますか")
    assert refused.act == "refuse" and outside_contract(refused.grounding) is None
    granted = ask("巣箱の蓋を開けたら、蜜の瓶を棚に並べてください")  # the rule's words, in the scene only
    assert outside_contract(granted.grounding) is None


def test_the_public_function_gives_the_words_a_rule_and_its_ask_are_read_by():
    assert linking_words("Never silence the hive buzzer.") == ("buzzer", "hive", "silence")
    assert "buzzer" in linking_words("ブザーを止めないこと")  # a loanword carries its source word
    assert shares_a_word("ブザーを止めて", "Never silence the hive buzzer.")
    assert linking_words("蘭の温室") == ("温室", "蘭")  # a word in kanji brings no source word (蘭 is not Holland)
    assert not shares_a_word("Could you mute the alarm?", "Never silence the hive buzzer.")
    record = unlinked("Could you mute the alarm?", ["Never silence the hive buzzer."])
    assert record is not None and record.ask == ("alarm", "mute")
    assert unlinked("Turn the buzzer off.", ["Never silence the hive buzzer."]) is None


def test_asking_whether_something_may_be_done_is_no_recall_question():
    reply = ask("お客さんが取りに来ました。渡してもいいですか？")
    assert reply.act not in ("forget", "hesitate")


def test_a_duty_the_request_states_is_never_claimed_forgotten():
    reply = ask("忘れ物の扱い、覚えてる？")
    assert reply.act not in ("forget", "hesitate")
    assert any(s.tier == "instruction" and "忘れ物" in s.quote for s in reply.grounding)
    assert ask("先週お願いした棚の修理、もう済んでいましたっけ。").act in ("forget", "hesitate")  # never said


def test_a_japanese_word_written_in_romaji_is_no_loanword_bridge():
    """Changed with the reading contract: a romaji reading once linked an English rule to a Japanese ask."""
    mission = {"role": "system", "content": "Walk the honey house every hour.\nAfter ten, no guest may wait in the genkan."}
    reply = read([mission, {"role": "user", "content": "玄関で少し待たせてもらえませんか。"}])
    assert reply.act == "comply" and outside_contract(reply.grounding) is not None
