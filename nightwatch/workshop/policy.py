"""Exercise 4: ``choose_policy(context_window, reply_reserve) -> MemoryPolicy`` from a token budget.

A request is mission + summary + window + question, and the reply needs ``reply_reserve`` on top. For
each policy chosen the check plays a night that reaches the worst case the notebook's promises allow
(summary grown, window filled with the shortest exchanges up to the fold, then the largest exchanges),
so forgetting the reserve, the framing, the summary or the limit on ``window_size`` shows as a request
that does not fit, with the numbers; the stand-in refuses that request, and the night ends there. A
policy so tight that it folds with the room mostly empty fails too.
"""

from __future__ import annotations

import openai

from nightwatch import after
from nightwatch.memory import ConversationMemory, MemoryPolicy
from nightwatch.nights import CRAFT_ERRANDS, MISSION, Night, celebration_eve, morning_report_call
from nightwatch.standin import StandInModel, ThreeLineSummarizer
from nightwatch.tokens import REPLY_PRIMER_TOKENS, count_text_tokens, message_tokens
from nightwatch.workshop.harness import Budget, ParticipantError, exercise_check
from nightwatch.workshop.report import CheckReport, describe_error, mark, verdict
from nightwatch.workshop.stage import unseen_night

EXERCISE = "演習4「窓の幅と閾値を予算から決める」"
EXAMPLE = (1536, 256)
UNSEEN = [(1280, 128), (2048, 512), (4096, 1024)]
# What every night this check plays keeps to (tests/test_workshop.py verifies it), in tokens as the
# stand-in counts a request: the summary message and the question message include their framing.
SCRIPT_PROMISES = {"summary_message": 300, "question_message": 170, "exchange_min": 19, "exchange_max": 170}
MIN_USE = 0.5
BUDGET = Budget(per_call=20, per_check=180)  # stated in the notebook: room for an answer that plays a night
SHORTEST = CRAFT_ERRANDS[1]  # a routine errand: the shortest exchange the nights hold (exchange_min)
WORST = "初見の夜（5番・窓いっぱいのあとの長い往復）"
LARGEST = "".join(CRAFT_ERRANDS[i % 3] for i in range(10))  # ten routine errands in one breath (exchange_max)
ITEMS = [  # (what is checked, the hint when it fails)
    ("どのコンテキスト上限と返答の予約でも、MemoryPolicy（window_size と token_threshold だけ）を返す",
     "MemoryPolicy(window_size=..., token_threshold=...) を return します。どちらも 1 以上の整数です。"),
    ("どの夜でも、いちばん大きいリクエスト + 返答の予約が context_window に収まる",
     "リクエスト = 銘 + 束ね（最大 summary_message）+ 窓 + 今の問い（最大 question_message）です。まず reply_reserve を引き、"
     "窓には 1 往復ごとに区切りのトークンが乗ることと、束ねの直後にも window_size 往復が残ることを見込みましょう。"),
    (f"絞りすぎない: window_size が 2 以上、束ねる夜では最大のリクエストが使える量の {MIN_USE:.0%} 以上",
     "締めすぎると、まだ余裕があるうちから束ねて、生の言葉を必要以上に捨てます。数を直接書かず、"
     "context_window と reply_reserve から予算いっぱいに計算しましょう。"),
]


def perform(policy: MemoryPolicy, night: Night | None, room: int = 10**6) -> tuple[list, int, str | None]:
    """Play ``night`` (None: the worst case for ``policy``) to the three-tier agent, until a request is
    over ``room``: the stand-in's requests, the number of folds, and any other error that ended it. The
    worst case: an unseen evening that fills the summary, the shortest exchanges until the window is as
    full as it gets before a fold, the largest exchanges (one more than ``window_size``), the morning."""
    standin = StandInModel(context_limit=room)
    memory = ConversationMemory(MISSION, policy, count_text_tokens, ThreeLineSummarizer())
    agent = after.NightWatchAgent("ヴェスパー", memory, client=standin.client())

    def worst_case():
        evening = unseen_night(5, handovers=4, incident_hours=(21, 22, 23)).turns
        yield from (turn.text for turn in evening if turn.clock >= "18")
        folds = len(memory.compactions)
        for _ in range(3 * policy.token_threshold // SCRIPT_PROMISES["exchange_min"] + 8):
            last = memory.window[-1] if memory.window else None
            step = count_text_tokens(last.user_text) + count_text_tokens(last.watchman_reply) if last else 0
            if len(memory.compactions) > folds and memory.window_tokens() + step > policy.token_threshold:
                break  # the next short exchange would fold: this is the fullest the window gets
            yield SHORTEST
        yield from [LARGEST] * (policy.window_size + 1)
        yield morning_report_call().text

    for number, text in enumerate(worst_case() if night is None else (t.text for t in night.turns), start=1):
        try:
            agent.run(text)
        except Exception as error:  # noqa: BLE001 - a policy the memory cannot work with
            if isinstance(error, openai.BadRequestError) and error.code == "context_length_exceeded":
                break  # a request that leaves no room for the reply: the verdict is in
            return standin.requests, len(memory.compactions), f"{number}回目で、{describe_error(error)}"
    return standin.requests, len(memory.compactions), None


def forgotten(policy: MemoryPolicy, context_window: int, reply_reserve: int) -> str:
    """The hint for a policy that does not fit: the one missing term that would explain its threshold."""
    promised = SCRIPT_PROMISES
    if policy.window_size * promised["exchange_max"] > policy.token_threshold:
        return (f"window_size={policy.window_size} が大きすぎます。束ねの直後にも window_size 往復（一つ最大 exchange_max と"
                "区切り）が窓に残り、閾値では押し出せません。window_size × exchange_max が token_threshold に収まるようにしましょう。")
    framing = sum(message_tokens({"role": role, "content": ""}, count_text_tokens)
                  for role in ("user", "assistant"))
    share = framing / promised["exchange_min"]
    fixed = message_tokens({"role": "system", "content": MISSION}, count_text_tokens) + REPLY_PRIMER_TOKENS
    room = context_window - reply_reserve - fixed - promised["question_message"] - promised["summary_message"]
    bounds = {  # the threshold each mistake would give, and what to say about it
        (room + reply_reserve) / (1 + share): "reply_reserve を引き忘れていませんか。返答の予約は、配分の前に最初に取り分けます。",
        room: "窓には本文のほかに、1 往復ごとに区切りのトークンが乗ります。閾値は 窓の予算 / (1 + framing_share) 以下にしましょう。",
        (room + promised["summary_message"]) / (1 + share):
            "束ねの一通（最大 summary_message）の分を引き忘れていませんか。束ねは夜が進むと満杯近くまで育ちます。",
    }
    near = [bound for bound in bounds if policy.token_threshold <= bound + 1]
    return bounds[min(near)] if near else ITEMS[1][1]


def breakdown(number: int, request) -> str:
    """A request and what it carried: summary, window (exchanges) and question, in tokens."""
    messages = request.messages
    summary = count_text_tokens(messages[1]["content"]) if messages[1]["role"] == "system" else 0
    exchanges = sum(m["role"] == "assistant" for m in messages)
    question = count_text_tokens(messages[-1]["content"])
    return f"{number}回目のリクエスト {request.prompt_tokens:,}（束ね {summary}・窓 {exchanges} 往復・問い {question} トークン）"


def window_lines(choose_policy, context_window: int, reply_reserve: int) -> tuple[list, list, list, str]:
    """Evidence for the three items from one budget, and the hint if a request did not fit."""
    example = (context_window, reply_reserve) == EXAMPLE
    where = f"上限 {context_window:,}・返答の予約 {reply_reserve:,}" + ("（例）" if example else "")
    try:
        policy = choose_policy(context_window, reply_reserve)
    except ParticipantError as error:
        return [mark(False, where, str(error))], [], [], ""
    if not isinstance(policy, MemoryPolicy) or policy.context_window is not None or policy.reply_reserve:
        return [mark(False, where, "context_window や reply_reserve が入っています。この演習では window_size と"
                     " token_thresholdだけで予算を守ってください" if isinstance(policy, MemoryPolicy) else
                     f"MemoryPolicy ではなく {type(policy).__name__} が返りました")], [], [], ""
    room, use, compacted, fits, hint = context_window - reply_reserve, 0.0, False, [], ""
    for night in [celebration_eve()] * example + [None]:
        name = f"{where}・{night.name if night else WORST}"
        requests, folds, error = perform(policy, night, room)
        compacted = compacted or folds > 0
        if error is not None:
            fits.append(mark(False, name, error))
            continue
        number, biggest = max(enumerate(requests, start=1), key=lambda pair: pair[1].prompt_tokens)
        use, total = max(use, biggest.prompt_tokens / room), biggest.prompt_tokens + reply_reserve
        sums = f"{breakdown(number, biggest)} + 返答の予約 {reply_reserve:,} = {total:,}"
        fit = total <= context_window
        fits.append(mark(fit, name, f"{sums} ≤ {context_window:,}" if fit
                         else f"{sums} > {context_window:,}（{total - context_window:,} トークン超過）"))
        hint = hint or (forgotten(policy, context_window, reply_reserve) if total > context_window else "")
    if policy.window_size < 2:
        roomy = mark(False, where, f"window_size={policy.window_size} では、束ねのあと生で残る往復が 1 つだけです")
    elif compacted and use < MIN_USE:
        roomy = mark(False, where, f"束ねは起きているのに、最大のリクエストは使える {room:,} の {use:.0%} どまり（早く束ねすぎ）")
    else:
        spill = "（はみ出した分は、上の項目の ✗ を見てください）" if use > 1 else ""
        roomy = mark(True, where, f"最大のリクエストは使える {room:,} の {use:.0%}{spill}")
    returned = f"✓ {where} → window_size={policy.window_size}, token_threshold={policy.token_threshold:,}"
    return [returned], fits, [roomy], hint


@exercise_check(
    EXERCISE, "choose_policy", ITEMS,
    "context_window から reply_reserve と銘・束ね・問いの分を引き、残りを窓に配って MemoryPolicy(...) を return してください。",
    budget=BUDGET,
)
def check_policy_choice(choose_policy) -> CheckReport:
    """Check ``choose_policy(context_window, reply_reserve) -> MemoryPolicy`` on worst-case nights."""
    returned, fits, roomy, hints = zip(*(window_lines(choose_policy, *budget)
                                         for budget in [EXAMPLE, *UNSEEN]))
    first_hint = next(filter(None, hints), ITEMS[1][1])  # the first budget overrun names the mistake
    items = [ITEMS[0], (ITEMS[1][0], first_hint), ITEMS[2]]
    return verdict(EXERCISE, items, [sum(lines, []) for lines in (returned, fits, roomy)])
