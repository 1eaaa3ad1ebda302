"""Text primitives the reader is built from: sentences, features, similarity and clock times.

Nothing here knows any story. Japanese is compared by characters (single kanji/katakana and
two-character runs), English by words, because Japanese has no spaces and English words
inflect little enough for a crude plural/ending trim. Clock times are read in kanji numerals,
Arabic numerals and English words, so "三時", "3時", "three o'clock" and "midnight" all count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nightwatch.tokens.bounded_cache import bounded_cache

READ_CACHE_ENTRIES, READ_CACHE_BYTES = 65536, 8 * 2**20
"""Each cache below (sentences, features, clock times) in entries and bytes: a night reads the same
texts again and again, and a served stand-in must not keep every distinct large request it read."""

JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
CONTENT_RUN = re.compile(r"[\u30a0-\u30ff\u3400-\u9fffー々]+|[A-Za-z0-9']+")
HIRAGANA = re.compile(r"[\u3040-\u309f]")
PUNCTUATION = re.compile(r"[\s、。，．・…「」『』（）()［］\[\]【】：:；;！!？?／/\-—―~〜\"'“”‘’*#<>=,.]+")
ENGLISH_STOPWORDS = frozenset(
    "a an the and or but of to in on at by for with from into over under up down out off is are was "
    "were be been being am do does did have has had i you he she it we they me him her us them my your "
    "his its our their this that these those there here as if then so than too very can could will "
    "would shall should may might must not no yes please just also about what which who whom whose "
    "when where why how all any each some such only own same other".split()
)

KANJI_DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
ENGLISH_NUMBERS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
}
HOUR_WORDS = [word for word, value in ENGLISH_NUMBERS.items() if 1 <= value <= 12]
NUMBER_WORD = "|".join(sorted(HOUR_WORDS, key=len, reverse=True))
CLOCK_JA = re.compile(
    r"(?P<ampm>午前|午後|夜の|朝の)?\s*(?P<n>[〇零一二三四五六七八九十]{1,3}|\d{1,2})時(?!間)(?:(?P<half>半)|(?P<min>[〇零一二三四五六七八九十]{1,3}|\d{1,2})分)?"
)
CLOCK_STRIKES_JA = re.compile(r"(?:時計|鐘)[^。]{0,12}?(?P<n>[一二三四五六七八九十]{1,3}|\d{1,2})(?:つ|回|度)[^。]{0,3}?[鳴打響]")
"""A clock or bell striking a count (「時計が四つ鳴る」): the count is the hour."""
CLOCK_DIGITAL = re.compile(r"(?<![\d:])(?P<n>[01]?\d|2[0-3])[:：](?P<min>[0-5]\d)(?!\d|[:：]\d)")  # "05:30: switch on"
CLOCK_EN = re.compile(
    r"\b(?:(?P<part>half|quarter)\s+(?P<rel>past|to)\s+)?(?P<n>" + NUMBER_WORD + r"|\d{1,2})"
    r"(?::(?P<min>\d\d))?\s*(?:(?P<oclock>o'?\s*clock)|(?P<ampm>[ap]\.?\s?m\b\.?))"
    r"|\b(?P<part2>half|quarter)\s+(?P<rel2>past|to)\s+(?P<n2>" + NUMBER_WORD + r"|\d{1,2})\b"
    r"|\b(?P<mid>midnight)\b|\b(?P<noon>noon|midday)\b"
    r"|\b(?:strikes?|struck|chimes?|chimed|tolls?|tolled|rings?|rang|sounds?|sounded|it's|it is)\s+(?P<n3>" + NUMBER_WORD + r"|\d{1,2})\b"
    r"(?!\s*(?:o'?\s*clock|[ap]\.?\s?m\b|:\d|in the|times))"
    r"|\b(?P<n4>" + NUMBER_WORD + r"|\d{1,2})\s+(?:in the (?P<part_of_day>morning|evening|afternoon|night)|thirty|fifteen|forty-five)\b"
    r"|\bhalf\s+(?P<n5>" + NUMBER_WORD + r")\b"
    r"|\b(?:clock|watch)\b[^.?!]{0,40}?\b(?:says|said|reads|read|shows|showed)\s+(?P<n6>" + NUMBER_WORD + r"|\d{1,2})\b",
    re.IGNORECASE,
)


def language(text: str) -> str:
    """'ja' when the text holds any kana or kanji, else 'en'."""
    return "ja" if JAPANESE.search(text) else "en"


def sentences(text: str) -> list[str]:
    """Sentences and lines, stripped; quotes「…」stay inside the sentence that holds them."""
    return list(_sentences(text))


@bounded_cache(READ_CACHE_ENTRIES, READ_CACHE_BYTES)
def _sentences(text: str) -> tuple[str, ...]:
    parts: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(text):
        if ch in "「『":
            depth += 1
        elif ch in "」』":
            depth = max(0, depth - 1)
        elif depth == 0 and (ch in "。！？\n／!?" or (ch == "." and (i + 1 == len(text) or text[i + 1].isspace())
                                                       and not _numbered(text, i))):
            parts.append(text[start : i + 1])
            start = i + 1
    parts.append(text[start:])
    return tuple(p.strip(" \n\t／") for p in parts if p.strip(" \n\t／。."))


def _numbered(text: str, i: int) -> bool:
    """The full stop of an abbreviation before a number ("No. 6", "approx. 40"), not a sentence end:
    a short word before it and a digit after it."""
    after = text[i + 1 :].lstrip(" ")
    before = text[:i].rsplit(None, 1)[-1] if text[:i].strip() else ""
    return after[:1].isdigit() and before.isalpha() and len(before) <= 6


def _stem(word: str) -> str:
    word = word.lower().strip("'")
    for ending in ("'s", "ing", "ed", "es", "s"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[: -len(ending)]
    return word


@bounded_cache(READ_CACHE_ENTRIES, READ_CACHE_BYTES)
def features(text: str) -> frozenset[str]:
    """What two texts are compared by: kanji/katakana and their pairs for Japanese, words for English."""
    if language(text) == "ja":
        found: set[str] = set()
        for chunk in PUNCTUATION.split(text):
            found.update(ch for ch in chunk if not HIRAGANA.match(ch))
            found.update(chunk[i : i + 2] for i in range(len(chunk) - 1) if not HIRAGANA.fullmatch(chunk[i : i + 2]))
        return frozenset(found)
    words = re.findall(r"[A-Za-z0-9']+", text)
    return frozenset(_stem(w) for w in words if w.lower() not in ENGLISH_STOPWORDS)


def coverage(query: str, text: str) -> float:
    """Share of the query's features the text contains (0..1): how fully ``text`` answers ``query``."""
    wanted = features(query)
    return len(wanted & features(text)) / len(wanted) if wanted else 0.0


def similarity(a: str, b: str) -> float:
    """Dice overlap of the two feature sets (0..1), symmetric."""
    fa, fb = features(a), features(b)
    return 2 * len(fa & fb) / (len(fa) + len(fb)) if fa and fb else 0.0


def content_words(text: str) -> list[str]:
    """The runs a reply's facts live in: kanji/katakana runs and English words (kana is grammar)."""
    return CONTENT_RUN.findall(text)


@dataclass(frozen=True)
class Clock:
    """A clock time named in a text: the hour (0-23 as said), the words that named it, and the minute."""

    hour: int
    words: str
    minute: int = 0


def number_value(text: str) -> int | None:
    """The one numeral parser: 三 → 3, 十二 → 12, 12 → 12, twelve → 12; None for anything else."""
    text = text.strip().lower()
    if text.isdecimal():
        return int(text)
    if text in ENGLISH_NUMBERS:
        return ENGLISH_NUMBERS[text]
    if text and all(ch in KANJI_DIGITS or ch == "十" for ch in text):
        if "十" in text:
            tens, _, ones = text.partition("十")
            return (KANJI_DIGITS.get(tens, 1) if tens else 1) * 10 + (KANJI_DIGITS.get(ones, 0) if ones else 0)
        if len(text) == 1:
            return KANJI_DIGITS[text]
    return None


def _hour(word: str) -> int:
    return number_value(word) or 0


@bounded_cache(READ_CACHE_ENTRIES, READ_CACHE_BYTES)
def find_clock(text: str) -> Clock | None:
    """The first clock time named in ``text``, in any common form: 三時, 午前2時, 3時半, 03:00,
    3 a.m., three o'clock, half past two, midnight, or a bare hour ("Four."). The hour is 0-23 where a.m./p.m. or 午前/午後
    say which; otherwise as said."""
    found = []
    for match in CLOCK_JA.finditer(text):
        hour = _hour(match["n"])
        if match["ampm"] == "午後" and hour < 12:
            hour += 12
        minute = 30 if match["half"] else number_value(match["min"] or "0") or 0
        found.append((match.start(), Clock(hour % 24, match.group(0).strip(), minute)))
    for match in CLOCK_STRIKES_JA.finditer(text):
        found.append((match.start("n"), Clock(_hour(match["n"]) % 24, f"{match['n']}時")))
    for match in CLOCK_DIGITAL.finditer(text):
        found.append((match.start(), Clock(int(match["n"]) % 24, match.group(0), int(match["min"]))))
    for match in CLOCK_EN.finditer(text):
        if match["mid"]:
            clock = Clock(0, match.group(0))
        elif match["noon"]:
            clock = Clock(12, match.group(0))
        else:
            number = match["n"] or match["n2"] or match["n3"] or match["n4"] or match["n5"] or match["n6"]
            hour = _hour(number)
            if (match["part_of_day"] or "").lower() in ("evening", "afternoon") and hour < 12:
                hour += 12
            if (match["rel"] or match["rel2"] or "").lower() == "to":
                hour -= 1
            ampm = (match["ampm"] or "").lower().replace(".", "").replace(" ", "")
            if ampm == "pm" and hour < 12:
                hour += 12
            elif ampm == "am" and hour == 12:
                hour = 0
            said = match["n6"] or match["n3"] or match.group(0)  # "the clock says eleven": eleven
            part, to = (match["part"] or match["part2"] or "").lower(), (match["rel"] or match["rel2"] or "").lower() == "to"
            minute = 30 if part == "half" or match["n5"] else (45 if to else 15) if part == "quarter" \
                else int(match["min"]) if match["min"] else 30 if match.group(0).lower().endswith("thirty") else 0
            clock = Clock(hour % 24, said[:-1] if re.search(r"(?<![apAP]\.[mM])\.$", said) else said, minute)
        found.append((match.start(), clock))
    if not found and (bare := _bare_hour(text)) is not None:
        found.append((0, bare))
    return min(found, key=lambda pair: pair[0])[1] if found else None


def _bare_hour(text: str) -> Clock | None:
    """A message that is nothing but an hour's numeral ("Four.", 「四。」, "11"), or four digits of
    hours and minutes as a log or a radio says them ("0100", "2300"): the clock speaking."""
    said = text.strip().rstrip(".。!！")
    if len(said) == 4 and said.isascii() and said.isdigit() and int(said[:2]) < 24 and int(said[2:]) < 60 \
            and (said[0] == "0" or said[2:] == "00"):  # "0130", "2300"; "2015" may be a year
        return Clock(int(said[:2]), said)
    value = number_value(said)
    return Clock(value % 24, said) if value is not None and 1 <= value <= 24 else None


QUOTED = re.compile(r"「([^」]+)」|『([^』]+)』(?!が|の|を|は|という)|\"([^\"]+)\"|“([^”]+)”|‘([^’]+)’|(?<![\w])'(.+?[.?!,])'(?![\w])")


def quoted(text: str) -> list[str]:
    """Spans inside「」『』or "" quotes, in order (a 『』 followed by が, の, を, は or という names a title)."""
    return [next(group for group in groups if group) for groups in QUOTED.findall(text)]


def outside_quotes(text: str) -> str:
    """The text with quoted speech removed: what the speaker says in their own voice."""
    return QUOTED.sub("", text)
