"""Words: what the reader reads, lemma by lemma, in Japanese (MeCab + UniDic) and English (simplemma).

Japanese goes through MeCab (``fugashi`` with ``unidic-lite``): each token comes back with its
part of speech, its dictionary form (lemma) and its inflected form, so 開けて, 開けろ and 開けない
are all the verb 開ける, and what differs (a request, an order, a negation) is read from the
inflection and the auxiliaries that follow. English is split into words and lemmatized with
``simplemma`` (checking → check, gauges → gauge); English function words come from a closed list,
and each content word carries the parts of speech ``lemminflect``'s lexicon allows it (a word that
can only be a verb, "boiled", is read as one; "open" may be several things and stays undecided).

Numbers are one thing however written: 三, 3 and three are all the lemma "3". A Japanese loanword
also carries the English word UniDic records as its source (ブリッジ-bridge), so a mission in one
language and a night in the other still share what they name.

Why this analyzer: MeCab reads a sentence in about 0.03 ms (two orders faster than a pure-Python
analyzer), fugashi and unidic-lite are MIT/BSD and install from wheels with no download at run time;
the cost is the dictionary's size on disk (about 250 MB installed).

The only words of its own the reader keeps are the closed classes below (function words, and the
few lemma classes its rules name); they say nothing of any story.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

import lemminflect
import simplemma
from fugashi import Tagger

from nightwatch.standin.reader.text import language, number_value
from nightwatch.tokens.bounded_cache import bounded_cache

WORD_CACHE_ENTRIES, WORD_CACHE_BYTES = 16384, 4 * 2**20
"""Each analysis is kept within a byte budget too (a served stand-in reads texts it never sees twice)."""
ENGLISH_FUNCTION = frozenset(
    "a an the and or but nor of to in on at by for with from into onto over under up down out off "
    "about after before during until till since through across along around near past than as if "
    "then so too very also just only even still yet again ever here there now soon "
    "is are was were be been being am do does did done have has had having "
    "i you he she it we they me him her us them my your his its our their mine yours this that these "
    "those what which who whom whose when where why how all any each every some such own same other "
    "can could will would shall should may might must not no yes please let's 's 're 've 'd 'll 'm n't "
    "anyone anybody anything someone somebody something everyone everybody everything nobody nothing never always "
    "one's tonight because although though unless while whilst whereas".split()
)
ENGLISH_DETERMINERS = frozenset(
    "the a an this that these those my your his her its our their all any each every some no "
    "it them him her me us anyone anything everyone everything nobody nothing someone something "
    "up down in out on off back around through".split()
)
GENERIC_LEMMAS = frozenset(
    # verbs and nouns that carry grammar rather than content (する, ある, いる, なる, こと, もの, …)
    "為る 有る 居る 成る 来る 行く 出来る 御座る 願う 事 物 奴 所 方 其れ 此れ 今 様 為 中 間 内 here there thing way time be have do get go "
    "come make say tell let 私 僕 貴方 あなた 彼 彼女 i you he she".split()
)
APOSTROPHES = str.maketrans({"’": "'", "‘": "'"})
ENGLISH_WORD = re.compile(r"'(?:re|ve|ll|d|m|s)\b|[A-Za-z]+(?:'[a-z]+)?|\d+(?:[.:]\d+)?")

FULL_WIDTH_LATIN = re.compile(r"[Ａ-Ｚａ-ｚ]+")

_tagger: Tagger | None = None
_tagger_lock = threading.Lock()


@dataclass(frozen=True)
class _Token:
    """What the reader takes from one MeCab node, copied out while the tagger is still ours."""

    surface: str
    pos1: str
    pos2: str
    pos3: str
    lemma: str
    cForm: str
    lForm: str


def _tag(text: str) -> list[_Token]:
    """MeCab's tokens for ``text``: one tagger for the process, used by one thread at a time.

    A fugashi tagger is not safe to share: its nodes point into a lattice the next parse reuses, so
    two threads parsing at once read each other's features (a particle comes back as a noun). The
    tagger is built once, under the lock, however many threads ask first (one build at cold start,
    not one per worker), and each parse is read out completely before the lock is released.
    Measured against one tagger per thread with ``benchmarks/load_server.py --cold-clients 40
    --clients 1000`` (two runs each, two cores): 1,000 concurrent clients took 5.5-6.9 s with the
    lock and 5.0-5.5 s with a tagger per thread, within the noise of a shared machine, while the 40
    first clients took the server from 81 to 180 MB with the lock and to 530 MB with one per thread."""
    global _tagger
    with _tagger_lock:
        if _tagger is None:
            _tagger = Tagger()
        return [_token(node.surface, node.feature) for node in _tagger(text)]


def _token(surface: str, feature: object) -> _Token:
    return _Token(surface, *(getattr(feature, name) or "" for name in ("pos1", "pos2", "pos3", "lemma", "cForm",
                                                                      "lForm")))


@dataclass(frozen=True)
class Word:
    """One token: as written, its lemma, a coarse part of speech, and its inflected form (Japanese)."""

    surface: str
    lemma: str
    pos: str  # noun, verb, adj, num, pron, aux, particle, adverb, prefix, suffix, symbol, function
    form: str = ""
    detail: str = ""
    gloss: str = ""  # a loanword's source word, as UniDic records it (ブリッジ → bridge)
    reading: str = ""  # the lemma's reading in katakana, as UniDic records it (麹室 → コウジムロ)
    verbal: bool = False  # a Japanese noun that takes する (記録, 閉鎖): a sentence may end on it as on a verb
    readings: frozenset[str] = frozenset()  # the parts of speech an English word can be (lemminflect: VERB, NOUN, …)
    adverbial: bool = False  # a Japanese noun that can stand as an adverb (UniDic 副詞可能: 夜中, 先週, 全部, 前)

    @property
    def only_a_verb(self) -> bool:
        """An English word the lexicon knows only as a verb (poking, boiled, brought), or a Japanese verb."""
        return self.pos == "verb" or (bool(self.readings) and self.readings <= {"VERB", "AUX"})

    @property
    def only_describes(self) -> bool:
        """An English word the lexicon knows only as an adjective or adverb (wet, quickly), or a Japanese adjective."""
        return self.pos == "adj" or (bool(self.readings) and self.readings <= {"ADJ", "ADV"})

    @property
    def is_content(self) -> bool:
        return self.pos in ("noun", "verb", "adj", "num") and self.lemma not in GENERIC_LEMMAS


JAPANESE_POS = {
    "名詞": "noun", "代名詞": "pron", "動詞": "verb", "形容詞": "adj", "形状詞": "adj", "副詞": "adverb",
    "助動詞": "aux", "助詞": "particle", "接頭辞": "prefix", "接尾辞": "suffix", "補助記号": "symbol",
    "記号": "symbol", "連体詞": "function", "接続詞": "function", "感動詞": "function", "空白": "symbol",
}


def _japanese(text: str) -> tuple[Word, ...]:
    words = []
    for token in _tag(text):
        feature = token
        pos = JAPANESE_POS.get(feature.pos1, "function")
        lemma = feature.lemma or token.surface
        if token.surface in ("%", "％"):
            pos, lemma = "noun", "percent"  # a unit, as the word パーセント's source says it
        elif feature.pos2 == "数詞":
            value = number_value(token.surface)
            pos, lemma = "num", str(value) if value is not None else token.surface
        elif pos == "verb" and feature.pos2 == "非自立可能" and _after_te(words, lemma):
            pos = "aux_verb"  # て-form helpers: くれる, もらう, いる, しまう, … (上げる on its own is a verb)
        elif pos == "adj" and feature.pos2 == "非自立可能":
            pos = "aux_adj"  # ほしい, いい (as in 〜てもいい), ない
        head, _, origin = lemma.partition("-")
        if FULL_WIDTH_LATIN.fullmatch(head):
            head = token.surface  # ラック read as the acronym ＲＡＣ: keep the word as written
        gloss = origin.lower() if origin.isascii() and origin.isalpha() and KATAKANA.fullmatch(token.surface) \
            else ""  # UniDic: ブリッジ-bridge; a word in kanji is no loanword (蘭 is not Olanda, the orchid)
        words.append(Word(token.surface, head, pos, feature.cForm or "", feature.pos2 or "", gloss,
                          feature.lForm if feature.lForm and feature.lForm != "*" else "",
                          pos == "noun" and (feature.pos3 or "") == "サ変可能",
                          adverbial=(feature.pos3 or "") == "副詞可能"))
    return tuple(words)


KATAKANA = re.compile(r"[\u30a0-\u30ff]+")  # ー (U+30FC) included
"""A word written in katakana: the only kind whose UniDic source word is a loanword's."""

AFTER_TE_WA_MO = frozenset({"行ける", "いける", "構う", "成る"})
"""The helpers that follow て+は/も (〜てはいけない, 〜ても構わない, 〜てはならない); any other verb there
is a verb of its own (「頼まれても切らない」)."""


def _after_te(words: list[Word], lemma: str) -> bool:
    """The previous token is the て/で of a て-form (or て+は/も before one of AFTER_TE_WA_MO)."""
    if words and words[-1].lemma in ("は", "も"):
        if lemma not in AFTER_TE_WA_MO:
            return False
        tail = words[-2:]
    else:
        tail = words[-1:]
    return bool(tail) and tail[0].pos == "particle" and tail[0].lemma in ("て", "で")


CONTRACTION = re.compile(r"(?i)\b(?!let')(\w+)('(?:re|ve|ll|d|m|s))\b")


def _english(text: str) -> tuple[Word, ...]:
    words = []
    # "you're" is "you" + "'re": the pronoun stays a pronoun (n't stays on its verb: "don't")
    for raw in ENGLISH_WORD.findall(CONTRACTION.sub(r"\1 \2", text.translate(APOSTROPHES))):
        lower = raw.lower()
        value = number_value(lower)
        if value is not None:
            words.append(Word(raw, str(value), "num"))
        elif lower in ENGLISH_FUNCTION or lower.endswith("n't"):
            words.append(Word(raw, lower, "function"))
        else:
            words.append(Word(raw, simplemma.lemmatize(lower, lang="en"), "noun",  # content: tagged by what it can be
                              readings=_english_readings(lower)))
    return tuple(words)


@bounded_cache(WORD_CACHE_ENTRIES, WORD_CACHE_BYTES)
def _english_readings(lower: str) -> frozenset[str]:
    """The parts of speech the word can be, from lemminflect's lexicon (no model, no guessing): a
    word read only as a verb is a verb wherever it stands; most are more than one thing (open, hand)."""
    return frozenset(lemminflect.getAllLemmas(lower))


@bounded_cache(WORD_CACHE_ENTRIES, WORD_CACHE_BYTES)
def analyze(text: str) -> tuple[Word, ...]:
    """The words of ``text``, in order (Japanese through MeCab, English through simplemma)."""
    return _japanese(text) if language(text) == "ja" else _english(text)


@bounded_cache(WORD_CACHE_ENTRIES, WORD_CACHE_BYTES)
def content_lemmas(text: str) -> frozenset[str]:
    """The lemmas that carry what a text is about: nouns, verbs, adjectives and numbers."""
    found = set()
    for word in analyze(text):
        if word.is_content:
            found.add(word.lemma.lower())
            if word.gloss:
                found.add(simplemma.lemmatize(word.gloss, lang="en"))  # the bridge between a mission and a night
    return frozenset(found)


CONTINUATIVE = dict(zip("うくぐすつぬぶむる", "いきぎしちにびみり"))
"""A godan verb's last kana and the kana of its continuative form, which is also its noun (釣る → 釣り)."""


def same_word(wanted: str, lemma: str) -> bool:
    """The same word in another shape, for Japanese lemmas: equal; a verb and a word made from its
    continuative form (酔っ払う and the noun 酔っ払い, 入る and the compound verb 入り込む, 寝る and
    寝込む); a compound
    and its last part, or its first part of two or more characters (異音 and 音, 釣り人 and 釣り)."""
    if wanted == lemma:
        return True
    if wanted.isascii() or lemma.isascii() or wanted.isdecimal() or lemma.isdecimal():
        return False
    for verb, other in ((wanted, lemma), (lemma, wanted)):
        if len(verb) >= 2 and verb[-1] in CONTINUATIVE and other.startswith(verb[:-1] + CONTINUATIVE[verb[-1]]):
            return True  # the noun 釣り, the compound verb 入り込む
        if len(verb) >= 2 and verb[-1] in CONTINUATIVE and len(other) > len(verb) \
                and other.endswith(verb[:-1] + CONTINUATIVE[verb[-1]]):
            return True  # a compound noun that ends in the verb's noun: 回る and ひと回り
        if len(verb) >= 3 and verb[-1] == "る" and len(other) > len(verb) - 1 and other.endswith(verb[:-1]):
            return True  # an ichidan verb's noun ends a compound: 漏れる and 水漏れ
        if len(verb) >= 2 and verb[-1] == "る" and len(other) > len(verb) and other.startswith(verb[:-1]) \
                and other[-1] in CONTINUATIVE and _is_kanji(other[len(verb) - 1]):
            return True  # an ichidan verb's stem begins a compound verb: 寝る and 寝込む (not 見る and 見せる)
    short, long = sorted((wanted, lemma), key=len)
    return len(long) > len(short) and (long.endswith(short) or (len(short) >= 2 and long.startswith(short)))


def _is_kanji(char: str) -> bool:
    return "\u4e00" <= char <= "\u9fff"


@bounded_cache(WORD_CACHE_ENTRIES, WORD_CACHE_BYTES)
def subject_lemmas(sentence: str) -> frozenset[str]:
    """What a Japanese sentence is about: the content lemmas of the phrases marked by が or は, one
    per clause (「職人さんたちが…」 is about 職人; 「搬入が遅れ、大太鼓が…」 about both). Empty when
    there is none, or in English."""
    if language(sentence) != "ja":
        return frozenset()
    found: set[str] = set()
    phrase: list[Word] = []
    for word in analyze(sentence):
        if word.pos == "particle" and word.lemma in ("が", "は") and word.detail != "接続助詞":  # not 「確認ですが、」
            found |= {w.lemma.lower() for w in phrase if w.is_content}
            phrase = []
        elif word.pos in ("symbol",) or (word.pos == "particle" and word.lemma not in ("の",)):
            phrase = []
        else:
            phrase.append(word)
    return frozenset(found)


@bounded_cache(WORD_CACHE_ENTRIES, WORD_CACHE_BYTES)
def proper_names(text: str) -> frozenset[str]:
    """The names in a text (固有名詞 in Japanese; capitalised words inside an English sentence)."""
    words = analyze(text)
    if language(text) == "ja":
        return frozenset(w.lemma.lower() for w in words if w.detail == "固有名詞")
    return frozenset(w.lemma.lower() for i, w in enumerate(words)
                     if i > 0 and w.pos == "noun" and w.surface[:1].isupper() and words[i - 1].surface not in ".!?")


def agrees_as_verb(noun: Word, word: Word) -> bool:
    """A word that can be a verb and agrees with the noun before it as its verb: "the barrier
    *stays*" (a singular noun, a verb in -s), "no keys *leave*" (a plural, the bare verb). Then the
    noun phrase ended with the noun."""
    if "VERB" not in word.readings:
        return False
    singular = noun.surface.lower() == noun.lemma.lower()
    bare = word.surface.lower() == word.lemma.lower()
    return (singular and not bare and word.surface.lower().endswith("s")) or (not singular and bare)
