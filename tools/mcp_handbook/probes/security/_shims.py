"""Children seen from inside: a folder of stand-in programs put first on the server's ``PATH``.

A server that starts ``git`` or ``sh`` by name finds the stand-in first. The stand-in writes down the environment it
was started with (which is exactly the environment the server gave the child) and the command line, then replaces
itself with the real program of that name, found further along the same ``PATH``, under the same environment. It
sees a child that lasts a millisecond as surely as one that lasts a minute, where a look at ``/proc`` every few
milliseconds misses it; a child started by absolute path (``/bin/sh``) is not seen here, and is left to
:class:`~._common.ChildWatch`'s looks at ``/proc``.

The records are kept outside the server's workspace, in a folder of the probe's own that is removed afterwards.

A stand-in can also be made slow (:meth:`PathShims.stall`): after writing its record it waits a bounded number of
seconds before it runs the real program, so a probe sees whether the server bounds the wait on a child it starts.
The wait ends early once the stall is lifted or the folder is removed, so no stand-in outlives its probe by much.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

COMMON_PROGRAMS = (
    "git", "sh", "bash", "dash", "zsh", "env", "printenv", "python", "python3", "node", "npx", "npm", "uv", "uvx",
    "pip", "pip3", "curl", "wget", "ssh", "docker", "make", "sqlite3", "psql", "gh", "rg", "grep", "find", "ls",
    "cat", "sleep", "true", "deno", "bun", "java", "ruby", "perl", "php",
)
"""Programs servers commonly start by name; each gets a stand-in when the server's ``PATH`` has it."""
MAX_MENTIONED = 40
"""Programs named in tool listings that get a stand-in, at most (beyond :data:`COMMON_PROGRAMS`)."""
WORD = re.compile(r"(?<![\w./-])[A-Za-z][\w+.-]{1,30}(?![\w/])")
"""A word of a tool description that could name a program (``git``, ``ffmpeg``, ``clang-format``), not a path."""

_SHIM = '''#!{python} -IS
"""A stand-in written by mcp-handbook's child-environment probe: note the environment this program was started
with, then run the real program of this name under that same environment."""
import json, os, sys, time
LOG, HERE = {log!r}, {here!r}
name = os.path.basename(sys.argv[0])
try:  # the block the kernel was given, before the interpreter adjusted anything (a locale variable)
    with open("/proc/self/environ", "rb") as f:
        env = dict(e.split(b"=", 1) for e in f.read().split(b"\\0") if b"=" in e)
except OSError:
    env = dict(os.environb)
record = {{"pid": os.getpid(), "ppid": os.getppid(), "argv": [name, *sys.argv[1:]],
          "env": {{k.decode("utf-8", "surrogateescape"): v.decode("utf-8", "surrogateescape") for k, v in env.items()}}}}
try:
    fd = os.open(LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    os.write(fd, (json.dumps(record) + "\\n").encode())
    os.close(fd)
except OSError:
    pass
STALL = os.path.join(os.path.dirname(HERE), "stall", name)
try:  # a probe asked this program to be slow: wait (bounded) before running it, unless the stall is lifted
    with open(STALL) as f:
        until = time.monotonic() + min(float(f.read()), 120.0)
except (OSError, ValueError):
    until = 0.0
while time.monotonic() < until and os.path.exists(STALL):
    time.sleep(0.05)
for folder in env.get(b"PATH", b"").decode("utf-8", "surrogateescape").split(os.pathsep):
    real = os.path.join(folder or ".", name)
    if os.path.realpath(folder or ".") != HERE and os.path.isfile(real) and os.access(real, os.X_OK):
        os.execve(real, [name, *sys.argv[1:]], env)
sys.stderr.write(name + ": command not found\\n")
sys.exit(127)
'''


@dataclass(frozen=True, slots=True)
class ShimRecord:
    """One program a stand-in saw started: its pid (the same once the real program runs), command line and
    environment."""

    pid: int
    argv: tuple[str, ...]
    environ: dict[str, str]


class PathShims:
    """A folder of stand-ins for one probe, and the log they append to. Use as a context manager: the folder is
    removed on exit."""

    def __init__(self, server_path: str, names: tuple[str, ...] = COMMON_PROGRAMS) -> None:
        self.server_path = server_path
        self.home = Path(tempfile.mkdtemp(prefix="hb-shims-"))
        self.folder = self.home / "bin"
        self.folder.mkdir()
        self.log = self.home / "children.jsonl"
        self.names: list[str] = []
        self.add(names)

    def __enter__(self) -> PathShims:
        return self

    def __exit__(self, *_: object) -> None:
        shutil.rmtree(self.home, ignore_errors=True)

    @property
    def path(self) -> str:
        """The server's ``PATH`` with the stand-ins first."""
        return os.pathsep.join([str(self.folder), self.server_path])

    def add(self, names: tuple[str, ...] | list[str]) -> None:
        """A stand-in for each name the server's ``PATH`` has (a name it lacks stays missing: a stand-in would make
        a program appear that the server would not find)."""
        python = os.path.realpath(sys.executable)
        for name in names:
            if name in self.names or not shutil.which(name, path=self.server_path):
                continue
            shim = self.folder / name
            shim.write_text(_SHIM.format(python=python, log=str(self.log), here=os.path.realpath(self.folder)))
            shim.chmod(stat.S_IRWXU)
            self.names.append(name)

    def add_mentioned(self, tools: list[dict[str, Any]]) -> None:
        """Stand-ins for programs a tool's name or description names ("runs git log", "via ffmpeg")."""
        text = " ".join(f"{t.get('name', '')} {t.get('description', '')}" for t in tools if isinstance(t, dict))
        words = list(dict.fromkeys(w.lower() for w in WORD.findall(text)))
        self.add([w for w in words if shutil.which(w, path=self.server_path)][:MAX_MENTIONED])

    def stall(self, name: str, seconds: float) -> None:
        """Make the stand-in of ``name`` wait ``seconds`` (at most 120) before it runs the real program, from its next
        start on; :meth:`unstall` or leaving the context ends every wait under way."""
        folder = self.home / "stall"
        folder.mkdir(exist_ok=True)
        (folder / name).write_text(f"{seconds:g}")

    def unstall(self) -> None:
        """Lift every stall: stand-ins waiting now run their real programs at once."""
        shutil.rmtree(self.home / "stall", ignore_errors=True)

    def stalled(self, pid: int) -> bool:
        """True while ``pid`` is still a stand-in (waiting, or about to run its real program), not the program."""
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                return str(self.folder).encode() in f.read()
        except OSError:
            return False

    def mark(self) -> int:
        """Where the log ends now: records after this mark were written later."""
        try:
            return self.log.stat().st_size
        except OSError:
            return 0

    def since(self, mark: int) -> list[ShimRecord]:
        """The programs started after ``mark`` (a record cut short by a racing write is skipped)."""
        try:
            with self.log.open("rb") as f:
                f.seek(mark)
                lines = f.read().splitlines()
        except OSError:
            return []
        records = []
        for line in lines:
            try:
                data = json.loads(line)
                records.append(ShimRecord(int(data["pid"]), tuple(str(a) for a in data["argv"]),
                                          {str(k): str(v) for k, v in data["env"].items()}))
            except (ValueError, KeyError, TypeError, AttributeError):
                continue
        return records
