"""The 2026-07-28 stamp on results is one seam, ``complete_result``, on both transports' way out."""

from __future__ import annotations

from reference_server import seams
from reference_server.modern import SERVER_IDENTITY, SERVER_INFO


def test_a_result_gains_result_type_and_the_server_identity() -> None:
    sent = {"jsonrpc": "2.0", "id": 1, "result": {"tools": [], "_meta": {"x": 1}}}
    stamped = seams.DEFAULTS["complete_result"](sent)
    assert stamped["result"]["resultType"] == "complete"
    assert stamped["result"]["_meta"] == {"x": 1, SERVER_INFO: SERVER_IDENTITY}
    assert "resultType" not in sent["result"]  # never mutates what it was given


def test_a_result_type_a_handler_chose_is_kept_and_errors_pass_unchanged() -> None:
    asking = {"jsonrpc": "2.0", "id": 2, "result": {"resultType": "input_required"}}
    assert seams.DEFAULTS["complete_result"](asking)["result"]["resultType"] == "input_required"
    error = {"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "Invalid params"}}
    assert seams.DEFAULTS["complete_result"](error) == error


def test_the_server_stamps_through_the_table(monkeypatch) -> None:
    """A replacement mounted at the seam is what both transports use (the proofs rely on it)."""
    import inspect

    from reference_server import http_handler, server

    for module in (server, http_handler):
        source = inspect.getsource(module)
        assert 'seams.call("complete_result"' in source, module.__name__
        assert "complete(message)" not in source, module.__name__
