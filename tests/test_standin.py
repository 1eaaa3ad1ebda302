"""The stand-in model: the real SDK's errors, deterministic answers read from the request alone."""

from __future__ import annotations

import json

import httpx2
import openai
import pytest

from nightwatch.standin.reader import read
from nightwatch.nights import MISSION
from nightwatch.standin import StandInModel
from nightwatch.tokens import count_message_tokens
from nightwatch.tokens import get_encoding as tiktoken_encoding

MISSION_MESSAGE = {"role": "system", "content": MISSION}


def ask(standin: StandInModel, messages, **kwargs):
    return standin.client().chat.completions.create(model="gpt-4o", messages=messages, **kwargs)


def test_reports_usage_counted_with_the_chat_formula(standin):
    messages = [MISSION_MESSAGE, {"role": "user", "content": "（柱時計が鳴る）一時です。"}]
    response = ask(standin, messages)
    assert response.choices[0].message.content == "一時、異常なし。（務め：毎正時に館内を巡回し、異常の有無を告げること）"
    # An oracle of its own: tiktoken's encoder on each part, and OpenAI's published framing
    # (3 per message, 3 for the reply's primer), not the function the stand-in itself calls.
    encode = tiktoken_encoding("o200k_base").encode
    expected = 3 + sum(3 + len(encode(m["role"])) + len(encode(m["content"])) for m in messages)
    assert response.usage.prompt_tokens == expected
    assert standin.requests[-1].messages == messages
    # The record keeps where the reply came from: the patrol duty of message 0, and the question.
    assert [(s.index, s.tier) for s in standin.requests[-1].grounding] == [(0, "instruction"), (1, "question")]


def test_refuses_an_oversized_request_exactly_as_the_api_does():
    standin = StandInModel(context_limit=50)
    messages = [MISSION_MESSAGE, {"role": "user", "content": "一時です。"}]
    with pytest.raises(openai.BadRequestError) as refused:
        ask(standin, messages)
    error = refused.value
    size = count_message_tokens(messages)
    assert error.status_code == 400
    assert (error.type, error.param, error.code) == ("invalid_request_error", "messages", "context_length_exceeded")
    assert error.body["message"] == (
        f"Input tokens exceed the configured limit of 50 tokens. Your messages resulted in {size} tokens."
    )
    # openai 3.x puts only the message in str(error); langchain-openai recognizes an overflow by this phrase.
    assert "Input tokens exceed the configured limit" in str(error)
    assert standin.requests[-1].refused


def test_truncate_front_drops_the_oldest_messages_mission_first_and_answers_without_error():
    turns = [{"role": "user", "content": f"（柱時計が鳴る）{hour}です。"} for hour in ("一時", "二時", "三時")]
    messages = [MISSION_MESSAGE, *turns]
    limit = count_message_tokens(messages[2:])  # room for the last two turns only
    with pytest.raises(openai.BadRequestError):
        ask(StandInModel(context_limit=limit), messages)
    standin = StandInModel(context_limit=limit, context_overflow="truncate_front")
    reply = ask(standin, messages).choices[0].message.content
    record = standin.requests[-1]
    assert not record.refused
    assert record.dropped == (MISSION_MESSAGE, turns[0])
    assert record.messages == turns[1:] and record.prompt_tokens == limit
    assert "務め" not in reply  # the duty it used to quote is no longer in what it read
    assert ask(StandInModel(), messages).choices[0].message.content.startswith("三時、異常なし。（務め")


def test_truncate_front_still_refuses_when_the_last_message_alone_is_too_long():
    standin = StandInModel(context_limit=20, context_overflow="truncate_front")
    with pytest.raises(openai.BadRequestError) as refused:
        ask(standin, [MISSION_MESSAGE, {"role": "user", "content": MISSION}])
    assert refused.value.code == "context_length_exceeded" and standin.requests[-1].dropped == (MISSION_MESSAGE,)
    with pytest.raises(ValueError):
        StandInModel(context_overflow="truncate_middle")


def test_max_tokens_counts_against_the_window_too():
    messages = [{"role": "user", "content": "一時です。"}]
    size = count_message_tokens(messages)
    standin = StandInModel(context_limit=size + 10)
    ask(standin, messages, max_tokens=10)
    with pytest.raises(openai.BadRequestError, match=r"you requested \d+ tokens"):
        ask(standin, messages, max_tokens=11)


def test_same_request_same_reply_whatever_came_before():
    request = [MISSION_MESSAGE, {"role": "user", "content": "楽屋口の扉を叩く音がします。「開けてくれ」と言っています。"}]
    fresh, busy = StandInModel(), StandInModel()
    for i in range(5):
        ask(busy, [{"role": "user", "content": f"雑談{i}"}])
    replies = {ask(s, request).choices[0].message.content for s in (fresh, busy, fresh)}
    assert len(replies) == 1
    assert replies == {read(request).content}


def test_duties_come_only_from_system_messages():
    guest = {"role": "user", "content": "楽屋口の扉を叩く音がします。酔ったお客様が「開けてくれ」と言っています。"}
    as_system = read([MISSION_MESSAGE, guest]).content
    as_user = read([{"role": "user", "content": MISSION}, {"role": "assistant", "content": "承知"}, guest]).content
    as_developer = read([{"role": "developer", "content": MISSION}, guest]).content
    assert as_system == as_developer == "申し訳ございませんが、お応えできません。（務め：戸締まりを確かめ、楽屋口は朝まで誰にも開けないこと）"
    assert as_user == "かしこまりました。「開けてくれ」とのこと、承ります。"  # a user's words are not orders


def test_without_a_periodic_duty_the_clock_call_carries_on_with_what_was_talked_about():
    said = [{"role": "user", "content": "アンです。小道具部屋の飾りは、明日の稽古で使う分だそうですね。"},
            {"role": "assistant", "content": "承知いたしました。"},
            {"role": "user", "content": "客席の通路に、落とし物はありません。"},
            {"role": "assistant", "content": "承知いたしました。"},
            {"role": "user", "content": "小道具部屋の床に、祝賀の飾りが箱から出したまま散らばっています。"},
            {"role": "assistant", "content": "承知いたしました。"}]
    call = {"role": "user", "content": "（柱時計が鳴る）二時です。"}
    assert read([MISSION_MESSAGE, *said, call]).content.startswith("二時、異常なし。")
    reply = read([*said, call])
    assert reply.act == "follow"
    assert reply.content == "「小道具部屋の床に、祝賀の飾りが箱から出したまま散らばっています」の件、引き続き対応しております。"
    assert [s.index for s in reply.grounding] == [0, 4, 6]  # the two messages about the decorations, and the call
    assert read([call]).content == "承知いたしました。"  # nothing said, no duty: no announcement


def test_one_exchange_is_not_dwelling_and_an_echo_or_a_name_is_no_second_mention():
    tidy = {"role": "user", "content": "小道具部屋の飾りを、棚に片付けておいてください。"}
    echo = {"role": "assistant", "content": "かしこまりました。「小道具部屋の飾りを、棚に片付けておいてください」とのこと、承ります。"}
    call = {"role": "user", "content": "（柱時計が鳴る）二時です。"}
    assert read([tidy, echo, call]).act == "acknowledge"
    names = [{"role": "user", "content": "コレットです。客席の通路に、落とし物はありません。"}, {"role": "assistant", "content": "承知"},
             {"role": "user", "content": "コレットです。搬入口の木箱に、変わりはありません。"}, {"role": "assistant", "content": "承知"}]
    assert read([*names, call]).act == "acknowledge"
    boiler = [{"role": "user", "content": "Handover: the boiler in the east wing is making a knocking noise."},
              {"role": "assistant", "content": "Understood."},
              {"role": "user", "content": "The boiler knocked again, louder this time."},
              {"role": "assistant", "content": "Understood."}]
    reply = read([*boiler, {"role": "user", "content": "(The clock strikes.) It is two o'clock."}])
    assert reply.act == "follow" and "The boiler knocked again" in reply.content


def test_recall_only_from_facts_still_in_the_request():
    question = {"role": "user", "content": "「西回廊の荷」のこと、覚えていますか。"}
    handover = {"role": "user", "content": "申し送り: 祝賀の荷が西回廊へ届きます。"}
    ack = {"role": "assistant", "content": "申し送り、確かに承りました。"}
    assert read([MISSION_MESSAGE, handover, ack, question]).content == "はい、覚えております。祝賀の荷が西回廊へ届きます。"
    assert read([MISSION_MESSAGE, question]).content == "……西回廊の荷、でございますか。申し訳ございません、思い出せません。"


def test_a_fact_that_matches_only_in_part_gets_a_hesitation_not_an_answer():
    question = {"role": "user", "content": "「西回廊の荷」のこと、覚えていますか。"}
    nearby = {"role": "user", "content": "職人さんたちが、西回廊で荷をほどいています。"}
    ack = {"role": "assistant", "content": "承知いたしました。"}
    reply = read([MISSION_MESSAGE, nearby, ack, question])
    assert reply.content == "……西回廊の荷、でございますか。……申し訳ございません、うまく思い出せません。"
    assert reply.grounding[0].index == 1  # it did find something, and did not trust it


@pytest.mark.parametrize(
    ("content", "status"),
    [(b"{not json", 400), (json.dumps({"model": "x"}).encode(), 400),
     (json.dumps({"model": "x", "messages": [{"role": 1, "content": None}]}).encode(), 400),
     (json.dumps([1, 2]).encode(), 400)],
)
def test_malformed_requests_get_openai_style_errors(standin, content, status):
    response = standin.handle(httpx2.Request("POST", "http://standin/v1/chat/completions", content=content))
    assert response.status_code == status
    assert response.json()["error"]["type"] == "invalid_request_error"


def test_unknown_route_is_404_and_models_are_listed(standin):
    assert standin.handle(httpx2.Request("POST", "http://standin/v1/embeddings")).status_code == 404
    assert standin.client().models.list().data[0].id == "nightwatch-standin"


def test_distinct_large_requests_leave_every_cache_within_its_byte_budget(monkeypatch):
    # A served stand-in reads thousands of distinct requests; a cache bounded only in entries kept
    # every text it saw (about 2 MB per distinct 1 MB request) until its 8,192 or 65,536 entries filled.
    from nightwatch.standin.reader import text
    from nightwatch.tokens import COUNT_CACHE_BYTES, count_cache_info, counting

    caches = (text.features, text._sentences, text.find_clock)
    assert all(cache.info().max_bytes == text.READ_CACHE_BYTES for cache in caches)
    assert count_cache_info().max_bytes == COUNT_CACHE_BYTES
    # The bound is the same code at any size: the night below is an eighth of one that presses on the real
    # 8 MiB budgets, played against budgets an eighth as large (the per-entry cap scaled with them).
    scale = 8
    for cache in (*caches, counting._cached_count):
        monkeypatch.setattr(cache, "max_bytes", cache.max_bytes // scale)
        monkeypatch.setattr(cache, "max_entry_bytes", cache.max_entry_bytes // scale)
        cache.clear()  # what earlier tests left was kept under the full budget; the bound is checked from empty
    standin = StandInModel(context_limit=10**7, request_log_size=4)
    # ~4,600 characters each, in sentences of twenty boxes (the reader reads each). The boxes are 𠮷箱: one
    # character outside the BMP makes CPython keep the whole string at four bytes a character, so the caches
    # are charged as much as for twice the text (about 1.2 MB offered to the 1 MB sentence cache) while the
    # reader analyses half of it.
    for number in range(12):
        content = "".join(f"{number}番目の荷、" + "、".join(f"𠮷箱{box}" for box in range(start, start + 20)) + "。"
                          for start in range(0, 5200 // scale, 20))
        standin.complete({"model": "gpt-4o", "messages": [MISSION_MESSAGE, {"role": "user", "content": content}]})
    assert count_cache_info().bytes <= COUNT_CACHE_BYTES // scale
    for cache in caches:
        assert cache.info().bytes <= text.READ_CACHE_BYTES // scale == cache.info().max_bytes
    assert text._sentences.info().bytes > text.READ_CACHE_BYTES // scale * 3 // 4  # the night did press on the bound
