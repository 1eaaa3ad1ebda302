"""Exercise 4: choose ``window_size`` and ``token_threshold`` for a context window and a reply reserve.

The participant writes ``choose_policy(context_window, reply_reserve) -> MemoryPolicy``. A request is
mission + summary + window + question, and the reply needs ``reply_reserve`` tokens on top, so the
check plays long nights to the three-tier agent (ThreeLineSummarizer, tiktoken counts) for several
windows and reserves, and requires the largest request plus the reserve to fit every time. It also
refuses the opposite mistake: a policy so tight that it summarizes while most of the room is empty.
"""

from __future__ import annotations

from nightwatch import after
from nightwatch.memory import ConversationMemory, MemoryPolicy
from nightwatch.nights import MISSION, Night, celebration_eve
from nightwatch.standin import StandInModel, ThreeLineSummarizer
from nightwatch.tokens import count_text_tokens
from nightwatch.workshop.harness import exercise_check, graded
from nightwatch.workshop.report import CheckReport, describe_error, finish
from nightwatch.workshop.stage import play_night
from nightwatch.workshop.variants import unseen_night

EXERCISE = "演習4「窓の幅と閾値を予算から決める」"
EXAMPLE = (1536, 256)
UNSEEN = [(1024, 128), (2048, 512), (4096, 1024)]
# What every night this check plays keeps to (tests/test_workshop.py verifies it), in tokens as the
# stand-in counts a request: the summary message and the question message include their framing.
SCRIPT_PROMISES = {
    "summary_message": 300,
    "question_message": 170,
    "exchange_min": 19,
    "exchange_max": 170,
}
MIN_USE = 0.5
SOLUTION = "0c7238020a85f32e"  # fingerprint of the shipped solution's answer (tests/test_workshop.py keeps it current)
PLANNED = [
    "どの窓と余白でも、MemoryPolicy（window_size と token_threshold だけ）を返す",
    "どの夜でも、いちばん大きいリクエスト + 余白 が context_window に収まる",
    f"絞りすぎない: window_size が 2 以上、束ねる夜では最大のリクエストが使える量の {MIN_USE:.0%} 以上",
]


def nights(example: bool) -> list[Night]:
    """The example window plays the celebration eve and an unseen night; the others the unseen one."""
    unseen = unseen_night(5, errands_per_hour=4, handovers=4)
    return [celebration_eve(), unseen] if example else [unseen]


def label(context_window: int, reply_reserve: int) -> str:
    return f"窓 {context_window:,}・余白 {reply_reserve:,}"


def policy_problem(policy) -> str | None:
    if not isinstance(policy, MemoryPolicy):
        return f"MemoryPolicy ではなく {type(policy).__name__} が返りました"
    if getattr(policy, "context_window", None) is not None or getattr(policy, "reply_reserve", 0):
        return ("context_window や reply_reserve が入っています。この演習では window_size と token_threshold "
                "だけで予算を守ってください")
    return None


@exercise_check(
    EXERCISE, "choose_policy", lambda: EXAMPLE, PLANNED,
    "context_window から reply_reserve と銘・束ね・問いの分を引き、残りを窓に配って MemoryPolicy(...) を return してください。",
    solution=SOLUTION,
)
def check_policy_choice(choose_policy, harness) -> CheckReport:
    """Check ``choose_policy(context_window, reply_reserve) -> MemoryPolicy`` on long nights."""

    returned, fits, roomy = [], [], []
    for context_window, reply_reserve in [EXAMPLE, *UNSEEN]:
        example = (context_window, reply_reserve) == EXAMPLE
        where = label(context_window, reply_reserve) + ("（例）" if example else "")
        try:
            policy = choose_policy(context_window, reply_reserve)
        except Exception as error:  # noqa: BLE001
            returned.append(f"✗ {where}: {describe_error(error)}")
            continue
        problem = policy_problem(policy)
        if problem:
            returned.append(f"✗ {where}: {problem}")
            continue
        returned.append(f"✓ {where} → window_size={policy.window_size}, token_threshold={policy.token_threshold:,}")

        room = context_window - reply_reserve
        use, compacted = 0.0, False
        for night in nights(example):
            standin = StandInModel(context_limit=context_window)
            memory = ConversationMemory(MISSION, policy, count_text_tokens, ThreeLineSummarizer())
            log = play_night(after.NightWatchAgent("ヴェスパー", memory, client=standin.client()), night, standin)
            biggest = log.largest_request
            compacted = compacted or bool(memory.compactions)
            use = max(use, biggest.prompt_tokens / room)
            total = biggest.prompt_tokens + reply_reserve
            sums = f"{biggest.turn}回目のリクエスト {biggest.prompt_tokens:,} + 余白 {reply_reserve:,} = {total:,}"
            if total <= context_window and log.survived:
                fits.append(f"✓ {where}・{night.name}: {sums} ≤ {context_window:,}")
            elif log.failure is not None and total <= context_window:
                fits.append(f"✗ {where}・{night.name}: {log.failure.turn}回目で、{log.failure.error}")
            else:
                fits.append(f"✗ {where}・{night.name}: {sums} > {context_window:,}（{total - context_window:,} トークン超過）")

        if policy.window_size < 2:
            roomy.append(f"✗ {where}: window_size={policy.window_size} では、束ねのあと生で残る往復が 1 つだけです")
        elif compacted and use < MIN_USE:
            roomy.append(f"✗ {where}: 束ねは起きているのに、最大のリクエストは使える {room:,} の {use:.0%} どまり（早く束ねすぎ）")
        else:
            spill = "（はみ出した分は、上の項目の ✗ を見てください）" if use > 1 else ""
            roomy.append(f"✓ {where}: 最大のリクエストは使える {room:,} の {use:.0%}{spill}")

    hints = [
        "MemoryPolicy(window_size=..., token_threshold=...) を return します。どちらも 1 以上の整数です。",
        "リクエスト = 銘 + 束ね + 窓 + 今の問い です。窓には token_threshold に加えて 1 往復ごとに区切りの 8 トークンが"
                      "乗り、束ねの直後でも window_size 往復が残ります。まず reply_reserve を引いてから配分しましょう。",
        "context_window と reply_reserve から計算しましょう。数を直接書くと、広い窓では余りすぎ、"
                       "狭い窓でははみ出します。",
    ]
    return finish(EXERCISE, graded(PLANNED, [returned, fits, roomy], hints))
