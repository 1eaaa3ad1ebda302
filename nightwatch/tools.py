"""Tools an agent may call: plain Python functions, described to the model from their own signature.

``function_tool(fn)`` reads what the OpenAI Agents SDK's ``function_tool`` reads: the name of the
function, the first paragraph of its docstring as the description, each parameter's annotation as
its JSON type and its line under ``Args:`` as its description. ``ToolBox.run`` carries out one call
the model asked for and always returns text: a tool that raises, an unknown name or arguments that
do not fit the signature come back as a result that says so, so a turn never crashes and its
exchange is never lost. The model reads the error and can answer from it.
"""

from __future__ import annotations

import inspect
import json
import re
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

JSON_TYPES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
ARG_LINE = re.compile(r"^\s*(\w+)\s*(?:\([^)]*\))?\s*:\s*(.+)$")


@dataclass(frozen=True)
class FunctionTool:
    """One function, with the schema the model is shown."""

    name: str
    description: str
    parameters: dict[str, Any]
    function: Callable[..., Any]

    def definition(self) -> dict[str, Any]:
        """The chat API's ``tools`` entry."""
        return {"type": "function",
                "function": {"name": self.name, "description": self.description, "parameters": self.parameters}}


def _docstring_parts(doc: str) -> tuple[str, dict[str, str]]:
    """The first paragraph, and each ``name: text`` line of an ``Args:`` section."""
    text = inspect.cleandoc(doc or "")
    description = " ".join(text.split("\n\n", 1)[0].split())
    arguments: dict[str, str] = {}
    in_args = False
    for line in text.splitlines():
        if line.strip().lower() in ("args:", "arguments:", "parameters:"):
            in_args = True
            continue
        if in_args:
            match = ARG_LINE.match(line)
            if match:
                arguments[match[1]] = match[2].strip()
            elif line.strip() and not line.startswith((" ", "\t")):
                in_args = False
    return description, arguments


def _json_type(annotation: Any) -> dict[str, Any]:
    if typing.get_origin(annotation) is typing.Literal:
        values = list(typing.get_args(annotation))
        return {"type": JSON_TYPES.get(type(values[0]), "string"), "enum": values}
    if annotation in JSON_TYPES:
        return {"type": JSON_TYPES[annotation]}
    raise TypeError(f"a tool parameter must be str, int, float, bool or a Literal of them, got {annotation!r}")


def function_tool(function: Callable[..., Any]) -> FunctionTool:
    """Describe ``function`` to the model from its signature and docstring."""
    if not callable(function) or not getattr(function, "__name__", "").isidentifier():
        raise TypeError("a tool must be a named Python function")
    description, documented = _docstring_parts(function.__doc__ or "")
    if not description:
        raise ValueError(f"tool {function.__name__!r} needs a docstring: it is the model's only description of it")
    hints = typing.get_type_hints(function)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, parameter in inspect.signature(function).parameters.items():
        if name not in hints:
            raise TypeError(f"tool {function.__name__!r}: parameter {name!r} needs a type annotation")
        properties[name] = _json_type(hints[name]) | ({"description": documented[name]} if name in documented else {})
        if parameter.default is inspect.Parameter.empty:
            required.append(name)
    parameters = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    return FunctionTool(function.__name__, description, parameters, function)


def _argument_problem(tool: FunctionTool, arguments: object) -> str | None:
    if not isinstance(arguments, dict):
        return "the arguments are not a JSON object"
    properties = tool.parameters["properties"]
    unknown = sorted(set(arguments) - set(properties))
    if unknown:
        return f"unknown argument {unknown[0]!r}"
    missing = [name for name in tool.parameters["required"] if name not in arguments]
    if missing:
        return f"missing argument {missing[0]!r}"
    for name, value in arguments.items():
        spec = properties[name]
        expected = {"string": str, "integer": int, "number": (int, float), "boolean": bool}[spec["type"]]
        if isinstance(value, bool) and spec["type"] != "boolean" or not isinstance(value, expected):
            return f"argument {name!r} must be a {spec['type']}"
        if "enum" in spec and value not in spec["enum"]:
            return f"argument {name!r} must be one of {spec['enum']}"
    return None


class ToolBox:
    """The tools one agent offers, by name, and the one way a call is carried out."""

    def __init__(self, tools: Sequence[Callable[..., Any] | FunctionTool] = ()) -> None:
        described = [tool if isinstance(tool, FunctionTool) else function_tool(tool) for tool in tools]
        names = [tool.name for tool in described]
        if len(set(names)) != len(names):
            raise ValueError(f"two tools share a name: {names}")
        self.tools = {tool.name: tool for tool in described}

    def __bool__(self) -> bool:
        return bool(self.tools)

    def definitions(self) -> list[dict[str, Any]]:
        return [tool.definition() for tool in self.tools.values()]

    def run(self, call: Mapping[str, Any]) -> str:
        """Carry out one ``tool_calls`` entry; the result is always text, an error said as one."""
        function = call.get("function") or {}
        name = function.get("name")
        tool = self.tools.get(name)
        if tool is None:
            return f"error: there is no tool named {name!r} (offered: {', '.join(self.tools) or 'none'})"
        try:
            arguments = json.loads(function.get("arguments") or "{}")
        except ValueError as exc:
            return f"error: the arguments of {name} are not valid JSON ({exc})"
        problem = _argument_problem(tool, arguments)
        if problem:
            return f"error: {name} was not run: {problem}"
        try:
            result = tool.function(**arguments)
        except Exception as exc:  # a tool's failure is news for the model, not a crash of the night
            return f"error: {name} failed: {type(exc).__name__}: {exc}"
        return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, default=str)
