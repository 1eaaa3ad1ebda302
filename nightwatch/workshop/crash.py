"""Exercise 1: predict the call at which the spring design is refused, then see it happen.

The participant writes ``predict_refused_call(limit, first_request_tokens, per_exchange_tokens)``.
The check measures a night of identical exchanges on the stand-in (the first request, the growth per
call), asks for a prediction, plays the exchanges to the Before agent until refused, and compares:
the notebook's example, exchanges of other lengths and limits, a limit that one request meets
exactly (accepted) or misses by one, and a limit too small for even the first request.
"""

from __future__ import annotations

import functools
import math
import numbers
import random

from nightwatch import before
from nightwatch.nights import MISSION, fixed_length_exchanges
from nightwatch.workshop.harness import ParticipantError, exercise_check
from nightwatch.workshop.report import CheckReport, mark, verdict
from nightwatch.workshop.stage import perform

EXERCISE = "演習1「拒まれる回を予言する」"
EXAMPLE_TEXT = "申し送りの確認です。西回廊の荷に異常はありません。"
EXAMPLE_LIMIT = 2048
CLAUSES = ["申し送りの確認です。", "西回廊の荷に異常はありません。", "楽屋口の鍵は掛かっています。",
           "職人さんたちは袖で休んでいます。", "客席の灯りはすべて落としました。",
           "搬入口の大太鼓は、まだ置いたままです。", "祝賀の花は二階の貴賓席にあります。"]
ITEMS = [  # (what is checked, the hint when it fails)
    ("例の夜（上限 2,048・例の往復）で予言が当たる",
     "例の数字で、1回目・2回目…とリクエストの大きさを手で足していってみましょう。"),
    ("見たことのない長さの往復と上限でも当たる",
     "例の数を直接書かずに、引数の limit・first_request_tokens・per_exchange_tokens だけから計算しましょう。"),
    ("上限ちょうどのリクエストは通る（境界）",
     "代役が拒むのは「上限を超えた」リクエストだけです。ちょうど上限のリクエストは通ります（> と >= の違い）。"),
    ("上限が小さすぎて 1 回目から入らない夜",
     "1回目のリクエストがもう上限を超えていたら、答えは 1 回目です。計算が 1 より小さくならないようにしましょう。"),
]


@functools.lru_cache(maxsize=None)
def sizes(text: str, limit: int = 10**6, calls: int = 2) -> tuple[int, ...]:
    """Every request size the stand-in saw while ``text`` was said again and again, up to its refusal."""
    log = perform(fixed_length_exchanges(calls, text),
                  lambda client: before.NightWatchAgent("ヴェスパー", MISSION, client=client), limit)
    return tuple(call.prompt_tokens for call in log.calls)


def growth(text: str) -> tuple[int, int]:
    first, second = sizes(text)
    return first, second - first


def judge(predict, text: str, limit: int, label: str) -> str:
    """Ask for a prediction, run the night, and say what happened in one evidence line."""
    first, step = growth(text)
    where = f"{label}（上限 {limit:,}・1回目のリクエスト {first}・1往復ごとに +{step}）"
    try:
        guess = predict(limit, first, step)
    except ParticipantError as error:
        return mark(False, where, str(error))
    seen = sizes(text, limit, max(2, (limit - first) // step + 4))
    actual = len(seen)
    happened = (f"{actual - 1}回目 {seen[-2]:,} トークンは通り、" if actual > 1 else "") + \
        f"{actual}回目 {seen[-1]:,} トークンで拒まれた"
    whole = isinstance(guess, numbers.Real) and not isinstance(guess, bool) and float(guess).is_integer()
    if not whole:
        problem = ("予言が None でした（return を書き忘れていませんか）" if guess is None
                   else f"予言 {guess!r} は回数（整数）ではありません")
        return mark(False, where, f"{problem}。実際は {actual}回目（{happened}）")
    return mark(int(guess) == actual, where, f"予言 {int(guess)}回目／実際 {actual}回目（{happened}）")


def cases() -> list[list[tuple[str, int, str]]]:
    """(text, limit, label) for each item: the example, unseen lengths, the exact boundary, a tiny limit."""
    rng, texts_rng = random.Random(2048), random.Random(7)
    texts = ["".join(texts_rng.sample(CLAUSES, texts_rng.randint(1, 4))) for _ in range(5)]
    groups: list[list[tuple[str, int, str]]] = [[(EXAMPLE_TEXT, EXAMPLE_LIMIT, "例の夜")], [], [], []]
    for text in texts[:3]:
        (first, step), steps = growth(text), rng.randint(6, 24)
        groups[1].append((text, first + steps * step + rng.randint(1, step - 1), f"{len(text)}文字の往復"))
    for text, offset, label in zip(texts[3:], (0, -1), ("あるリクエストがちょうど上限", "上限がちょうどより 1 小さい")):
        first, step = growth(text)
        groups[2].append((text, first + rng.randint(6, 20) * step + offset, label))
    groups[3].append((texts[0], math.ceil(growth(texts[0])[0] / 3), "小さすぎる上限"))
    return groups


@exercise_check(
    EXERCISE, "predict_refused_call", ITEMS,
    "1回目のリクエストの大きさと 1 往復ごとの増え方から、何回目の呼び出しで上限を超えるかを計算して return してください。",
)
def check_refused_call(predict_refused_call) -> CheckReport:
    """Check ``predict_refused_call(limit, first_request_tokens, per_exchange_tokens) -> int``."""
    evidence = [[judge(predict_refused_call, *case) for case in group] for group in cases()]
    only_example = evidence[0][0].startswith("✓") and all(line.startswith("✗") for lines in evidence[1:]
                                                          for line in lines)
    return verdict(EXERCISE, ITEMS, evidence, message="例の夜だけ当たっています。答えの数を直接書いていませんか？ "
                   "引数から計算してください。" if only_example else "")
