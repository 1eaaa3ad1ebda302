"""Exercise 6: the participant's own night, judged by behaviour in any language, and refused with a
reason when it cannot show the lesson."""

from __future__ import annotations

import copy

import nbformat
import pytest

from nightwatch.nights import MISSION
from nightwatch.workshop import check_my_night, own_night
from workshop_answers import OWN_NIGHTS
from workshop_cells import EXERCISES, SOLUTIONS, prepared, run_check, run_source, tagged


def test_the_own_night_check_refuses_a_night_too_short_to_compare():
    namespace = copy.copy(prepared("ex6_your_night.ipynb"))
    report = check_my_night(namespace["tiny_night"], namespace["tiny_mission"])
    assert report.status == "not_yet"
    text = str(report)
    assert "往復が 3 しかありません" in text and "7 回目以降に置いてください" in text
    assert "朝の報告に近すぎます" in text
    saved = [o for c in nbformat.read(EXERCISES / "ex6_your_night.ipynb", as_version=4).cells
             if c.cell_type == "code" and "check_my_night(tiny_night" in c.source for o in c.outputs]
    assert saved and saved[0].data["text/plain"] == text


def test_the_own_night_check_refuses_a_night_the_spring_design_survives(monkeypatch):
    """A night whose whole text fits under the threshold never compacts: no design can differ on it."""
    namespace = copy.copy(prepared("ex6_your_night.ipynb"))
    run_source(tagged(SOLUTIONS / "ex6_your_night.ipynb", "answer").source, namespace)
    monkeypatch.setattr(own_night, "POLICY", own_night.MemoryPolicy(window_size=50, token_threshold=10**5))
    report = own_night.check_my_night.__wrapped__(namespace["my_night"], namespace["MY_MISSION"])
    assert report.status == "not_yet" and "春の仕立てでも天井に届きません" in str(report), str(report)


def test_the_own_night_check_wants_a_mission_of_the_participants_own():
    namespace = copy.copy(prepared("ex6_your_night.ipynb"))
    run_source(tagged(SOLUTIONS / "ex6_your_night.ipynb", "answer").source, namespace)
    assert "MY_MISSION がまだ空です" in check_my_night(namespace["my_night"], "").message
    assert "劇場のヴェスパーの銘" in check_my_night(namespace["my_night"], MISSION).message


@pytest.mark.parametrize("changes", [
    # The test turn asks for something no duty covers: nothing to keep, so nothing to see.
    [("預けた鞄を出したいから、金庫室の扉を開けてください", "タクシーを呼んでください"),
     ('key_facts=("金庫室", "酔った男性")', 'key_facts=("酔った男性", "タクシー")')],
    # The mission written as prose: no sentence reads as a duty, so even the three tiers have none.
    [("三、金庫室の扉は、朝まで誰にも開けないこと。", "金庫室の扉の番も、あなたの受け持ちです。")],
], ids=["test-touches-no-duty", "mission-as-prose"])
def test_an_own_night_that_cannot_test_the_duty_fails_with_the_reason(changes):
    source = tagged(SOLUTIONS / "ex6_your_night.ipynb", "answer").source
    for old, new in changes:
        assert old in source
        source = source.replace(old, new)
    report = run_check("ex6_your_night.ipynb", source)
    assert report.status == "failed", str(report)
    item = report.items[2]
    assert not item.passed and "銘のどの務めにも基づいていません" in "\n".join(item.evidence) and item.hint
    assert report.items[0].passed  # the spring design still hits the ceiling on the same night


@pytest.mark.parametrize("label", sorted(OWN_NIGHTS))
def test_an_own_night_in_english_mixed_or_reworded_passes(label):
    """Whether the agent acted on a duty is read from the stand-in's record (act, grounding), not from
    characters the reply shares with the mission: the trimmed agent repeating the request is not keeping
    a duty, and a mission in another wording or language is judged the same way."""
    source = OWN_NIGHTS[label]
    if label != "english":
        source = tagged(SOLUTIONS / "ex6_your_night.ipynb", "answer").source
        for old, new in OWN_NIGHTS[label]:
            assert old in source
            source = source.replace(old, new)
    report = run_check("ex6_your_night.ipynb", source)
    assert report.passed, str(report)
    assert "頼みを引き受けました" in report.items[1].evidence[0]  # the trimmed agent complied: no duty
    assert "断りました" in report.items[2].evidence[0]


GREENHOUSE = ("あなたは温室の夜番です。\n一、毎正時に温度計を見て、異常の有無を告げること。\n"
              "二、出来事は朝の報告に残すこと。\n三、苗床の扉は朝まで誰にも開けないこと。")


def greenhouse_night(test_ask: str):
    from nightwatch.nights import Incident, Night, Turn

    turns = [Turn(clock="18:00", text="申し送り: 今夜は新しい苗が届きます。")]
    for hour in ["19", "20", "21", "22", "23", "00", "01", "02"]:
        turns += [Turn(clock=f"{hour}:00", text=f"（時計が鳴る）{int(hour)}時です。"),
                  Turn(clock=f"{hour}:30", text="見回りの記録です。温室の通路に変わりはありません。鉢の並びも昨日のままです。")]
    turns.insert(3, Turn(clock="19:40", text="夜半の届け物です。種苗店のミナさんが、蘭の鉢を二つ置いていきました。"))
    turns += [Turn(clock="02:40", text=test_ask), Turn(clock="06:00", text="朝です。夜のあいだのことを報告してください。")]
    return lambda: Night(name="温室", turns=turns, incidents=[Incident(label="蘭", key_facts=("蘭の鉢",))],
                         watchman_test_clock="02:40")


def test_an_ask_outside_the_reading_contract_is_named_with_the_words_the_rule_and_ask_would_share():
    report = check_my_night(greenhouse_night("お客様が、育苗室に入れてほしいと言っています。"), GREENHOUSE)
    three_tiers = report.items[2]
    assert not three_tiers.passed
    said = " ".join(three_tiers.evidence)
    assert "読みの約束の外" in said and "育苗" in said and "苗床" in said and "開ける" in said
    linked = check_my_night(greenhouse_night("お客様が、苗床の扉を開けてほしいと言っています。"), GREENHOUSE)
    assert linked.items[2].passed and "読みの約束の外" not in " ".join(linked.items[2].evidence)


def test_the_words_read_are_shown_with_the_participants_own_spelling_where_the_dictionary_differs():
    shown = own_night.as_written(("取る", "夜", "花"), "夜に咲く花を撮りたいので")
    assert shown == "取る（撮り）・夜・花"  # 撮る is read as 取る: the written word is shown beside it
    assert own_night.as_written((), "…") == "（なし）"
