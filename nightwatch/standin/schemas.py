"""JSON schemas from a request, checked within bounds: no schema a client sends can hold the server.

A request may carry schemas (``tools[].function.parameters``, ``response_format.json_schema``), and
jsonschema, left to itself, will follow them anywhere: a schema nested three hundred deep exhausts
the interpreter's stack, a ``$ref`` cycle or a wide ``anyOf`` over a recursive definition makes the
work exponential, and a ``pattern`` such as ``(x+x+)+y`` makes Python's ``re`` backtrack for longer
than anyone waits, holding the interpreter lock the whole time, so every other client waits too.

So every schema is measured before it is read, and every check against one runs on a budget:

* nesting: a schema nests at most ``MAX_SCHEMA_NESTING`` JSON levels (objects and arrays), refused
  with a 400 that names the field and the cap before anything recurses over it;
* work: each keyword check is a step, and one request's filling and checking together take at most
  ``MAX_SCHEMA_STEPS`` of them (``SchemaTooCostly`` past that);
* time in patterns: ``pattern``, ``patternProperties`` and the ``additionalProperties`` that depends
  on them are matched with the ``regex`` engine, which releases the interpreter lock while it
  matches (``concurrent=True``) and stops at a deadline (``timeout``); one request has
  ``PATTERN_SECONDS`` of matching in all. Python's ``re`` has neither. ``unevaluatedProperties``
  beside ``patternProperties`` would be matched by jsonschema with ``re``, so that pair is refused.

The bound a request can cost is then: ``MAX_SCHEMA_STEPS`` keyword checks, each on a value of at
most the filler's output cap and at most ``MAX_CHECK_DEPTH`` checks deep, plus ``PATTERN_SECONDS`` of
matching with the lock released.

jsonschema itself is imported here on first use (``schema_validator``), for the protocol's check of a
schema's shape and for the bounded checks alike.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

MAX_SCHEMA_NESTING = 64
"""JSON levels a schema may nest (``{"properties": {"x": {...}}}`` is two per schema level)."""
MAX_SCHEMA_STEPS = 20_000
"""Keyword checks and filled values one request's schemas may take in all."""
PATTERN_SECONDS = 0.5
"""Time one request may spend matching ``pattern``s, with the interpreter lock released."""
MAX_CHECK_DEPTH = 128
"""Keyword checks one may nest inside another: a ``$ref`` back to the root recurses without end, and
near Python's recursion limit the reference resolver's own code (``rpds``, in Rust) panics instead of
raising ``RecursionError``; the cap stops the check well before that."""


class SchemaTooCostly(Exception):
    """Filling or checking a schema would go past one of the bounds above; ``why`` says which."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


@dataclass
class Budget:
    """What is left of one request's steps and pattern time."""

    steps: int = MAX_SCHEMA_STEPS
    pattern_seconds: float = PATTERN_SECONDS
    depth: int = 0

    def step(self) -> None:
        self.steps -= 1
        if self.steps < 0:
            raise SchemaTooCostly(f"the schema takes more than the stand-in's {MAX_SCHEMA_STEPS:,} steps "
                                  "to fill and check")


_budget: ContextVar[Budget | None] = ContextVar("schema_budget", default=None)


@contextmanager
def budgeted() -> Iterator[Budget]:
    """One request's budget, for everything filled and checked inside the block (per thread)."""
    current = _budget.get()
    if current is not None:  # nested: the outer request's budget goes on
        yield current
        return
    token = _budget.set(Budget())
    try:
        yield _budget.get()  # type: ignore[misc]
    finally:
        _budget.reset(token)


def step() -> None:
    """Charge one step to the current request (outside one, a fresh budget applies per call)."""
    budget = _budget.get()
    if budget is not None:
        budget.step()


def nesting(value: object) -> int:
    """How many JSON levels ``value`` nests (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        if depth <= MAX_SCHEMA_NESTING:  # deeper than the cap is all we need to know
            stack.extend((child, depth + 1) for child in children)
    return deepest


def keys_anywhere(value: object, names: frozenset[str]) -> set[str]:
    """Which of ``names`` occur as keys anywhere in ``value`` (a nesting already checked)."""
    found, stack = set(), [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.update(names.intersection(item))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def search(pattern: str, text: str) -> bool:
    """``pattern`` found in ``text``, matched without the interpreter lock and within the time left."""
    import regex

    budget = _budget.get() or Budget()
    step()
    started = time.perf_counter()
    try:
        return regex.search(pattern, text, timeout=max(budget.pattern_seconds, 0.001), concurrent=True) is not None
    except TimeoutError:
        raise SchemaTooCostly(f"matching the pattern {pattern[:80]!r} takes longer than the stand-in's "
                              f"{PATTERN_SECONDS:g} s for a request's patterns") from None
    except regex.error as unreadable:
        raise SchemaTooCostly(f"the pattern {pattern[:80]!r} cannot be read ({unreadable})") from None
    finally:
        budget.pattern_seconds -= time.perf_counter() - started
        if budget.pattern_seconds <= 0:
            budget.pattern_seconds = 0.0


_IMPORT_LOCK = threading.Lock()


def schema_validator() -> type:
    """jsonschema's Draft 2020-12 validator, imported on first use and without the IRI grammar.

    Only requests that carry a schema need jsonschema. Importing it imports ``rfc3987_syntax`` when
    that is installed (jupyter brings it), which builds some thirty parsers for the 'iri' formats:
    about 2 s in a notebook's kernel (python-jsonschema/jsonschema#1428). No check here uses those
    formats, so jsonschema is imported with that module hidden, and leaves the two formats unchecked
    as when it is not installed. The module itself stays importable."""
    with _IMPORT_LOCK:
        if "jsonschema" not in sys.modules and "rfc3987_syntax" not in sys.modules:
            sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]
            try:
                import jsonschema  # noqa: F401
            finally:
                del sys.modules["rfc3987_syntax"]
        from jsonschema import Draft202012Validator
    return Draft202012Validator


def bounded_validator_class() -> type:
    """Draft 2020-12 with every keyword charged a step and every pattern matched by ``search``."""
    global _BOUNDED
    if _BOUNDED is not None:
        return _BOUNDED
    from jsonschema import ValidationError, validators

    base = schema_validator()

    def pattern(validator: Any, wanted: str, instance: Any, schema: Mapping[str, Any]) -> Iterator[Any]:
        if validator.is_type(instance, "string") and not search(wanted, instance):
            yield ValidationError(f"{_short(instance)} does not match {wanted[:80]!r}")

    def pattern_properties(validator: Any, patterns: Mapping[str, Any], instance: Any,
                           schema: Mapping[str, Any]) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        for wanted, subschema in patterns.items():
            for key, value in instance.items():
                if search(wanted, key):
                    yield from validator.descend(value, subschema, path=key, schema_path=wanted)

    def additional_properties(validator: Any, allowed: Any, instance: Any,
                              schema: Mapping[str, Any]) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        known, patterns = schema.get("properties", {}), schema.get("patternProperties", {})
        extras = [key for key in instance if key not in known and not any(search(p, key) for p in patterns)]
        if validator.is_type(allowed, "object"):
            for extra in extras:
                yield from validator.descend(instance[extra], allowed, path=extra)
        elif not allowed and extras:
            yield ValidationError(f"Additional properties are not allowed ({', '.join(map(repr, extras[:5]))})")

    replaced = {"pattern": pattern, "patternProperties": pattern_properties,
                "additionalProperties": additional_properties}

    def charged(check: Any) -> Any:
        def keyword(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
            step()
            budget = _budget.get() or Budget()
            if budget.depth >= MAX_CHECK_DEPTH:
                raise SchemaTooCostly(f"checking the schema nests more than the stand-in's {MAX_CHECK_DEPTH} "
                                      "keywords deep (a reference that leads back to itself?)")
            budget.depth += 1
            try:
                errors = check(validator, value, instance, schema)
                if errors is not None:
                    yield from errors
            finally:
                budget.depth -= 1
        return keyword

    checks = {name: charged(replaced.get(name, check)) for name, check in base.VALIDATORS.items()}
    _BOUNDED = validators.extend(base, checks)
    return _BOUNDED


_BOUNDED: type | None = None


def _short(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"
