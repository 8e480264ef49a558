"""Containment and secrecy: paths, child environments, redaction, inherited descriptors."""
from __future__ import annotations

import os
import textwrap
import time
from pathlib import Path

import pytest
from conftest import minimal_env, text_of
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_server import safety, seams
from reference_server.logs import is_secret_key, redact

CANARY = "hb-canary-7f3a9c21e5"


@pytest.fixture
def attack_workspace(workspace: Path) -> Path:
    (workspace / "escape").symlink_to(workspace.parent / "outside.txt")
    (workspace / "escape_dir").symlink_to(workspace.parent)
    (workspace / "inside_link").symlink_to(workspace / "hello.txt")
    return workspace


def attacks(ws: Path) -> list[str]:
    return ["../outside.txt", "docs/../../outside.txt", str(ws.parent / "outside.txt"), "/etc/passwd",
            str(ws.parent / "ws-evil" / "secret.txt"), "../ws-evil/secret.txt", "escape", "escape_dir/outside.txt",
            "hello.txt\x00.png", "a/" * 2100 + "x"]


def test_resolve_path_refuses_attacks(attack_workspace):
    for attempt in attacks(attack_workspace):
        with pytest.raises(PermissionError) as info:
            safety.resolve_path(attack_workspace, attempt)
        assert repr(attempt[:200])[1:-1][:50] in str(info.value)


def test_resolve_path_accepts_inside(attack_workspace):
    ws = attack_workspace.resolve()
    assert safety.resolve_path(attack_workspace, "hello.txt") == ws / "hello.txt"
    assert safety.resolve_path(attack_workspace, "docs/../hello.txt") == ws / "hello.txt"
    assert safety.resolve_path(attack_workspace, str(ws / "docs")) == ws / "docs"
    assert safety.resolve_path(attack_workspace, "inside_link") == ws / "hello.txt"
    assert safety.resolve_path(attack_workspace, ".") == ws
    # percent-encoding is not decoded: just an odd name inside the workspace
    assert safety.resolve_path(attack_workspace, "%2e%2e/outside.txt") == ws / "%2e%2e" / "outside.txt"
    assert safety.resolve_path(attack_workspace, "..%2Foutside.txt") == ws / "..%2Foutside.txt"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["..", ".", "docs", "escape", "escape_dir", "x", "", "/", "ws", "ws-evil"]),
                max_size=6))
def test_resolve_path_never_escapes(tmp_path_factory, parts):
    base = tmp_path_factory.getbasetemp() / "prop"
    ws = base / "ws"
    if not ws.exists():
        (ws / "docs").mkdir(parents=True)
        (base / "ws-evil").mkdir()
        (ws / "escape").symlink_to(base / "ws-evil")
        (ws / "escape_dir").symlink_to(base)
    try:
        resolved = safety.resolve_path(ws, "/".join(parts))
    except PermissionError:
        return
    assert resolved.is_relative_to(ws.resolve())


def test_path_attacks_through_tools(spawn, attack_workspace):
    client = spawn("--test-tools", ws=attack_workspace)
    for attempt in attacks(attack_workspace):
        for tool, arguments in (("read_file", {"path": attempt}), ("list_directory", {"path": attempt}),
                                ("search_files", {"query": "SECRET", "path": attempt})):
            result = client.call(tool, arguments)["result"]
            assert result["isError"] is True, (tool, attempt)
            assert "TOP SECRET" not in text_of({"result": result})
    for encoded in ("%2e%2e/outside.txt", "..%2Foutside.txt", "%2e%2e%2foutside.txt"):
        result = client.call("read_file", {"path": encoded})["result"]
        assert result["isError"] is True and "does not exist" in result["content"][0]["text"]
    client.close_stdin()
    client.wait()
    assert '"event":"path_refused"' in client.stderr and "../outside.txt" in client.stderr


def test_canary_never_leaks(spawn):
    client = spawn("--test-tools", env=minimal_env(HB_CANARY=CANARY, API_TOKEN=CANARY + "-token"))
    env_dump = text_of(client.call("run_command", {"program": "printenv"}))
    lines = sorted(line for line in env_dump.split("--- stdout ---\n")[1].splitlines() if "=" in line)
    assert [line.split("=")[0] for line in lines] == ["HOME", "LANG", "PATH"]
    assert "PATH=/usr/bin:/bin" in lines and "LANG=C.UTF-8" in lines
    failure = client.call("fail_always", {})
    collected = [env_dump, text_of(failure)]
    client.request("logging/setLevel", {"level": "debug"})
    client.call("fail_always", {})
    collected += [str(n) for n in client.notifications]
    client.close_stdin()
    assert client.wait() == 0
    collected += [m.line.text for m in client.stdout]
    assert "Traceback" in client.stderr  # the traceback is logged ...
    assert "<env:HB_CANARY>" in client.stderr  # ... with the environment's values masked
    for text in [*collected, client.stderr]:
        assert CANARY not in text


def test_child_env_is_fixed(monkeypatch, tmp_path):
    monkeypatch.setenv("HB_CANARY", CANARY)
    monkeypatch.setenv("SOME_ALLOWED", "yes")
    assert safety.child_env(tmp_path) == {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    monkeypatch.setattr(safety, "ALLOWED_ENV", ("SOME_ALLOWED", "NOT_SET"))
    assert safety.child_env(tmp_path)["SOME_ALLOWED"] == "yes"
    assert "NOT_SET" not in safety.child_env(tmp_path)


def test_run_subprocess_timeout_kills_the_group(tmp_path):
    marker = tmp_path / "grandchild.pid"
    script = f"sleep 30 & echo $! > {marker}; wait"
    started = time.monotonic()
    code, _out, err = safety.run_subprocess(["/bin/sh", "-c", script], cwd=tmp_path,
                                            env=safety.child_env(tmp_path), timeout=0.5)
    assert code == 124 and "timed out" in err
    assert time.monotonic() - started < 5
    grandchild = int(marker.read_text())
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        try:
            os.kill(grandchild, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("grandchild survived the timeout")


def test_run_subprocess_caps_and_decodes(tmp_path):
    code, out, err = safety.run_subprocess(["/bin/sh", "-c", "head -c 400000 /dev/zero | tr '\\0' a; "
                                            "printf '\\377' >&2"], cwd=tmp_path, env={}, timeout=10)
    assert code == 0 and len(out) == safety.MAX_OUTPUT_BYTES and "\ufffd" in err and "truncated" in err
    assert safety.run_subprocess(["no-such-program-xyz"], cwd=tmp_path, env={"PATH": "/bin"}, timeout=5)[0] == 127


@pytest.mark.parametrize("key", ["token", "api_token", "X-Auth-Token", "accessToken", "client_secret", "PASSWORD",
                                 "passwd", "apiKey", "api-key", "API_KEY", "key", "private_key", "privateKey",
                                 "ssh-key", "monkey", "credentials", "Authorization", "cookie", "Set-Cookie",
                                 "session_id", "sessionId", "auth"])
def test_secret_keys(key):
    assert is_secret_key(key)


@pytest.mark.parametrize("key", ["keyboard", "tokens_used", "max_tokens", "token_count", "author", "path", "name",
                                 "session", "keyword", "id"])
def test_ordinary_keys(key):
    assert not is_secret_key(key)


def test_redact_nested_copy():
    value = {"a": [{"password": "p", "ok": 1, "inner": {"api_key": "k", "list": [{"token": "t"}]}}],
             "tokens_used": 5, "headers": ({"Authorization": "Bearer x"},)}
    redacted = redact(value)
    assert redacted == {"a": [{"password": "<REDACTED>", "ok": 1,
                               "inner": {"api_key": "<REDACTED>", "list": [{"token": "<REDACTED>"}]}}],
                        "tokens_used": 5, "headers": [{"Authorization": "<REDACTED>"}]}
    assert value["a"][0]["password"] == "p"


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.text(max_size=5) | st.integers(),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                        st.sampled_from(["password", "name", "api_key", "x", "Token"]), inner, max_size=3),
                    max_leaves=20))
def test_redact_property(value):
    def secrets_left(node):
        if isinstance(node, dict):
            return any((is_secret_key(k) and v != "<REDACTED>") or secrets_left(v) for k, v in node.items())
        if isinstance(node, list):
            return any(secrets_left(v) for v in node)
        return False

    assert not secrets_left(redact(value))


def test_inherited_descriptors_are_closed(spawn):
    read_end, write_end = os.pipe()
    try:
        client = spawn(pass_fds=(read_end, write_end))
        client.request("ping")
        fds = {int(fd) for fd in os.listdir(f"/proc/{client.proc.pid}/fd")}
        assert read_end not in fds or write_end not in fds
        targets = {os.readlink(f"/proc/{client.proc.pid}/fd/{fd}") for fd in fds}
        ours = os.readlink(f"/proc/self/fd/{read_end}")
        assert ours not in targets
    finally:
        os.close(read_end)
        os.close(write_end)


def test_a_descriptor_a_snippet_opens_on_import_is_not_closed_under_it(spawn, tmp_path):
    """Inherited descriptors are closed before any snippet is imported. Closing a descriptor a snippet's module code
    opened (a thread walking the workspace, say) let the protocol's stdout take its number, which the snippet then
    closed again: the server lost stdout at random (OPS-002's CORRECT block, once in a CI run)."""
    path = tmp_path / "holds.py"
    path.write_text(textwrap.dedent("""
        import os

        _held = open(__file__, "rb")
        _identity = (os.fstat(_held.fileno()).st_dev, os.fstat(_held.fileno()).st_ino)

        TOOL = {"name": "held_fd", "description": "Report whether the descriptor opened at import is still this file.",
                "inputSchema": {"type": "object", "additionalProperties": False}}


        def handle(arguments, ctx):
            try:
                now = os.fstat(_held.fileno())
            except OSError as exc:
                return {"content": [{"type": "text", "text": f"closed: {exc}"}], "isError": True}
            if (now.st_dev, now.st_ino) != _identity:  # closed, and the number taken by another descriptor
                return {"content": [{"type": "text", "text": "reused"}], "isError": True}
            return {"content": [{"type": "text", "text": "open"}]}
    """))
    client = spawn("--seam", f"tool={path}")
    result = client.call("held_fd")["result"]
    assert result["content"][0]["text"] == "open"


def test_default_table_is_complete():
    """The seam table and the README's numbered table of seams name the same functions, each once, numbered 1 to N:
    the README is the contract a snippet author reads."""
    import re
    from pathlib import Path

    readme = (Path(seams.__file__).parent / "README.md").read_text()
    rows = re.findall(r"^\| (\d+) \| `([a-z_]+)` \|", readme, flags=re.M)
    assert [int(number) for number, _ in rows] == list(range(1, len(rows) + 1))
    assert sorted(name for _, name in rows) == sorted(seams.SEAMS)
    assert set(seams.DEFAULTS) == set(seams.SEAMS)
