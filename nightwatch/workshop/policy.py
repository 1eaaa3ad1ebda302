"""Exercise 4: ``choose_policy(context_window, reply_reserve) -> MemoryPolicy`` from a token budget.

A request is mission + summary + window + question, and the reply needs ``reply_reserve`` on top. For
each policy chosen the check plays a night that reaches the worst case the notebook's promises allow
(summary grown, window filled with the shortest exchanges up to the fold, then the largest exchanges),
so forgetting the reserve, the framing, the summary or the limit on ``window_size`` shows as a request
that does not fit, with the numbers; the stand-in refuses that request, and the night ends there. A
policy so tight that it folds with the room mostly empty fails too.

When a request does not fit, the hint says which terms the plan left out. It does not work out a
right threshold: it takes the participant's own threshold, adds up what that threshold lets into the
worst request (its window and the window's framing, the mission, the largest summary and question,
the primer, the reply reserve), and finds the set of terms whose sizes best account for the excess
at every budget at once; the hint names the largest of them, with its size in tokens.
"""

from __future__ import annotations

from itertools import combinations

import openai

from nightwatch import after
from nightwatch.memory import ConversationMemory, MemoryPolicy
from nightwatch.nights import CRAFT_ERRANDS, MISSION, Night, celebration_eve, morning_report_call
from nightwatch.standin import StandInModel, ThreeLineSummarizer
from nightwatch.tokens import REPLY_PRIMER_TOKENS, count_text_tokens, message_tokens
from nightwatch.workshop.harness import Budget, ParticipantError, exercise_check
from nightwatch.workshop.report import CheckReport, Judged, describe_error, mark, verdict
from nightwatch.workshop.stage import unseen_night

EXERCISE = "演習4「窓幅と閾値を予算から決める」"
EXAMPLE = (1536, 256)
UNSEEN = [(1280, 128), (2048, 512), (4096, 1024)]
# What every night this check plays keeps to (tests/test_workshop.py verifies it), in tokens as the
# stand-in counts a request: the summary message and the question message include their framing.
SCRIPT_PROMISES = {"summary_message": 360, "question_message": 170, "exchange_min": 19, "exchange_max": 170}
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


TERMS = {  # each term a plan must leave room for: its name in the hint, and its size (budget, threshold)
    "reserve": "返答の予約 reply_reserve",
    "framing": "窓の往復ごとに乗る区切り（閾値 × framing_share）",
    "summary": "束ねの一通 summary_message",
    "primer": "返答の書き出し REPLY_PRIMER_TOKENS",
}
MISSING_HINT = ("{largest} の分を引き忘れていませんか（この上限では {size} トークン）。{others}"
                "リクエスト + 返答の予約が context_window に収まるように、配分の前にそれを取り分けましょう。")


def framing_share() -> float:
    """The framing an exchange carries, as a share of the shortest exchange's text (the worst case)."""
    framing = sum(message_tokens({"role": role, "content": ""}, count_text_tokens) for role in ("user", "assistant"))
    return framing / SCRIPT_PROMISES["exchange_min"]


def term_sizes(reply_reserve: int, threshold: int) -> dict[str, float]:
    return {"reserve": reply_reserve, "framing": threshold * framing_share(),
            "summary": SCRIPT_PROMISES["summary_message"], "primer": REPLY_PRIMER_TOKENS}


def excess(policy: MemoryPolicy, context_window: int, reply_reserve: int) -> float:
    """How far the worst request this threshold lets in, plus the reserve, goes past the window."""
    mission = message_tokens({"role": "system", "content": MISSION}, count_text_tokens)
    wants = (sum(term_sizes(reply_reserve, policy.token_threshold).values()) + mission + policy.token_threshold
             + SCRIPT_PROMISES["question_message"])
    return wants - context_window


def missing_terms(plans: list[tuple[MemoryPolicy, int, int]]) -> tuple[str, ...]:
    """The set of terms whose sizes best account for every budget's excess at once (within a few
    tokens each); () when no set does."""
    best, error = (), float("inf")
    for count in range(1, len(TERMS) + 1):
        for names in combinations(TERMS, count):
            miss = sum(abs(excess(policy, cw, rr) - sum(term_sizes(rr, policy.token_threshold)[n] for n in names))
                       for policy, cw, rr in plans)
            best, error = (names, miss) if miss < error else (best, error)
    return best if error <= 2.5 * len(plans) else ()


def forgotten(plans: list[tuple[MemoryPolicy, int, int]], over: tuple[MemoryPolicy, int, int]) -> str:
    """The hint for a plan whose requests do not fit: a window too wide to fold, the largest term left
    out (with its size at the budget ``over`` that overran), or the item's own hint."""
    policy, _, reserve = over
    wide = (f"window_size={policy.window_size} が大きすぎます。束ねの直後にも window_size 往復（一つ最大 exchange_max と"
            "区切り）が窓に残り、閾値では押し出せません。window_size × exchange_max が token_threshold に収まるようにしましょう。"
            if policy.window_size * SCRIPT_PROMISES["exchange_max"] > policy.token_threshold else "")
    names = missing_terms(plans)
    if not names:
        return wide or ITEMS[1][1]
    sizes = term_sizes(reserve, policy.token_threshold)
    largest, *others = sorted(names, key=lambda name: -sizes[name])
    also = ("ほかに " + "・".join(f"{TERMS[name]}（{sizes[name]:.0f} トークン）" for name in others) + "も足りません。"
            if others else "")
    return (wide + " " if wide else "") + MISSING_HINT.format(largest=TERMS[largest], size=f"{sizes[largest]:.0f}",
                                                             others=also)


def requests_shown(name: str, requests: list) -> Judged:
    """The request sizes the stand-in saw on one night around the one judged (the largest, or the one
    refused): the five before it, it, and the two after, with what each carried."""
    peak = max(range(len(requests)), key=lambda n: requests[n].prompt_tokens)
    shown = list(enumerate(requests, start=1))[max(peak - 5, 0): peak + 3]
    return Judged(f"{name}: リクエストの大きさ（代役の記録。判定した {peak + 1}回目とその前後）",
                  "\n".join(("▶ " if number == peak + 1 else "  ") + breakdown(number, request)
                            for number, request in shown))


def breakdown(number: int, request) -> str:
    """A request and what it carried: summary, window (exchanges) and question, in tokens."""
    messages = request.messages
    summary = count_text_tokens(messages[1]["content"]) if messages[1]["role"] == "system" else 0
    exchanges = sum(m["role"] == "assistant" for m in messages)
    question = count_text_tokens(messages[-1]["content"])
    return f"{number}回目のリクエスト {request.prompt_tokens:,}（束ね {summary}・窓 {exchanges} 往復・問い {question} トークン）"


def window_lines(choose_policy, context_window: int, reply_reserve: int) -> tuple[list, list, list, tuple]:
    """Evidence for the three items from one budget; what was judged (the request sizes); and
    (policy, context_window, reply_reserve, overran) for the hint."""
    example = (context_window, reply_reserve) == EXAMPLE
    where = f"上限 {context_window:,}・返答の予約 {reply_reserve:,}" + ("（例）" if example else "")
    try:
        policy = choose_policy(context_window, reply_reserve)
    except ParticipantError as error:
        return [mark(False, where, str(error))], [], [], ((), None)
    if not isinstance(policy, MemoryPolicy) or policy.context_window is not None or policy.reply_reserve:
        return [mark(False, where, "context_window や reply_reserve が入っています。この演習では window_size と"
                     " token_thresholdだけで予算を守ってください" if isinstance(policy, MemoryPolicy) else
                     f"MemoryPolicy ではなく {type(policy).__name__} が返りました")], [], [], ((), None)
    room, use, compacted, fits, overran, shown = context_window - reply_reserve, 0.0, False, [], False, []
    for night in [celebration_eve()] * example + [None]:
        name = f"{where}・{night.name if night else WORST}"
        requests, folds, error = perform(policy, night, room)
        compacted = compacted or folds > 0
        shown += [requests_shown(name, requests)] if requests else []
        if error is not None:
            fits.append(mark(False, name, error))
            continue
        number, biggest = max(enumerate(requests, start=1), key=lambda pair: pair[1].prompt_tokens)
        use, total = max(use, biggest.prompt_tokens / room), biggest.prompt_tokens + reply_reserve
        sums = f"{breakdown(number, biggest)} + 返答の予約 {reply_reserve:,} = {total:,}"
        fit = total <= context_window
        fits.append(mark(fit, name, f"{sums} ≤ {context_window:,}" if fit
                         else f"{sums} > {context_window:,}（{total - context_window:,} トークン超過）"))
        overran = overran or total > context_window
    if policy.window_size < 2:
        roomy = mark(False, where, f"window_size={policy.window_size} では、束ねのあと生で残る往復が 1 つだけです")
    elif compacted and use < MIN_USE:
        roomy = mark(False, where, f"束ねは起きているのに、最大のリクエストは使える {room:,} の {use:.0%} どまり（早く束ねすぎ）")
    else:
        spill = "（はみ出した分は、上の項目の ✗ を見てください）" if use > 1 else ""
        roomy = mark(True, where, f"最大のリクエストは使える {room:,} の {use:.0%}{spill}")
    returned = f"✓ {where} → window_size={policy.window_size}, token_threshold={policy.token_threshold:,}"
    return [returned], fits, [roomy], (tuple(shown), (policy, context_window, reply_reserve, overran))


@exercise_check(
    EXERCISE, "choose_policy", ITEMS,
    "context_window から reply_reserve と銘・束ね・問いの分を引き、残りを窓に配って MemoryPolicy(...) を return してください。",
    budget=BUDGET,
)
def check_policy_choice(choose_policy) -> CheckReport:
    """Check ``choose_policy(context_window, reply_reserve) -> MemoryPolicy`` on worst-case nights."""
    returned, fits, roomy, seen = zip(*(window_lines(choose_policy, *budget) for budget in [EXAMPLE, *UNSEEN]))
    plans = [plan[:3] for _, plan in seen if plan is not None]
    over = next((plan[:3] for _, plan in seen if plan is not None and plan[3]), None)  # the first budget overrun
    items = [ITEMS[0], (ITEMS[1][0], forgotten(plans, over) if over else ITEMS[1][1]), ITEMS[2]]
    return verdict(EXERCISE, items, [sum(lines, []) for lines in (returned, fits, roomy)],
                   judged=[(), sum((shown for shown, _ in seen), ()), ()])
