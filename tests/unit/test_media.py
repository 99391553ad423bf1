"""Media values (`Image`, `Audio`, `File`): checked when made, and results holding them.

Real bytes of each format (headers are what sniffing reads; WAV is written by the
stdlib's ``wave``), real tools through every call face, the real CLI in-process.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import io
import json
import pickle
import sys
import wave
from pathlib import Path
from typing import Annotated, Any

import pytest

from tooldeck import Audio, File, Image, Injected, ToolDefinitionError, ToolRegistry, ToolResult
from tooldeck._media import is_media, mcp_form, media_from_mcp, media_parts, mentions_media
from tooldeck._result import to_text

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(17)
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(16)
GIF = b"GIF89a" + bytes(10)
WEBP = b"RIFF\x10\x00\x00\x00WEBPVP8 " + bytes(8)
MP3_ID3 = b"ID3\x03\x00\x00\x00\x00\x00\x00" + bytes(10)
MP3_FRAME = b"\xff\xfb\x90\x64" + bytes(20)  # MPEG-1 layer III, 128 kbit/s, 44.1 kHz
OGG = b"OggS\x00\x02" + bytes(20)
FLAC = b"fLaC\x00\x00\x00\x22" + bytes(10)
PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n"


def wav_bytes() -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(bytes(160))
    return buffer.getvalue()


WAV = wav_bytes()


# --- made from bytes: the type read from them --------------------------------------


@pytest.mark.parametrize(
    ("cls", "data", "mime"),
    [
        (Image, PNG, "image/png"),
        (Image, JPEG, "image/jpeg"),
        (Image, GIF, "image/gif"),
        (Image, WEBP, "image/webp"),
        (Audio, WAV, "audio/wav"),
        (Audio, MP3_ID3, "audio/mpeg"),
        (Audio, MP3_FRAME, "audio/mpeg"),
        (Audio, OGG, "audio/ogg"),
        (Audio, FLAC, "audio/flac"),
        (File, PDF, "application/pdf"),
        (File, PNG, "image/png"),  # a File may hold any type
    ],
)
def test_the_type_is_read_from_the_bytes(cls: type[Any], data: bytes, mime: str) -> None:
    value = cls(data)
    assert value.mime_type == mime
    assert value.data is data
    assert value.url is None
    assert value.size == len(data)
    assert value.kind == cls.__name__.lower()
    assert cls(data, mime_type=mime) == value  # the right label is accepted


def test_aliases_and_parameters_of_a_given_type_are_normalised() -> None:
    assert Image(JPEG, mime_type="image/jpg").mime_type == "image/jpeg"
    assert Audio(WAV, mime_type="audio/x-wav").mime_type == "audio/wav"
    assert Audio(MP3_FRAME, mime_type="audio/mp3").mime_type == "audio/mpeg"
    assert File(b"hi", mime_type="Text/Plain; charset=utf-8").mime_type == "text/plain"


def test_a_type_that_cannot_be_sniffed_is_taken_from_mime_type() -> None:
    svg = b'<svg xmlns="http://www.w3.org/2000/svg"/>'
    assert Image(svg, mime_type="image/svg+xml").mime_type == "image/svg+xml"
    assert File(b"a,b\n1,2\n", mime_type="text/csv").mime_type == "text/csv"
    assert File(b"\x00\x01", mime_type="application/octet-stream").size == 2


def test_bytearray_and_memoryview_become_bytes() -> None:
    assert Image(bytearray(PNG)) == Image(PNG)
    assert type(Image(memoryview(PNG)).data) is bytes


# --- refused when made: ValueError saying what is wrong ---------------------------


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda: Image(), "needs data"),
        (lambda: Image(b""), "empty"),
        (lambda: File(b""), "empty"),
        (lambda: Image(b"hello world"), "cannot tell the type"),
        (lambda: File(b"\x00\x01\x02"), "cannot tell the type"),
        (lambda: Image(PNG, mime_type="image/jpeg"), "the bytes are image/png, not image/jpeg"),
        (lambda: Image(b"not an image", mime_type="image/png"), "not image/png"),
        (lambda: File(PNG, mime_type="application/pdf"), "the bytes are image/png"),
        (lambda: File(PNG, mime_type="text/plain"), "the bytes are image/png"),
        (lambda: Image(PDF), "not image/*; use File"),
        (lambda: Image(WAV), "not image/*; use Audio"),
        (lambda: Audio(PNG), "not audio/*; use Image"),
        (lambda: Image(b"x", mime_type="audio/wav"), "not image/*"),
        (lambda: Audio(b"x", mime_type="text/plain"), "not audio/*"),
        (lambda: File(b"\xff\xfe\xfa", mime_type="text/plain"), "UTF-8"),
        (lambda: Image(PNG, mime_type="png"), "not a MIME type"),
        (lambda: Image(PNG, mime_type=3), "mime_type must be a str"),  # type: ignore[arg-type]
        (lambda: Image("text"), "data must be bytes"),  # type: ignore[arg-type]
        (lambda: Image(url="ftp://example.com/a.png"), "http, https or data"),
        (lambda: Image(url="file:///etc/passwd.png"), "http, https or data"),
        (lambda: Image(url="javascript:alert(1)"), "http, https or data"),
        (lambda: Image(url="/local/a.png"), "http, https or data"),
        (lambda: Image(url=b"https://x.org/a.png"), "url must be a str"),  # type: ignore[arg-type]
        (lambda: Image(url="https:///a.png"), "not a valid URL"),
        (lambda: Image(url="https://x.org/a b.png"), "not a valid URL"),
        (lambda: Image(url="https://x.org/chart"), "pass mime_type"),
        (lambda: Image(url="https://x.org/doc.pdf"), "use File"),
        (lambda: Image(url="https://x.org/a.png", mime_type="audio/wav"), "use Audio"),
        (lambda: Image(PNG, url="https://x.org/a.png"), "not both"),
        (lambda: Image(url="data:image/png;base64,!!!"), "base64"),
        (lambda: Image(url="data:image/png;base64"), "','"),
        (lambda: Image(url="data:image/png;base64,"), "empty"),
        (
            lambda: Image(url="data:image/jpeg;base64," + base64.b64encode(PNG).decode()),
            "not image/jpeg",
        ),
        (
            lambda: Image(
                url="data:image/png;base64," + base64.b64encode(PNG).decode(), mime_type="image/gif"
            ),
            "contradicts",
        ),
        (lambda: File(PDF, name=""), "name"),
        (lambda: File(PDF, name=3), "name"),  # type: ignore[arg-type]
    ],
)
def test_what_cannot_be_a_media_value_is_refused_when_made(make: Any, says: str) -> None:
    with pytest.raises(ValueError, match=r"^(Image|Audio|File)") as caught:
        make()
    assert says in str(caught.value)


def test_from_path_reads_the_type_from_the_bytes_else_the_suffix(tmp_path: Path) -> None:
    (tmp_path / "chart.bin").write_bytes(PNG)
    (tmp_path / "notes.txt").write_text("héllo", encoding="utf-8")
    (tmp_path / "report.pdf").write_bytes(PDF)
    (tmp_path / "beep.wav").write_bytes(WAV)
    assert Image.from_path(tmp_path / "chart.bin") == Image(PNG)  # bytes win over no suffix
    assert Image.from_path(str(tmp_path / "chart.bin")).name is None
    notes = File.from_path(tmp_path / "notes.txt")
    assert (notes.mime_type, notes.name, notes.data) == (
        "text/plain",
        "notes.txt",
        "héllo".encode(),
    )
    report = File.from_path(tmp_path / "report.pdf", name="Q3.pdf")
    assert (report.name, report.mime_type) == ("Q3.pdf", "application/pdf")
    assert Audio.from_path(tmp_path / "beep.wav").mime_type == "audio/wav"
    assert File.from_path(tmp_path / "chart.bin", mime_type="image/png").name == "chart.bin"


def test_from_path_refuses_with_value_error(tmp_path: Path) -> None:
    (tmp_path / "empty.png").write_bytes(b"")
    (tmp_path / "fake.png").write_bytes(b"not a png at all")
    (tmp_path / "blob").write_bytes(b"\x00\x01\x02")
    (tmp_path / "latin.txt").write_bytes("é".encode("latin-1"))
    with pytest.raises(ValueError, match="cannot read") as missing:
        Image.from_path(tmp_path / "missing.png")
    assert isinstance(missing.value.__cause__, FileNotFoundError)
    with pytest.raises(ValueError, match="cannot read"):
        File.from_path(tmp_path)  # a directory
    with pytest.raises(ValueError, match="empty"):
        Image.from_path(tmp_path / "empty.png")
    with pytest.raises(ValueError, match="not image/png"):
        Image.from_path(tmp_path / "fake.png")
    with pytest.raises(ValueError, match="cannot tell"):
        File.from_path(tmp_path / "blob")
    with pytest.raises(ValueError, match="UTF-8"):
        File.from_path(tmp_path / "latin.txt")


# --- URLs ----------------------------------------------------------------------------


def test_a_url_only_value_keeps_its_url_and_guesses_its_type_from_the_path() -> None:
    chart = Image(url="https://example.com/img/chart.png?v=2")
    assert (chart.url, chart.data, chart.size, chart.base64) == (
        "https://example.com/img/chart.png?v=2",
        None,
        None,
        None,
    )
    assert chart.mime_type == "image/png"
    assert Image(url="http://x.org/raw", mime_type="image/webp").mime_type == "image/webp"
    doc = File(url="https://x.org/files/annual%20report.pdf")
    assert (doc.name, doc.mime_type) == ("annual report.pdf", "application/pdf")
    assert File(url="https://x.org/", mime_type="application/pdf").name is None
    with pytest.raises(ValueError, match="URL-only"):
        chart.data_url()


def test_a_data_url_is_decoded_into_data() -> None:
    from_url = Image(url="data:image/png;base64," + base64.b64encode(PNG).decode())
    assert from_url == Image(PNG)
    assert from_url.url is None
    text = File(url="data:text/plain,hello%20world")
    assert (text.data, text.mime_type) == (b"hello world", "text/plain")
    assert Image(url="data:;base64," + base64.b64encode(GIF).decode()).mime_type == "image/gif"


# --- what a value offers ---------------------------------------------------------------


def test_values_are_immutable_hashable_and_equal_by_content() -> None:
    image = Image(PNG)
    with pytest.raises(AttributeError):
        image.data = JPEG  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del image.mime_type
    with pytest.raises(AttributeError):
        image.extra = 1  # type: ignore[attr-defined]
    assert Image(bytes(PNG)) == image
    assert hash(Image(bytes(PNG))) == hash(image)
    assert len({image, Image(PNG), Image(JPEG)}) == 2
    assert image != File(PNG)  # same bytes, another kind
    assert File(PDF, name="a.pdf") != File(PDF, name="b.pdf")
    assert image != PNG
    for copied in (copy.copy(image), copy.deepcopy(image), pickle.loads(pickle.dumps(image))):
        assert copied == image
    named = File(PDF, name="r.pdf")
    assert pickle.loads(pickle.dumps(named)) == named


def test_repr_is_short_and_never_the_bytes() -> None:
    big = Image(PNG + bytes(50 * 1024 * 1024))
    assert repr(big) == "Image(size=52428833, mime_type='image/png')"
    assert (
        repr(File(PDF, name="r.pdf"))
        == f"File(name='r.pdf', size={len(PDF)}, mime_type='application/pdf')"
    )
    assert (
        repr(Image(url="https://x.org/a.png"))
        == "Image(url='https://x.org/a.png', mime_type='image/png')"
    )
    assert Image.__module__ == "tooldeck"


def test_base64_is_computed_once_and_kept() -> None:
    image = Image(PNG)
    first = image.base64
    assert first == base64.b64encode(PNG).decode()
    assert image.base64 is first
    assert image.data_url() == "data:image/png;base64," + first


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (Image(PNG), f"[image: image/png, {len(PNG)} bytes]"),
        (Audio(WAV), f"[audio: audio/wav, {len(WAV)} bytes]"),
        (File(PDF, name="report.pdf"), f"[file: report.pdf, application/pdf, {len(PDF)} bytes]"),
        (File(b"hi", mime_type="text/plain"), "[file: text/plain, 2 bytes]"),
        (Image(url="https://x.org/chart.png"), "[image: https://x.org/chart.png]"),
        (File(url="https://x.org/q3.pdf"), "[file: q3.pdf, https://x.org/q3.pdf]"),
    ],
)
def test_placeholder(value: Any, text: str) -> None:
    assert value.placeholder == text


# --- MCP content, both ways --------------------------------------------------------------


def test_to_mcp_shapes() -> None:
    b64 = base64.b64encode(PNG).decode()
    assert Image(PNG).to_mcp() == {"type": "image", "data": b64, "mimeType": "image/png"}
    assert Audio(WAV).to_mcp()["type"] == "audio"
    assert File(PDF, name="r.pdf").to_mcp() == {
        "type": "resource",
        "resource": {
            "uri": "file:///r.pdf",
            "mimeType": "application/pdf",
            "blob": base64.b64encode(PDF).decode(),
        },
    }
    text = File("héllo".encode(), mime_type="text/markdown").to_mcp()["resource"]
    assert text["text"] == "héllo"
    assert "blob" not in text
    assert text["uri"].startswith("tooldeck://media/")
    assert Image(url="https://x.org/a/chart.png").to_mcp() == {
        "type": "resource_link",
        "uri": "https://x.org/a/chart.png",
        "name": "chart.png",
        "mimeType": "image/png",
    }


def test_to_mcp_is_accepted_by_the_mcp_types() -> None:
    types = pytest.importorskip("mcp.types")
    adapter = __import__("pydantic").TypeAdapter(types.ContentBlock)
    for value in (
        Image(PNG),
        Audio(WAV),
        File(PDF, name="r.pdf"),
        File(b"hi", mime_type="text/plain"),
        Image(url="https://x.org/a.png"),
        File(url="https://x.org/r.pdf"),
    ):
        block = adapter.validate_python(value.to_mcp())
        assert (
            media_from_mcp(block.model_dump(mode="json", exclude_none=True, by_alias=True)) == value
        )


def test_media_from_mcp() -> None:
    assert media_from_mcp({"type": "text", "text": "hi"}) == "hi"
    b64 = base64.b64encode(PNG).decode()
    # a blob resource is a File, whatever its type (DESIGN); a resource link by its type
    blob = {
        "type": "resource",
        "resource": {"uri": "s3://b/k", "mimeType": "image/png", "blob": b64},
    }
    assert media_from_mcp(blob) == File(PNG)
    link = {
        "type": "resource_link",
        "uri": "https://x.org/a.wav",
        "name": "a",
        "mimeType": "audio/wav",
    }
    assert media_from_mcp(link) == Audio(url="https://x.org/a.wav")
    untyped = {"type": "resource_link", "uri": "https://x.org/a", "name": "a"}
    with pytest.raises(ValueError, match="pass mime_type"):
        media_from_mcp(untyped)
    text = {"type": "resource", "resource": {"uri": "file:///n.txt", "text": "hé"}}
    assert media_from_mcp(text) == File("hé".encode(), mime_type="text/plain", name="n.txt")
    with pytest.raises(ValueError, match="unknown MCP content type"):
        media_from_mcp({"type": "video"})
    with pytest.raises(ValueError, match="base64"):
        media_from_mcp({"type": "image", "data": "!!", "mimeType": "image/png"})
    with pytest.raises(ValueError, match="not image/jpeg"):
        media_from_mcp({"type": "image", "data": b64, "mimeType": "image/jpeg"})


def test_helpers_find_media_by_exact_class() -> None:
    image = Image(PNG)
    assert is_media(image) and not is_media(PNG) and not is_media("[image]")
    assert media_parts(image) == [image]
    assert media_parts(("a", image)) == ["a", image]
    assert media_parts(["a", 1]) is None
    assert media_parts({"image": image}) is None  # a dict is one JSON value, not parts
    assert mentions_media(list[str | Image]) and mentions_media(Annotated[Audio | None, "x"])
    assert not mentions_media(list[str]) and not mentions_media(int)
    assert mcp_form([1, {"a": (image,)}]) == [1, {"a": [image.to_mcp()]}]
    plain = {"a": [1, 2]}
    assert mcp_form(plain) is plain


# --- results holding media ------------------------------------------------------------------


def test_text_of_results_holding_media() -> None:
    image = Image(PNG)
    shown = f"[image: image/png, {len(PNG)} bytes]"
    assert str(ToolResult.ok(image)) == shown
    parts = ["Sales, 2024:", image, {"total": 3}, 7, None, "naïve"]
    assert str(ToolResult.ok(parts)) == f'Sales, 2024:\n{shown}\n{{"total": 3}}\n7\nnull\nnaïve'
    assert to_text(("a", image)) == f"a\n{shown}"
    # deeper media: its placeholder inside the JSON
    assert to_text({"chart": image, "n": [1, image]}) == json.dumps(
        {"chart": shown, "n": [1, shown]}
    )
    # a list is parts only when media is among its items; deeper, it is JSON
    assert to_text(["a", ["b", image]]) == json.dumps(["a", ["b", shown]])
    # without media, today's JSON exactly
    assert to_text(["a", 1, {"b": None}]) == '["a", 1, {"b": null}]'
    assert to_text([]) == "[]"


def test_to_dict_is_json_for_media_results() -> None:
    image, doc = Image(PNG), File(PDF, name="r.pdf")
    assert ToolResult.ok(image).to_dict() == {
        "success": True,
        "data": image.to_mcp(),
        "error": None,
    }
    data = ToolResult.ok(["caption", image, doc]).to_dict()["data"]
    assert data == ["caption", image.to_mcp(), doc.to_mcp()]
    nested = ToolResult.ok({"page": [image]}).to_dict()
    assert json.loads(json.dumps(nested)) == {
        "success": True,
        "data": {"page": [image.to_mcp()]},
        "error": None,
    }
    plain = {"a": [1]}
    assert ToolResult.ok(plain).to_dict()["data"] is plain


# --- tools returning media, on every face -----------------------------------------------------


def _registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def chart(year: int) -> list[str | Image]:
        """A chart."""
        return [f"Sales {year}:", Image(PNG)]

    @registry.tool
    async def shot() -> Image | None:
        """A screenshot."""
        return Image(PNG)

    @registry.tool
    def report() -> File:
        """A report."""
        return File(PDF, name="r.pdf")

    @registry.tool
    def rows() -> list:  # type: ignore[type-arg]
        """Rows."""
        return [Image(PNG)]

    @registry.tool
    def wrapped() -> ToolResult:
        """A ToolResult holding media."""
        return ToolResult.ok(Audio(WAV))

    return registry


@pytest.mark.timeout(30)
def test_every_face_returns_media_as_values() -> None:
    registry = _registry()
    parts = ["Sales 2024:", Image(PNG)]
    assert registry.call_tool("chart", {"year": "2024"}) == parts
    assert asyncio.run(registry.async_call_tool("chart", {"year": 2024})) == parts
    assert registry.execute_sync("chart", {"year": 2024}) == ToolResult.ok(parts)
    assert asyncio.run(registry.execute("shot", {})) == ToolResult.ok(Image(PNG))
    assert registry.call_tool("shot", {}) == Image(PNG)
    assert registry.call_tool("report", {}) == File(PDF, name="r.pdf")
    assert registry.call_tool("wrapped", {}) == Audio(WAV)
    assert registry.get("chart").call(year=1) == ["Sales 1:", Image(PNG)]  # type: ignore[union-attr]
    assert asyncio.run(registry.get("rows").run()) == ToolResult.ok([Image(PNG)])  # type: ignore[union-attr]
    assert str(registry.execute_sync("chart", {"year": 1})) == f"Sales 1:\n{Image(PNG).placeholder}"


def test_media_return_annotations_give_no_output_schema() -> None:
    registry = _registry()
    for name in ("chart", "shot", "report", "wrapped"):
        assert registry.get(name).returns is None, name  # type: ignore[union-attr]
    assert registry.get("rows").returns == {"type": "array", "items": {}}  # type: ignore[union-attr]
    exported = {t["name"]: t for t in registry.export("mcp")}
    assert "outputSchema" not in exported["chart"] or exported["chart"]["outputSchema"] is None
    assert exported["rows"]["outputSchema"]["properties"]["result"] == {
        "type": "array",
        "items": {},
    }


@pytest.mark.parametrize(
    "annotation", [Image, Audio | None, list[File], Annotated[Image, "a picture"]]
)
def test_media_parameters_are_refused_at_definition(annotation: Any) -> None:
    def look(picture: Any) -> str:
        return "seen"

    look.__annotations__["picture"] = annotation
    with pytest.raises(ToolDefinitionError, match="results, not arguments") as caught:
        ToolRegistry().register(look)
    assert caught.value.param == "picture"


def test_an_injected_media_parameter_is_not_refused() -> None:
    registry = ToolRegistry()

    @registry.tool
    def caption(text: str, logo: Annotated[Image | None, Injected] = None) -> list[Any]:
        """Caption with the context's logo."""
        return [text, logo]

    assert registry.call_tool("caption", {"text": "hi"}, context={"logo": Image(PNG)}) == [
        "hi",
        Image(PNG),
    ]


@pytest.mark.timeout(60)
def test_cli_call_prints_the_placeholder_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tooldeck.cli import main

    module = tmp_path / "media_tools.py"
    module.write_text(
        "from tooldeck import Image, tool, ToolRegistry\n"
        "registry = ToolRegistry()\n"
        f"PNG = {PNG!r}\n"
        "@registry.tool\n"
        "def chart() -> list:\n"
        "    '''A chart.'''\n"
        "    return ['Sales:', Image(PNG), {'chart': Image(PNG)}]\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    status = main(["call", "chart", "--tools", f"{module}:registry"])
    out = capsys.readouterr().out
    shown = Image(PNG).placeholder
    assert status == 0
    assert out == f"Sales:\n{shown}\n" + json.dumps({"chart": shown}) + "\n"


def test_a_50_mb_image_is_cheap_to_make_and_to_read_as_text() -> None:
    data = PNG + bytes(50 * 1024 * 1024)
    big = Image(data)
    assert big.data is data  # no copy
    text = str(ToolResult.ok(["a 50 MB chart:", big]))
    assert text == f"a 50 MB chart:\n[image: image/png, {len(data)} bytes]"
    assert big._b64 is None  # the text never encodes it
    assert len(repr(big)) < 60


def test_only_a_file_has_a_name(tmp_path: Path) -> None:
    (tmp_path / "chart.png").write_bytes(PNG)
    with pytest.raises(TypeError):
        Image(PNG, name="chart.png")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="only a File has a name"):
        Image.from_path(tmp_path / "chart.png", name="x.png")
    assert Image(PNG).name is None and Audio(WAV).name is None


@pytest.mark.parametrize(
    "text", [b"ID3 tags, explained", b"OggS is Ogg's capture pattern", b"%PDF-1.7 in plain words"]
)
def test_utf8_text_labelled_text_is_text_even_when_it_starts_like_a_format(text: bytes) -> None:
    # The magic numbers that UTF-8 text can start with are ASCII words; PNG's and
    # JPEG's cannot be UTF-8, so those are still refused as text.
    assert File(text, mime_type="text/plain").data == text
    with pytest.raises(ValueError, match="the bytes are image/png"):
        File(PNG, mime_type="text/plain")
