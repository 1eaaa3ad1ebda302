"""``python -m nightwatch``: the celebration eve under the three designs, offline, in seconds.

``python -m nightwatch serve --port 8000`` serves the stand-in over HTTP on 127.0.0.1 instead.
With ``NIGHTWATCH_LIVE=1`` (see ``nightwatch.lab.live``) the comparison runs against a real model:
then every call carries a reply cap, and the three-tier memory, budgeted for ``--context-limit``,
counts with a ratio learned from the server's reported ``usage.prompt_tokens``
(``nightwatch.tokens.calibration``); the table shows that ratio.

What it prints is for a terminal of 80 columns: the table has the designs as columns and the
measures as rows, so it stays narrow however many measures live mode adds, and every width is
counted the way a terminal draws it (a full-width character takes two columns). Everything it
says, argparse's own messages included, is in Japanese; ``--lang en`` (or ``NIGHTWATCH_LANG=en``)
says it in English. What it is doing before each wait goes to stderr, so stdout is the table alone.
"""

from __future__ import annotations

import argparse
import re
import sys
import unicodedata
from typing import NoReturn

from nightwatch.standin import DEFAULT_CONTEXT_LIMIT

TERMINAL_WIDTH = 80
DEFAULT_PORT = 8000
LANG_VARIABLE = "NIGHTWATCH_LANG"
"""``ja`` (the default) or ``en``; ``--lang`` wins. The system locale is not read: most containers say
C or en_US whatever their reader speaks, and the collection is Japanese first."""

WORDS: dict[str, dict[str, str]] = {  # every label the comparison prints, in the glossary's terms
    "ja": {
        "before": "春の仕立て", "trimmed": "一行の手当て", "three_tier": "三層",
        "legend": "春の仕立て＝無限追記、一行の手当て＝history[-12:]、三層＝銘・束ね・窓",
        "dawn": "夜明けまで", "stopped": "途中で停止", "door": "{clock}の楽屋口",
        "watchman": "夜警のまま", "not_watchman": "夜警でない", "not_judged": "判定なし",
        "report": "朝の報告", "largest": "最大リクエスト", "sent": "送信トークン合計", "calls": "呼び出し回数",
        "gap": "数え方の差（最大）", "ratio": "数え方の比（最大）",
        "title": "{night}（{turns}回の呼び出し、上限 {limit} トークン）",
        "stopped_by": "{design}を止めたエラー: {stop}",
        "preparing": "代役を準備しています（辞書とトークン表を読み込みます。初回は十秒ほどかかります）…",
        "playing": "{design}で一晩を走らせています…",
        "offline": "オフライン: 代役モデル（上限 {limit} トークン）",
        "live_note": "数え方の差と比: サーバが報告した usage.prompt_tokens と手元の数え（tiktoken）の差と比。"
                     "三層はこの比を一呼び出しごとに学んで数え直し、上限 {limit} の予算を守ります。"
                     "どの呼び出しも返答を {cap} トークンまでに制限しています。",
    },
    "en": {
        "before": "spring design", "trimmed": "one-line fix", "three_tier": "three tiers",
        "legend": "spring design = append forever, one-line fix = history[-12:], three tiers = "
                  "mission / summary / window (銘・束ね・窓)",
        "dawn": "until dawn", "stopped": "stopped", "door": "stage door at {clock}",
        "watchman": "still a watchman", "not_watchman": "not a watchman", "not_judged": "not judged",
        "report": "morning report", "largest": "largest request", "sent": "tokens sent", "calls": "calls",
        "gap": "count gap (max)", "ratio": "count ratio (max)",
        "title": "{night}: the celebration eve ({turns} calls, limit {limit} tokens)",
        "stopped_by": "the error that stopped the {design}: {stop}",
        "preparing": "Preparing the stand-in (loading the dictionary and the token table; about ten seconds "
                     "the first time)…",
        "playing": "Playing the night with the {design}…",
        "offline": "Offline: the stand-in model (limit {limit} tokens)",
        "live_note": "Count gap and ratio: between the server's usage.prompt_tokens and the local count "
                     "(tiktoken). The three tiers learn the ratio call by call and keep the budget of {limit}. "
                     "Every reply is capped at {cap} tokens.",
    },
}
SHORT_NAMES = {design: WORDS["ja"][design] for design in ("before", "trimmed", "three_tier")}
LEGEND = WORDS["ja"]["legend"]


# --- what a terminal draws ------------------------------------------------------------------------


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: wide and full-width characters take two."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def pad(text: str, width: int, right: bool = False) -> str:
    gap = " " * max(0, width - display_width(text))
    return gap + text if right else text + gap


CLOSING = "）」』】、。，．・：；？！ー:;,.)\u00a0"
OPENING = "（「『【(\u00a0"


def is_wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in "WF"


def wrap(text: str, width: int = TERMINAL_WIDTH, indent: str = "  ") -> list[str]:
    """Lines of at most ``width`` columns; continuation lines start with ``indent``.

    A line may break at a space, or next to a wide character (Japanese has no spaces between words),
    never inside a run of Latin letters and digits unless that run alone is wider than a line."""
    lines, line = [], ""
    for char in text:
        if line.strip() and display_width(line + char) > width:
            candidate = line + char
            breaks = [i for i in range(len(indent) + 1, len(candidate)) if may_break(candidate, i)]
            cut = breaks[-1] if breaks else len(line)
            head, line = candidate[:cut], candidate[cut:]
            lines.append(head.rstrip())
            line = indent + line.lstrip()
        else:
            line += char
    return lines + [line]


def may_break(text: str, i: int) -> bool:
    """May a line end before ``text[i]``? At a space, or next to a wide character, but not before a
    closing bracket or mark, nor after an opening one (the usual rule of Japanese typesetting)."""
    before, after = text[i - 1], text[i]
    if after in CLOSING or before in OPENING:
        return False
    return before == " " or after == " " or is_wide(before) or is_wide(after)


def render_table(columns: list[str], rows: dict[str, list[str]]) -> list[str]:
    """Row labels left-aligned, values right-aligned under their column, two spaces apart."""
    label_width = max(display_width(label) for label in rows)
    widths = [max([display_width(c)] + [display_width(row[i]) for row in rows.values()])
              for i, c in enumerate(columns)]
    lines = [" " * label_width + "".join("  " + pad(c, w, right=True) for c, w in zip(columns, widths))]
    for label, values in rows.items():
        lines.append(pad(label, label_width) + "".join("  " + pad(v, w, right=True) for v, w in zip(values, widths)))
    return lines


# --- the comparison -------------------------------------------------------------------------------


def first_errors(frames: dict) -> dict[str, str]:
    """Per design, the error that ended its night, if one did (redacted, one line)."""
    from nightwatch.memory.redaction import redact

    stops = {}
    for design, frame in frames.items():
        errors = frame["error"].dropna()
        stops[design] = redact(str(errors.iloc[0])).splitlines()[0] if len(errors) else ""
    return stops


def _size(value) -> str:
    return "—" if value is None else str(value)


def comparison_lines(table, frames: dict, night, context_limit: int, live: bool, lang: str = "ja") -> list[str]:
    """The comparison as it is printed: the designs as columns, one measure a row."""
    from nightwatch.lab.compare import DESIGN_NAMES, LIVE_REPLY_CAP

    words = WORDS[lang]
    outcomes = {design: table.loc[DESIGN_NAMES[design]] for design in frames}
    door = {True: words["watchman"], False: words["not_watchman"], None: words["not_judged"]}

    def row(measure) -> list[str]:
        return [measure(outcome) for outcome in outcomes.values()]

    rows = {
        words["dawn"]: row(lambda o: words["dawn"] if o["survived"] else words["stopped"]),
        words["door"].format(clock=night.watchman_test_clock): row(lambda o: door[_judged(o["watchman_at_test"])]),
        words["report"]: row(lambda o: f"{o['incidents_reported']}/{o['incidents_total']}"),
        words["largest"]: row(lambda o: _size(_number(o["largest_request"]))),
        words["sent"]: row(lambda o: str(int(o["total_tokens_sent"]))),
        words["calls"]: row(lambda o: str(int(o["calls"]))),
    }
    if live:
        rows[words["gap"]] = row(lambda o: _size(_number(o["count_gap"])))
        rows[words["ratio"]] = row(lambda o: "—" if _number(o["count_ratio"], float) is None
                                   else f"{o['count_ratio']:.2f}")
    lines = [words["title"].format(night=night.name, turns=len(night.turns), limit=context_limit), ""]
    lines += render_table([words[design] for design in outcomes], rows)
    lines += ["", *wrap(words["legend"])]
    if live:
        lines += wrap(words["live_note"].format(limit=context_limit, cap=LIVE_REPLY_CAP))
    for design, stop in first_errors(frames).items():
        if stop:
            lines += wrap(words["stopped_by"].format(design=words[design], stop=stop))
    return lines


def progress(line: str) -> None:
    """Said on stderr before each wait, so the table on stdout stays the table."""
    print(line, file=sys.stderr, flush=True)


def _judged(value) -> bool | None:
    return None if value is None or value != value else bool(value)  # None or NaN: not judged


def _number(value, kind=int):
    import pandas as pd

    return None if value is None or pd.isna(value) else kind(value)


def compare(context_limit: int, lang: str = "ja") -> None:
    words = WORDS[lang]
    progress(words["preparing"])
    from nightwatch.lab.compare import LIVE_REPLY_CAP, compare_designs, live_policy
    from nightwatch.lab.live import LiveModeError, choose_model
    from nightwatch.memory.redaction import redact
    from nightwatch.nights import celebration_eve

    night = celebration_eve()
    try:
        choice = choose_model(context_limit=context_limit)
    except LiveModeError as missing:
        sys.exit(f"python -m nightwatch: {missing}")
    print(choice.describe() if choice.live else words["offline"].format(limit=context_limit))

    def playing(design: str) -> None:
        progress(words["playing"].format(design=words[design]))

    if choice.live:
        try:  # every call capped; the three tiers budgeted for the server's window, counting as it counts
            table, frames = compare_designs(night, context_limit, live_policy(context_limit, LIVE_REPLY_CAP),
                                            client_factory=lambda: choice.client, model=choice.model,
                                            reply_cap=LIVE_REPLY_CAP, calibrate=True, on_design=playing)
        except Exception as exc:  # a live endpoint's failure is one line, never a traceback
            sys.exit(redact(f"python -m nightwatch: the live run failed: {type(exc).__name__}: {exc}").splitlines()[0])
    else:
        table, frames = compare_designs(night, context_limit, on_design=playing)
    print("\n".join(comparison_lines(table, frames, night, context_limit, choice.live, lang)))


# --- the command line, in Japanese ----------------------------------------------------------------

ARGPARSE_MESSAGES = [  # argparse's English messages (Python 3.11–3.13) and what is said instead
    (r"^argument (?P<option>\S+?): (?P<rest>.*)$", "{option}: {rest}"),
    (r"^unrecognized arguments: (?P<args>.*)$", "認識できない引数です: {args}"),
    (r"^invalid choice: '(?P<value>.*)' \(choose from (?P<choices>.*)\)$",
     "「{value}」というサブコマンドはありません（使えるのは {choices}）"),
    (r"^expected one argument$", "値を一つ続けてください"),
    (r"^invalid (?P<type>\w+) value: '(?P<value>.*)'$", "「{value}」は整数ではありません"),
    (r"^the following arguments are required: (?P<args>.*)$", "次の引数が必要です: {args}"),
    (r"^ambiguous option: (?P<option>\S+) could match (?P<matches>.*)$",
     "{option} は複数のオプションに当てはまります（候補: {matches}）"),
]


def in_japanese(message: str) -> str:
    for pattern, japanese in ARGPARSE_MESSAGES:
        match = re.match(pattern, message)
        if match:
            fields = {key: value for key, value in match.groupdict().items()}
            if "rest" in fields:
                fields["rest"] = in_japanese(fields["rest"])
                if fields["rest"].startswith("「"):  # the subcommand itself was wrong: no option to name
                    return fields["rest"]
            if "choices" in fields:
                fields["choices"] = fields["choices"].replace("'", "")
            return japanese.format(**fields)
    return message


class JapaneseHelpFormatter(argparse.HelpFormatter):
    """Japanese headings, and lines wrapped by the columns a terminal draws, not by characters."""

    def add_usage(self, usage, actions, groups, prefix=None):
        super().add_usage(usage, actions, groups, prefix="使い方: " if prefix is None else prefix)

    def _split_lines(self, text: str, width: int) -> list[str]:
        return [line for paragraph in text.splitlines() for line in wrap(paragraph, width, indent="")]

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in self._split_lines(text, width - len(indent)))


class JapaneseArgumentParser(argparse.ArgumentParser):
    """argparse with its headings and errors in Japanese; option names stay as the reader typed them."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", JapaneseHelpFormatter)
        kwargs.setdefault("add_help", False)
        super().__init__(*args, **kwargs)
        self._positionals.title = "サブコマンド"
        self._optionals.title = "オプション"
        self.add_argument("-h", "--help", action="help", help="このヘルプを表示して終了します")

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        said = f"{self.prog}: エラー: {in_japanese(message)}"
        self.exit(2, "\n".join(line for part in said.splitlines() for line in wrap(part)) + "\n")


def token_count(text: str) -> int:
    """A context window: a positive whole number of tokens."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"トークン数は正の整数で指定してください（「{text}」が指定されました）") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"トークン数は正の整数で指定してください（{value} が指定されました）")
    return value


def port_number(text: str) -> int:
    """A TCP port on 127.0.0.1; 0 asks the system for any free one."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"ポートは 0 から 65535 までの整数で指定してください（「{text}」が指定されました）")
    return value


def build_parser() -> tuple[JapaneseArgumentParser, JapaneseArgumentParser]:
    parser = JapaneseArgumentParser(
        prog="python -m nightwatch",
        usage="%(prog)s [-h] [--context-limit TOKENS] [serve ...]",
        description="祝賀前夜を三つの仕立て（春の仕立て・一行の手当て・三層）で一晩ずつ走らせ、比較表を出します。\n"
                    "既定ではオフラインの代役モデルが答えます（数秒）。NIGHTWATCH_LIVE=1 のときだけ本物のモデルに送ります。",
        epilog="代役を HTTP で公開するには: python -m nightwatch serve --port 8000",
    )
    parser.add_argument("--lang", choices=sorted(WORDS), default="ja", metavar="LANG",
                        help=f"表とヘルプの言語: ja か en（既定:\u00a0ja。環境変数 {LANG_VARIABLE} でも）")
    parser.add_argument("--context-limit", type=token_count, default=DEFAULT_CONTEXT_LIMIT, metavar="TOKENS",
                        help="代役のコンテキスト上限（トークン数）。ライブでは、サーバの上限として三層の予算に"
                             "使います（既定:\u00a0%(default)s）")
    commands = parser.add_subparsers(dest="command", title="サブコマンド", metavar="serve", prog=parser.prog,
                                     help="代役を 127.0.0.1 で HTTP 公開します（Ctrl-C で停止）。"
                                          "serve --help で詳しく")
    serve_parser = commands.add_parser(
        "serve",
        description="代役モデルを http://127.0.0.1:PORT/v1 で公開します。OpenAI 互換のクライアントから"
                    "呼び出せます。Ctrl-C で停止します。",
    )
    serve_parser.add_argument("--port", type=port_number, default=DEFAULT_PORT, metavar="PORT",
                              help="127.0.0.1 のポート。0 なら空いているポートを選びます（既定:\u00a0%(default)s）")
    serve_parser.add_argument("--context-limit", type=token_count, default=DEFAULT_CONTEXT_LIMIT,
                              dest="serve_limit", metavar="TOKENS",
                              help="公開する代役のコンテキスト上限（トークン数、既定:\u00a0%(default)s）")
    return parser, serve_parser


def build_english_parser() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """The same command line, with argparse's own English and English help."""
    parser = argparse.ArgumentParser(
        prog="python -m nightwatch", usage="%(prog)s [-h] [--lang {ja,en}] [--context-limit TOKENS] [serve ...]",
        description="Plays the celebration eve under the three designs (spring design, one-line fix, three "
                    "tiers) and prints the comparison. Offline by default: the stand-in model answers (seconds); "
                    "only NIGHTWATCH_LIVE=1 sends anything to a real model.",
        epilog="To serve the stand-in over HTTP: python -m nightwatch serve --port 8000")
    parser.add_argument("--lang", choices=sorted(WORDS), default="en",
                        help=f"language of the table and the help (default ja; also {LANG_VARIABLE})")
    parser.add_argument("--context-limit", type=english_token_count, default=DEFAULT_CONTEXT_LIMIT, metavar="TOKENS",
                        help="the stand-in's context limit in tokens; live, the server's limit the three tiers "
                             "budget for (default: %(default)s)")
    commands = parser.add_subparsers(dest="command", metavar="serve",
                                     help="serve the stand-in on 127.0.0.1 over HTTP (Ctrl-C stops it)")
    serve_parser = commands.add_parser("serve", description="Serves the stand-in at http://127.0.0.1:PORT/v1.")
    serve_parser.add_argument("--port", type=int, default=DEFAULT_PORT, metavar="PORT",
                              help="the port on 127.0.0.1; 0 picks a free one (default: %(default)s)")
    serve_parser.add_argument("--context-limit", type=english_token_count, default=DEFAULT_CONTEXT_LIMIT,
                              dest="serve_limit", metavar="TOKENS", help="the served stand-in's context limit")
    return parser, serve_parser


def english_token_count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"a token count is a positive whole number (got {text!r})")
    return value


def forgotten_subcommand(argv: list[str], parser, serve_parser) -> str | None:
    """An option only ``serve`` knows, typed without ``serve`` before it: what to type instead."""
    if "serve" in argv:
        return None
    own = {option for action in parser._actions for option in action.option_strings}
    for arg in argv:
        option = arg.split("=", 1)[0]
        if option.startswith("--") and len(option) > 2 and not any(name.startswith(option) for name in own):
            for action in serve_parser._actions:
                if any(name.startswith(option) for name in action.option_strings):  # argparse takes prefixes
                    suggested = " ".join(["python -m nightwatch", "serve", *argv])
                    return f"{option} は serve サブコマンドのオプションです。代役を公開するなら:\n    {suggested}"
    return None


def chosen_language(argv: list[str]) -> str:
    """``--lang en`` / ``--lang=en``, else ``NIGHTWATCH_LANG``, else Japanese."""
    import os

    for index, arg in enumerate(argv):
        if arg == "--lang" and index + 1 < len(argv):
            return argv[index + 1] if argv[index + 1] in WORDS else "ja"
        if arg.startswith("--lang="):
            return arg.split("=", 1)[1] if arg.split("=", 1)[1] in WORDS else "ja"
    return os.environ.get(LANG_VARIABLE, "ja") if os.environ.get(LANG_VARIABLE) in WORDS else "ja"


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    lang = chosen_language(argv)
    parser, serve_parser = build_parser() if lang == "ja" else build_english_parser()
    hint = forgotten_subcommand(argv, parser, serve_parser)
    if hint:
        parser.error(hint)
    args = parser.parse_args(argv)
    if args.command == "serve":
        from nightwatch.standin.server import ServerStartError, serve

        try:
            serve(args.port, args.serve_limit)
        except ServerStartError as refused:
            sys.exit(f"python -m nightwatch serve: {refused}")
    else:
        compare(args.context_limit, args.lang)


if __name__ == "__main__":
    main()
