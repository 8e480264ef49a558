"""Resources: the workspace's files as ``file:///{path}``, and the conformance suite's fixtures.

Why these URIs: a resource URI names a file *relative to the workspace root*
(``file:///docs/guide.md`` is ``<workspace>/docs/guide.md``), the spec's own
template for "files in the project directory" (2025-11-25 server/resources,
resource templates). A URI is untrusted input like a tool's path argument: the
``resolve_resource`` seam decodes it once and keeps it inside the workspace
(2025-11-25: servers MUST validate all resource URIs; 2026-07-28: MUST sanitize
file paths against traversal). Binary files go out as base64 ``blob`` with a
MIME type (``resource_contents``: binary data MUST be properly encoded).

No subscriptions: this server would have to watch files and push
``notifications/resources/updated``, which it cannot do over HTTP (it offers
no GET stream), so ``subscribe`` is not advertised and
``resources/subscribe`` is -32601. The listing may change between calls
(files come and go); ``listChanged`` is false because no notification is sent.
"""
from __future__ import annotations

import base64
import os
import stat

from reference_server.errors import INVALID_PARAMS, ProtocolError
from reference_server.route import current
from reference_server.seam_call import call as call_seam
from reference_server.table import SEAMS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

RESOURCE_NOT_FOUND = -32002
"""2025-11-25 server/resources#error-handling (SHOULD); 2026-07-28 uses -32602 instead (MUST)."""
FILE_TEMPLATE = "file:///{path}"
MAX_LISTED_FILES = 1000
MAX_WALKED_ENTRIES = 10_000
MAX_READ_BYTES = 1024 * 1024
TEXT_TYPES = frozenset({"application/json", "application/xml", "application/javascript", "application/x-sh",
                        "application/toml", "application/yaml", "image/svg+xml"})
"""MIME types outside ``text/*`` that are text; any of them that is not valid UTF-8 still goes out as a blob."""

WORKSPACE_TEMPLATE = {
    "uriTemplate": FILE_TEMPLATE,
    "name": "workspace_file",
    "title": "Workspace files",
    "description": "Any regular file in the workspace, by its path relative to the workspace root, e.g. "
                   "file:///docs/guide.md. Percent-encode characters that are not allowed in a URI.",
}


def _refuse(uri: Any, reason: str) -> PermissionError:
    shown = uri if not isinstance(uri, str) or len(uri) <= 200 else uri[:200] + "..."
    return PermissionError(f"resource URI {shown!r} refused: {reason}")


def resolve_resource(uri: str, root: Path) -> Path:
    """Seam: the file a ``file:///{path}`` URI names inside ``root``, or ``PermissionError`` naming the URI.

    Only the ``file`` scheme with no host (or ``localhost``) is served. The path is percent-decoded once, here,
    before the check, so ``%2e%2e`` is the ``..`` it stands for; the decoded path goes through the
    ``resolve_path`` seam (symlinks resolved, path-aware containment, NUL bytes and over-long paths refused).
    """
    from urllib.parse import unquote, urlsplit

    if not isinstance(uri, str):
        raise _refuse(uri, "not a string")
    try:
        parts = urlsplit(uri)
    except ValueError:
        raise _refuse(uri, "not a valid URI") from None
    if parts.scheme != "file":
        raise _refuse(uri, "only file:/// URIs are served")
    if parts.netloc not in ("", "localhost"):
        raise _refuse(uri, "file URIs on another host are not served")
    if parts.query or parts.fragment:
        raise _refuse(uri, "a query or fragment is not part of a file URI here")
    try:
        path = unquote(parts.path, errors="strict")
    except UnicodeDecodeError:
        raise _refuse(uri, "its percent-escapes are not UTF-8") from None
    return call_seam("resolve_path", root, path.lstrip("/") or ".")


def resource_contents(uri: str, data: bytes, mime_type: str | None) -> dict[str, Any]:
    """Seam: one ``contents`` entry: ``text`` for UTF-8 text, else ``blob`` (base64), always with a ``mimeType``."""
    textual = mime_type is None or mime_type.startswith("text/") or mime_type in TEXT_TYPES
    if textual and b"\x00" not in data:
        try:
            return {"uri": uri, "mimeType": mime_type or "text/plain", "text": data.decode("utf-8")}
        except UnicodeDecodeError:
            pass
    return {"uri": uri, "mimeType": mime_type or "application/octet-stream",
            "blob": base64.b64encode(data).decode("ascii")}


def resource_not_found(uri: str, modern: bool) -> ProtocolError:
    """Seam: the error for a resource that does not exist: -32002 in the handshake era (2025-11-25 SHOULD),
    -32602 in 2026-07-28 (MUST), with the URI in ``data``."""
    code = INVALID_PARAMS if modern else RESOURCE_NOT_FOUND
    return ProtocolError(code, "Resource not found", {"uri": uri[:1000]})


_MIME_TABLE: list[Any] = []


def guess_mime_type(name: str) -> str | None:
    """The MIME type Python's own table gives the name (not the machine's /etc/mime.types: the same everywhere)."""
    if not _MIME_TABLE:
        import mimetypes

        _MIME_TABLE.append(mimetypes.MimeTypes())
    mime, _encoding = _MIME_TABLE[0].guess_type(name, strict=False)
    return mime


def read_regular_file(path: Path) -> bytes | None:
    """The bytes of a regular file (at most ``MAX_READ_BYTES``), or None when there is none at ``path``.

    Opened without following a final symlink and without blocking (a FIFO is not a file); checked on the open
    descriptor. Raises ProtocolError for a file too large to send whole."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        if info.st_size > MAX_READ_BYTES:
            raise ProtocolError(INVALID_PARAMS, f"Invalid params: the resource is {info.st_size} bytes, more than "
                                f"{MAX_READ_BYTES} can be sent whole; read part of it with the read_file tool")
        chunks, size = [], 0
        while size <= MAX_READ_BYTES:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)[:MAX_READ_BYTES]
    finally:
        os.close(fd)


def list_resource_files(root: Path) -> list[tuple[str, int]]:
    """Seam: (path relative to root, size) of the regular files resources/list names, sorted; bounded.

    Symlinks are neither followed nor listed: a link inside the root may point out of it, and a listed
    name is an invitation to read it (the read would be refused, but the name and size are out already)."""
    found: list[tuple[str, int]] = []
    walked = 0
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        walked += len(dirs) + len(files)
        for name in sorted(files):
            full = os.path.join(folder, name)
            try:
                info = os.lstat(full)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                found.append((os.path.relpath(full, root), info.st_size))
        if walked >= MAX_WALKED_ENTRIES or len(found) >= MAX_LISTED_FILES:
            break
    return sorted(found)[:MAX_LISTED_FILES]


def page(items: list[dict[str, Any]], field: str, message: dict[str, Any], *, nonce: str, page_size: int
         ) -> dict[str, Any]:
    """One page of a listing, as tools/list pages: opaque cursors checked by the ``decode_cursor`` seam."""
    cursor = (message.get("params") or {}).get("cursor")
    offset = 0 if cursor is None else call_seam("decode_cursor", cursor, nonce=nonce, count=len(items))
    end = offset + page_size
    result: dict[str, Any] = {field: items[offset:end]}
    if end < len(items):
        result["nextCursor"] = base64.urlsafe_b64encode(f"{nonce}:{end}".encode()).decode()
    return result


def file_uri(relative: str) -> str:
    from urllib.parse import quote

    return "file:///" + quote(relative)


class Resources:
    """resources/list, resources/templates/list and resources/read for one server instance."""

    def __init__(self, workspace: Path, *, page_size: int, nonce: str) -> None:
        self.workspace = workspace
        self.page_size = page_size
        self.nonce = nonce + "r"  # a tools/list cursor is not a resources/list cursor
        self.fixed: dict[str, tuple[dict[str, Any], Callable[[], dict[str, Any]]]] = {}
        """uri -> (its listing entry, a function returning its contents entry)"""
        self.templates: list[tuple[dict[str, Any], Callable[[str], dict[str, Any] | None]]] = [
            (WORKSPACE_TEMPLATE, lambda _uri: None)]
        """(template as listed, reader: its contents for a URI it matches, else None); file:/// is read below."""

    # -- listing --------------------------------------------------------------------------------------------
    def listing(self) -> list[dict[str, Any]]:
        entries = [entry for entry, _read in self.fixed.values()]
        for relative, size in call_seam("list_resource_files", self.workspace):
            entry: dict[str, Any] = {"uri": file_uri(relative), "name": relative, "size": size}
            mime = guess_mime_type(relative)
            if mime:
                entry["mimeType"] = mime
            entries.append(entry)
        return sorted(entries, key=lambda e: e["uri"])

    def list_resources(self, message: dict[str, Any]) -> dict[str, Any]:
        return page(self.listing(), "resources", message, nonce=self.nonce, page_size=self.page_size)

    def list_templates(self, message: dict[str, Any]) -> dict[str, Any]:
        return page([template for template, _read in self.templates], "resourceTemplates", message,
                    nonce=self.nonce[:-1] + "t", page_size=self.page_size)

    # -- reading --------------------------------------------------------------------------------------------
    def read_resource(self, message: dict[str, Any]) -> dict[str, Any]:
        uri = (message.get("params") or {}).get("uri")
        if type(uri) is not str or not uri:
            raise ProtocolError(INVALID_PARAMS, "Invalid params: resources/read needs params.uri, a URI from "
                                                "resources/list or one built from resources/templates/list")
        return {"contents": [self.contents(uri)]}

    def contents(self, uri: str) -> dict[str, Any]:
        """The contents entry of ``uri``; raises ProtocolError when it is refused or does not exist."""
        fixed = self.fixed.get(uri)
        if fixed is not None:
            return fixed[1]()
        for _template, read in self.templates:
            found = read(uri)
            if found is not None:
                return found
        try:
            path = call_seam("resolve_resource", uri, self.workspace)
        except PermissionError as exc:
            SEAMS["log"]("warning", "resource_refused", uri=uri[:1000], reason=str(exc))
            raise ProtocolError(INVALID_PARAMS, f"Invalid params: {exc}. Use a file:/// URI of a file inside "
                                "the workspace, as resources/list shows", {"uri": uri[:1000]}) from None
        data = read_regular_file(path)
        if data is None:
            raise self._not_found(uri)
        return call_seam("resource_contents", uri, data, guess_mime_type(path.name))

    def _not_found(self, uri: str) -> ProtocolError:
        route = current()
        return call_seam("resource_not_found", uri, bool(route is not None and route.modern))

    # -- conformance fixtures -----------------------------------------------------------------------------
    def add_conformance_fixtures(self) -> None:
        """The resources @modelcontextprotocol/conformance 0.1.16 reads (its scenario sources)."""
        from reference_server.fixtures import PNG_1X1_RED

        text = "This is the content of the static text resource."
        self.fixed["test://static-text"] = (
            {"uri": "test://static-text", "name": "static_text", "title": "Static text",
             "description": "A fixed text resource (conformance fixture).", "mimeType": "text/plain"},
            lambda: {"uri": "test://static-text", "mimeType": "text/plain", "text": text})
        self.fixed["test://static-binary"] = (
            {"uri": "test://static-binary", "name": "static_binary", "title": "Static binary",
             "description": "A 1x1 PNG image (conformance fixture).", "mimeType": "image/png"},
            lambda: {"uri": "test://static-binary", "mimeType": "image/png", "blob": PNG_1X1_RED})
        template = {"uriTemplate": "test://template/{id}/data", "name": "template_data", "title": "Data by id",
                    "description": "JSON data for one id (conformance fixture).", "mimeType": "application/json"}
        self.templates.append((template, _template_data))


def _template_data(uri: str) -> dict[str, Any] | None:
    """``test://template/{id}/data`` (RFC 6570 level 1: ``id`` is one percent-decoded path segment)."""
    import json
    from urllib.parse import unquote

    prefix, suffix = "test://template/", "/data"
    if not (uri.startswith(prefix) and uri.endswith(suffix)) or len(uri) <= len(prefix) + len(suffix):
        return None
    raw = uri[len(prefix):-len(suffix)]
    if "/" in raw:
        return None
    ident = unquote(raw)
    body = json.dumps({"id": ident, "templateTest": True, "data": f"Data for ID: {ident}"}, separators=(",", ":"))
    return {"uri": uri, "mimeType": "application/json", "text": body}
