"""`urchin lsp` driven by a real Language Server Protocol client
(`pytest-lsp`, on `pygls` and `lsprotocol`): a type error's diagnostic
at its range, the type of `xs + 1` on hover, AUTOMAP's inserted `map` as
an inlay hint, go to definition, and completion of `f64.sq`.

Run by tests/it/clients.rs (`cargo test`), which sets URCHIN to the
built binary.
"""

import os

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

URCHIN = os.environ.get("URCHIN", "urchin")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[URCHIN, "lsp"]))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=types.ClientCapabilities())
    )
    yield
    await lsp_client.shutdown_session()


def position(text: str, needle: str, after: int = 0) -> types.Position:
    """The position of `needle` in `text` (plus `after` characters)."""
    at = text.index(needle) + after
    line = text.count("\n", 0, at)
    return types.Position(line=line, character=at - (text.rfind("\n", 0, at) + 1))


async def open_document(client: LanguageClient, tmp_path, text: str) -> str:
    path = tmp_path / "program.fut"
    path.write_text(text)
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="futhark", version=1, text=text
            )
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return uri


@pytest.mark.asyncio
async def test_a_type_error_at_its_range(client: LanguageClient, tmp_path):
    text = "def ok (x: i32) = x\n\ndef bad (x: i32) : bool = x + 1\n"
    uri = await open_document(client, tmp_path, text)
    [d] = client.diagnostics[uri]
    assert d.severity == types.DiagnosticSeverity.Error
    assert d.range.start.line == 2
    assert d.range.start == position(text, "x + 1")
    assert d.range.end == position(text, "x + 1", len("x + 1"))
    # Fixing it clears the diagnostic.
    fixed = text.replace(": bool", "")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert not client.diagnostics[uri]


@pytest.mark.asyncio
async def test_an_ambiguity_lists_its_readings(client: LanguageClient, tmp_path):
    text = "def ambig (xss: [][]i32) = i64.sum (length xss)\n"
    uri = await open_document(client, tmp_path, text)
    [d] = client.diagnostics[uri]
    assert "ambiguous" in d.message
    # Every reading, and the applications whose choice differs.
    assert "i64.sum (map length xss)" in d.message, d.message
    assert "i64.sum (rep (length xss))" in d.message, d.message
    assert d.related_information, d


@pytest.mark.asyncio
async def test_hover_shows_the_type(client: LanguageClient, tmp_path):
    text = "def f (xs: []f64) = xs + 1\n"
    uri = await open_document(client, tmp_path, text)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(text, "+ 1"),
        )
    )
    assert "xs + 1 : []f64" in hover.contents.value
    assert hover.range.start == position(text, "xs + 1")


@pytest.mark.asyncio
async def test_inlay_hints_show_the_inserted_map(client: LanguageClient, tmp_path):
    text = "def f (xs: []f64) = xs + 1\n"
    uri = await open_document(client, tmp_path, text)
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=position(text, "def"), end=position(text, "\n")),
        )
    )
    labels = {(h.position.character, h.label) for h in hints}
    assert (position(text, "xs + 1").character, "map2") in labels, labels
    assert (position(text, "1\n").character, "rep") in labels, labels


@pytest.mark.asyncio
async def test_go_to_definition(client: LanguageClient, tmp_path):
    text = "def sq (x: f64) = x * x\n\ndef g (y: f64) = sq y\n"
    uri = await open_document(client, tmp_path, text)
    location = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(text, "sq y"),
        )
    )
    assert location.uri == uri
    assert location.range.start == position(text, "sq (x")


@pytest.mark.asyncio
async def test_completion_of_a_module_member(client: LanguageClient, tmp_path):
    text = "def r (x: f64) = f64.sq\n"
    uri = await open_document(client, tmp_path, text)
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(text, "f64.sq", len("f64.sq")),
        )
    )
    items = result.items if isinstance(result, types.CompletionList) else result
    sqrt = [i for i in items if i.label == "f64.sqrt"]
    assert sqrt, [i.label for i in items]
    assert sqrt[0].text_edit.range.start == position(text, "f64.sq")
