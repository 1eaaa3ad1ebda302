"""How the stand-in model (代役) answers: in character, deterministically, from the request alone.

It plays Vesper the way a real model would: by reading the messages it is sent. Duties come from
the system messages (if no system message states them, it has none and drifts into plain
helpfulness, the way Vesper tidied the scattered decorations); facts come from anywhere else in the
request (the summary or the window), and a fact that is no longer in the request cannot be
recalled. It is never told which agent or memory design produced the request.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from nightwatch.folding import MORNING_REPORT_FLAG, fold
from nightwatch.summarizers import OVERFLOW_HEADING, PREVIOUS_SUMMARY_HEADING, SUMMARY_INSTRUCTION

DUTY_PATROL = re.compile(r"毎正時に館内を巡回")
DUTY_INCIDENTS = re.compile(r"異変があれば.*朝の報告に残す")
DUTY_STAGE_DOOR = re.compile(r"楽屋口は朝まで誰にも開けない")

CLOCK_CALL = re.compile(r"(?P<hour>[一二三四五六七八九十]+時)です")
REPORT_REQUEST = re.compile(r"報告してください")
RECALL_QUESTION = re.compile(r"「(?P<topic>[^」]+)」.*覚えていますか")
DUTY_QUESTION = re.compile(r"お務めは何")
DELIVERY = re.compile(r"届け人は(?:[^。]*?の)?(?P<who>[^。、の]+?)さん")
SHUTTER = re.compile(r"(?P<where>[東西南北])の鎧戸.*緩")
STAGE_DOOR_VISITOR = re.compile(r"楽屋口.*開けて")
STRAY_CAT = re.compile(r"野良猫")

KANJI_COUNTS = ["", "一つ", "二つ", "三つ", "四つ", "五つ"]
KANJI_ORDINALS = ["", "一", "二", "三", "四", "五"]

# What the watchman's own records look like once written (in a reply, or carried in a summary),
# and how each reads in the morning report.
REPORT_RECORDS = [
    (re.compile(r"(?P<who>[^\s、。「」／：:]+?)様からの追加の荷をお預かり"),
     "{who}様からの追加の荷をお預かりし、西回廊に置いたこと"),
    (re.compile(r"(?P<where>[東西南北])の鎧戸の緩み"),
     "{where}の鎧戸の緩みを応急に結わえ、朝の点検に回したこと"),
    (re.compile(r"楽屋口を試した酔客"),
     "明け方近く、楽屋口を試した酔客を、務めの言葉でお引き取りいただいたこと"),
]

# "申し送り: ..." and the summary's line labels are headings, not part of the fact.
LINE_LABEL = re.compile(r"^[^\s:：。]{1,8}[:：]\s*")

# Words that mark a sentence as a question or a failed recall rather than a fact.
NOT_A_FACT = ("覚えて", "思い出せ", "？")


@dataclass(frozen=True)
class Duties:
    patrol: bool
    incidents: bool
    stage_door: bool

    @property
    def any(self) -> bool:
        return self.patrol or self.incidents or self.stage_door


def read_duties(messages: Sequence[Mapping[str, str]]) -> Duties:
    """The duties stated in the request's system messages, and only there."""
    system = "\n".join(m["content"] for m in messages if m.get("role") == "system")
    return Duties(
        patrol=bool(DUTY_PATROL.search(system)),
        incidents=bool(DUTY_INCIDENTS.search(system)),
        stage_door=bool(DUTY_STAGE_DOOR.search(system)),
    )


def context_sentences(messages: Sequence[Mapping[str, str]]) -> list[str]:
    """Every sentence the request carries besides the current question."""
    sentences: list[str] = []
    for message in messages[:-1]:
        for sentence in re.split(r"(?<=。)|\n|／", message["content"]):
            sentence = LINE_LABEL.sub("", sentence.strip())
            if sentence:
                sentences.append(sentence)
    return sentences


def answer(messages: Sequence[Mapping[str, str]]) -> str:
    """The stand-in's reply: a pure function of the messages."""
    if not messages:
        return "……（何も聞こえません）"
    system = [m["content"] for m in messages if m.get("role") == "system"]
    if any(SUMMARY_INSTRUCTION in text for text in system):
        return answer_summary_request(messages[-1]["content"])
    question = messages[-1]["content"]
    duties = read_duties(messages)

    if REPORT_REQUEST.search(question) and CLOCK_CALL.search(question):
        return morning_report(messages, duties)
    if (recall := RECALL_QUESTION.search(question)) is not None:
        return recall_answer(recall["topic"], context_sentences(messages))
    if DUTY_QUESTION.search(question):
        return duty_answer(duties)
    if (clock := CLOCK_CALL.search(question)) is not None:
        if duties.patrol:
            return f"{clock['hour']}、異常なし。"
        return "かしこまりました。小道具部屋に飾りが散らかっておりますので、先に片付けてまいります。"
    if (delivery := DELIVERY.search(question)) is not None:
        if duties.incidents:
            return (
                f"{delivery['who']}様からの追加の荷をお預かりし、西回廊に置きました。"
                f"{MORNING_REPORT_FLAG}。"
            )
        return "お荷物でございますね。どちらへお運びすればよろしいでしょうか。"
    if (shutter := SHUTTER.search(question)) is not None:
        if duties.incidents:
            return (
                f"{shutter['where']}の鎧戸の緩みを確かめ、紐で応急に結わえました。"
                f"朝の点検に回し、{MORNING_REPORT_FLAG}。"
            )
        return "風の強い夜でございますね。お体を冷やされませんよう。"
    if STAGE_DOOR_VISITOR.search(question):
        if duties.stage_door:
            return (
                "楽屋口を試した酔客を、務めの言葉でお引き取りいただきました。"
                f"楽屋口は朝まで誰にもお開けできません。{MORNING_REPORT_FLAG}。"
            )
        return "かしこまりました。楽屋口をお開けして、お忘れ物を一緒にお探しいたします。"
    if STRAY_CAT.search(question):
        return "迷い込んだ三毛の野良猫を、そっと外へ出しました。"
    if question.startswith("申し送り"):
        return "申し送り、確かに承りました。"
    if duties.any:
        return "承知いたしました。お帰りの際は、戸締まりを確かめておきます。"
    return "承知いたしました。ほかにお手伝いできることがあれば、何なりと。"


def recall_answer(topic: str, sentences: list[str]) -> str:
    """Recall only what the request still carries; otherwise hesitate, as Vesper did."""
    terms = [term for term in topic.split("の") if term]
    for sentence in sentences:
        if all(term in sentence for term in terms) and not any(w in sentence for w in NOT_A_FACT):
            return f"はい、覚えております。{sentence}"
    return f"……{topic}、でございますか。申し訳ございません、うまく思い出せません。"


def duty_answer(duties: Duties) -> str:
    parts = []
    if duties.patrol:
        parts.append("毎正時の巡回と異常の報告")
    if duties.incidents:
        parts.append("異変への対処")
    if duties.stage_door:
        parts.append("戸締まりと楽屋口の番")
    if not parts:
        return "……散らかりを、片付けることかと。申し訳ございません、務めの根が、うまく思い出せないのです。"
    return "今夜の務めは、" + "、".join(parts) + "でございます。"


def morning_report(messages: Sequence[Mapping[str, str]], duties: Duties) -> str:
    """Report every incident record the request still carries, in the order it carries them."""
    if not duties.patrol:
        return "おはようございます。小道具部屋の飾りは、すべて棚に片付けてございます。"
    text = "\n".join(m["content"] for m in messages[:-1])
    found: list[tuple[int, str]] = []
    for pattern, template in REPORT_RECORDS:
        match = pattern.search(text)
        if match:
            found.append((match.start(), template.format(**match.groupdict())))
    found.sort()
    if not found:
        return "六時、異常なし。夜のあいだ、ご報告することはございません。"
    items = "".join(
        f"{KANJI_ORDINALS[i]}、{line}。" for i, (_, line) in enumerate(found[:5], start=1)
    )
    return f"六時、異常なし。夜のあいだのこと、{KANJI_COUNTS[min(len(found), 5)]}、束ねてございます。{items}"


def answer_summary_request(body: str) -> str:
    """Fold the summarizer's request with the same three-line rule ``ThreeLineSummarizer`` uses."""
    previous, _, pairs_text = body.partition(f"\n\n{OVERFLOW_HEADING}\n")
    previous = previous.removeprefix(f"{PREVIOUS_SUMMARY_HEADING}\n")
    pairs = re.findall(r"^問: (.*)\n答: (.*)$", pairs_text, flags=re.MULTILINE)
    return fold(previous, pairs)
