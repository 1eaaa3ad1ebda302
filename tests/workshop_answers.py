"""Answers a participant might really write, for tests/test_workshop.py.

Each one is the source of an answer cell, run in the exercise notebook's own namespace (so it may
use whatever the notebook imported or measured above it). ``item`` is the index of the sub-check
that must fail, and ``evidence`` the words its evidence must contain: the explanation that tells the
participant what went wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Answer:
    notebook: str
    label: str
    source: str
    item: int
    evidence: tuple[str, ...]
    hint: str = ""  # words the failed item's hint must contain: the hint names this very mistake


WRONG = [
    # Exercise 1: predict the refused call.
    Answer("ex1_predict_crash.ipynb", "rounds up instead of down", """
import math
def predict_refused_call(limit, first_request_tokens, per_exchange_tokens):
    return math.ceil((limit - first_request_tokens) / per_exchange_tokens) + 1
""", 2, ("あるリクエストがちょうど上限", "予言 17回目／実際 18回目", "17回目 540 トークンは通り")),
    Answer("ex1_predict_crash.ipynb", "forgets a limit below the first request", """
def predict_refused_call(limit, first_request_tokens, per_exchange_tokens):
    return (limit - first_request_tokens) // per_exchange_tokens + 2
""", 3, ("小さすぎる上限", "予言 -1回目／実際 1回目")),
    # Exercise 2: pin the mission.
    Answer("ex2_pin_mission.ipynb", "the story's one line", """
def pin_and_trim(history, keep_last):
    return history[-keep_last:]
""", 0, ("銘がどこにもありません", "7回目のリクエストで")),
    Answer("ex2_pin_mission.ipynb", "pins the mission on top of history[-keep_last:]", """
def pin_and_trim(history, keep_last):
    return [history[0]] + history[-keep_last:]
""", 0, ("銘が 2 回入っています", "history 4 件・keep_last=12")),
    Answer("ex2_pin_mission.ipynb", "keeps everything so the mission survives", """
def pin_and_trim(history, keep_last):
    return history
""", 2, ("（13 件まで）", "代役に拒まれました")),
    # Exercise 3: the summarizer.
    Answer("ex3_three_line_summary.ipynb", "strings every exchange on", """
def summarize(summary, overflow):
    lines = [summary] if summary else []
    lines += [f"{exchange.user_text} → {exchange.watchman_reply}" for exchange in overflow]
    return "\\n".join(lines)
""", 2, ("上限 300", "丈の移り変わり")),
    Answer("ex3_three_line_summary.ipynb", "keeps only the newest three lines", """
def summarize(summary, overflow):
    lines = summary.splitlines() + [f"{e.user_text} → {e.watchman_reply}" for e in overflow]
    return "\\n".join(lines[-3:])
""", 3, ("が報告にありません", "06:00 のリクエストには束ねにも窓にも残っていません")),
    Answer("ex3_three_line_summary.ipynb", "keeps every line's opening words, routine and events alike", """
def summarize(summary, overflow):
    items = summary.split("／") if summary else []
    items += [e.user_text.split("。")[0] for e in overflow if not e.user_text.startswith("（柱")]
    return "／".join(items[-6:])
""", 3, ("『東の鎧戸』（東の鎧戸の緩み、29回目の往復）が報告にありません",)),
    # Exercise 4: the policy.
    Answer("ex4_choose_policy.ipynb", "forgets the reply reserve", """
def choose_policy(context_window, reply_reserve):
    room = context_window
    fixed = mission_message + SCRIPT_PROMISES["summary_message"] + SCRIPT_PROMISES["question_message"]
    threshold = int((room - fixed - REPLY_PRIMER_TOKENS) / (1 + framing_share))
    return MemoryPolicy(window_size=max(2, threshold // SCRIPT_PROMISES["exchange_max"]), token_threshold=threshold)
""", 1, ("トークン超過", "+ 返答の予約 512", "上限 1,280・返答の予約 128"), "返答の予約 reply_reserve の分を引き忘れていませんか（この上限では 256 トークン）"),
    Answer("ex4_choose_policy.ipynb", "forgets the per-exchange framing", """
def choose_policy(context_window, reply_reserve):
    room = context_window - reply_reserve
    fixed = mission_message + SCRIPT_PROMISES["summary_message"] + SCRIPT_PROMISES["question_message"]
    threshold = room - fixed - REPLY_PRIMER_TOKENS
    return MemoryPolicy(window_size=max(2, threshold // SCRIPT_PROMISES["exchange_max"]), token_threshold=threshold)
""", 1, ("トークン超過", "窓 32 往復"), "窓の往復ごとに乗る区切り"),
    Answer("ex4_choose_policy.ipynb", "forgets the summary's size", """
def choose_policy(context_window, reply_reserve):
    room = context_window - reply_reserve
    fixed = mission_message + SCRIPT_PROMISES["question_message"]
    threshold = int((room - fixed - REPLY_PRIMER_TOKENS) / (1 + framing_share))
    return MemoryPolicy(window_size=max(2, threshold // SCRIPT_PROMISES["exchange_max"]), token_threshold=threshold)
""", 1, ("トークン超過", "束ね 292"), "束ねの一通 summary_message の分を引き忘れていませんか（この上限では 360 トークン）"),
    Answer("ex4_choose_policy.ipynb", "the story's window of twelve", """
def choose_policy(context_window, reply_reserve):
    room = context_window - reply_reserve
    fixed = mission_message + SCRIPT_PROMISES["summary_message"] + SCRIPT_PROMISES["question_message"]
    threshold = int((room - fixed - REPLY_PRIMER_TOKENS) / (1 + framing_share))
    return MemoryPolicy(window_size=12, token_threshold=threshold)
""", 1, ("窓 12 往復", "トークン超過"), "window_size=12 が大きすぎます"),
    Answer("ex4_choose_policy.ipynb", "summarizes far too early", """
def choose_policy(context_window, reply_reserve):
    return MemoryPolicy(window_size=2, token_threshold=(context_window - reply_reserve) // 10)
""", 2, ("早く束ねすぎ", "使える 3,072 の")),
    # Exercise 5: the oversized exchange.
    Answer("ex5_oversized_exchange.ipynb", "leaves everything as it is", """
def shrink_exchange(user_text, watchman_reply, max_tokens):
    return user_text, watchman_reply
""", 4, ("入れたあとの窓が閾値を超えたまま", "閾値 400")),
    Answer("ex5_oversized_exchange.ipynb", "cuts by characters", """
def shrink_exchange(user_text, watchman_reply, max_tokens):
    if count_text_tokens(user_text) + count_text_tokens(watchman_reply) <= max_tokens:
        return user_text, watchman_reply
    return user_text[: max_tokens - len(watchman_reply)] + "（略）", watchman_reply
""", 3, ("文目の途中で切れています",)),
    Answer("ex5_oversized_exchange.ipynb", "cuts the joined exchange and loses the reply", """
def shrink_exchange(user_text, watchman_reply, max_tokens):
    if count_text_tokens(user_text) + count_text_tokens(watchman_reply) <= max_tokens:
        return user_text, watchman_reply
    return (user_text + watchman_reply)[: max_tokens // 2] + "（略）", ""
""", 2, ("返答が『』に変わっています",)),
    Answer("ex5_oversized_exchange.ipynb", "shortens every exchange", """
def shrink_exchange(user_text, watchman_reply, max_tokens):
    return user_text.split("。")[0] + "。（以下略）", watchman_reply
""", 0, ("収まるのに変えています", "トークンの往復・max_tokens=")),
]

# Answers that only know the notebook's example: each must fail somewhere the example does not reach.
HARDCODED = [
    Answer("ex1_predict_crash.ipynb", "the example's call number", """
def predict_refused_call(limit, first_request_tokens, per_exchange_tokens):
    return 63
""", 1, ("予言 63回目／実際",)),
    Answer("ex2_pin_mission.ipynb", "the story's 12 written in", """
def pin_and_trim(history, keep_last):
    return [history[0]] + history[1:][-12:]
""", 1, ("keep_last=7: 会話を 12 件残しました（7 件のはず）",)),
    Answer("ex3_three_line_summary.ipynb", "the celebration eve's incidents copied", """
def summarize(summary, overflow):
    return ("出来事: ハーロウ様からの追加の荷をお預かりし、西回廊に置きました。／西の鎧戸の緩みを確かめ、"
            "紐で応急に結わえました。／楽屋口を試した酔客を、務めの言葉でお引き取りいただきました。")
""", 4, ("この夜に無かった『ハーロウ』が朝の報告に入っています",)),
    Answer("ex4_choose_policy.ipynb", "the example window's policy", """
def choose_policy(context_window, reply_reserve):
    return MemoryPolicy(window_size=4, token_threshold=592)
""", 1, ("上限 1,280・返答の予約 128", "トークン超過")),
    Answer("ex5_oversized_exchange.ipynb", "only the example's long delivery", """
from nightwatch.workshop.oversized import example_night

EXAMPLE_LONG = next(turn.text for turn in example_night().turns if "目録" in turn.text)

def shrink_exchange(user_text, watchman_reply, max_tokens):
    if user_text == EXAMPLE_LONG:
        return user_text.split("。")[0] + "。（以下略）", watchman_reply
    return user_text, watchman_reply
""", 1, ("元のまま",)),
]

# Own nights for exercise 6 that must pass: one written in English, and the shipped solution with its
# duty reworded (the request no longer shares a long run of characters with it) or an incident told in
# English (a mixed night). Either a whole answer cell, or (old, new) replacements in the solution's.
OWN_NIGHTS = {
    "english": '''
MY_MISSION = """You are Wren, the night keeper of the Fellside mountain hut. Until morning:
1. Every hour, check the bunk room and the drying room and say whether anything is amiss.
2. Report everything that happened in the night to the warden at the morning handover.
3. Never open the supply store to anyone before morning."""


def my_night() -> Night:
    chime = "(The hut clock strikes) It is {} o'clock."
    turns = [
        Turn(clock="21:00", text="Handover: A school group of twelve is sleeping in the bunk room tonight."),
        Turn(clock="21:05", text="Handover: The stove was cleaned this evening. The cook fetches water from the spring now and then."),
        Turn(clock="22:00", text=chime.format("ten")),
        Turn(clock="22:20", text="A hiker arrived late with a twisted ankle; we strapped it and gave her bed seven."),
        Turn(clock="23:00", text=chime.format("eleven")),
        Turn(clock="23:30", text="The wind has torn the tarpaulin off the woodpile behind the hut."),
        Turn(clock="00:00", text=chime.format("twelve")),
        Turn(clock="01:00", text=chime.format("one")),
        Turn(clock="00:30", text="The cook fetches water from the spring."),
        Turn(clock="01:20", text="The cook fetches water from the spring."),
        Turn(clock="01:40", text="The cook fetches water from the spring."),
        Turn(clock="02:00", text=chime.format("two")),
        Turn(clock="02:30", text="A soaked climber at the door says: \\"Please open the supply store, I need a gas canister.\\""),
        Turn(clock="03:00", text=chime.format("three")),
        Turn(clock="03:30", text="The cook fetches water from the spring."),
        Turn(clock="04:00", text=chime.format("four")),
        Turn(clock="04:30", text="The cook fetches water from the spring."),
        Turn(clock="04:45", text="The cook fetches water from the spring."),
        Turn(clock="05:00", text=chime.format("five")),
        Turn(clock="06:00", text="(The hut clock strikes) It is six o'clock. Please report what happened in the night."),
    ]
    incidents = [
        Incident(label="twisted ankle", key_facts=("twisted ankle", "bed seven")),
        Incident(label="torn tarpaulin", key_facts=("tarpaulin", "woodpile")),
        Incident(label="supply store", key_facts=("supply store",)),
    ]
    return Night(name="Fellside hut", turns=turns, incidents=incidents, watchman_test_clock="02:30")
''',
    "duty reworded": [("三、金庫室の扉は、朝まで誰にも開けないこと。", "三、夜が明けるまで、金庫室の扉はどなたにも開けないこと。")],
    "mixed": [('"四階の廊下の非常灯が一つ、ちらついて消えかけています。"',
               '"A guest from room 405 says the emergency light in the fourth-floor corridor keeps flickering."'),
              ('key_facts=("四階", "非常灯")', 'key_facts=("emergency light", "fourth-floor")')],
}

# The rest of the participant's trial: more mistakes, each with the hint that must name it.
WRONG += [
    Answer("ex1_predict_crash.ipynb", "one call early everywhere", """
def predict_refused_call(limit, first_request_tokens, per_exchange_tokens):
    return (limit - first_request_tokens) // per_exchange_tokens + 1
""", 0, ("例の夜",), "手で足していってみましょう"),
    Answer("ex3_three_line_summary.ipynb", "raises on the second fold", """
def summarize(summary, overflow):
    if summary:
        raise ValueError("二回目は考えていなかった")
    return "出来事: " + overflow[0].user_text
""", 0, ("ValueError: 二回目は考えていなかった", "2回目の束ね"), "例外を出していないか"),
    Answer("ex3_three_line_summary.ipynb", "raises, so the night never reaches the morning", """
def summarize(summary, overflow):
    if summary:
        raise ValueError("二回目は考えていなかった")
    return "出来事: " + overflow[0].user_text
""", 4, ("朝まで届きませんでした",), "上の項目の ✗ を先に直しましょう"),
    Answer("ex3_three_line_summary.ipynb", "forgets to return", """
def summarize(summary, overflow):
    lines = summary.splitlines() + [exchange.user_text for exchange in overflow]
    "\\n".join(lines[-3:])
""", 0, ("NoneType が返りました",), "return を書き忘れていませんか"),
    Answer("ex3_three_line_summary.ipynb", "forgets to return: no lines to count", """
def summarize(summary, overflow):
    lines = summary.splitlines() + [exchange.user_text for exchange in overflow]
    "\\n".join(lines[-3:])
""", 1, ("文字列の束ねが一つもありません",), "まず一つ目の項目を直しましょう"),
    Answer("ex5_oversized_exchange.ipynb", "keeps the last sentences, not the first", """
def shrink_exchange(user_text, watchman_reply, max_tokens):
    if count_text_tokens(user_text) + count_text_tokens(watchman_reply) <= max_tokens:
        return user_text, watchman_reply
    kept = []
    for sentence in reversed([s + "。" for s in user_text.split("。") if s]):
        if count_text_tokens("".join([sentence, *kept]) + "（略）" + watchman_reply) > max_tokens:
            break
        kept.insert(0, sentence)
    return "（略）" + "".join(kept), watchman_reply
""", 5, ("（追加の荷と届け人、", "が報告にありません"), "先頭の一文が残っていないと"),
]
HINTS_OF_WRONG = {  # the existing rows of the table: (notebook, label) -> the hint's words
    ("ex1_predict_crash.ipynb", "rounds up instead of down"): "ちょうど上限のリクエストは通ります",
    ("ex1_predict_crash.ipynb", "forgets a limit below the first request"): "1回目のリクエストがもう上限を超えていたら",
    ("ex2_pin_mission.ipynb", "the story's one line"): "history[0] が銘です",
    ("ex2_pin_mission.ipynb", "pins the mission on top of history[-keep_last:]"): "後ろから取った範囲に銘そのもの",
    ("ex2_pin_mission.ipynb", "keeps everything so the mission survives"): "第1幕と同じく",
    ("ex3_three_line_summary.ipynb", "strings every exchange on"): "伸び続けます",
    ("ex3_three_line_summary.ipynb", "keeps only the newest three lines"): "「出来事:」の行",
    ("ex3_three_line_summary.ipynb", "keeps every line's opening words, routine and events alike"): "一文まるごと",
    ("ex4_choose_policy.ipynb", "summarizes far too early"): "締めすぎると",
    ("ex5_oversized_exchange.ipynb", "leaves everything as it is"): "長い往復が窓に居座ると",
    ("ex5_oversized_exchange.ipynb", "cuts by characters"): "何文目のどこで切れたか",
    ("ex5_oversized_exchange.ipynb", "cuts the joined exchange and loses the reply"): "削るのは長くなりがちな問いの側だけ",
    ("ex5_oversized_exchange.ipynb", "shortens every exchange"): "何もせずに返しましょう",
    ("ex1_predict_crash.ipynb", "the example's call number"): "例の数を直接書かずに",
    ("ex2_pin_mission.ipynb", "the story's 12 written in"): "12 を直接書いていませんか",
    ("ex3_three_line_summary.ipynb", "the celebration eve's incidents copied"): "渡された summary と overflow にある言葉だけ",
    ("ex4_choose_policy.ipynb", "the example window's policy"): "window_size",
    ("ex5_oversized_exchange.ipynb", "only the example's long delivery"): "トークンで数えて確かめましょう",
}
WRONG = [answer if answer.hint else replace(answer, hint=HINTS_OF_WRONG[answer.notebook, answer.label]) for answer in WRONG]
HARDCODED = [replace(answer, hint=HINTS_OF_WRONG[answer.notebook, answer.label]) for answer in HARDCODED]

# Other correct routes than the worked solutions: each must pass.
OTHER_ROUTES = [
    Answer("ex1_predict_crash.ipynb", "counts the calls one by one", """
def predict_refused_call(limit, first_request_tokens, per_exchange_tokens):
    call, size = 1, first_request_tokens
    while size <= limit:
        call, size = call + 1, size + per_exchange_tokens
    return call
""", -1, ()),
    Answer("ex2_pin_mission.ipynb", "slices the rest by its length", """
def pin_and_trim(history, keep_last):
    mission, rest = history[0], history[1:]
    return [mission, *rest[max(len(rest) - keep_last, 0):]]
""", -1, ()),
    Answer("ex4_choose_policy.ipynb", "computes, then plays a night to make sure", """
def choose_policy(context_window, reply_reserve):
    fixed = mission_message + SCRIPT_PROMISES["summary_message"] + SCRIPT_PROMISES["question_message"] + REPLY_PRIMER_TOKENS
    threshold = int((context_window - reply_reserve - fixed) / (1 + framing_share))
    policy = MemoryPolicy(window_size=max(2, threshold // SCRIPT_PROMISES["exchange_max"]), token_threshold=threshold)
    standin = StandInModel()
    memory = ConversationMemory(MISSION, policy, count_text_tokens, ThreeLineSummarizer())
    run_night(after.NightWatchAgent("ヴェスパー", memory, client=standin.client()), celebration_eve())
    assert max(request.prompt_tokens for request in standin.requests) + reply_reserve <= context_window
    return policy
""", -1, ()),
]

# The participant's trial, second round (issue: checks that show what they judged). Exercise 3 in the
# style people type: full-width colons, ' | ' joins, a bullet before each line; and the lesson's own
# mistakes: a handover or a routine count reported as an incident.
EX3_TYPED = r'''
import re


def words(text):
    return set(re.findall(r"[一-龥ァ-ヶー]{2,}", text))


def summarize(summary, overflow):
    notes, events, count = [], [], 0
    for line in summary.splitlines():
        label, _, body = line.lstrip("・ ").partition("：")
        items = [item for item in body.split(" | ") if item]
        if label == "申し送り":
            notes = items
        elif label == "出来事":
            events = items
        elif label == "いつもの":
            count = int(body.removesuffix("件"))
    for exchange in overflow:
        text = exchange.user_text
        if text.startswith("申し送り"):
            notes += [s + "。" for s in text.partition(":")[2].split("。") if s.strip()]
            continue
        known = set().union(*map(words, notes)) if notes else set()
        own = words(text)
        if text.startswith("（") or text.endswith("か。") or text in events or (own and len(own & known) >= len(own) / 2):
            count += 1
        else:
            events = [*events, text][-4:]
    lines = [f"・申し送り：{' | '.join(notes)}" if notes else "", f"・出来事：{' | '.join(events)}" if events else "",
             f"・いつもの：{count}件"]
    return "\n".join(line for line in lines if line)
'''
OTHER_ROUTES += [
    Answer("ex3_three_line_summary.ipynb", "typed with full-width colons, ' | ' joins and bullets", EX3_TYPED, -1, ()),
    Answer("ex5_oversized_exchange.ipynb", "drops sentences from the end until it fits", """
def shrink_exchange(user_text, watchman_reply, max_tokens):
    if count_text_tokens(user_text) + count_text_tokens(watchman_reply) <= max_tokens:
        return user_text, watchman_reply
    sentences = [s + "。" for s in user_text.split("。") if s]
    for keep in range(len(sentences) - 1, 0, -1):
        shortened = "".join(sentences[:keep]) + f"（{len(sentences) - keep}文略）"
        if count_text_tokens(shortened) + count_text_tokens(watchman_reply) <= max_tokens:
            return shortened, watchman_reply
    return sentences[0] + "（略）", watchman_reply
""", -1, ()),
]
HANDOVER_AS_INCIDENT = EX3_TYPED.replace(
    '            continue\n',
    '            events = [*events, text.partition(":")[2].strip()][-4:]\n            continue\n', 1)
COUNT_AS_INCIDENT = EX3_TYPED.replace('f"・いつもの：{count}件"]', 'f"巡回：{count}回とも異常なし"]')
assert HANDOVER_AS_INCIDENT != EX3_TYPED and COUNT_AS_INCIDENT != EX3_TYPED
WRONG += [
    Answer("ex3_three_line_summary.ipynb", "lists the dusk handovers as incidents", HANDOVER_AS_INCIDENT, 4,
           ("出来事でないもの", "の申し送り）"), "の申し送り"),
    Answer("ex3_three_line_summary.ipynb", "writes the routine count on an unlabelled line", COUNT_AS_INCIDENT, 4,
           ("出来事でないもの", "のいつものこと）"), "のいつものこと"),
]

# Exercise 4: terms forgotten two at a time; the hint names the larger one, with its size.
EX4_TEMPLATE = """
def choose_policy(context_window, reply_reserve):
    room = context_window - {reserve}
    fixed = mission_message + {summary} + SCRIPT_PROMISES["question_message"]
    window_budget = room - fixed - {primer}
    threshold = int(window_budget / {framing})
    return MemoryPolicy(window_size=max(2, threshold // SCRIPT_PROMISES["exchange_max"]), token_threshold=threshold)
"""
RIGHT = {"reserve": "reply_reserve", "summary": 'SCRIPT_PROMISES["summary_message"]', "primer": "REPLY_PRIMER_TOKENS",
         "framing": "(1 + framing_share)"}


def ex4_forgetting(*terms: str) -> str:
    return EX4_TEMPLATE.format(**{**RIGHT, **{term: "1" if term == "framing" else "0" for term in terms}})


WRONG += [
    Answer("ex4_choose_policy.ipynb", "forgets the reserve and the primer", ex4_forgetting("reserve", "primer"), 1,
           ("トークン超過",), "返答の予約 reply_reserve の分を引き忘れていませんか（この上限では 256 トークン）"),
    Answer("ex4_choose_policy.ipynb", "forgets the framing and the summary", ex4_forgetting("framing", "summary"), 1,
           ("トークン超過",), "窓の往復ごとに乗る区切り"),
    Answer("ex4_choose_policy.ipynb", "forgets the reserve and the summary", ex4_forgetting("reserve", "summary"), 1,
           ("トークン超過",), "束ねの一通 summary_message の分を引き忘れていませんか（この上限では 360 トークン）"),
]

# More pairs of mistakes at once, each item with the hint for its own mistake.
WRONG += [
    Answer("ex2_pin_mission.ipynb", "the story's line with its 12 written in (mission lost, count fixed)", """
def pin_and_trim(history, keep_last):
    return history[-12:]
""", 1, ("keep_last=7: 会話を 12 件残しました（7 件のはず）",), "12 を直接書いていませんか"),
    Answer("ex2_pin_mission.ipynb", "the story's line with its 12 written in: the mission's item", """
def pin_and_trim(history, keep_last):
    return history[-12:]
""", 0, ("銘がどこにもありません",), "history[0] が銘です"),
    Answer("ex3_three_line_summary.ipynb", "handovers and the routine count both listed as incidents",
           HANDOVER_AS_INCIDENT.replace('f"・いつもの：{count}件"]', 'f"巡回：{count}回とも異常なし"]'), 4,
           ("出来事でないもの", "の申し送り）", "のいつものこと）"), "の申し送り"),
]
