"""``python -m nightwatch``: the celebration eve under the three designs, offline, in seconds.

``python -m nightwatch serve --port 8000`` serves the stand-in over HTTP on 127.0.0.1 instead.
With ``NIGHTWATCH_LIVE=1`` (see ``nightwatch.lab.live``) the comparison runs against a real model.
"""

from __future__ import annotations

import argparse
import sys

from nightwatch.standin import DEFAULT_CONTEXT_LIMIT


def first_errors(frames: dict) -> dict[str, str]:
    """Per design, the error that ended its night, if one did (redacted, one line)."""
    from nightwatch.lab.compare import DESIGN_NAMES
    from nightwatch.memory.redaction import redact

    stops = {}
    for design, frame in frames.items():
        errors = frame["error"].dropna()
        stops[DESIGN_NAMES[design]] = redact(str(errors.iloc[0])).splitlines()[0] if len(errors) else ""
    return stops


def _sizes(column):
    import pandas as pd

    return column.map(lambda size: "—" if pd.isna(size) else str(int(size)))


def compare(context_limit: int) -> None:
    import pandas as pd

    from nightwatch.lab.compare import compare_designs
    from nightwatch.lab.live import choose_model
    from nightwatch.memory.redaction import redact
    from nightwatch.nights import celebration_eve

    night = celebration_eve()
    choice = choose_model(context_limit=context_limit)
    print(choice.describe())
    if choice.live:
        try:
            table, frames = compare_designs(night, context_limit, client_factory=lambda: choice.client,
                                            model=choice.model)
        except Exception as exc:  # a live endpoint's failure is one line, never a traceback
            sys.exit(redact(f"python -m nightwatch: the live run failed: {type(exc).__name__}: {exc}").splitlines()[0])
    else:
        table, frames = compare_designs(night, context_limit)
    print(f"{night.name}（{len(night.turns)}回の呼び出し、上限 {context_limit} トークン）")
    shown = table.assign(
        survived=table["survived"].map({True: "夜明けまで", False: "途中で停止"}),
        watchman_at_test=table["watchman_at_test"].map({True: "夜警のまま", False: "夜警でない"}),
        incidents=table["incidents_reported"].astype(str) + "/" + table["incidents_total"].astype(str),
        stopped_by=table.index.map(first_errors(frames)),
        # None where no call reported a size (the first call failed): shown as a dash, not a crash
        largest_request=_sizes(table["largest_request"]),
        count_gap=_sizes(table["count_gap"]),
    )
    columns = {  # the same labels as notebook 04's comparison table
        "survived": "夜明けまで", "watchman_at_test": f"{night.watchman_test_clock}の楽屋口", "incidents": "朝の報告",
        "largest_request": "最大リクエスト", "total_tokens_sent": "送信トークン合計", "calls": "呼び出し回数",
    }
    if choice.live:
        columns["count_gap"] = "数え方の差（最大）"
    stops = shown["stopped_by"]
    # Pandas counts a full-width character as one column unless told otherwise; the headers are Japanese.
    with pd.option_context("display.unicode.east_asian_width", True):
        print(shown[list(columns)].rename(columns=columns).rename_axis("仕立て").to_string())
    for design, stop in stops.items():
        if stop:
            print(f"{design} を止めたエラー: {stop}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m nightwatch", description=__doc__.splitlines()[0])
    parser.add_argument("--context-limit", type=int, default=DEFAULT_CONTEXT_LIMIT,
                        help="the stand-in's context window in tokens (default: %(default)s)")
    commands = parser.add_subparsers(dest="command")
    serve_parser = commands.add_parser("serve", help="serve the stand-in on 127.0.0.1 over HTTP")
    serve_parser.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (0: any free port)")
    serve_parser.add_argument("--context-limit", type=int, default=DEFAULT_CONTEXT_LIMIT, dest="serve_limit",
                              help="the served stand-in's context window in tokens (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.context_limit <= 0:
        parser.error("--context-limit must be a positive number of tokens")
    if args.command == "serve":
        if args.serve_limit <= 0:
            serve_parser.error("--context-limit must be a positive number of tokens")
        if not 0 <= args.port <= 65535:
            serve_parser.error(f"--port must be between 0 and 65535 (got {args.port})")
        from nightwatch.standin.server import ServerStartError, serve

        try:
            serve(args.port, args.serve_limit)
        except ServerStartError as refused:
            sys.exit(f"python -m nightwatch serve: {refused}")
    else:
        compare(args.context_limit)


if __name__ == "__main__":
    main()
