"""Framing for the stdio transport: one JSON-RPC message per line.

Why a hand-rolled reader: ``BufferedReader.readline(limit)`` lets us bound the
memory a hostile or buggy client can make us hold. A frame longer than the cap
is drained in fixed chunks and reported as ``None`` so the server can answer
-32600 and keep serving.
"""
from __future__ import annotations

import json
import json.scanner

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any, BinaryIO

_DRAIN_CHUNK = 64 * 1024
_WHITESPACE = " \t\r\n"


def _unserializable(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _compact_encoder(ensure_ascii: bool) -> Callable[[Any], str]:
    """A reusable compact encoder. ``JSONEncoder.encode`` rebuilds its C encoder on every call (~2 us)."""
    from json import encoder

    _enc: Any = encoder  # the C accelerator's names (c_make_encoder...) are not in the type stubs
    if _enc.c_make_encoder is None:  # pragma: no cover - CPython always has the accelerator
        return json.JSONEncoder(ensure_ascii=ensure_ascii, separators=(",", ":"), allow_nan=False).encode
    quote = _enc.c_encode_basestring_ascii if ensure_ascii else _enc.c_encode_basestring
    make = _enc.c_make_encoder(None, _unserializable, quote, None, ":", ",", False, False, False)
    return lambda value: "".join(make(value, 0))


_encode = _compact_encoder(False)
_encode_ascii = _compact_encoder(True)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


# NaN/Infinity are Python extensions, not JSON: reject them as a parse error.
_scan = json.scanner.make_scanner(json.JSONDecoder(parse_constant=_reject_constant))  # type: ignore[arg-type]  # stubs: the context is the decoder


def decode_frame(text: str) -> Any:
    """``json.loads`` for one frame, without its per-call set-up; raises ``json.JSONDecodeError``."""
    start = 0
    if text and text[0] in _WHITESPACE:
        start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scan(text, start)
    except StopIteration as stop:
        raise json.JSONDecodeError("Expecting value", text, stop.value) from None
    if end != len(text) and text[end:].strip(_WHITESPACE):
        raise json.JSONDecodeError("Extra data", text, end)
    return value


def read_frames(stream: BinaryIO, max_bytes: int) -> Iterator[bytes | None]:
    """Yield newline-delimited frames (without ``\\n`` / ``\\r\\n``); ``None`` if over ``max_bytes``."""
    limit = max_bytes + 2  # room for the "\r\n" terminator of a frame exactly at the cap
    readline = stream.readline
    while True:
        chunk = readline(limit)
        if not chunk:
            return
        if chunk[-1:] == b"\n":
            frame = chunk[:-2] if chunk[-2:] == b"\r\n" else chunk[:-1]
            yield frame if len(frame) <= max_bytes else None
            continue
        if len(chunk) < limit:  # short read without newline: the final fragment at EOF
            frame = chunk[:-1] if chunk[-1:] == b"\r" else chunk
            yield frame if len(frame) <= max_bytes else None
            return
        # Over-long: drain the rest of the line chunk by chunk, never holding it whole.
        while True:
            rest = readline(_DRAIN_CHUNK)
            if not rest or rest[-1:] == b"\n":
                break
        yield None
        if not rest:
            return


def write_message(stream: BinaryIO, message: dict[str, Any]) -> None:
    """Write one compact JSON line and flush. ``json`` escapes control chars, so no embedded newline."""
    try:
        data = _encode(message).encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates from the client: fall back to \\u escapes
        data = _encode_ascii(message).encode("ascii")
    stream.write(data + b"\n")
    stream.flush()
