"""The page's static files (app/api/static.py): compressed, served under versioned URLs that
are cached for a year, index.html revalidated; the security headers stay on every answer."""

from __future__ import annotations

import gzip
import posixpath
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.api.static import StaticSite, accepts_gzip
from app.main import STATIC_DIR
from tests.api.test_security import assert_hardened, build

IMMUTABLE = "public, max-age=31536000, immutable"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(build(tmp_path), raise_server_exceptions=False) as test_client:
        yield test_client


def page_refs(html: str) -> list[str]:
    return re.findall(r'(?:href|src)="(/[^"]+)"', html)


def test_the_page_names_its_files_by_version_and_is_revalidated(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert page.headers["cache-control"] == "no-cache"
    assert page.headers["etag"]
    refs = page_refs(page.text)
    version = client.app.state.static.version  # type: ignore[attr-defined]
    assert f"/v/{version}/css/style.css" in refs
    assert f"/v/{version}/js/app.js" in refs
    # Every file the page names is versioned, immutable, and the same bytes as on disk.
    for ref in refs:
        assert ref.startswith(f"/v/{version}/"), ref
        reply = client.get(ref)
        assert reply.status_code == 200, ref
        assert reply.headers["cache-control"] == IMMUTABLE, ref
        assert_hardened(reply)
        name = ref.removeprefix(f"/v/{version}/")
        assert reply.content == (STATIC_DIR / name).read_bytes()
    # A revisit sends the ETag: 304, no body.
    again = client.get("/", headers={"If-None-Match": page.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == page.headers["etag"]


def test_module_imports_resolve_under_the_versioned_prefix(client: TestClient) -> None:
    """The modules import each other by relative URL: every import of every module, resolved
    against its versioned URL, is a versioned, immutable file of the same version."""
    version = client.app.state.static.version  # type: ignore[attr-defined]
    imports = re.compile(r"""(?:from\s+|import\s*\(\s*)["'](\.{1,2}/[^"']+)["']""")
    seen = 0
    for module in sorted((STATIC_DIR / "js").rglob("*.js")):
        folder = module.parent.relative_to(STATIC_DIR).as_posix()
        for spec in imports.findall(module.read_text()):
            # Resolved as the browser does, against the module's own (versioned) URL.
            target = posixpath.normpath(posixpath.join(f"/v/{version}/{folder}", spec))
            assert target.startswith(f"/v/{version}/"), (module.name, spec)
            reply = client.get(target)
            assert reply.status_code == 200, (module.name, spec)
            assert reply.headers["cache-control"] == IMMUTABLE
            seen += 1
    assert seen >= 10


def test_the_table_page_preloads_every_module_of_its_own() -> None:
    """app.js preloads the table page's modules with table.js: none of them is left to be
    found one import level later (a new part of static/js/table/ must be added there)."""
    app_js = (STATIC_DIR / "js" / "app.js").read_text()
    listed = set(re.findall(r'"\./(table(?:\.js|/[\w-]+\.js))"', app_js))
    parts = {f"table/{p.name}" for p in (STATIC_DIR / "js" / "table").glob("*.js")}
    assert parts and parts | {"table.js"} <= listed


def test_the_table_stylesheet_waits_for_the_table_page(client: TestClient) -> None:
    """index.html blocks its first paint on style.css alone; css/table.css is added by app.js
    (a relative, so versioned, URL) for the table and replay pages."""
    html = client.get("/").text
    version = client.app.state.static.version  # type: ignore[attr-defined]
    assert f'<link rel="stylesheet" href="/v/{version}/css/style.css">' in html
    assert "table.css" not in html
    assert '"../css/table.css"' in (STATIC_DIR / "js" / "app.js").read_text()
    reply = client.get(f"/v/{version}/css/table.css")
    assert reply.status_code == 200
    assert reply.headers["cache-control"] == IMMUTABLE


def test_files_are_sent_gzipped_to_browsers_that_accept_it(client: TestClient) -> None:
    version = client.app.state.static.version  # type: ignore[attr-defined]
    for name in ("js/table.js", "css/style.css", "js/lobby.js"):
        plain = client.get(f"/v/{version}/{name}", headers={"Accept-Encoding": "identity"})
        packed = client.get(
            f"/v/{version}/{name}", headers={"Accept-Encoding": "gzip, deflate, br"}
        )
        assert "content-encoding" not in plain.headers
        assert packed.headers["content-encoding"] == "gzip"
        assert packed.headers["vary"] == plain.headers["vary"] == "Accept-Encoding"
        # httpx decodes the body; the bytes on the wire are the Content-Length.
        assert packed.content == plain.content == (STATIC_DIR / name).read_bytes()
        assert int(packed.headers["content-length"]) < len(plain.content) / 2
        assert packed.headers["etag"] != plain.headers["etag"]
    page = client.get("/", headers={"Accept-Encoding": "gzip"})
    assert page.headers["content-encoding"] == "gzip"
    assert_hardened(page)


def test_gzip_body_on_the_wire_is_the_file(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text('<link rel="stylesheet" href="/css/a.css">')
    (tmp_path / "css").mkdir()
    (tmp_path / "css" / "a.css").write_text("body { color: red; }\n" * 200)
    site = StaticSite(tmp_path)
    found, cache = site.find(f"/v/{site.version}/css/a.css")
    assert found is not None and found.gzipped is not None
    assert gzip.decompress(found.gzipped) == found.body
    assert cache == b"public, max-age=31536000, immutable"
    assert site.index is not None
    assert f'href="/v/{site.version}/css/a.css"'.encode() in site.index.body
    # Another file's change is another version (a cached page never mixes old and new files).
    (tmp_path / "css" / "a.css").write_text("body { color: blue; }\n")
    assert StaticSite(tmp_path).version != site.version


def test_old_versions_and_unversioned_paths_are_not_cached_for_long(client: TestClient) -> None:
    for path in ("/v/0123456789abcdef/js/app.js", "/js/app.js", "/css/style.css"):
        reply = client.get(path)
        assert reply.status_code == 200, path
        assert reply.headers["cache-control"] == "no-cache", path
        etag = reply.headers["etag"]
        assert client.get(path, headers={"If-None-Match": etag}).status_code == 304


@pytest.mark.parametrize(
    "path",
    ["/nope.js", "/v/x/js/nope.js", "/v/", "/../pyproject.toml", "/js/../../pyproject.toml"],
)
def test_unknown_files_are_404(client: TestClient, path: str) -> None:
    reply = client.get(path)
    assert reply.status_code == 404
    assert_hardened(reply)


def test_writes_to_static_paths_are_refused(client: TestClient) -> None:
    reply = client.post("/js/app.js", headers={"X-Requested-With": "hearts"})
    assert reply.status_code == 405
    head = client.head("/js/app.js", headers={"Accept-Encoding": "identity"})
    assert head.status_code == 200 and head.content == b""
    assert int(head.headers["content-length"]) == len((STATIC_DIR / "js/app.js").read_bytes())


def test_the_page_has_a_description() -> None:
    html = (STATIC_DIR / "index.html").read_text()
    match = re.search(r'<meta name="description" content="([^"]+)"', html)
    assert match and 50 <= len(match[1]) <= 160


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("gzip", True),
        ("gzip, deflate, br, zstd", True),
        ("deflate, gzip;q=0.5", True),
        ("gzip;q=0", False),
        ("identity", False),
        ("", False),
        ("*", True),
        ("*;q=0", False),
        ("gzip;q=0, *", False),
        ("br;q=1, *;q=0.1", True),
        ("gzip;q=bad", False),
    ],
)
def test_accept_encoding(header: str, expected: bool) -> None:
    assert accepts_gzip(header.encode()) is expected


def test_api_reads_are_gzipped_and_writes_are_not(client: TestClient) -> None:
    presets = client.get("/api/presets", headers={"Accept-Encoding": "gzip"})
    assert presets.status_code == 200
    assert presets.headers["content-encoding"] == "gzip"
    assert "Accept-Encoding" in presets.headers["vary"]
    assert int(presets.headers["content-length"]) < len(presets.content) / 3
    assert presets.json()["options"]
    assert_hardened(presets)
    plain = client.get("/api/presets", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.json() == presets.json()


def test_compress_reads_leaves_writes_and_other_paths_alone() -> None:
    """An answer to a POST carries a session token beside text the client chose: never
    compressed (BREACH), however long; nor paths outside /api/ (the static files are
    compressed by StaticSite, with their own Vary)."""
    from fastapi import FastAPI
    from fastapi.responses import PlainTextResponse

    from app.api.static import CompressReads

    inner = FastAPI()
    body = "token=secret; name=" + "x" * 4000

    @inner.api_route("/api/echo", methods=["GET", "POST"])
    async def echo() -> PlainTextResponse:
        return PlainTextResponse(body)

    @inner.get("/other")
    async def other() -> PlainTextResponse:
        return PlainTextResponse(body)

    with TestClient(CompressReads(inner)) as test_client:  # type: ignore[arg-type]
        gz = {"Accept-Encoding": "gzip"}
        assert test_client.get("/api/echo", headers=gz).headers["content-encoding"] == "gzip"
        for reply in (
            test_client.post("/api/echo", headers=gz),
            test_client.get("/other", headers=gz),
        ):
            assert reply.text == body
            assert "content-encoding" not in reply.headers
            assert int(reply.headers["content-length"]) == len(body)
