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
from urllib.parse import unquote


from referencing.exceptions import Unresolvable

from nightwatch.standin.reader.text import number_value, similarity
from nightwatch.standin.reader.words import content_lemmas
from nightwatch.standin.schemas import SchemaTooCostly, bounded_validator_class, budgeted, step

NUMBER = re.compile(r"[0-9０-９]+(?:[.．][0-9０-９]+)?|[一二三四五六七八九十]+|\b[A-Za-z]+\b")
FULLWIDTH = str.maketrans("０１２３４５６７８９．", "0123456789.")
MAX_DEPTH = 8
MAX_DIGITS = 15
"""A number with more digits than a double carries exactly is not read as one (no 400-digit integers,
no ``Infinity``): every number filled is one any JSON client reads back as it was written."""
MAX_ITEMS = 256
"""The most items the stand-in fills into one array: ``minItems`` above it is refused, with the cap."""
MAX_FILLED_CHARS = 1_000_000
"""The most characters of text one filled value may hold in all, however its arrays multiply it."""


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
        if sum(ch.isdigit() for ch in token) > MAX_DIGITS:
            continue  # more than a double holds exactly: not a number JSON carries as written
        if re.fullmatch(r"[0-9]+(\.[0-9]+)?", token):
            found.append(float(token))
        elif (value := number_value(token)) is not None:
            found.append(float(value))
    return found


def best_match(options: Sequence[Any], text: str) -> Any:
    """The option whose words best match ``text``: shared content lemmas first, then character overlap."""
    lemmas = content_lemmas(text)

    def score(option: Any) -> tuple[int, float]:
        step()  # each member is read: a vast enum is bounded by the request's budget
        words = str(option).replace("_", " ")
        return len(lemmas & content_lemmas(words)), similarity(words, text)

    return max(options, key=score)  # max keeps the first of equals: the schema's own order decides ties


class Filler:
    """Fills one schema: ``texts`` feed string fields in turn (the last one repeats); ``numbers`` are
    the request's numbers, used in turn; ``match_text`` picks enum members.

    Bounded: a ``$ref`` that leads back to itself is a cycle (refused where a value needs it); values
    nest at most ``MAX_DEPTH``; arrays hold at most ``MAX_ITEMS``; all text at most
    ``MAX_FILLED_CHARS``; every value filled is a step of the request's budget."""

    def __init__(self, root: Mapping[str, Any], texts: Sequence[str], numbers: Sequence[float],
                 match_text: str, fill_optional: bool) -> None:
        self.root = root
        self.texts = list(texts) or [""]
        self.numbers = list(numbers)
        self.match_text = match_text
        self.fill_optional = fill_optional
        self._strings = 0
        self._chars = 0
        self._active: list[str] = []  # the references being filled, outermost first
        self._check = bounded_validator_class()(root)

    def _target(self, ref: str, path: str) -> Any:
        """The schema a local ``$ref`` (a JSON pointer after ``#``) points at."""
        if not isinstance(ref, str) or not (ref == "#" or ref.startswith("#/")):
            raise Unfillable(path, f"only local references ('#/...') are supported, got {str(ref)[:80]!r}")
        target: Any = self.root
        for part in ref[2:].split("/") if ref != "#" else []:
            part = unquote(part).replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and part in target:
                target = target[part]
            elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
                target = target[int(part)]
            else:
                raise Unfillable(path, f"the reference {ref[:80]!r} points at nothing in the schema")
        if not isinstance(target, (dict, bool)):
            raise Unfillable(path, f"the reference {ref[:80]!r} points at something that is not a schema")
        return target

    def _resolve(self, schema: Any, path: str) -> tuple[Any, list[str]]:
        """The schema with its ``$ref`` chain followed, and the references followed."""
        followed: list[str] = []
        while isinstance(schema, dict) and "$ref" in schema:
            ref = schema["$ref"]
            if ref in followed or ref in self._active:
                raise Unfillable(path, f"the reference {str(ref)[:80]!r} leads back to itself: a value for it "
                                       "would never end")
            followed.append(ref)
            step()
            target = self._target(ref, path)
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            if isinstance(target, bool):
                schema = target if not siblings or not target else siblings
            else:
                schema = {**target, **siblings}
        return schema, followed

    def fill(self, schema: Any, path: str, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise Unfillable(path, f"the schema nests more than {MAX_DEPTH} values deep (the stand-in's cap)")
        step()
        schema, followed = self._resolve(schema, path)
        self._active += followed
        try:
            return self._fill(schema, path, depth)
        finally:
            del self._active[len(self._active) - len(followed):]

    def _fill(self, schema: Any, path: str, depth: int) -> Any:
        if schema is True:
            schema = {}  # the same as an empty schema: nothing says what kind of value to give
        if schema is False:
            raise Unfillable(path, "the schema is false: no value is valid")
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            if not schema["enum"]:
                raise Unfillable(path, "the enum has no members")
            return best_match(schema["enum"], self.match_text)
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return self._first_that_fits(schema[key], f"{path}.{key}", depth)
        kind = schema.get("type")
        if isinstance(kind, list):
            kinds = [k for k in kind if k != "null"] or ["null"]
            return self._fill({**schema, "type": kinds[0]}, path, depth)
        if kind == "object" or (kind is None and "properties" in schema):
            return self._object(schema, path, depth)
        if kind == "array":
            return self._array(schema, path, depth)
        if kind == "string":
            return self._string(schema)
        if kind in ("number", "integer"):
            if not self.numbers:
                raise Unfillable(path, f"a number is required, and the request carries none (of at most {MAX_DIGITS} digits)")
            value = self.numbers.pop(0)
            return int(value) if kind == "integer" else value
        if kind == "boolean":
            if "default" in schema:
                return schema["default"]
            raise Unfillable(path, "a yes/no value is required, and nothing in the request says which")
        if kind == "null":
            return None
        raise Unfillable(path, f"cannot fill a value of type {kind!r}")

    def _first_that_fits(self, options: Sequence[Any], path: str, depth: int) -> Any:
        reasons = []
        for index, option in enumerate(options):
            saved = (self._strings, self._chars, list(self.numbers))
            try:
                value = self.fill(option, f"{path}[{index}]", depth + 1)
            except Unfillable as failed:
                reasons.append(failed)
                self._strings, self._chars, self.numbers = saved
                continue
            if self._check.evolve(schema=option).is_valid(value):  # references resolve in the whole schema
                return value
            self._strings, self._chars, self.numbers = saved
        raise reasons[0] if reasons else Unfillable(path, "no alternative can be filled")

    def _object(self, schema: Mapping[str, Any], path: str, depth: int) -> dict[str, Any]:
        required = set(schema.get("required", []))
        value: dict[str, Any] = {}
        for name, sub in (schema.get("properties") or {}).items():
            where = f"{path}.properties.{name}"
            if name in required:
                value[name] = self.fill(sub, where, depth + 1)
            elif self.fill_optional:
                saved = (self._strings, self._chars, list(self.numbers))
                try:
                    value[name] = self.fill(sub, where, depth + 1)
                except Unfillable:
                    self._strings, self._chars, self.numbers = saved
                    continue
        return value

    def _array(self, schema: Mapping[str, Any], path: str, depth: int) -> list[Any]:
        items = schema.get("items", {})
        wanted = schema.get("minItems", 1)
        if wanted > MAX_ITEMS:
            raise Unfillable(path, f"minItems is {wanted}, over the stand-in's cap of {MAX_ITEMS} items")
        count = max(1, int(wanted))
        if schema.get("maxItems") == 0:
            return []
        return [self.fill(items, f"{path}.items", depth + 1) for _ in range(count)]

    def _string(self, schema: Mapping[str, Any]) -> str:
        text = self.texts[min(self._strings, len(self.texts) - 1)]
        self._strings += 1
        limit = schema.get("maxLength")
        text = text[:int(limit)] if isinstance(limit, (int, float)) and not isinstance(limit, bool) else text
        self._chars += len(text)
        if self._chars > MAX_FILLED_CHARS:
            raise Unfillable("", f"the value would hold more than the stand-in's cap of {MAX_FILLED_CHARS:,} "
                                 "characters")
        return text


def fill_schema(schema: Mapping[str, Any], path: str, texts: Sequence[str], match_text: str,
                numbers: Sequence[float] = (), fill_optional: bool = True) -> Any:
    """A value for ``schema`` from the request's own words, valid against it, or ``Unfillable``.

    Within the request's budget (``nightwatch.standin.schemas``): a schema that would take longer
    to fill or check is ``Unfillable`` too, with the bound it would pass."""
    with budgeted():
        try:
            filler = Filler(schema, texts, numbers, match_text, fill_optional)
            value = filler.fill(schema, path)
            errors = sorted(filler._check.iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path])
        except Unfillable as failed:
            raise (Unfillable(path, failed.why) if not failed.path else failed) from None
        except SchemaTooCostly as costly:
            raise Unfillable(path, costly.why) from None
        except (Unresolvable, RecursionError) as unreadable:  # e.g. a reference only jsonschema follows
            raise Unfillable(path, f"the value cannot be checked against this schema "
                                   f"({type(unreadable).__name__})") from None
    if errors:
        where = ".".join([path, *(f"properties.{p}" if isinstance(p, str) else "items" for p in errors[0].absolute_path)])
        raise Unfillable(where, errors[0].message[:300])
    return value
