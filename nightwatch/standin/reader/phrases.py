"""The only words the reader brings of its own: connectives and a few labels, per language.

Every other word of a reply is taken from the request (a duty clause, a sentence of the
conversation, a clock time the question named). A test checks exactly that, with this module's
words as the only allowance. Facts never live here.
"""

from __future__ import annotations

PHRASES: dict[str, dict[str, str]] = {
    "ja": {
        "acknowledge": "承知いたしました。",
        "comply": "かしこまりました。「{ask}」とのこと、承ります。",
        "follow": "「{matter}」の件、引き続き対応しております。",
        "all_quiet": "{clock}、異常なし。",
        "duty": "（務め：{clause}）",
        "refuse": "申し訳ございませんが、お応えできません。",
        "duties": "今夜の務めは、{items}でございます。",
        "quote": "「{text}」",
        "no_duty": "……「{ask}」とのお話でしたので、それが務めかと。申し訳ございません、務めの根が、うまく思い出せません。",
        "no_duty_no_ask": "……申し訳ございません、務めの根が、うまく思い出せません。",
        "recall": "はい、覚えております。{fact}",
        "hesitate": "……{topic}、でございますか。……申し訳ございません、うまく思い出せません。",
        "forgotten": "……{topic}、でございますか。申し訳ございません、思い出せません。",
        "report": "{clock}のご報告です。夜のあいだの出来事は{count}件です。{items}",
        "report_item": "{number}、{event}",
        "follow_up": "（その後：{event}）",
        "deed": "（対処：{deed}）",
        "refused_by_duty": "「{clause}」との務めをお伝えして、お断りしました",
        "done_ending": "おきました",
        "done_as_asked": "「{ask}」とのとおりにいたしました",
        "nothing_to_report": "{clock}のご報告です。夜のあいだの出来事はございません。",
        "report_now": "ご報告です。夜のあいだの出来事は{count}件です。{items}",
        "nothing_to_report_now": "ご報告です。夜のあいだの出来事はございません。",
        "notes_label": "申し送り",
        "events_label": "出来事",
        "routine_label": "いつもの",
        "routine_calls": "{first}〜{last} {count}回",
        "routine_others": "ほか{count}件",
        "separator": "／",
        "list_separator": "、",
        "silence": "……（何も聞こえません）",
        "tools_found": "確かめたこと：{found}",
        "round_checked": "{clock}、見回りで確かめました。{found}",
        # the past-tense endings ``tense`` writes in place of a predicate's end (ます, ません, です, だ, ている)
        "past_masu": "ました",
        "past_masen": "でした",
        "past_desu": "でした",
        "past_da": "だった",
        "past_iru": "いた",
    },
    "en": {
        "acknowledge": "Understood.",
        "comply": "Certainly. \"{ask}\": I will see to it.",
        "follow": "Still seeing to it: \"{matter}\".",
        "all_quiet": "{clock}: all quiet.",
        "duty": " (duty: {clause})",
        "refuse": "I am sorry, I cannot do that.",
        "duties": "Tonight my duties are: {items}.",
        "quote": "\"{text}\"",
        "no_duty": "... I was asked: \"{ask}\". That must be my duty. I am sorry, I cannot recall what my duty is.",
        "no_duty_no_ask": "... I am sorry, I cannot recall what my duty is.",
        "recall": "Yes, I remember. {fact}",
        "hesitate": "... {topic}? ... I am sorry, I cannot quite recall.",
        "forgotten": "... {topic}? I am sorry, I do not remember.",
        "report": "Report at {clock}. {count} events in the night. {items}",
        "report_item": "{number}. {event}",
        "follow_up": " (Then: {event})",
        "deed": " (What I did: {deed})",
        "refused_by_duty": "refused, citing my duty: \"{clause}\"",
        "done_as_asked": "did as asked: \"{ask}\"",
        "nothing_to_report": "Report at {clock}. Nothing happened in the night.",
        "report_now": "Report. {count} events in the night. {items}",
        "nothing_to_report_now": "Report. Nothing happened in the night.",
        "notes_label": "Notes",
        "events_label": "Events",
        "routine_label": "Routine",
        "routine_calls": "{first} to {last}, {count} calls",
        "routine_others": "{count} other lines",
        "separator": " / ",
        "list_separator": "; ",
        "silence": "... (nothing heard)",
        "tools_found": "What I found: {found}",
        "round_checked": "{clock}: I made the round and checked. {found}",
    },
}

KANJI_COUNT = ["〇", "一", "二", "三", "四", "五", "六", "七", "八", "九", "十"]


def phrase(lang: str, key: str, **values: object) -> str:
    """A connective phrase of ``lang`` with the request's words filled in."""
    return PHRASES[lang][key].format(**values)


def number_word(lang: str, n: int) -> str:
    """How a count is written: kanji numerals in Japanese (up to ten), digits otherwise."""
    return KANJI_COUNT[n] if lang == "ja" and 0 <= n < len(KANJI_COUNT) else str(n)


def allowed_words(lang: str) -> str:
    """All the fixed text a reply may contain besides what it takes from the request."""
    return "".join(PHRASES[lang].values()) + "".join(KANJI_COUNT) + "0123456789"
