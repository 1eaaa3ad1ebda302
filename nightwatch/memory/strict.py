"""Refusing bad input at the door: strict models and text that can always be saved.

A configuration typo (``context_windw=500``) must not quietly drop the budget, and ``True`` or
``"3"`` is not a window size. Every policy, record and saved state is a ``StrictModel``: unknown
fields are refused by name (with the nearest known name as a hint), and numbers must be numbers.

Text must survive ``to_json``: a lone surrogate (half of a UTF-16 pair, which Python strings can
hold but UTF-8 cannot encode) is refused when it arrives, not when the night is saved.
"""

from __future__ import annotations

import difflib
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, model_validator


class StrictModel(BaseModel):
    """A pydantic model with no unknown fields and no coercion between types."""

    model_config = ConfigDict(extra="forbid", strict=True)

    @model_validator(mode="before")
    @classmethod
    def _name_unknown_fields(cls, data: Any) -> Any:
        if isinstance(data, dict):
            known = set(cls.model_fields)
            for name in data:
                if name not in known:
                    hint = difflib.get_close_matches(str(name), sorted(known), n=1)
                    advice = f"; did you mean {hint[0]!r}?" if hint else ""
                    raise ValueError(
                        f"{cls.__name__} has no field {name!r}{advice} (known: {', '.join(sorted(known))})"
                    )
        return data


def saveable_text(value: object, what: str) -> str:
    """``value`` itself if it is a str that UTF-8 can encode; a clear TypeError/ValueError otherwise."""
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"{what} holds a lone surrogate {value[exc.start]!r} at position {exc.start}: "
            "it cannot be encoded as UTF-8, so the memory could not be saved"
        ) from None
    return value


SaveableStr = Annotated[str, AfterValidator(lambda text: saveable_text(text, "text"))]
"""A str field that is refused when it arrives if it could not be saved as UTF-8."""
