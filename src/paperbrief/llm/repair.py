"""Structured answers: the schema travels in the prompt, answers are parsed tolerantly and
validated by pydantic, and one repair message carries the validation error back."""

from __future__ import annotations

import json
import re
from typing import TypeVar

from pydantic import BaseModel

from paperbrief.llm.dialect import Message

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)
REPAIR_ECHO_CHARS = 8000  # how much of the broken answer the repair request quotes back


def with_schema(messages: list[Message], schema: type[BaseModel]) -> list[Message]:
    """Append the JSON Schema to the system message (adding one when there is none)."""
    note = (
        "Answer with exactly one JSON object and nothing else (no Markdown fence). It must"
        " validate against this JSON Schema:\n"
        + json.dumps(schema.model_json_schema(), ensure_ascii=False, separators=(",", ":"))
    )
    if messages and messages[0].get("role") == "system":
        first = dict(messages[0])
        first["content"] = f"{first['content']}\n\n{note}"
        return [first, *messages[1:]]
    return [{"role": "system", "content": note}, *messages]


def parse_answer(content: str, schema: type[T]) -> T:
    """Validate an answer; tolerates a Markdown fence or prose around one JSON object.

    Raises ``ValueError`` (not JSON) or ``pydantic.ValidationError`` (wrong shape).
    """
    text = _FENCE.sub("", content.strip())
    try:
        data = json.loads(text)
    except RecursionError:  # a hostile answer nested thousands deep
        raise ValueError("the answer is nested too deeply to be read") from None
    except json.JSONDecodeError:
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end <= start:
            raise ValueError(f"the answer is not JSON: {text[:120]!r}") from None
        try:
            data = json.loads(text[start : end + 1])
        except RecursionError:
            raise ValueError("the answer is nested too deeply to be read") from None
        except json.JSONDecodeError as error:
            raise ValueError(f"the answer is not valid JSON: {error}") from None
    return schema.model_validate(data)


def repair_messages(prepared: list[Message], answer: str, error: Exception) -> list[Message]:
    """The conversation that asks once more, quoting the broken answer and what was wrong."""
    note = (
        "Your previous answer could not be used: "
        + str(error)[:1500]
        + "\nAnswer again with exactly one JSON object that validates against the schema."
        " Keep the content; fix only the structure. If the answer was cut off, write the"
        " long text fields more briefly so the whole object fits."
    )
    return [
        *prepared,
        {"role": "assistant", "content": answer[:REPAIR_ECHO_CHARS]},
        {"role": "user", "content": note},
    ]
