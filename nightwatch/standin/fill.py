"""Filling a JSON schema from a request's own words: tool arguments and ``json_schema`` replies.

The stand-in invents nothing. A string is filled with text it already has (the ask for a tool's
arguments; the reply, then the sources it quoted, for a structured reply); an enum with the member
whose content best matches that text; a number only when the request itself carries one; a boolean
only when the schema gives a default. Whatever it cannot fill honestly it reports as ``Unfillable``
naming the schema path, and the caller refuses the request with a 400 (or, for an optional tool,
does not call it). Every value is checked with ``jsonschema`` before it is sent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any


from nightwatch.standin.protocol import schema_validator
from nightwatch.standin.reader.text import number_value, similarity
from nightwatch.standin.reader.words import content_lemmas

NUMBER = re.compile(r"[0-9０-９]+(?:[.．][0-9０-９]+)?|[一二三四五六七八九十]+|\b[A-Za-z]+\b")
FULLWIDTH = str.maketrans("０１２３４５６７８９．", "0123456789.")
MAX_DEPTH = 8


class Unfillable(ValueError):
    """A part of a schema the request gives nothing honest to fill it with; ``path`` names it."""

    def __init__(self, path: str, why: str) -> None:
        super().__init__(f"{path}: {why}")
        self.path = path
        self.why = why


def numbers_in(text: str) -> list[float]:
    """The numbers a text carries, in order: 12, １２, 3.5, 十二, twelve."""
    found: list[float] = []
    for token in NUMBER.findall(text):
        token = token.translate(FULLWIDTH)
        if re.fullmatch(r"[0-9]+(\.[0-9]+)?", token):
            found.append(float(token))
        elif (value := number_value(token)) is not None:
            found.append(float(value))
    return found


def best_match(options: Sequence[Any], text: str) -> Any:
    """The option whose words best match ``text``: shared content lemmas first, then character overlap."""
    lemmas = content_lemmas(text)

    def score(option: Any) -> tuple[int, float]:
        words = str(option).replace("_", " ")
        return len(lemmas & content_lemmas(words)), similarity(words, text)

    return max(options, key=score)  # max keeps the first of equals: the schema's own order decides ties


class Filler:
    """Fills one schema: ``texts`` feed string fields in turn (the last one repeats); ``numbers`` are
    the request's numbers, used in turn; ``match_text`` picks enum members."""

    def __init__(self, root: Mapping[str, Any], texts: Sequence[str], numbers: Sequence[float],
                 match_text: str, fill_optional: bool) -> None:
        self.root = root
        self.texts = list(texts) or [""]
        self.numbers = list(numbers)
        self.match_text = match_text
        self.fill_optional = fill_optional
        self._strings = 0

    def _resolve(self, schema: Mapping[str, Any], path: str) -> Mapping[str, Any]:
        while "$ref" in schema:
            ref = schema["$ref"]
            if not isinstance(ref, str) or not ref.startswith("#/"):
                raise Unfillable(path, f"only local references are supported, got {ref!r}")
            target: Any = self.root
            for part in ref[2:].split("/"):
                target = target[part]
            schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        return schema

    def fill(self, schema: Mapping[str, Any], path: str, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise Unfillable(path, "the schema nests too deeply")
        schema = self._resolve(schema, path)
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            return best_match(schema["enum"], self.match_text)
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return self._first_that_fits(schema[key], f"{path}.{key}", depth)
        kind = schema.get("type")
        if isinstance(kind, list):
            kinds = [k for k in kind if k != "null"] or ["null"]
            return self.fill({**schema, "type": kinds[0]}, path, depth)
        if kind == "object" or (kind is None and "properties" in schema):
            return self._object(schema, path, depth)
        if kind == "array":
            return self._array(schema, path, depth)
        if kind == "string":
            return self._string(schema)
        if kind in ("number", "integer"):
            if not self.numbers:
                raise Unfillable(path, "a number is required, and the request carries none")
            value = self.numbers.pop(0)
            return int(value) if kind == "integer" else value
        if kind == "boolean":
            if "default" in schema:
                return schema["default"]
            raise Unfillable(path, "a yes/no value is required, and nothing in the request says which")
        if kind == "null":
            return None
        raise Unfillable(path, f"cannot fill a value of type {kind!r}")

    def _first_that_fits(self, options: Sequence[Mapping[str, Any]], path: str, depth: int) -> Any:
        reasons = []
        for index, option in enumerate(options):
            saved = (self._strings, list(self.numbers))
            try:
                value = self.fill(option, f"{path}[{index}]", depth + 1)
            except Unfillable as failed:
                reasons.append(failed)
                self._strings, self.numbers = saved
                continue
            if validator({**option, "$defs": self.root.get("$defs", {})}).is_valid(value):
                return value
            self._strings, self.numbers = saved
        raise reasons[0] if reasons else Unfillable(path, "no alternative can be filled")

    def _object(self, schema: Mapping[str, Any], path: str, depth: int) -> dict[str, Any]:
        required = set(schema.get("required", []))
        value: dict[str, Any] = {}
        for name, sub in (schema.get("properties") or {}).items():
            where = f"{path}.properties.{name}"
            if name in required:
                value[name] = self.fill(sub, where, depth + 1)
            elif self.fill_optional:
                try:
                    value[name] = self.fill(sub, where, depth + 1)
                except Unfillable:
                    continue
        return value

    def _array(self, schema: Mapping[str, Any], path: str, depth: int) -> list[Any]:
        items = schema.get("items", {})
        count = max(1, int(schema.get("minItems", 1)))
        if schema.get("maxItems") == 0:
            return []
        return [self.fill(items, f"{path}.items", depth + 1) for _ in range(count)]

    def _string(self, schema: Mapping[str, Any]) -> str:
        text = self.texts[min(self._strings, len(self.texts) - 1)]
        self._strings += 1
        limit = schema.get("maxLength")
        return text[:limit] if isinstance(limit, int) else text


def fill_schema(schema: Mapping[str, Any], path: str, texts: Sequence[str], match_text: str,
                numbers: Sequence[float] = (), fill_optional: bool = True) -> Any:
    """A value for ``schema`` from the request's own words, valid against it, or ``Unfillable``."""
    value = Filler(schema, texts, numbers, match_text, fill_optional).fill(schema, path)
    errors = sorted(validator(schema).iter_errors(value), key=lambda e: list(e.absolute_path))
    if errors:
        where = ".".join([path, *(f"properties.{p}" if isinstance(p, str) else f"items" for p in errors[0].absolute_path)])
        raise Unfillable(where, errors[0].message)
    return value


def validator(schema: dict[str, Any]):
    """jsonschema's validator for ``schema`` (imported on first use, see ``schema_validator``)."""
    return schema_validator()(schema)
