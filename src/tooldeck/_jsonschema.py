"""Cleaning a generated JSON Schema for a model's eyes.

Pydantic's schemas carry a ``title`` on every property and model, a root
``description`` (the model docstring, which the tool's description already says),
``$defs`` + ``$ref`` for every nested model, and ``additionalProperties: false`` for
a closed model. A tool schema is read by a language model on every request, so
`clean_schema` drops the noise and inlines every ``$ref`` that is not
recursive (a recursive model keeps ``$defs`` for the part that recurses).

Also here: `JsonSchemaGenerator`, pydantic's generator made cheaper and more exact;
and for the same JSON-shaped data `copy_json`, a deep copy of dicts and lists, and
`share_leaves`, which makes identical small schemas one shared object.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from pydantic.json_schema import CoreSchemaOrFieldType, GenerateJsonSchema, JsonRef, JsonSchemaMode
from pydantic_core import PydanticOmit, to_jsonable_python
from pydantic_core import core_schema as cs
from typing_inspection.introspection import get_literal_values

__all__ = [
    "DATA_KEYWORDS",
    "MAP_KEYWORDS",
    "JsonSchemaGenerator",
    "clean_schema",
    "copy_json",
    "share_leaves",
]

try:  # pydantic's (private) result of naming the definitions; see `_build_definitions_remapping`
    from pydantic.json_schema import _DefinitionsRemapping
except ImportError:  # pragma: no cover - a pydantic without it: its own search throughout
    _DefinitionsRemapping = None  # type: ignore[assignment,misc]

# Keywords whose values are data, not schemas: never rewritten.
DATA_KEYWORDS = frozenset({"default", "examples", "example", "const", "enum"})
# Keywords whose values map names to schemas.
MAP_KEYWORDS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)


def clean_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A fresh, clean copy of a root object schema (see the module docstring)."""
    defs: dict[str, Any] = {}
    for key in ("$defs", "definitions"):
        defs.update(schema.get(key, {}))
    recursive: dict[str, Any] = {}
    root = {k: v for k, v in schema.items() if k not in ("$defs", "definitions")}
    cleaned: dict[str, Any] = _clean(root, defs, (), recursive)
    cleaned.pop("title", None)
    cleaned.pop("description", None)
    if cleaned.get("additionalProperties") is False:
        # Unknown arguments are rejected by validation, but a non-strict schema does
        # not advertise it (seed 002's exact JSON has no such key).
        del cleaned["additionalProperties"]
    if cleaned.get("type") == "object" and "properties" not in cleaned:
        cleaned["properties"] = {}
    if recursive:
        cleaned["$defs"] = recursive
    return cleaned


def _clean(
    node: Any, defs: dict[str, Any], stack: tuple[str, ...], recursive: dict[str, Any]
) -> Any:
    if isinstance(node, list):
        return [_clean(item, defs, stack, recursive) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(("#/$defs/", "#/definitions/")):
        return _inline(node, ref, defs, stack, recursive)
    # "type" first, as people write schemas (seed 002's JSON reads type, properties...).
    out: dict[str, Any] = {"type": node["type"]} if "type" in node else {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in DATA_KEYWORDS:
            out[key] = value
        elif key == "discriminator" and isinstance(value, dict):
            # Its "mapping" points at $defs entries that inlining removes.
            out[key] = {k: v for k, v in value.items() if k != "mapping"}
        elif key in MAP_KEYWORDS and isinstance(value, dict):
            out[key] = {k: _clean(v, defs, stack, recursive) for k, v in value.items()}
        else:
            out[key] = _clean(value, defs, stack, recursive)
    return out


def _inline(
    node: dict[str, Any],
    ref: str,
    defs: dict[str, Any],
    stack: tuple[str, ...],
    recursive: dict[str, Any],
) -> dict[str, Any]:
    name = ref.rsplit("/", 1)[-1]
    siblings = {k: v for k, v in node.items() if k != "$ref" and k != "title"}
    if name in stack or name not in defs:
        # Recursion: keep the reference, and the definition it points to.
        if name in defs and name not in recursive:
            recursive[name] = {}  # placeholder breaks cycles while cleaning
            recursive[name] = _clean(defs[name], defs, (name,), recursive)
        return {"$ref": f"#/$defs/{name}", **_clean(siblings, defs, stack, recursive)}
    target: dict[str, Any] = _clean(defs[name], defs, (*stack, name), recursive)
    target.update(_clean(siblings, defs, stack, recursive))
    return target


class JsonSchemaGenerator(GenerateJsonSchema):
    """pydantic's generator, minus its per-instance cost.

    ``GenerateJsonSchema.__init__`` rebuilds a table of ~70 handler methods from the
    ``CoreSchemaOrFieldType`` literal every time; a tool needs two generators, so the
    table's method names are computed once per class and only bound per instance.
    """

    _names: ClassVar[tuple[tuple[str, str], ...] | None] = None

    def build_schema_type_to_method(self) -> dict[Any, Callable[[Any], Any]]:
        names = type(self)._names
        if names is None:
            keys = get_literal_values(CoreSchemaOrFieldType)
            names = tuple((k, f"{k.replace('-', '_')}_schema") for k in keys)
            type(self)._names = names
        return {key: getattr(self, name) for key, name in names}

    # Two shortcuts through pydantic's generator for the common case, each taking
    # pydantic's own way whenever it does not apply (`tests/property/
    # test_json_schema_properties.py` holds them to the same output as without them).

    def generate(self, schema: Any, mode: JsonSchemaMode = "validation") -> dict[str, Any]:
        # Without definitions (no model, no recursive type), pydantic's three passes
        # over the result — count the $refs, garbage-collect and remap the definitions —
        # change nothing: the result is the sorted schema.
        if self._used or _has_refs(schema):  # a used generator: pydantic's error
            return super().generate(schema, mode)
        self._mode = mode
        json_schema = self.generate_inner(schema)
        if self.definitions or self.core_to_json_refs:  # made by a JSON-schema hook
            return type(self)()._generate_by_pydantic(schema, mode)
        self._used = True
        return self.sort(json_schema)

    def _generate_by_pydantic(self, schema: Any, mode: JsonSchemaMode) -> dict[str, Any]:
        return super().generate(schema, mode)

    def _build_definitions_remapping(self) -> Any:
        # pydantic names each definition by the first of its candidate names (`Address`,
        # `Address-Input`, `module__Address`...) that no other definition's candidates
        # take with a different schema, deduplicating every candidate's schemas — a
        # third of a definition with models. When no other definition has a
        # definition's first candidate among its own, that first candidate is what its
        # search picks: named so, without the search.
        choices = getattr(self, "_prioritized_defsref_choices", None)
        definitions = self.definitions
        if (
            _DefinitionsRemapping is None
            or not isinstance(choices, dict)
            or not all(choices.get(d) for d in definitions)
        ):
            return super()._build_definitions_remapping()
        claims = Counter(alt for defs_ref in definitions for alt in set(choices[defs_ref]))
        if any(claims[choices[d][0]] != 1 for d in definitions):  # a collision: search
            return super()._build_definitions_remapping()
        template = self.ref_template
        defs_remapping, json_remapping = {}, {}
        for defs_ref in definitions:
            first = choices[defs_ref][0]
            defs_remapping[defs_ref] = first
            target = JsonRef(template.format(model=first))
            for alternative in choices[defs_ref]:  # every candidate's $ref: the first's
                json_remapping[JsonRef(template.format(model=alternative))] = target
        return _DefinitionsRemapping(defs_remapping, json_remapping)

    def generate_inner(self, schema: Any) -> dict[str, Any]:
        # A node without ``ref``, metadata (the JSON-schema hooks) or a serialization
        # schema goes straight to its handler, where pydantic would wrap the same call
        # in a handler object and two closures (a third of the generation time).
        if "ref" in schema or schema.get("metadata") or "serialization" in schema:
            return super().generate_inner(schema)
        method = self._schema_type_to_method.get(schema["type"])
        if method is None:
            return super().generate_inner(schema)  # its error for an unknown type
        return method(schema)

    def get_decimal_pattern(self, schema: cs.DecimalSchema) -> str | None:
        # pydantic describes a Decimal's string form as any string by default, but only
        # numbers parse: the pattern says which strings the validator takes.
        return self.build_decimal_pattern(schema)

    def encode_default(self, dft: Any) -> Any:
        # pydantic builds a TypeAdapter per default value to encode it (~13% of a
        # definition); JSON-compatible encoding of the value itself says the same.
        try:
            return to_jsonable_python(dft, by_alias=True)
        except Exception as exc:
            raise PydanticOmit from exc


def _has_refs(core: Any) -> bool:
    """Whether a core schema has a ``ref`` anywhere: a node JSON Schema would define."""
    stack = [core]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "ref" in node or node.get("type") == "definitions":
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def copy_json(value: Any) -> Any:
    """A deep copy of JSON-shaped data (dicts and lists; other values are shared)."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value


# -- sharing leaves -------------------------------------------------------------------------
# Thousands of tools repeat the same small schemas ({"type": "integer"}, a string with a
# format...). A spec's schemas are never changed after it is built (they are handed out as
# copies), so identical leaves can be one object: a few hundred bytes less per tool.

_LEAVES: dict[tuple[tuple[str, type, Any], ...], dict[str, Any]] = {}
_MAX_LEAVES = 4096


def share_leaves(node: Any) -> Any:
    """``node`` with every scalar-only dict replaced by one shared, equal dict."""
    if isinstance(node, list):
        return [share_leaves(item) for item in node]
    if not isinstance(node, dict):
        return node
    values = node.values()
    if all(v is None or isinstance(v, (str, int, float)) for v in values):
        key = tuple((k, type(v), v) for k, v in node.items())
        shared = _LEAVES.get(key)
        if shared is None:
            if len(_LEAVES) >= _MAX_LEAVES:
                return node
            shared = _LEAVES[key] = node
        return shared
    return {k: (v if k in DATA_KEYWORDS else share_leaves(v)) for k, v in node.items()}
