"""A shorter road through the openai SDK's parameter transform, for request parts that need none.

Every ``client.chat.completions.create`` (and ``client.responses.create``) first passes its arguments
through ``openai._utils._transform``, which walks each message against every member of the
message-type union, to rename keys that have an alias and to format dates and files. A message of
plain JSON (dicts, lists, strings, numbers) checked against types that carry no ``PropertyInfo``
comes out equal to what went in; the walk still costs about three quarters of an in-process
stand-in call (``python benchmarks/sdk_fast_path.py``), and a night makes hundreds of calls.

``install()`` wraps the SDK's ``_transform_recursive`` so that such a part is returned as it is.
Anything else takes the SDK's own road: data that is not plain JSON (a pydantic model, a date, a
file, an omitted value), and any type with an alias or a format anywhere inside it. The request
sent is the same: ``tests/test_sdk_fast_path.py`` compares the SDK's transform with and without it
on generated chat and Responses requests. ``NIGHTWATCH_SDK_FAST_PATH=0`` leaves the SDK untouched.
"""

from __future__ import annotations

import functools
import os
import typing
from typing import Any

import openai._utils._transform as sdk_transform
from openai._utils import PropertyInfo

OPT_OUT = "NIGHTWATCH_SDK_FAST_PATH"
JSON_SCALARS = (str, int, float, bool, type(None))
MAX_DEPTH = 64
_original = sdk_transform._transform_recursive
_original_async = sdk_transform._async_transform_recursive


def plain_json(data: object, depth: int = 0) -> bool:
    """Only dicts with string keys, lists, strings, numbers, booleans and None (no tuple, no model)."""
    if isinstance(data, JSON_SCALARS):
        return True
    if depth > MAX_DEPTH:
        return False
    if type(data) is list:
        return all(plain_json(item, depth + 1) for item in data)
    if type(data) is dict:
        return all(type(key) is str and plain_json(value, depth + 1) for key, value in data.items())
    return False


@functools.lru_cache(maxsize=4096)
def transforms_nothing(annotation: Any) -> bool:
    """True when no part of ``annotation`` carries a ``PropertyInfo`` (an alias or a format)."""
    seen: set[int] = set()

    def walk(kind: Any) -> bool:
        if id(kind) in seen:
            return True
        seen.add(id(kind))
        if typing.get_origin(kind) is typing.Annotated or sdk_transform.is_annotated_type(kind):
            arguments = typing.get_args(kind)
            return not any(isinstance(extra, PropertyInfo) for extra in arguments[1:]) and walk(arguments[0])
        if sdk_transform.is_typeddict(kind):
            return all(walk(hint) for hint in sdk_transform.get_type_hints(kind, include_extras=True).values())
        return all(walk(argument) for argument in typing.get_args(kind) if not isinstance(argument, (str, int, float, bool)))

    try:
        return walk(annotation)
    except Exception:  # a type it cannot read: the SDK's own road
        return False


def _fast_transform(data: object, *, annotation: type, inner_type: type | None = None) -> object:
    kind = annotation if inner_type is None else inner_type
    if plain_json(data) and transforms_nothing(kind):
        return data
    return _original(data, annotation=annotation, inner_type=inner_type)


async def _fast_async_transform(data: object, *, annotation: type, inner_type: type | None = None) -> object:
    kind = annotation if inner_type is None else inner_type
    if plain_json(data) and transforms_nothing(kind):
        return data
    return await _original_async(data, annotation=annotation, inner_type=inner_type)


def install() -> bool:
    """Take the shorter road from now on (unless ``NIGHTWATCH_SDK_FAST_PATH=0``); True if installed."""
    if os.environ.get(OPT_OUT, "").strip() == "0":
        return False
    sdk_transform._transform_recursive = _fast_transform
    sdk_transform._async_transform_recursive = _fast_async_transform
    return True


def uninstall() -> None:
    """The SDK's own transform again (a benchmark's baseline, a test's comparison)."""
    sdk_transform._transform_recursive = _original
    sdk_transform._async_transform_recursive = _original_async
