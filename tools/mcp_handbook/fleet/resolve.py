"""The program a runner would start, found once the package is installed, so the audit starts that program itself.

``npx -y NAME@VER`` and ``uvx NAME==VER`` are how a host starts a package, and how the fleet installs it
(:mod:`.prepare`); but the runner is not the server. With it in between, the auditor meets the runner where it
looks for the server: which SDK the server is built on (read from its program: :mod:`..audit.sdk_detect`), the
descriptors and signals of the process it started, and 1 to 2 s of the runner's own start-up on each of the dozens
of starts an audit makes. So after installing, the fleet asks the runner where the package's program is, with a
command that exits at once, and audits that program with the same arguments: the same code, the same interpreter
the runner would use. When the runner will not say, the audit runs the runner's command as a host would.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from .entry import Entry

ASK_SECONDS = 60.0


def package_spec(entry: Entry) -> str:
    """``@scope/name@1.2.3`` or ``name==1.2.3``: the spec the runner was given (the package label without its
    registry and transport)."""
    return entry.package.split(":", 1)[1].split(" (", 1)[0] if ":" in entry.package else ""


def _ask(argv: list[str], environ: Mapping[str, str]) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=ASK_SECONDS, env=dict(environ),
                              stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def _npm_program(spec: str, environ: Mapping[str, str]) -> list[str]:
    """``node`` and the package's bin script, as ``npx`` picks it: the only bin, or the one named as the package."""
    path = _ask(["npx", "-y", "--package", spec, "--", "node", "-e", "process.stdout.write(process.env.PATH)"], environ)
    bin_dir = next((Path(p) for p in path.split(os.pathsep) if p.endswith(os.path.join("node_modules", ".bin"))), None)
    name = spec.rsplit("@", 1)[0] if spec.count("@") > (1 if spec.startswith("@") else 0) else spec
    if bin_dir is None:
        return []
    try:
        manifest = json.loads((bin_dir.parent / name / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    bins = manifest.get("bin") if isinstance(manifest, dict) else None
    script: object
    if isinstance(bins, str):
        script = bins
    elif isinstance(bins, dict) and bins:
        script = bins.get(name.rsplit("/", 1)[-1]) or (next(iter(bins.values())) if len(bins) == 1 else None)
    else:
        script = None
    node = shutil.which("node", path=environ.get("PATH"))
    if not isinstance(script, str) or node is None:
        return []
    target = (bin_dir.parent / name / script).resolve()
    return [node, str(target)] if target.is_file() else []


def _pypi_program(spec: str, environ: Mapping[str, str]) -> list[str]:
    """The console script of the package's cached environment, which ``uvx NAME`` runs (it names the package)."""
    prefix = _ask(["uvx", "--from", spec, "python", "-c", "import sys; print(sys.prefix)"], environ)
    name = spec.split("==", 1)[0].split("[", 1)[0]
    program = Path(prefix) / "bin" / name if prefix else None
    return [str(program)] if program is not None and program.is_file() else []


def resolve(entry: Entry, *, environ: Mapping[str, str]) -> tuple[str, ...]:
    """The command the audit runs for an installed npm or PyPI package: its program and the entry's arguments; ()
    when the runner would not say (the runner's own command then runs)."""
    spec, command = package_spec(entry), list(entry.command)
    if not spec or spec not in command:
        return ()
    after = command[command.index(spec) + 1:]
    if entry.how == "npm" and command[:2] == ["npx", "-y"]:
        program = _npm_program(spec, environ)
    elif entry.how == "pypi" and command[:1] == ["uvx"] and command.index(spec) == 1:
        program = _pypi_program(spec, environ)
    else:
        program = []
    return (*program, *after) if program else ()
