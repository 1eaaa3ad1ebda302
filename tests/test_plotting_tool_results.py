"""The stack with tool results as a tier of their own (chapter 9): the tiers add up to the stand-in's count."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

from nightwatch.lab import plotting  # noqa: E402
from nightwatch.lab.plotting import PALETTE, TOOL_STACK  # noqa: E402
from nightwatch.memory.budget import TIERS  # noqa: E402
from nightwatch.tokens import count_message_tokens  # noqa: E402

MISSION = {"role": "system", "content": "毎正時に戸締まりを確かめること。"}
CALL = {"role": "assistant", "content": None, "tool_calls": [
    {"id": "call_1", "type": "function", "function": {"name": "check_lock", "arguments": '{"door": "楽屋口"}'}}]}
RESULT = {"role": "tool", "tool_call_id": "call_1", "content": "楽屋口は施錠されていました。錠に異常はありません。"}
TOOLS = [{"type": "function", "function": {"name": "check_lock", "description": "扉の戸締まりを確かめる。",
                                           "parameters": {"type": "object", "properties": {
                                               "door": {"type": "string", "enum": ["楽屋口", "西の鎧戸"]}}}}}]
EARLIER = [{"role": "user", "content": "九時です。"}, CALL, RESULT, {"role": "assistant", "content": "九時、異常なし。"}]
SECOND_ROUND = [MISSION, {"role": "user", "content": "十時です。"}, CALL | {"tool_calls": [
    {**CALL["tool_calls"][0], "id": "call_2"}]}, RESULT | {"tool_call_id": "call_2"}]


def test_tool_messages_are_their_own_tier_and_the_tiers_add_up_to_the_request_with_its_tools():
    for request in ([MISSION, *EARLIER, {"role": "user", "content": "十時です。"}], SECOND_ROUND):
        sizes = plotting.tier_tokens(request, tool_results=True, tools=TOOLS)
        assert list(sizes) == list(TOOL_STACK)
        assert sum(sizes.values()) == count_message_tokens(request, tools=TOOLS)
        assert sizes["tool"] > 0
    # in a second round the question is the user's ask with its calls, not the result that ends the request
    second = plotting.tier_tokens(SECOND_ROUND, tool_results=True)
    without = plotting.tier_tokens(SECOND_ROUND)
    assert second["window"] == 0 and second["question"] > without["question"]


def test_without_the_option_the_stack_is_unchanged():
    request = [MISSION, *EARLIER, {"role": "user", "content": "十時です。"}]
    assert list(plotting.tier_tokens(request)) == list(TIERS)


def test_the_tool_tier_is_drawn_in_its_own_palette_colour():
    figure, ax = plt.subplots()
    try:
        table = plotting.plot_request_stacks(ax, [SECOND_ROUND], limit=500, tool_results=True, tools=TOOLS)
        faces = {to_hex(face) for collection in ax.collections for face in collection.get_facecolor()}
        assert PALETTE["tool"] in faces
        assert PALETTE["tool"] not in {PALETTE[tier] for tier in TIERS}
        assert table.loc[1, "合計"] == count_message_tokens(SECOND_ROUND, tools=TOOLS)
        assert "ツール結果" in [text.get_text() for text in ax.get_legend().get_texts()]
    finally:
        plt.close(figure)
