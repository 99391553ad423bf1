"""The model APIs tooldeck speaks, one module each.

A provider module holds all tooldeck knows of one API: the shape a tool is declared in
(``export``), reading the tool calls its replies ask for (``read``, and recognisers that
tell its replies from another's), and writing the results back (``write``), gathered in
its `Provider`. What several share stays shared: OpenAI's strict mode
(`tooldeck._strict`), Gemini's Schema subset (`tooldeck._gemini`), the pieces of a reply
(`tooldeck._reply_fields`), the reading and writing helpers (`._shared`).

Adding a provider: a module defining ``PROVIDER``, its line in `PROVIDERS`, and its place
in `RECOGNISING`. docs/architecture.md ("Providers") says more.
"""

from __future__ import annotations

from . import anthropic, gemini, openai_chat, openai_responses
from ._base import Answer, ExportSpec, Provider

__all__ = ["FORMATS", "PROVIDERS", "RECOGNISING", "Answer", "ExportSpec", "Provider"]

# By format name, as `export(format)` and `run_tool_calls(..., format=)` take it.
PROVIDERS: dict[str, Provider] = {
    "openai": openai_chat.PROVIDER,
    "openai-responses": openai_responses.PROVIDER,
    "anthropic": anthropic.PROVIDER,
    "gemini": gemini.PROVIDER,
}
FORMATS: tuple[str, ...] = tuple(PROVIDERS)

# The order the recognisers are asked in when a reply's format is not given: the first
# to claim a shape has it. Signs that two providers share are settled here: a message
# with ``tool_calls`` and a ``content`` list is OpenAI's; a ``content`` list beside an
# ``output`` list, Anthropic's; a dict with ``function`` and ``function_call``, OpenAI's.
RECOGNISING: tuple[Provider, ...] = (
    openai_chat.PROVIDER,
    anthropic.PROVIDER,
    openai_responses.PROVIDER,
    gemini.PROVIDER,
)
