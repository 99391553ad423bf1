"""``@tool(annotations=...)``: MCP's tool annotations, checked at decoration, exported in
the ``mcp`` format only."""

from __future__ import annotations

from typing import Any

import pytest
from mcp_types import Tool as MCPTool

from tooldeck import Tool, ToolRegistry, tool
from tooldeck.errors import ToolDefinitionError

ALL = {
    "title": "Delete a file",
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": True,
    "openWorldHint": False,
}


def test_every_decorator_form_takes_annotations(registry: ToolRegistry) -> None:
    @registry.tool(annotations=ALL)
    def delete(path: str) -> None:
        """Delete a file."""

    @registry.tool("peek", annotations={"readOnlyHint": True})
    def look(path: str) -> str:
        return path

    registered = registry.register(lambda: 1, name="one", annotations={"title": "One"})
    built = Tool(lambda: 2, name="two", annotations={"openWorldHint": True})
    assert delete.annotations == ALL
    assert look.annotations == {"readOnlyHint": True}
    assert registered.annotations == {"title": "One"}
    assert built.annotations == {"openWorldHint": True}
    assert Tool(lambda: 3, name="three").annotations is None


def test_the_module_decorator_takes_annotations() -> None:
    saved = ToolRegistry.default()
    try:

        @tool(name="annotated_at_module_level", annotations={"readOnlyHint": True})
        def f() -> int:
            return 1

        assert f.annotations == {"readOnlyHint": True}
    finally:
        saved.unregister("annotated_at_module_level")


def test_annotations_are_a_copy(registry: ToolRegistry) -> None:
    given = {"readOnlyHint": True}
    made = registry.register(lambda: 1, name="one", annotations=given)
    given["readOnlyHint"] = False
    assert made.annotations == {"readOnlyHint": True}
    made.annotations["title"] = "changed"  # type: ignore[index]
    assert made.annotations == {"readOnlyHint": True}


@pytest.mark.parametrize(
    ("annotations", "message"),
    [
        ({"readonlyHint": True}, "unknown MCP annotation 'readonlyHint'"),
        ({"destructive": True}, "unknown MCP annotation 'destructive'"),
        ({"readOnlyHint": "yes"}, "annotation 'readOnlyHint' must be a bool, got 'yes'"),
        ({"readOnlyHint": 1}, "must be a bool"),
        ({"title": 3}, "annotation 'title' must be a str"),
        ({1: True}, "unknown MCP annotation 1"),
        (["readOnlyHint"], "annotations must be a mapping"),
    ],
)
def test_wrong_annotations_fail_at_decoration(
    registry: ToolRegistry, annotations: Any, message: str
) -> None:
    with pytest.raises(ToolDefinitionError, match=message) as caught:

        @registry.tool(annotations=annotations)
        def f() -> None:
            """Never registered."""

    assert caught.value.tool == "f"
    assert "f" not in registry


def test_a_built_tool_cannot_take_annotations_at_registration(registry: ToolRegistry) -> None:
    built = Tool(lambda: 1, name="one")
    with pytest.raises(ToolDefinitionError, match="annotations cannot be applied"):
        registry.register(built, annotations={"readOnlyHint": True})


def test_annotations_are_exported_in_the_mcp_format_only(registry: ToolRegistry) -> None:
    @registry.tool(annotations=ALL, tags=["fs"])
    def delete(path: str) -> None:
        """Delete a file."""

    mcp = registry.export("mcp")[0]
    assert mcp["annotations"] == ALL
    assert MCPTool.model_validate(mcp).annotations.destructive_hint is True  # type: ignore[union-attr]
    for fmt in ("openai", "openai-responses", "anthropic", "gemini"):
        assert "annotations" not in str(registry.export(fmt)), fmt


def test_no_annotations_no_key(registry: ToolRegistry) -> None:
    registry.register(lambda: 1, name="one")
    registry.register(lambda: 1, name="two", annotations={})
    assert ["annotations" in t for t in registry.export("mcp")] == [False, False]
