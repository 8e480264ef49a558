"""Probes for the security and auth rules: child processes, inherited descriptors, secrets, code evaluation,
refused paths and credentials in the tool surface.

Every probe is generic. It finds what to exercise through ``tools/list``, calls only the tools the
target allows (:meth:`Target.may_call`), never waits without a deadline, and answers N/A with a
reason when the server offers nothing to exercise (for instance no tool that runs a program whose
environment can be seen). Evidence never shows the canary itself: it is masked as ``<CANARY>``.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...wire import WireSession
from ..base import (
    Finding, Probe, Target, WireTimeout, compact, failed, list_tools, not_applicable, passed, refused, string_params,
)
from .paths import PATH_PARAMS

# -- shared helpers ------------------------------------------------------------------------------------------

BENIGN_ENV = frozenset({"PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TERM", "USER", "LOGNAME", "SHELL", "TMPDIR", "PWD"})
"""Variables a child may share with the server without that being a leak (their values are not secrets)."""
PROGRAM_PARAMS = ("program", "command", "cmd", "executable", "binary")
ARGS_PARAMS = ("args", "arguments", "argv")
DELAY_WORDS = ("second", "delay", "sleep", "wait", "duration")
TIMEOUT_WORDS = ("timeout",)
ENV_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")


class _Abort(Exception):
    """Raised inside a probe to return a finding at once (handshake failed, nothing to exercise)."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.summary)
        self.finding = finding


def _guarded(fn: Any) -> Any:
    def run(target: Target) -> Finding:
        try:
            return fn(target)
        except _Abort as stop:
            return stop.finding

    run.__name__ = fn.__name__
    run.__doc__ = fn.__doc__
    return run


def _handshake(target: Target, **start: Any) -> tuple[WireSession, dict[str, Any], list[dict[str, Any]]]:
    """Start the server, initialize, list every tool; abort with FAIL when it does not answer."""
    session = target.start(**start)
    try:
        init = session.initialize(timeout=target.timeout)
        tools = list_tools(session, timeout=target.timeout)
    except WireTimeout as exc:
        raise _Abort(failed(f"the server did not complete the handshake: {exc}", *session.transcript(limit=8))) from None
    return session, init.get("result") or {}, tools


def _mask(text: str, target: Target) -> str:
    return text.replace(target.canary, "<CANARY>") if target.canary else text


def _show(value: Any, target: Target, limit: int = 300) -> str:
    """``compact`` with the canary masked first, so a cut never shows part of it."""
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return compact(_mask(text, target).replace("\r", "\\r").replace("\n", "\\n"), limit)


def _kind(schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    return kind


def _value(schema: dict[str, Any]) -> Any:
    """A harmless value that satisfies the simple keywords of ``schema``."""
    if "default" in schema:
        return schema["default"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = _kind(schema)
    if kind == "string":
        return "x" * max(1, int(schema.get("minLength", 1)))
    if kind in ("integer", "number"):
        low = schema.get("minimum", 1)
        return low if low is not None else 1
    if kind == "boolean":
        return False
    if kind == "array":
        return [_value(schema.get("items") or {}) for _ in range(int(schema.get("minItems", 0)))]
    if kind == "object":
        return {}
    return "x"


def _properties(tool: dict[str, Any]) -> dict[str, dict[str, Any]]:
    props = (tool.get("inputSchema") or {}).get("properties") or {}
    return {k: v for k, v in props.items() if isinstance(v, dict)}


def _fill(tool: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    """Arguments for an ordinary call: required fields filled, delays at their minimum, then ``overrides``."""
    schema = tool.get("inputSchema") or {}
    props = _properties(tool)
    args = {name: _value(props.get(name) or {}) for name in schema.get("required") or () if name not in overrides}
    for name, prop in props.items():
        if name not in overrides and _kind(prop) in ("integer", "number") and any(w in name.lower() for w in DELAY_WORDS):
            args[name] = prop.get("minimum", 0)
    args.update(overrides)
    return args


def _shown(response: dict[str, Any]) -> str:
    """What a tools/call response shows the model: text blocks, structured content, the error."""
    if "error" in response:
        return json.dumps(response["error"], ensure_ascii=False)
    result = response.get("result") or {}
    parts = [str(c.get("text", "")) for c in result.get("content") or [] if isinstance(c, dict)]
    if "structuredContent" in result:
        parts.append(json.dumps(result["structuredContent"], ensure_ascii=False))
    return "\n".join(parts)


def _pipeline(session: WireSession, calls: list[tuple[str, dict[str, Any]]], *, timeout: float
              ) -> list[tuple[str, dict[str, Any], dict[str, Any] | None]]:
    """Send every tools/call at once, then collect the answers (None for no answer) before one deadline."""
    sent = []
    for name, arguments in calls:
        rid = session.new_id()
        session.send({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
        sent.append((rid, name, arguments))
    deadline = time.monotonic() + timeout
    out: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = []
    for rid, name, arguments in sent:
        try:
            response: dict[str, Any] | None = session.wait_for_id(rid, timeout=max(deadline - time.monotonic(), 0.05))
        except WireTimeout:
            response = None
        out.append((name, arguments, response))
    return out


def _program_tools(target: Target, tools: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], str, str | None, list[Any] | None]]:
    """Callable tools that run a program: (tool, program param, argument-list param or None, allowed programs or None)."""
    for tool in tools:
        if not target.may_call(tool):
            continue
        props = _properties(tool)
        prog = next((p for p in PROGRAM_PARAMS if p in props and _kind(props[p]) == "string"), None)
        if prog is None:
            continue
        args = next((a for a in ARGS_PARAMS if a in props and _kind(props[a]) == "array"), None)
        choices = props[prog].get("enum")
        yield tool, prog, args, list(choices) if isinstance(choices, list) else None


def _env_call(target: Target, tools: list[dict[str, Any]]) -> tuple[str, dict[str, Any]] | None:
    """A call that makes a child print its whole environment (printenv or env), if the server offers one."""
    for tool, prog, args, choices in _program_tools(target, tools):
        for name in ("printenv", "env"):
            if choices is None or name in choices:
                extra = {args: []} if args else {}
                return tool["name"], _fill(tool, **{prog: name}, **extra)
    return None


def _parse_env(text: str) -> dict[str, str]:
    env: dict[str, str] = {}
    for line in text.splitlines():
        m = ENV_LINE.match(line)
        if m:
            env.setdefault(m.group(1), m.group(2))
    return env


def _child_environment(target: Target, session: WireSession, tools: list[dict[str, Any]]
                       ) -> tuple[dict[str, str], str, list[str]]:
    """Run the environment-printing call; return (parsed environment, raw text, evidence); abort N/A if impossible."""
    call = _env_call(target, tools)
    if call is None:
        raise _Abort(not_applicable(
            "no callable tool runs a program that prints its environment (a program/command parameter allowing "
            "printenv or env); review the code that builds child environments by hand"))
    name, arguments = call
    try:
        response = session.request("tools/call", {"name": name, "arguments": arguments}, timeout=target.timeout)
    except WireTimeout as exc:
        raise _Abort(failed(f"{name}({compact(arguments, 80)}) did not answer: {exc}", *session.transcript(limit=8))) from None
    text = _shown(response)
    evidence = [f"{name}({compact(arguments, 80)}) -> {_show(response, target, 400)}"]
    if refused(response) and not _parse_env(text):
        raise _Abort(not_applicable(f"{name} refused to run {arguments}; no child environment to inspect", *evidence))
    return _parse_env(text), text, evidence


def _processes_mentioning(needle: str) -> list[str]:
    """Processes whose command line contains ``needle`` (from /proc), as 'pid: cmdline' strings."""
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read()
        except OSError:
            continue
        if needle.encode() in cmdline:
            shown = cmdline.replace(b"\0", b" ").decode(errors="replace").strip()[:160]
            found.append(f"{entry}: {shown}")
    return found


def _canary_name(target: Target) -> str:
    return next((k for k, v in target.env.items() if v == target.canary), "HB_CANARY")


# -- SEC-002: no shell ---------------------------------------------------------------------------------------

@_guarded
def no_shell_evaluation(target: Target) -> Finding:
    """Run a program with arguments carrying shell syntax; the evaluated marker must never appear."""
    session, _, tools = _handshake(target)
    a, b = 1000 + secrets.randbelow(9000), 1000 + secrets.randbelow(9000)
    marker = f"hbx_{a * b}_"
    expr = f"$(({a}*{b}))"
    payloads = [f"hbx_{expr}_1", f"x;echo hbx_{expr}_2", f"`echo hbx_{expr}_3`", f"x|echo hbx_{expr}_4", f"$(echo hbx_{expr}_5)"]
    calls: list[tuple[str, dict[str, Any]]] = []
    for tool, prog, args, choices in _program_tools(target, tools):
        if choices is None:
            program = "echo"
        else:
            program = next((p for p in ("echo", "ls", "cat", "head", "wc", "grep", "printf") if p in choices), None)
            program = program or next((c for c in choices if isinstance(c, str)), None)
        if program is None or (args is None and choices is not None):
            continue  # nothing free-form reaches the program
        for payload in payloads:
            if args is not None:
                calls.append((tool["name"], _fill(tool, **{prog: program, args: [payload]})))
            else:
                calls.append((tool["name"], _fill(tool, **{prog: f"{program} {payload}"})))
        if len(calls) >= 10:
            break
    if not calls:
        return not_applicable("no callable tool runs a program with caller-supplied arguments "
                              "(a program/command parameter with an argument list or a free-form command)")
    evidence, evaluated = [], []
    for name, arguments, response in _pipeline(session, calls, timeout=target.timeout):
        if response is None:
            evidence.append(f"{name}({compact(arguments, 90)}) -> no answer")
            continue
        text = _shown(response)
        row = f"{name}({compact(arguments, 90)}) -> {_show(text, target, 160)}"
        evidence.append(row)
        if marker in text:
            evaluated.append(row)
    if evaluated:
        return failed(f"a shell evaluated {len(evaluated)} argument(s): {expr} came back as {a * b}, so the "
                      "arguments were joined into a command line", *evaluated[:6])
    literal = sum(1 for row in evidence if "$((" in row.split("->", 1)[-1])
    return passed(f"{len(calls)} argument(s) with $(( )), ;, |, backticks and $( ) reached the program unevaluated "
                  f"({literal} shown back literally)", *evidence[:8])


# -- SEC-003: explicit minimal child environment --------------------------------------------------------------

@_guarded
def child_env_minimal(target: Target) -> Finding:
    """Start the server with decoy secrets; a child that prints its environment must show none of them."""
    decoys = {"DATABASE_URL": f"postgresql://app:{target.canary}@db.internal:5432/app",
              "HB_PROBE_DECOY": f"hb-decoy-{secrets.token_hex(6)}"}
    session, _, tools = _handshake(target, extra_env=decoys)
    env, text, evidence = _child_environment(target, session, tools)
    server_env = {**target.env, **decoys}
    inherited = sorted(n for n, v in env.items()
                       if n in server_env and server_env[n] == v and n not in BENIGN_ENV and not n.startswith("LC_"))
    evidence.append(f"the child saw: {', '.join(sorted(env)) or '(an empty environment)'}")
    if target.canary in text:
        holders = [n for n, v in env.items() if target.canary in v]
        return failed(f"the server's secret reached the child (in {', '.join(holders) or 'its output'}): "
                      "the child environment was inherited or filtered by a deny-list", *evidence)
    if inherited:
        return failed(f"{len(inherited)} variable(s) of the server's own environment were passed through: "
                      f"{', '.join(inherited)}; build the child environment from an allow-list", *evidence)
    if not env:
        return passed("the child printed an empty environment (or the tool does not show the program's output): "
                      "nothing of the server's environment is visible", *evidence)
    return passed(f"the child's environment holds {len(env)} variable(s), none inherited from the server "
                  "beyond fixed, non-secret names", *evidence)


# -- SEC-004: fixed PATH and HOME ------------------------------------------------------------------------------

PLANTED_PROGRAMS = ("printenv", "env", "ls", "cat", "head", "wc", "grep", "echo")


@_guarded
def child_path_home_fixed(target: Target) -> Finding:
    """Start the server with a planted directory first on PATH and a foreign HOME; the child must get neither."""
    tag = secrets.token_hex(4)
    marker = f"HB_PATH_HIJACK_{tag}"
    scratch = Path(tempfile.mkdtemp(prefix="hb-path-probe-"))
    try:
        planted = scratch / "planted-bin"
        planted.mkdir()
        for program in PLANTED_PROGRAMS:
            real = shutil.which(program, path="/usr/bin:/bin")
            if real:
                script = planted / program
                script.write_text(f'#!/bin/sh\necho {marker}\nexec {real} "$@"\n')
                script.chmod(0o755)
        parent_home = scratch / "server-home"
        parent_home.mkdir()
        extra = {"PATH": f"{planted}:{target.env.get('PATH', '/usr/bin:/bin')}", "HOME": str(parent_home)}
        session, _, tools = _handshake(target, extra_env=extra)
        env, text, evidence = _child_environment(target, session, tools)
        session.close(grace=1.0)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    evidence.insert(0, f"server started with PATH={extra['PATH']} HOME={parent_home}")
    if not env and marker not in text:
        return not_applicable("the child printed no environment, so its PATH and HOME cannot be read", *evidence)
    problems = []
    if marker in text:
        problems.append(f"the child ran the planted {planted}/… program: its PATH came from the server's environment")
    path = env.get("PATH")
    workspace = str(target.workspace.resolve())
    if path is None:
        problems.append("the child has no PATH: set a fixed one (programs otherwise search a built-in default)")
    else:
        for entry in path.split(":"):
            if entry == str(planted):
                problems.append(f"PATH holds the planted directory {entry}")
            elif not entry or not entry.startswith("/"):
                problems.append(f"PATH holds {entry or 'an empty entry'!r}, which means the working directory")
            elif entry == workspace or entry.startswith(workspace + "/"):
                problems.append(f"PATH holds {entry}, inside the workspace the model can write to")
    home = env.get("HOME")
    if home is None:
        problems.append("the child has no HOME: programs then look up the real home directory of the user")
    elif home == str(parent_home):
        problems.append(f"HOME={home} was copied from the server's environment")
    else:
        try:
            import pwd

            if home == pwd.getpwuid(os.getuid()).pw_dir:
                problems.append(f"HOME={home} is the user's real home directory")
        except (ImportError, KeyError):
            pass
    evidence.append(f"child PATH={path!r} HOME={home!r}")
    if problems:
        return failed(problems[0], *problems[1:], *evidence)
    return passed("the child's PATH and HOME are fixed values, not the server's", *evidence)


# -- SEC-006: timeouts ------------------------------------------------------------------------------------------

FILE_READERS = ("head", "cat", "wc", "grep", "tail")


@_guarded
def child_timeout_enforced(target: Target) -> Finding:
    """Make a child block on a FIFO with the shortest timeout allowed; expect an answer by then and no survivor."""
    session, _, tools = _handshake(target)
    choice = None
    for tool, prog, args, choices in _program_tools(target, tools):
        props = _properties(tool)
        tparam = next((p for p in props if any(w in p.lower() for w in TIMEOUT_WORDS)
                       and _kind(props[p]) in ("integer", "number")), None)
        reader = next((r for r in FILE_READERS if choices is None or r in choices), None)
        if tparam and reader and args:
            choice = (tool, prog, args, tparam, reader)
            break
    if choice is None:
        return not_applicable("no callable tool runs a file-reading program (head, cat, wc, grep) with a timeout "
                              "parameter; review how the code bounds child processes")
    tool, prog, args, tparam, reader = choice
    in_ms = tparam.lower().endswith("ms")
    minimum = _properties(tool)[tparam].get("minimum")
    chosen = minimum if isinstance(minimum, (int, float)) and minimum > 0 else (1000 if in_ms else 1)
    seconds = chosen / 1000 if in_ms else chosen
    fifo_name = f"hb-fifo-{secrets.token_hex(5)}"
    fifo = target.workspace / fifo_name
    os.mkfifo(fifo)
    argv = ["hb", fifo_name] if reader == "grep" else [fifo_name]
    arguments = _fill(tool, **{prog: reader, args: argv, tparam: chosen})
    evidence = [f"{tool['name']}({compact(arguments, 120)}): {reader} blocks opening a FIFO nobody writes to"]
    allowed = seconds + 2.0
    try:
        began = time.monotonic()
        try:
            response = session.request("tools/call", {"name": tool["name"], "arguments": arguments}, timeout=allowed)
        except WireTimeout:
            return failed(f"no answer {allowed:.1f}s after a call with a {seconds:g}s timeout: the child was waited "
                          "on without a deadline", *evidence)
        elapsed = time.monotonic() - began
        evidence.append(f"answered after {elapsed:.2f}s: {_show(_shown(response), target, 200)}")
        if refused(response) and elapsed < seconds * 0.8:
            return not_applicable(f"{tool['name']} refused the call at once, so no child blocked on the FIFO and "
                                  "the timeout was not exercised", *evidence)
        survivors: list[str] = []
        for _ in range(5):
            survivors = _processes_mentioning(fifo_name)
            if not survivors:
                break
            time.sleep(0.1)
        if survivors:
            return failed(f"the call answered after {elapsed:.2f}s but the child is still running: the timeout "
                          "abandoned it instead of killing it", *evidence, *[f"still running: {s}" for s in survivors])
        return passed(f"the {seconds:g}s timeout answered after {elapsed:.2f}s and the child was gone", *evidence)
    finally:
        try:  # release any reader still blocked on the FIFO so nothing outlives the probe
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            os.close(fd)
        except OSError:
            pass
        try:
            fifo.unlink()
        except OSError:
            pass


# -- SEC-007: inherited descriptors -------------------------------------------------------------------------

HIGH_FD_FLOOR = 600


@_guarded
def inherited_fds_closed(target: Target) -> Finding:
    """Start the server holding an inherited pipe and a high-numbered socket; after the handshake neither is open."""
    if not Path("/proc/self/fd").is_dir():
        return not_applicable("/proc is not available on this system: descriptors cannot be inspected")
    import fcntl
    import resource

    read_end, write_end = os.pipe()
    left, right = socket.socketpair()
    high = None
    try:
        if resource.getrlimit(resource.RLIMIT_NOFILE)[0] > HIGH_FD_FLOOR + 64:
            high = fcntl.fcntl(left.fileno(), getattr(fcntl, "F_DUPFD_CLOEXEC", fcntl.F_DUPFD), HIGH_FD_FLOOR)
        passed_fds = {write_end: f"pipe:[{os.fstat(write_end).st_ino}]"}
        if high is not None:
            passed_fds[high] = f"socket:[{os.fstat(high).st_ino}]"
        session = target.start(pass_fds=tuple(passed_fds))
    finally:
        for fd in (read_end, write_end, high):
            if fd is not None:
                os.close(fd)
        left.close()
        right.close()
    try:
        session.initialize(timeout=target.timeout)
        session.request("ping", timeout=target.timeout)
    except WireTimeout as exc:
        return failed(f"the server did not complete the handshake: {exc}", *session.transcript(limit=8))
    evidence = [f"started with inherited descriptors {', '.join(f'{fd} ({kind})' for fd, kind in passed_fds.items())}"]
    try:
        names = os.listdir(f"/proc/{session.pid}/fd")
    except OSError as exc:
        return not_applicable(f"cannot list /proc/{session.pid}/fd: {exc}", *evidence)
    links = {}
    for name in names:
        try:
            links[int(name)] = os.readlink(f"/proc/{session.pid}/fd/{name}")
        except (OSError, ValueError):
            continue
    evidence.append("open after the handshake: " + ", ".join(f"{fd}->{link}" for fd, link in sorted(links.items())))
    wanted = set(passed_fds.values())
    still = [f"fd {fd} -> {link}" for fd, link in sorted(links.items()) if link in wanted]
    if still:
        return failed(f"{len(still)} inherited descriptor(s) are still open after start-up: {'; '.join(still)}", *evidence)
    return passed(f"the {len(passed_fds)} inherited descriptor(s) were closed at start-up", *evidence)


# -- SEC-008: redaction -------------------------------------------------------------------------------------------

@_guarded
def secrets_redacted_in_logs(target: Target) -> Finding:
    """Send secret-named values nested in arguments with debug logging on; neither stderr nor notifications may show them."""
    session, init, tools = _handshake(target)
    secret = target.canary
    context = {"api_token": secret, "settings": {"client_secret": secret, "retry": 2},
               "headers": [{"Authorization": f"Bearer {secret}"}], "db": {"password": secret}}
    evidence = []
    if "logging" in (init.get("capabilities") or {}):
        try:
            answer = session.request("logging/setLevel", {"level": "debug"}, timeout=target.timeout)
            evidence.append(f"logging/setLevel debug -> {compact(answer, 120)}")
        except WireTimeout as exc:
            evidence.append(f"logging/setLevel did not answer: {exc}")
    candidates = [t for t in tools if target.may_call(t)][:3]
    if not candidates:
        return not_applicable("no tool may be called, so no arguments can carry a secret to the server's logs")
    calls = [(t["name"], {**_fill(t), "hb_probe_context": context}) for t in candidates]
    for name, arguments, response in _pipeline(session, calls, timeout=target.timeout):
        evidence.append(f"{name}(…, hb_probe_context={{api_token, settings.client_secret, headers[0].Authorization, "
                        f"db.password}}) -> {_show(response, target, 140) if response else 'no answer'}")
    session.close(grace=1.0)
    stderr = [ln.text for ln in session.stderr_lines]
    notes = [m.line.text for m in session.stdout
             if isinstance(m.value, dict) and m.value.get("method") == "notifications/message"]
    leaks = [f"stderr: {_mask(line, target)[:240]}" for line in stderr if secret in line]
    leaks += [f"notifications/message: {_mask(line, target)[:240]}" for line in notes if secret in line]
    seen = [f"logged: {_mask(line, target)[:240]}" for line in [*stderr, *notes] if "hb_probe_context" in line][:3]
    if leaks:
        return failed(f"{len(leaks)} log record(s) carry a secret sent under a secret-looking key", *leaks[:6], *evidence)
    return passed(f"{len(stderr)} stderr line(s) and {len(notes)} log notification(s) inspected; no secret value appears",
                  *seen, *evidence)


# -- SEC-009: the canary never comes back -----------------------------------------------------------------------

@_guarded
def canary_never_leaks(target: Target) -> Finding:
    """An ordinary session calling every callable tool: the server's secret must appear in no output, log or child."""
    session, init, tools = _handshake(target)
    if "logging" in (init.get("capabilities") or {}):
        try:
            session.request("logging/setLevel", {"level": "debug"}, timeout=target.timeout)
        except WireTimeout:
            pass
    calls = [(t["name"], _fill(t)) for t in tools if target.may_call(t)][:20]
    env_call = _env_call(target, tools)
    if env_call is not None:
        calls.append(env_call)
    calls.append(("hb_no_such_tool", {}))
    answers = _pipeline(session, calls, timeout=target.timeout)
    try:
        session.request("hb/no_such_method", {}, timeout=target.timeout)
    except WireTimeout:
        pass
    session.close(grace=1.0)
    leaks = []
    for msg in session.stdout:
        if target.canary in msg.line.text:
            leaks.append(f"stdout: {_mask(msg.line.text, target)[:260]}")
    for line in session.stderr_lines:
        if target.canary in line.text:
            leaks.append(f"stderr: {_mask(line.text, target)[:260]}")
    evidence = [f"{name}({compact(args, 60)}) -> {_show(resp, target, 120) if resp else 'no answer'}"
                for name, args, resp in answers]
    if leaks:
        return failed(f"the server's secret appeared {len(leaks)} time(s) in what it wrote", *leaks[:6], *evidence[:6])
    return passed(f"{len(calls)} call(s), {len(session.stdout)} stdout and {len(session.stderr_lines)} stderr line(s): "
                  "the secret appears nowhere", *evidence[:10])


# -- SEC-010: no evaluation of parameters ----------------------------------------------------------------------

EVAL_MARK = "hb_eval_ok"


def _eval_payloads(canary_var: str) -> list[str]:
    return [
        f'__import__("os").environ.get("{canary_var}", "")',  # Python eval/exec
        '"hb_ev" + "al_ok_py"',  # any expression evaluator with strings (even with builtins removed)
        "{{'hb_ev' + 'al_ok_tpl'}}",  # Jinja2 / Twig / Nunjucks templates
        "${'hb_ev' + 'al_ok_js'}",  # JavaScript template literals, expression languages
        f"process.env.{canary_var}",  # JavaScript eval
    ]


@_guarded
def no_code_evaluation(target: Target) -> Finding:
    """Send code and template payloads to every free-form string parameter; nothing may be evaluated."""
    session, _, tools = _handshake(target)
    payloads = _eval_payloads(_canary_name(target))
    calls = []
    for tool in tools:
        if not target.may_call(tool):
            continue
        for param, prop in _properties(tool).items():
            if _kind(prop) != "string" or "enum" in prop or "const" in prop:
                continue
            calls.extend((tool["name"], _fill(tool, **{param: payload})) for payload in payloads)
    if not calls:
        return not_applicable("no callable tool has a free-form string parameter")
    calls = calls[:60]
    evaluated, evidence = [], []
    for name, arguments, response in _pipeline(session, calls, timeout=target.timeout):
        if response is None:
            evidence.append(f"{name}({compact(arguments, 80)}) -> no answer")
            continue
        text = _shown(response)
        row = f"{name}({compact(arguments, 80)}) -> {_show(text, target, 160)}"
        if EVAL_MARK in text or (target.canary and target.canary in text):
            evaluated.append(row)
        elif len(evidence) < 8:
            evidence.append(row)
    if evaluated:
        return failed(f"{len(evaluated)} payload(s) were evaluated as code or template expressions", *evaluated[:6])
    return passed(f"{len(calls)} code and template payload(s) sent to free-form string parameters; none was evaluated",
                  *evidence)


# -- SEC-014: refused paths are logged raw and escaped ---------------------------------------------------------

@_guarded
def refused_path_logged(target: Target) -> Finding:
    """Send two escape attempts; stderr must carry the raw attempted path, escaped so it cannot forge a log line."""
    session, _, tools = _handshake(target)
    candidate = next(((t, p) for t in tools if target.may_call(t) for p in string_params(t, PATH_PARAMS)), None)
    if candidate is None:
        return not_applicable("no callable tool takes a path argument (path, file, filename, ...)")
    tool, param = candidate
    tag = secrets.token_hex(4)
    raw = f"../hb-refused-{tag}/probe.txt"
    forged_event = f"hb_forged_{tag}"
    forging = f'../hb-refused-{tag}/next.txt\n{{"level":"warning","event":"{forged_event}"}}'
    evidence = []
    for attempt in (raw, forging):
        arguments = _fill(tool, **{param: attempt})
        try:
            response = session.request("tools/call", {"name": tool["name"], "arguments": arguments}, timeout=target.timeout)
        except WireTimeout as exc:
            return failed(f"{tool['name']} did not answer: {exc}", *evidence)
        evidence.append(f"{tool['name']}({param}={attempt!r}) -> {compact(response, 140)}")
        if not refused(response):
            return failed(f"{tool['name']} served {attempt!r}, a path outside the workspace (see SEC-001)", *evidence)
    session.close(grace=1.0)
    stderr = [ln.text for ln in session.stderr_lines]
    logged = [line for line in stderr if raw in line]
    forged = [line for line in stderr if forged_event in line and f"hb-refused-{tag}" not in line]
    evidence += [f"err {line[:240]}" for line in stderr if f"hb-refused-{tag}" in line or forged_event in line][:4]
    if forged:
        return failed("a newline in the attempted path started a new stderr line: the raw path was logged unescaped, "
                      "so a caller can forge log records", *evidence)
    if not logged:
        return failed(f"no stderr line carries the raw attempted path {raw!r}: the operator cannot see the probe",
                      *evidence)
    return passed("each refused path was logged on stderr as sent, escaped onto one line", *evidence)


# -- SEC-015: special files ------------------------------------------------------------------------------------

@_guarded
def special_files_refused(target: Target) -> Finding:
    """Put a FIFO in the workspace and hand it to every path-taking tool; each must answer at once, and so must a ping."""
    session, _, tools = _handshake(target)
    candidates = [(t, p) for t in tools if target.may_call(t) for p in string_params(t, PATH_PARAMS)][:6]
    if not candidates:
        return not_applicable("no callable tool takes a path argument (path, file, filename, ...)")
    fifo_name = f"hb-fifo-{secrets.token_hex(5)}"
    fifo = target.workspace / fifo_name
    os.mkfifo(fifo)
    try:
        calls = [(t["name"], _fill(t, **{p: fifo_name})) for t, p in candidates]
        calls += [(t["name"], _fill(t)) for t in {id(t): t for t, _ in candidates}.values()]  # the FIFO merely present
        answers = _pipeline(session, calls, timeout=2.0)
        try:
            ping: dict[str, Any] | None = session.request("ping", timeout=1.0)
        except WireTimeout:
            ping = None
    finally:
        try:  # release whatever blocked on the FIFO, then remove it
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            os.close(fd)
        except OSError:
            pass
        try:
            fifo.unlink()
        except OSError:
            pass
    evidence = [f"{name}({compact(args, 90)}) -> {_show(resp, target, 140) if resp else 'NO ANSWER within 2s'}"
                for name, args, resp in answers]
    stuck = [row for row in evidence if row.endswith("NO ANSWER within 2s")]
    if ping is None:
        evidence.append("ping -> NO ANSWER within 1s")
    if stuck or ping is None:
        return failed(f"{len(stuck)} call(s) blocked on a FIFO in the workspace"
                      + ("; the server stopped answering even ping" if ping is None else ""), *evidence)
    return passed(f"{len(calls)} call(s) with a FIFO in the workspace answered at once, and so did ping", *evidence)


# -- AUTH-005: no credentials in the tool surface --------------------------------------------------------------

_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_CREDENTIAL_SUBSTRINGS = ("token", "secret", "password", "passwd", "passphrase", "credential", "apikey",
                          "authorization", "bearer", "cookie", "sessionid", "jwt")
_CREDENTIAL_KEY_SUFFIXES = ("apikey", "accesskey", "secretkey", "privatekey", "signingkey", "clientkey", "authkey",
                            "masterkey", "sshkey", "encryptionkey")
_NOT_CREDENTIAL_WORDS = frozenset({"page", "next", "continuation", "pagination", "cursor", "sync", "resume", "count",
                                   "counts", "used", "max", "min", "total", "limit", "remaining", "budget", "input",
                                   "output", "prompt", "completion"})
_ASKS_FOR_CREDENTIAL = re.compile(
    r"\b(?:your|user'?s?|an?|the)\s+(?:[\w-]+\s+){0,2}?(?:api[\s_-]?key|access[\s_-]?token|auth(?:entication|orization)?"
    r"[\s_-]?token|bearer\s+token|personal\s+access\s+token|password|passphrase|client[\s_-]?secret|secret[\s_-]?key|"
    r"private[\s_-]?key|session\s+cookie)\b", re.I)
_SECRET_LITERALS = re.compile(
    r"sk-[A-Za-z0-9_-]{20,}|ghp_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|AKIA[0-9A-Z]{16}|xox[abpr]-[A-Za-z0-9-]{10,}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----|Bearer\s+[A-Za-z0-9._~+/-]{20,}")


def credential_name(name: str) -> bool:
    """A parameter name that asks for a credential (``api_key``, ``githubToken``, ``password``; not ``max_tokens``)."""
    words = [w.lower() for w in _WORD.findall(name)]
    flat = "".join(words)
    if flat.endswith(_CREDENTIAL_KEY_SUFFIXES) or "pwd" in words:
        return True
    hits = [s for s in _CREDENTIAL_SUBSTRINGS if s in flat]
    if hits == ["token"] and _NOT_CREDENTIAL_WORDS.intersection(words):
        return False  # next_token, page_token, max_tokens: pagination and usage counters
    return bool(hits)


def _schema_properties(schema: Any, pointer: str = "", depth: int = 0) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every (pointer, property name, property schema) in a JSON Schema, nested objects and arrays included."""
    if not isinstance(schema, dict) or depth > 12:
        return
    for name, sub in (schema.get("properties") or {}).items():
        if isinstance(sub, dict):
            yield f"{pointer}/{name}", name, sub
            yield from _schema_properties(sub, f"{pointer}/{name}", depth + 1)
    for key in ("items", "additionalProperties", "not", "if", "then", "else"):
        if isinstance(schema.get(key), dict):
            yield from _schema_properties(schema[key], f"{pointer}/{key}", depth + 1)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for i, sub in enumerate(schema.get(key) or []):
            yield from _schema_properties(sub, f"{pointer}/{key}/{i}", depth + 1)
    for key in ("$defs", "definitions", "patternProperties"):
        for name, sub in (schema.get(key) or {}).items():
            yield from _schema_properties(sub, f"{pointer}/{key}/{name}", depth + 1)


@_guarded
def no_credential_parameters(target: Target) -> Finding:
    """Read tools/list: no parameter may ask for a credential, and no definition may carry one."""
    session, _, tools = _handshake(target)
    if not tools:
        return not_applicable("the server lists no tools")
    problems = []
    for tool in tools:
        name = tool.get("name", "?")
        for pointer, prop, sub in _schema_properties(tool.get("inputSchema") or {}):
            if credential_name(prop):
                problems.append(f"{name}: parameter {pointer} asks for a credential by its name")
            elif _ASKS_FOR_CREDENTIAL.search(str(sub.get("description", ""))):
                problems.append(f"{name}: parameter {pointer} asks for a credential in its description: "
                                f"{str(sub.get('description'))[:120]!r}")
        text = json.dumps(tool, ensure_ascii=False)
        if target.canary and target.canary in text:
            problems.append(f"{name}: the definition contains the server's own secret: {_mask(text, target)[:200]}")
        literal = _SECRET_LITERALS.search(text)
        if literal:
            problems.append(f"{name}: the definition contains a credential-looking literal {literal.group(0)[:12]}…")
    if problems:
        return failed(f"{len(problems)} credential(s) asked for or exposed in the tool surface", *problems[:8])
    return passed(f"{len(tools)} tool definition(s): no parameter asks for a credential and none carries one",
                  *[f"{t.get('name')}: {', '.join(_properties(t)) or '(no parameters)'}" for t in tools[:10]])


PROBES = (
    Probe("no_shell_evaluation", no_shell_evaluation, "shell syntax in a child's arguments is never evaluated",
          calls_tools=True),
    Probe("child_env_minimal", child_env_minimal, "a child process sees none of the server's environment",
          calls_tools=True),
    Probe("child_path_home_fixed", child_path_home_fixed, "a child's PATH and HOME are fixed, not the server's",
          calls_tools=True),
    Probe("child_timeout_enforced", child_timeout_enforced, "a blocked child is killed when its timeout expires",
          calls_tools=True),
    Probe("inherited_fds_closed", inherited_fds_closed, "descriptors inherited at start are closed"),
    Probe("secrets_redacted_in_logs", secrets_redacted_in_logs, "secret-named argument values never reach a log",
          calls_tools=True),
    Probe("canary_never_leaks", canary_never_leaks, "the server's secret appears in no output, log or child",
          calls_tools=True),
    Probe("no_code_evaluation", no_code_evaluation, "code and template payloads in parameters are never evaluated",
          calls_tools=True),
    Probe("refused_path_logged", refused_path_logged, "a refused path is logged raw and escaped on stderr",
          calls_tools=True),
    Probe("no_credential_parameters", no_credential_parameters, "no tool asks for or carries a credential"),
    Probe("special_files_refused", special_files_refused, "a FIFO in the workspace blocks no call", calls_tools=True),
)
