"""Exercise 1: predict the call at which the spring design is refused, then see it happen.

The participant writes ``predict_refused_call(limit, first_request_tokens, per_exchange_tokens)``.
The check measures the first request and the growth per exchange on the stand-in, asks for a
prediction, then plays the same exchanges to the Before agent until the stand-in refuses, and
compares. Besides the notebook's example it tries exchanges of other lengths, other limits, a limit
that one request meets exactly (a request of exactly the limit is accepted), and a limit too small
for even the first request.
"""

from __future__ import annotations

import functools
import math
import numbers
import random
from dataclasses import dataclass

import openai

from nightwatch import before
from nightwatch.nights import MISSION, fixed_length_exchanges
from nightwatch.standin import StandInModel
from nightwatch.workshop.harness import exercise_check
from nightwatch.workshop.report import CheckItem, CheckReport, describe_error, finish

EXERCISE = "演習1「拒まれる回を予言する」"
EXAMPLE_TEXT = "申し送りの確認です。西回廊の荷に異常はありません。"
EXAMPLE_LIMIT = 2048
CLAUSES = [
    "申し送りの確認です。",
    "西回廊の荷に異常はありません。",
    "楽屋口の鍵は掛かっています。",
    "職人さんたちは袖で休んでいます。",
    "客席の灯りはすべて落としました。",
    "搬入口の大太鼓は、まだ置いたままです。",
    "祝賀の花は二階の貴賓席にあります。",
]
PLANNED = [
    "例の夜（上限 2,048・例の往復）で予言が当たる",
    "見たことのない長さの往復と上限でも当たる",
    "上限ちょうどのリクエストは通る（境界）",
    "上限が小さすぎて 1 回目から入らない夜",
]


@dataclass(frozen=True)
class Growth:
    """How a Before night of identical exchanges grows, measured on the stand-in."""

    text: str
    first_request_tokens: int
    per_exchange_tokens: int


@functools.lru_cache(maxsize=None)
def measure_growth(text: str) -> Growth:
    """The first request's size and how much each further call adds, from two real calls."""
    standin = StandInModel(context_limit=10**6)
    agent = before.NightWatchAgent("ヴェスパー", MISSION, client=standin.client())
    agent.run(text)
    agent.run(text)
    first, second = (request.prompt_tokens for request in standin.requests)
    return Growth(text, first, second - first)


@functools.lru_cache(maxsize=None)
def refused_call(growth: Growth, limit: int) -> tuple[int, tuple[int, ...]]:
    """Play the exchanges to the Before agent until refused: the refused call, and every size sent.

    Cached: the night does not depend on the participant's answer, and the stand-in is deterministic."""
    standin = StandInModel(context_limit=limit)
    agent = before.NightWatchAgent("ヴェスパー", MISSION, client=standin.client())
    budget = max(2, (limit - growth.first_request_tokens) // growth.per_exchange_tokens + 4)
    for number, turn in enumerate(fixed_length_exchanges(budget, growth.text).turns, start=1):
        try:
            agent.run(turn.text)
        except openai.BadRequestError:  # the refusal we are waiting for
            return number, tuple(request.prompt_tokens for request in standin.requests)
    raise RuntimeError(f"no refusal within {budget} calls at limit {limit}")


def judge(predict, growth: Growth, limit: int, label: str) -> tuple[bool, str]:
    """Ask for a prediction, run the night, and say what happened in one line."""
    given = f"上限 {limit:,}・1回目のリクエスト {growth.first_request_tokens}・1往復ごとに +{growth.per_exchange_tokens}"
    try:
        guess = predict(limit, growth.first_request_tokens, growth.per_exchange_tokens)
    except Exception as error:  # noqa: BLE001
        return False, f"✗ {label}（{given}）: {describe_error(error)}"
    actual, sizes = refused_call(growth, limit)
    seen = f"{actual}回目 {sizes[-1]:,} トークンで拒まれた"
    if actual > 1:
        seen = f"{actual - 1}回目 {sizes[-2]:,} トークンは通り、" + seen
    if guess is None:
        return False, f"✗ {label}（{given}）: 予言が None でした（return を書き忘れていませんか）。実際は {actual}回目（{seen}）"
    if isinstance(guess, bool) or not isinstance(guess, numbers.Real) or not float(guess).is_integer():
        return False, f"✗ {label}（{given}）: 予言 {guess!r} は回数（整数）ではありません。実際は {actual}回目（{seen}）"
    mark = "✓" if int(guess) == actual else "✗"
    return int(guess) == actual, f"{mark} {label}（{given}）: 予言 {int(guess)}回目／実際 {actual}回目（{seen}）"


def variant_growths(seed: int, count: int) -> list[Growth]:
    rng = random.Random(seed)
    texts = ["".join(rng.sample(CLAUSES, rng.randint(1, 4))) for _ in range(count)]
    return [measure_growth(text) for text in texts]


def example_args() -> tuple[int, int, int]:
    example = measure_growth(EXAMPLE_TEXT)
    return EXAMPLE_LIMIT, example.first_request_tokens, example.per_exchange_tokens


@exercise_check(
    EXERCISE, "predict_refused_call", example_args, PLANNED,
    "1回目のリクエストの大きさと 1 往復ごとの増え方から、何回目の呼び出しで上限を超えるかを計算して return してください。",
)
def check_refused_call(predict_refused_call, harness) -> CheckReport:
    """Check ``predict_refused_call(limit, first_request_tokens, per_exchange_tokens) -> int``."""
    example = measure_growth(EXAMPLE_TEXT)
    rng = random.Random(2048)
    growths = variant_growths(seed=7, count=5)
    ok, line = judge(predict_refused_call, example, EXAMPLE_LIMIT, "例の夜")
    items = [CheckItem(PLANNED[0], ok, (line,), "例の数字で、1回目・2回目…とリクエストの大きさを手で足していってみましょう。")]

    results = []
    for growth in growths[:3]:
        steps, spare = rng.randint(6, 24), rng.randint(1, growth.per_exchange_tokens - 1)
        limit = growth.first_request_tokens + steps * growth.per_exchange_tokens + spare
        results.append(judge(predict_refused_call, growth, limit, f"{len(growth.text)}文字の往復"))
    items.append(CheckItem(
        PLANNED[1], all(ok for ok, _ in results), tuple(line for _, line in results),
        "例の数を直接書かずに、引数の limit・first_request_tokens・per_exchange_tokens だけから計算しましょう。",
    ))

    results = []
    for growth, offset in zip(growths[3:], (0, -1)):
        steps = rng.randint(6, 20)
        limit = growth.first_request_tokens + steps * growth.per_exchange_tokens + offset
        label = "あるリクエストがちょうど上限" if offset == 0 else "上限がちょうどより 1 小さい"
        results.append(judge(predict_refused_call, growth, limit, label))
    items.append(CheckItem(
        PLANNED[2], all(ok for ok, _ in results), tuple(line for _, line in results),
        "代役が拒むのは「上限を超えた」リクエストだけです。ちょうど上限のリクエストは通ります（> と >= の違い）。",
    ))

    growth = growths[0]
    limit = math.ceil(growth.first_request_tokens / 3)
    ok, line = judge(predict_refused_call, growth, limit, "小さすぎる上限")
    items.append(CheckItem(
        PLANNED[3], ok, (line,),
        "1回目のリクエストがもう上限を超えていたら、答えは 1 回目です。計算が 1 より小さくならないようにしましょう。",
    ))

    message = ""
    if items[0].passed and all(line.startswith("✗") for item in items[1:] for line in item.evidence):
        message = "例の夜だけ当たっています。答えの数を直接書いていませんか？ 引数から計算してください。"
    return finish(EXERCISE, items, message=message)
