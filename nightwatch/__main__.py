"""``python -m nightwatch``: the celebration eve under the three designs, offline, in seconds."""

from __future__ import annotations

from nightwatch.compare import compare_designs
from nightwatch.nights import celebration_eve


def main() -> None:
    night = celebration_eve()
    table, _ = compare_designs(night)
    print(f"{night.name}（{len(night.turns)}回の呼び出し、代役の上限 {int(table['context_limit'].iloc[0])} トークン）")
    shown = table.assign(
        survived=table["survived"].map({True: "夜明けまで", False: "途中で停止"}),
        watchman_at_test=table["watchman_at_test"].map({True: "夜警のまま", False: "夜警でない"}),
        incidents=table["incidents_reported"].astype(str) + "/" + table["incidents_total"].astype(str),
    )[["survived", "watchman_at_test", "incidents", "largest_request", "total_tokens_sent", "calls"]]
    shown.columns = ["夜明けまで", "04:00前の楽屋口", "朝の報告", "最大リクエスト", "送信トークン合計", "呼び出し"]
    print(shown.to_string())


if __name__ == "__main__":
    main()
