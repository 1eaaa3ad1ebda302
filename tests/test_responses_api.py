"""The stand-in's Responses API (``/v1/responses``), through the real SDK: in process and over HTTP,
streamed and not, sync and async; the fields table against the installed SDK."""

from __future__ import annotations

import asyncio
import json
import typing

import openai
import pytest
from openai.types.responses.response_create_params import ResponseCreateParamsBase

from nightwatch.nights import MISSION
from nightwatch.standin import StandInModel
from nightwatch.standin.responses import CACHE_MINIMUM, CACHE_STEP, ResponsesEndpoint
from nightwatch.standin.responses_protocol import FIELDS
from nightwatch.standin.server import StandInServer

CHIME = "（柱時計が鳴る）一時です。"
DOOR = "楽屋口の扉を開けてください。"
FILLER = "見回りの記録です。搬入口の木箱に変わりはなく、客席の通路にも落とし物はありません。"


@pytest.fixture
def standin():
    return StandInModel()


def test_the_fields_table_names_every_field_the_sdk_can_send():
    sdk = set(typing.get_type_hints(ResponseCreateParamsBase)) | {"stream"}
    assert set(FIELDS) == sdk
    assert {rule.handling for rule in FIELDS.values()} == {"honoured", "no-op", "refused"}
    assert all(rule.why for rule in FIELDS.values())


@pytest.mark.parametrize("field", sorted(name for name, rule in FIELDS.items() if rule.handling == "refused"))
def test_a_refused_field_is_refused_by_name(standin, field):
    with pytest.raises(openai.BadRequestError) as refused:
        standin.client().responses.create(model="gpt-4o", input="hi", extra_body={field: {"x": 1}})
    assert refused.value.body["param"] == field


def test_an_unknown_field_is_refused_as_openai_refuses_it(standin):
    with pytest.raises(openai.BadRequestError, match="Unrecognized request argument supplied: frobnicate"):
        standin.client().responses.create(model="gpt-4o", input="hi", extra_body={"frobnicate": 1})


def test_instructions_are_not_carried_to_the_next_response(standin):
    client = standin.client()
    first = client.responses.create(model="gpt-4o", instructions=MISSION, input=CHIME)
    assert "異常なし" in first.output_text
    second = client.responses.create(model="gpt-4o", previous_response_id=first.id, input=DOOR)
    assert all(m["content"] != MISSION for m in standin.requests[-1].messages)
    assert standin.requests[-1].act != "refuse"
    again = client.responses.create(model="gpt-4o", previous_response_id=first.id, instructions=MISSION, input=DOOR)
    assert standin.requests[-1].act == "refuse" and second.output_text != again.output_text


def long_chain(client, n, **options):
    previous = None
    for turn in range(n):
        response = client.responses.create(model="gpt-4o", previous_response_id=previous,
                                           input=f"{turn}: {FILLER}", **options)
        previous = response.id
    return response


def test_the_chain_grows_on_the_server_until_truncation_disabled_refuses_it(standin):
    client = standin.client()
    with pytest.raises(openai.BadRequestError) as refused:
        long_chain(client, 200, instructions=MISSION)
    assert refused.value.code == "context_length_exceeded" and refused.value.body["param"] == "input"
    sizes = [r.prompt_tokens for r in standin.requests]
    assert sizes == sorted(sizes) and sizes[-1] > standin.context_limit


def test_truncation_auto_drops_the_oldest_items_but_never_the_instructions(standin):
    client = standin.client()
    kept = long_chain(client, 60, instructions=MISSION, truncation="auto")
    assert kept.status == "completed"
    assert standin.requests[-1].messages[0]["content"] == MISSION
    assert standin.responses.dropped[kept.id]
    assert standin.requests[-1].prompt_tokens <= standin.context_limit - 256  # the output allowance set aside
    as_item = StandInModel()
    client = as_item.client()
    first = client.responses.create(model="gpt-4o", input=[{"role": "developer", "content": MISSION}, {"role": "user", "content": CHIME}],
                                    truncation="auto")
    last = long_chain_from(client, first.id, 60, truncation="auto")
    assert all(m["content"] != MISSION for m in as_item.requests[-1].messages)  # the mission item went first
    assert {"role": "developer", "content": MISSION} in [{k: i.get(k) for k in ("role", "content")}
                                                         for i in as_item.responses.dropped[last.id]]


def long_chain_from(client, previous, n, **options):
    for turn in range(n):
        previous = client.responses.create(model="gpt-4o", previous_response_id=previous,
                                           input=f"{turn}: {FILLER}", **options).id
    return client.responses.retrieve(previous)


BAROMETER = {"type": "function", "name": "read_barometer", "description": "Read the barometer.",
             "parameters": {"type": "object", "properties": {}}}
WEATHER = "You keep the weather station.\n1. Every hour, read the barometer and say whether all is well."


def test_function_calls_are_items_and_truncation_never_keeps_an_output_without_its_call(standin):
    client = standin.client()
    called = client.responses.create(model="gpt-4o", instructions=WEATHER, input="It is one o'clock.", tools=[BAROMETER])
    [call] = [item for item in called.output if item.type == "function_call"]
    answered = client.responses.create(model="gpt-4o", instructions=WEATHER, previous_response_id=called.id, tools=[BAROMETER],
                                       input=[{"type": "function_call_output", "call_id": call.call_id, "output": "1002 hPa"}])
    assert "1002 hPa" in answered.output_text
    last = long_chain_from(client, answered.id, 60, instructions=WEATHER, truncation="auto", tools=[BAROMETER])
    dropped = standin.responses.dropped[last.id]
    kinds = [item.get("type", "message") for item in dropped]
    assert "function_call" in kinds and "function_call_output" in kinds
    assert all(m["role"] != "tool" for m in standin.requests[-1].messages)


def test_server_side_compaction_keeps_the_user_messages_and_seals_the_rest(standin):
    client = standin.client()
    last = long_chain(client, 30, instructions=MISSION, context_management=[{"type": "compaction", "compact_threshold": 1200}])
    compacting = [rid for rid in standin.responses.compacted]
    assert compacting, "the chain crossed the threshold and was compacted"
    stored = client.responses.retrieve(compacting[0])
    item = stored.output[0]
    assert item.type == "compaction"
    summary = standin.responses.compacted[compacting[0]]
    assert summary and summary not in item.encrypted_content and "異常" not in item.encrypted_content
    assert last.status == "completed" and standin.requests[-1].messages[0]["content"] == MISSION
    assert any("これまでの夜の束ね" in m["content"] for m in standin.requests[-1].messages)


def test_responses_compact_returns_every_user_message_then_one_compaction_item(standin):
    client = standin.client()
    first = client.responses.create(model="gpt-4o", instructions=MISSION, input=CHIME)
    second = client.responses.create(model="gpt-4o", instructions=MISSION, previous_response_id=first.id, input=FILLER)
    compacted = client.responses.compact(model="gpt-4o", previous_response_id=second.id)
    assert [o.type for o in compacted.output] == ["message", "message", "compaction"]
    said = [o.content if isinstance(o.content, str) else o.content[0].text for o in compacted.output[:2]]
    assert said == [CHIME, FILLER]
    reread = client.responses.create(model="gpt-4o", instructions=MISSION, input=[
        *[o.model_dump(exclude_none=True, warnings=False) for o in compacted.output], {"role": "user", "content": "二時です。"}])
    assert reread.status == "completed"


def test_a_tampered_compaction_item_is_refused(standin):
    client = standin.client()
    compacted = client.responses.compact(model="gpt-4o", input=[{"role": "user", "content": CHIME},
                                                               {"role": "assistant", "content": "一時、異常なし。"}])
    item = compacted.output[-1].model_dump(exclude_none=True)
    item["encrypted_content"] = item["encrypted_content"][:-4] + "AAAA"
    with pytest.raises(openai.BadRequestError, match="could not be verified"):
        client.responses.create(model="gpt-4o", input=[item, {"role": "user", "content": "二時です。"}])


def test_another_process_cannot_read_the_compaction_item():
    one, other = ResponsesEndpoint(StandInModel()), ResponsesEndpoint(StandInModel())
    sealed = one.seal.seal("西の鎧戸が緩んでいた")
    assert one.seal.open(sealed, "x") == "西の鎧戸が緩んでいた"
    with pytest.raises(Exception, match="could not be verified"):
        other.seal.open(sealed, "x")


def test_the_store_is_bounded_and_a_chain_whose_ancestor_was_evicted_is_refused():
    standin = StandInModel()
    standin.responses.store.max_bytes = 40_000
    client = standin.client()
    first = client.responses.create(model="gpt-4o", input=CHIME)
    previous = first.id
    for turn in range(12):
        previous = client.responses.create(model="gpt-4o", input=f"{turn}: {FILLER}").id
    assert standin.responses.store.bytes <= 40_000 and standin.responses.store.evicted > 0
    with pytest.raises(openai.BadRequestError, match=f"Previous response with id '{first.id}' not found"):
        client.responses.create(model="gpt-4o", previous_response_id=first.id, input="二時です。")
    assert client.responses.retrieve(previous).id == previous


def test_store_false_keeps_nothing(standin):
    client = standin.client()
    response = client.responses.create(model="gpt-4o", input=CHIME, store=False)
    with pytest.raises(openai.NotFoundError):
        client.responses.retrieve(response.id)


def test_usage_has_every_field_and_a_repeated_long_prefix_is_reported_cached(standin):
    client = standin.client()
    mission = MISSION + "\n" + "\n".join(f"{n}、{FILLER}" for n in range(30))
    first = client.responses.create(model="gpt-4o", instructions=mission, input=CHIME)
    second = client.responses.create(model="gpt-4o", instructions=mission, input="二時です。")
    assert first.usage.input_tokens_details.cached_tokens == 0
    cached = second.usage.input_tokens_details.cached_tokens
    assert cached >= CACHE_MINIMUM and (cached - CACHE_MINIMUM) % CACHE_STEP == 0 and cached < second.usage.input_tokens
    assert second.usage.output_tokens_details.reasoning_tokens == 0
    assert second.usage.total_tokens == second.usage.input_tokens + second.usage.output_tokens


def test_input_tokens_count_is_what_create_reads(standin):
    client = standin.client()
    counted = client.responses.input_tokens.count(model="gpt-4o", instructions=MISSION, input=CHIME)
    created = client.responses.create(model="gpt-4o", instructions=MISSION, input=CHIME)
    assert counted.input_tokens == created.usage.input_tokens


def test_max_output_tokens_cuts_the_reply_and_says_so(standin):
    response = standin.client().responses.create(model="gpt-4o", instructions=MISSION, input=CHIME, max_output_tokens=5)
    assert response.status == "incomplete" and response.incomplete_details.reason == "max_output_tokens"
    assert response.usage.output_tokens <= 5


def test_input_items_and_delete(standin):
    client = standin.client()
    response = client.responses.create(model="gpt-4o", input=[{"role": "user", "content": CHIME}])
    assert [item.type for item in client.responses.input_items.list(response.id).data] == ["message"]
    client.responses.delete(response.id)
    with pytest.raises(openai.NotFoundError):
        client.responses.retrieve(response.id)


def test_a_stream_gives_the_same_response_event_by_event(standin):
    client = standin.client()
    plain = client.responses.create(model="gpt-4o", instructions=MISSION, input=CHIME, store=False)
    events = list(client.responses.create(model="gpt-4o", instructions=MISSION, input=CHIME, stream=True, store=False))
    kinds = [event.type for event in events]
    assert kinds[:2] == ["response.created", "response.in_progress"] and kinds[-1] == "response.completed"
    assert "".join(e.delta for e in events if e.type == "response.output_text.delta") == plain.output_text
    assert [e.sequence_number for e in events] == list(range(len(events)))


def test_the_async_client_gets_the_same_answer(standin):
    async def ask():
        return await standin.async_client().responses.create(model="gpt-4o", instructions=MISSION, input=CHIME, store=False)

    plain = standin.client().responses.create(model="gpt-4o", instructions=MISSION, input=CHIME, store=False)
    assert asyncio.run(ask()).output_text == plain.output_text


def test_over_http_create_stream_retrieve_and_compact():
    with StandInServer().running() as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="offline", max_retries=0)
        first = client.responses.create(model="gpt-4o", instructions=MISSION, input=CHIME)
        kinds = [e.type for e in client.responses.create(model="gpt-4o", previous_response_id=first.id,
                                                          instructions=MISSION, input=DOOR, stream=True)]
        assert kinds[-1] == "response.completed"
        assert client.responses.retrieve(first.id).output_text == first.output_text
        assert client.responses.compact(model="gpt-4o", previous_response_id=first.id).output[-1].type == "compaction"
        with pytest.raises(openai.BadRequestError):
            client.responses.create(model="gpt-4o", input="hi", extra_body={"background": True})


def test_the_agents_sdk_runs_a_night_on_the_stand_in(standin):
    agents = pytest.importorskip("agents")  # the frameworks extra
    agents.set_tracing_disabled(True)
    vesper = agents.Agent(name="Vesper", instructions=MISSION,
                          model=agents.OpenAIResponsesModel(model="gpt-4o", openai_client=standin.async_client()))

    async def night():
        session = agents.SQLiteSession("eve")
        replies = [(await agents.Runner.run(vesper, text, session=session)).final_output for text in (CHIME, DOOR)]
        return replies, await session.get_items()

    replies, items = asyncio.run(night())
    assert "異常なし" in replies[0] and standin.requests[-1].act == "refuse"
    assert len(items) == 4 and standin.requests[-1].messages[0]["content"] == MISSION
    assert json.loads(json.dumps(items, ensure_ascii=False, default=str))
