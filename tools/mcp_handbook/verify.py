"""Prove one snippet: mount it into the reference server at its seam and run its rule's probe.

The verdict follows the ESLint convention: a WRONG snippet must FAIL its
rule's probe, a CORRECT one must PASS. A snippet that cannot even load, or
that dies of a defect (NameError, ImportError, a bad signature) instead of the
behaviour the rule is about, is *broken*, which is never a pass.
"""

from __future__ import annotations

import importlib.util
import json
import re
import secrets
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from .model import Rule, Snippet
from .probes import PROBES, Finding, Target

READY_MARK = '"event":"started"'
"""The reference server logs this once its seams are loaded and it is serving."""
PAGE_SIZE = 4
"""Tools per ``tools/list`` page in proofs: small enough that the server pages its list, so the
rules that apply only to servers that page (``pages-lists``) are proved against one that does."""
LOAD_FAILURE_EXIT = 3
"""The reference server's exit code when a seam cannot be loaded."""
DEFECT = re.compile(
    r"\[seam-error\] (?P<seam>\S+) (?P<type>NameError|UnboundLocalError|ImportError|ModuleNotFoundError|SyntaxError|"
    r"TypeError|AttributeError): (?P<message>.*)"
)
"""Exceptions that mean the snippet is broken, not wrong. TypeError and
AttributeError count only when they name the snippet's own module or a call
signature, see :func:`_defect`."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of proving one snippet."""

    snippet: Snippet
    expected: str
    """``FAIL`` for WRONG blocks, ``PASS`` for CORRECT ones."""
    finding: Finding | None
    """What the probe found (None when the snippet could not be run at all)."""
    broken: str = ""
    """Why the snippet itself is defective, when it is."""
    stderr_tail: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.broken and self.finding is not None and self.finding.status == self.expected


def _server_pythonpath() -> str:
    spec = importlib.util.find_spec("reference_server")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the reference_server package is not importable; run `pip install -e .`")
    return str(Path(next(iter(spec.submodule_search_locations))).parent)


def minimal_env(workspace: Path, canary: str) -> dict[str, str]:
    """The environment a server under test starts with: nothing inherited, plus a canary secret."""
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(workspace),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": _server_pythonpath(),
        "HB_CANARY": canary,
        "API_TOKEN": canary,
    }


def snippet_source(snippet: Snippet) -> str:
    """The snippet padded so that its line numbers are the markdown file's line numbers."""
    return f"# {snippet.location}\n" + "\n" * (snippet.code_line - 2) + snippet.code


TOOL_FAILED = re.compile(r'"event":\s*"tool_failed".*"error_type":\s*"(?P<type>NameError|UnboundLocalError|'
                         r'ImportError|ModuleNotFoundError|SyntaxError)"')
"""A mounted tool whose handler dies of a defect is reported by the server as a
failed tool call, not a seam error: its traceback names the snippet file."""


def _defect(stderr: list[str], seam: str, snippet_file: Path) -> str:
    for line in stderr:
        m = DEFECT.search(line)
        if m and m.group("seam") == seam:
            kind, message = m.group("type"), m.group("message")
            if kind in {"TypeError", "AttributeError"} and not ("argument" in message or snippet_file.stem in message):
                continue
            return f"the snippet raised {kind}: {message}"
        t = TOOL_FAILED.search(line)
        if t and seam == "tool" and _raised_in(line, snippet_file):
            return f"the snippet's tool handler raised {t.group('type')}"
    return ""


def _raised_in(log_line: str, snippet_file: Path) -> bool:
    """The innermost traceback frame is the snippet's own code.

    A handler that evaluates its input (the very WRONG some rules show) fails
    inside the evaluated text (``File "<string>"``): that is behaviour, not a defect.
    """
    try:
        trace = str(json.loads(log_line).get("traceback", ""))
    except (ValueError, AttributeError):
        trace = log_line
    frames = re.findall(r'File "([^"]+)"', trace)
    return bool(frames) and Path(frames[-1]).stem == snippet_file.stem


@dataclass(frozen=True, slots=True)
class _Run:
    finding: Finding
    stderr: tuple[str, ...]
    exit_codes: tuple[int | None, ...]
    wrote_stdout: bool
    """Any session wrote anything to stdout: the server got as far as serving."""


def _run_probe(probe_name: str, seam_args: list[str], *, timeout: float, snippet_stem: str = "") -> _Run:
    """Start the reference server (with optional seam arguments) for one probe run."""
    probe = PROBES[probe_name]
    with tempfile.TemporaryDirectory(prefix="hb-verify-") as tmp:
        parent = Path(tmp)
        workspace = parent / "ws"
        workspace.mkdir()
        canary = f"hb-canary-{secrets.token_hex(8)}"
        argv = [sys.executable, "-m", "reference_server", "--workspace", str(workspace), "--test-tools",
                "--page-size", str(PAGE_SIZE), *seam_args]
        target = Target(argv=argv, workspace=workspace, env=minimal_env(workspace, canary), canary=canary, timeout=timeout)
        try:
            finding = probe.run(target)
        except Exception as exc:  # a probe must never take the verifier down with it
            finding = Finding("FAIL", f"the probe itself failed: {type(exc).__name__}: {exc}")
        finally:
            target.stop_all()
        return _Run(
            finding,
            tuple(target.stderr_of_all),
            tuple(s.proc.returncode for s in target.sessions),
            any(s.stdout for s in target.sessions),
        )


_baselines: dict[str, _Run] = {}
_baseline_lock = threading.Lock()


def baseline(probe_name: str, *, timeout: float = 5.0) -> _Run:
    """The probe against the unmodified reference server, once per process.

    It must PASS: otherwise the probe or the server is broken, and a WRONG
    snippet "failing" would prove nothing.
    """
    with _baseline_lock:
        if probe_name not in _baselines:
            _baselines[probe_name] = _run_probe(probe_name, [], timeout=timeout)
        return _baselines[probe_name]


def verify(snippet: Snippet, rule: Rule, *, timeout: float = 5.0) -> Verdict:
    """Run ``rule``'s probe against the reference server with ``snippet`` mounted."""
    expected = "FAIL" if snippet.kind == "wrong" else "PASS"
    if rule.probe not in PROBES:
        return Verdict(snippet, expected, None, broken=f"rule {rule.id} names unknown probe {rule.probe!r}")
    if not snippet.seam:
        return Verdict(snippet, expected, None, broken="the snippet names no seam")
    control = baseline(rule.probe, timeout=timeout)
    if control.finding.status != "PASS":
        reason = f"the probe does not pass against the unmodified reference server ({control.finding.status}: {control.finding.summary})"
        return Verdict(snippet, expected, control.finding, broken=reason, stderr_tail=control.stderr[-8:])
    with tempfile.TemporaryDirectory(prefix="hb-snippet-") as tmp:
        snippet_file = Path(tmp) / f"snippet_{snippet.rule_id.replace('-', '_')}_{snippet.kind}{snippet.index}.py"
        snippet_file.write_text(snippet_source(snippet), encoding="utf-8")
        run = _run_probe(rule.probe, ["--seam", f"{snippet.seam}={snippet_file}"], timeout=timeout)
    stderr = list(run.stderr)
    if LOAD_FAILURE_EXIT in run.exit_codes:
        broken = next((ln for ln in stderr if "cannot load seam" in ln), "the reference server could not load the snippet")
    elif not run.wrote_stdout and not any(READY_MARK in ln for ln in stderr):
        broken = "the reference server never became ready with this snippet mounted (it crashed at start)"
    else:
        broken = _defect(stderr, snippet.seam, snippet_file)
    return Verdict(snippet, expected, run.finding, broken=broken, stderr_tail=tuple(stderr[-8:]))
