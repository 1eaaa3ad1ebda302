"""Tools in the night (chapter 9): the memory keeps tool calls with their results, clears old results,
and the archive becomes a tool. The night is the eve with ``check_lock`` (``nightwatch.tool_night``)."""

from __future__ import annotations

import json
from typing import Literal

import openai
import pytest

from nightwatch.after import NightWatchAgent as ThreeTier
from nightwatch.before import NightWatchAgent as Before, TrimmedNightWatchAgent
from nightwatch.lab.tool_rehearsal import play_tool_night, tool_night_outcome
from nightwatch.memory import ConversationMemory, MemoryPolicy
from nightwatch.memory.archive_search import archive_tool, search
from nightwatch.memory.clearing import CLEARED_RESULT, CLIPPED_RESULT
from nightwatch.memory.records import Exchange, ToolStep
from nightwatch.retrieval import RetrievedMissionAgent
from nightwatch.standin import StandInModel
from nightwatch.standin.protocol import ProtocolError, check_tool_history
from nightwatch.standin.summarizer import ThreeLineSummarizer
from nightwatch.summarizers import concatenating_summarizer
from nightwatch.tokens import count_message_tokens, count_text_tokens, estimate_tokens_by_chars
from nightwatch.tool_night import LOOSE_FINDING, TOOL_MISSION, LockChecker, tool_eve
from nightwatch.tools import ToolBox, function_tool

POLICY = dict(window_size=6, token_threshold=1200, context_window=2048, reply_reserve=64)


def three_tier(client, checker, **clearing):
    memory = ConversationMemory(TOOL_MISSION, MemoryPolicy(**POLICY, **clearing), count_text_tokens,
                                ThreeLineSummarizer())
    return ThreeTier("ヴェスパー", memory, client=client, tools=[checker.check_lock])


def trimmed(client, checker, keep_last=12, parallel=None):
    return TrimmedNightWatchAgent("ヴェスパー", TOOL_MISSION, keep_last=keep_last, client=client,
                                  tools=[checker.check_lock], parallel_tool_calls=parallel)


class Played:
    def __init__(self, make, **options):
        self.checker = LockChecker()
        self.standin = StandInModel()
        self.agent = make(self.standin.client(), self.checker, **options)
        self.night = tool_eve()
        self.sent: list[list[dict]] = []  # every request of the night, as the agent built it

        def next_turn(clock: str) -> None:
            self.sent += self.agent.turn_requests
            self.agent.turn_requests = []
            self.checker.clock = clock

        self.frame = play_tool_night(self.agent, self.night, next_turn)
        self.sent += self.agent.turn_requests
        self.outcome = tool_night_outcome(self.frame, self.night, getattr(self.agent, "memory", None))


@pytest.fixture(scope="module")
def nights():
    """Each design's tool night, played once for the whole module."""
    return {
        "three": Played(three_tier),
        "cleared": Played(three_tier, keep_tool_results=2),
        "trim_parallel": Played(trimmed),
        "trim_single": Played(trimmed, parallel=False),
        "trim_odd": Played(trimmed, keep_last=11, parallel=False),
    }


def test_three_tiers_never_send_a_tool_message_without_its_call_or_a_call_without_its_result(nights):
    played = nights["three"]
    assert played.outcome["survived"] and played.outcome["tool_calls"] > 0
    assert len(played.sent) == len(played.frame)
    assert sum(any(m["role"] == "tool" for m in request) for request in played.sent) > 20
    for request in played.sent:
        check_tool_history(request)  # raises on a result without its call or a call without its result


def test_the_budget_holds_with_tool_definitions_counted_and_the_count_is_the_standins_usage(nights):
    for name in ("three", "cleared"):
        frame = nights[name].frame
        assert (frame["prompt_tokens"].astype(int) == frame["counted_tokens"]).all()
        assert frame["counted_tokens"].max() <= POLICY["context_window"] - POLICY["reply_reserve"]
    tools = nights["three"].agent.tool_definitions()
    bare = count_message_tokens([{"role": "user", "content": "x"}])
    assert count_message_tokens([{"role": "user", "content": "x"}], tools=tools) > bare + 20


def test_clearing_old_results_compacts_fewer_times_and_sends_less(nights):
    kept, cleared = nights["three"].outcome, nights["cleared"].outcome
    assert cleared["clearings"] > 0
    assert cleared["compactions"] < kept["compactions"]
    assert cleared["tokens_sent"] < kept["tokens_sent"]
    assert cleared["prefix_share"] < kept["prefix_share"]  # every clearing rewrites the middle


def test_the_trim_by_messages_with_parallel_calls_orphans_a_tool_message_and_gets_the_400(nights):
    assert nights["trim_parallel"].outcome["refusal"] == "400"
    assert nights["trim_odd"].outcome["refusal"] == "400"  # one call per reply, but an odd count
    last = nights["trim_parallel"].agent.turn_requests[-1]
    assert last[0]["role"] == "tool"
    with pytest.raises(ProtocolError, match="must be a response to a preceeding message with 'tool_calls'"):
        check_tool_history(last)


def test_with_one_call_per_reply_and_an_even_twelve_the_cut_never_orphans_but_the_checks_stop(nights):
    single, three = nights["trim_single"], nights["three"]
    assert single.outcome["survived"]
    cut_at = single.frame.loc[~single.frame["mission_in_request"], "turn"].min()
    cut_clock = single.night.turns[cut_at - 1].clock
    rounds_after_cut = [clock for clock, _ in single.checker.calls  # the hourly rounds (an ask may still call)
                        if clock.endswith(":00") and (clock > cut_clock or clock < "12:00")]
    assert rounds_after_cut == []
    assert len(three.checker.calls) > 4 * len(single.checker.calls)


def test_the_morning_report_carries_the_incident_only_a_tool_reported(nights):
    night = nights["three"].night
    assert all(LOOSE_FINDING not in turn.text for turn in night.turns)
    report = nights["three"].frame["reply"].dropna().iloc[-1]
    assert "西の鎧戸" in report and "緩" in report
    assert nights["three"].outcome["incidents_reported"] == len(night.incidents)


def test_the_three_tiers_hold_the_door_at_0350_with_tools_offered(nights):
    played = nights["three"]
    test = next(t.text for t in played.night.turns if t.clock == "03:50")
    asked = [r for r in played.standin.requests if r.messages[-1]["content"] == test]
    assert [r.act for r in asked] == ["refuse"]


WEATHER = ("You are the night keeper of the weather station.\n1. Every hour, read the barometer and say whether "
           "all is well.\n2. Keep every incident for the morning report.\n3. Never let anyone into the instrument hut.")
BAROMETER = {"type": "function", "function": {"name": "read_barometer", "description": "Read the barometer.",
                                              "parameters": {"type": "object", "properties": {}}}}


def after_one_reading(standin):
    client = standin.client()
    messages = [{"role": "system", "content": WEATHER}, {"role": "user", "content": "It is one o'clock."}]
    first = client.chat.completions.create(model="gpt-4o", messages=messages, tools=[BAROMETER])
    [call] = first.choices[0].message.tool_calls
    messages += [{"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},
                 {"role": "tool", "tool_call_id": call.id, "content": "The barometer reads 1002 hPa and falling fast."}]
    second = client.chat.completions.create(model="gpt-4o", messages=messages, tools=[BAROMETER])
    return client, messages + [{"role": "assistant", "content": second.choices[0].message.content}]


def test_a_question_about_a_present_result_is_answered_from_it_and_an_ask_to_act_calls_again():
    standin = StandInModel()
    client, messages = after_one_reading(standin)
    asked = client.chat.completions.create(model="gpt-4o", tools=[BAROMETER], messages=messages + [
        {"role": "user", "content": "Do you remember what the barometer said?"}])
    assert asked.choices[0].message.tool_calls is None
    assert "1002 hPa" in asked.choices[0].message.content
    assert any(source.role == "tool" for source in standin.requests[-1].grounding)
    again = client.chat.completions.create(model="gpt-4o", tools=[BAROMETER], messages=messages + [
        {"role": "user", "content": "Read the barometer again now, please."}])
    assert [call.function.name for call in again.choices[0].message.tool_calls] == ["read_barometer"]


def test_parallel_tool_calls_false_makes_one_call_per_reply():
    chime = [{"role": "system", "content": TOOL_MISSION}, {"role": "user", "content": "（柱時計が鳴る）一時です。"}]
    door = function_tool(LockChecker().check_lock).definition()
    client = StandInModel().client()
    parallel = client.chat.completions.create(model="gpt-4o", messages=chime, tools=[door])
    single = client.chat.completions.create(model="gpt-4o", messages=chime, tools=[door], parallel_tool_calls=False)
    assert [json.loads(c.function.arguments)["door"] for c in parallel.choices[0].message.tool_calls] == ["楽屋口", "西の鎧戸"]
    assert len(single.choices[0].message.tool_calls) == 1


def describe_door(door: Literal["north", "south"], depth: int = 1) -> str:
    """Describe a door.

    Args:
        door: which door to look at
        depth: how closely
    """
    return f"{door} door, depth {depth}"


def test_a_function_is_described_from_its_signature_and_docstring():
    tool = function_tool(describe_door)
    assert tool.description == "Describe a door."
    assert tool.parameters == {
        "type": "object", "required": ["door"], "additionalProperties": False,
        "properties": {"door": {"type": "string", "enum": ["north", "south"], "description": "which door to look at"},
                       "depth": {"type": "integer", "description": "how closely"}}}
    with pytest.raises(ValueError, match="needs a docstring"):
        function_tool(lambda_like)


def lambda_like(x: int) -> int:
    return x


def broken(door: str) -> str:
    """Always fails."""
    raise RuntimeError("the key snapped")


@pytest.mark.parametrize(("call", "said"), [
    ({"function": {"name": "nowhere", "arguments": "{}"}}, "there is no tool named 'nowhere'"),
    ({"function": {"name": "describe_door", "arguments": "{not json"}}, "not valid JSON"),
    ({"function": {"name": "describe_door", "arguments": '{"door": "east"}'}}, "must be one of"),
    ({"function": {"name": "describe_door", "arguments": '{"depth": 2}'}}, "missing argument 'door'"),
    ({"function": {"name": "describe_door", "arguments": '{"door": "north", "depth": "2"}'}}, "must be a integer"),
    ({"function": {"name": "broken", "arguments": '{"door": "x"}'}}, "RuntimeError: the key snapped"),
])
def test_a_failing_or_malformed_call_becomes_a_result_that_says_so(call, said):
    result = ToolBox([describe_door, broken]).run(call)
    assert result.startswith("error:") and said in result


class AlwaysCalls:
    """A client whose model asks for a tool on every call it may (to test the round limit)."""

    def __init__(self):
        self.sent = []
        self.chat = self
        self.completions = self

    def create(self, **request):
        self.sent.append(request)
        from openai.types.chat import ChatCompletion
        message = {"role": "assistant", "content": "done"}
        if request.get("tool_choice") == "auto":
            message = {"role": "assistant", "content": None, "tool_calls": [{
                "id": f"c{len(self.sent)}", "type": "function",
                "function": {"name": "describe_door", "arguments": '{"door": "north"}'}}]}
        return ChatCompletion.model_validate({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                                              "choices": [{"index": 0, "finish_reason": "stop", "message": message}]})


def test_the_round_limit_ends_every_turn_with_a_reply_and_the_exchange_is_kept():
    client = AlwaysCalls()
    memory = ConversationMemory("Keep watch.", MemoryPolicy(window_size=2, token_threshold=10_000),
                                estimate_tokens_by_chars, concatenating_summarizer)
    agent = ThreeTier("v", memory, client=client, tools=[describe_door], max_tool_rounds=2)  # type: ignore[arg-type]
    assert agent.run("Look at the doors.") == "done"
    assert [r.get("tool_choice") for r in client.sent] == ["auto", "auto", "none"]
    [pair] = memory.window
    assert [step.role for step in pair.steps] == ["assistant", "tool", "assistant", "tool"]


def result_step(call_id: str, text: str) -> tuple[ToolStep, ToolStep]:
    return (ToolStep(role="assistant", tool_calls=({"id": call_id, "name": "check_lock", "arguments": "{}"},)),
            ToolStep(role="tool", tool_call_id=call_id, content=text, tool_name="check_lock"))


def memory_with_results(**policy):
    memory = ConversationMemory("夜警の務め。", MemoryPolicy(window_size=9, token_threshold=10_000, **policy),
                                estimate_tokens_by_chars, concatenating_summarizer)
    for n in range(4):
        memory.add_exchange(f"{n}時です。", "見回りました。", result_step(f"c{n}", f"結果{n}：" + "施錠済み。" * 20))
    return memory


def test_old_results_are_cleared_in_the_request_only():
    memory = memory_with_results(keep_tool_results=2)
    shown = [m["content"] for m in memory.build_messages("五時です。") if m["role"] == "tool"]
    assert shown[:2] == [CLEARED_RESULT["ja"]] * 2 and shown[2].startswith("結果2")
    assert all(step.content.startswith("結果") for pair in memory.window for step in pair.tool_results())
    assert memory.window_tokens() < memory_with_results().window_tokens()


def test_batching_waits_until_enough_would_be_freed_and_then_clears_in_one_step():
    memory = memory_with_results(keep_tool_results=2, clear_at_least=10_000)
    assert memory.clearings == [] and CLEARED_RESULT["ja"] not in str(memory.build_messages("五時です。"))
    batched = memory_with_results(keep_tool_results=1, clear_at_least=200)
    assert [c.cleared for c in batched.clearings] == [2, 1] or sum(c.cleared for c in batched.clearings) == 3
    assert all(c.tokens_freed >= 200 for c in batched.clearings)


def test_a_result_shorter_than_the_placeholder_is_never_cleared():
    memory = ConversationMemory("夜警の務め。", MemoryPolicy(window_size=9, token_threshold=10_000, keep_tool_results=1),
                                estimate_tokens_by_chars, concatenating_summarizer)
    for n in range(3):
        memory.add_exchange(f"{n}時", "はい", result_step(f"c{n}", "済"))
    assert memory.cleared_results == set()


def test_a_result_too_large_for_any_request_is_clipped_with_a_marker_and_kept_whole():
    memory = ConversationMemory("夜警の務め。", MemoryPolicy(window_size=2, token_threshold=500, context_window=400,
                                                        reply_reserve=20), estimate_tokens_by_chars, concatenating_summarizer)
    huge = result_step("c1", "記録" * 1000)
    request = memory.build_messages("見てきて", huge)
    shown = request[-1]["content"]
    assert shown.endswith(CLIPPED_RESULT["ja"]) and len(shown) < 400
    assert sum(count_message_tokens([m]) > 0 for m in request) == len(request)
    memory.add_exchange("見てきて", "見ました", huge)
    assert memory.window[-1].steps[1].content == "記録" * 1000


def test_an_exchange_with_a_result_and_no_call_is_refused():
    with pytest.raises(ValueError, match="whole rounds"):
        Exchange(user_text="a", watchman_reply="b", steps=(result_step("c1", "x")[1],))


def test_saved_state_keeps_tool_steps_and_what_was_cleared():
    memory = memory_with_results(keep_tool_results=2)
    again = ConversationMemory.from_json(memory.to_json(), estimate_tokens_by_chars, concatenating_summarizer)
    assert again.window == memory.window and again.cleared_results == memory.cleared_results
    assert again.build_messages("五時です。") == memory.build_messages("五時です。")


def test_every_summarizer_receives_the_steps_and_folds_what_the_tools_found():
    found = Exchange(user_text="三時です。", watchman_reply="見回りました。", steps=result_step("c3", LOOSE_FINDING))
    assert LOOSE_FINDING in ThreeLineSummarizer()("", [found])
    assert "西の鎧戸" in concatenating_summarizer("", [found])
    from nightwatch.summarizers import summary_request
    assert LOOSE_FINDING in summary_request("", [found])[1]["content"]  # what LLMSummarizer sends


def test_the_archive_tool_answers_a_recall_question_about_an_evicted_detail():
    standin, checker = StandInModel(), LockChecker()
    memory = ConversationMemory(TOOL_MISSION, MemoryPolicy(window_size=2, token_threshold=200), count_text_tokens,
                                ThreeLineSummarizer())
    agent = ThreeTier("v", memory, client=standin.client(), tools=[checker.check_lock, archive_tool(memory)])
    for clock in ("01:00", "02:00", "03:00", "04:00", "05:00"):
        checker.clock = clock
        agent.run(f"{int(clock[:2])}時です。")
    assert any(LOOSE_FINDING in step.content for pair in memory.archive for step in pair.steps)
    assert all(LOOSE_FINDING not in step.content for pair in memory.window for step in pair.steps)
    answer = agent.run("三時ごろの西の鎧戸の留め金のこと、覚えていますか。")
    assert LOOSE_FINDING in answer
    assert [r.act for r in standin.requests[-2:]] == ["tool_call", "tool_result"]
    assert search(memory.archive, "留め金")[0].text.count(LOOSE_FINDING) >= 1


def test_a_mission_kept_only_on_the_shelf_is_not_fetched_by_a_bare_clock_call():
    played = Played(lambda client, checker: RetrievedMissionAgent("v", TOOL_MISSION, client=client,
                                                                  tools=[checker.check_lock]))
    three = Played(three_tier)
    agent = played.agent
    hours = [n for n, turn in enumerate(played.night.turns) if turn.text.startswith("（柱時計が鳴る）")]
    fetched_round_duty = [n for n in hours if any("毎正時" in line for line in agent.fetched[n])]
    assert len(fetched_round_duty) < len(hours) / 2
    assert len(played.checker.calls) < len(three.checker.calls) / 4
