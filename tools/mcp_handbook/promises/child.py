"""The process a Python block runs in: ``python -m mcp_handbook.promises.child`` reads one JSON job on stdin
(``code``, ``path``, ``line``, ``needs``, ``promise``), runs the preludes and the block as module ``block``, then
the promise's check, and writes one JSON line with the outcome on the stdout it was given. Anything the block
itself prints goes to stderr, so the outcome line is the only thing on that stdout.

The block is compiled under its markdown file's name, its line numbers shifted to the file's, so a traceback
points at ``content/rules/...md:LINE``.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import sys
import traceback
import types


def _outcome(status: str, **details: str) -> dict[str, str]:
    return {"status": status, **details}


def _compile_block(code: str, path: str, line: int) -> types.CodeType:
    tree = ast.parse(code, filename=path)
    ast.increment_lineno(tree, line - 1)
    return compile(tree, path, "exec")


def _where(exc: BaseException, path: str) -> str:
    """``block`` when the block's own code is on the traceback, else ``check``."""
    frames = traceback.extract_tb(exc.__traceback__)
    return "block" if any(f.filename == path for f in frames) else "check"


def _raised(exc: BaseException, path: str) -> dict[str, str]:
    lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
    return _outcome("raised", where=_where(exc, path), error=f"{type(exc).__name__}: {exc}"[:2000], traceback="".join(lines)[-4000:])


def run(job: dict) -> dict[str, str]:
    for name in job.get("modules", ()):  # only the modules that register this block's promise and preludes
        importlib.import_module(name)
    from .registry import PRELUDES, PROMISES, Broken

    path, line = job["path"], int(job["line"])
    module = types.ModuleType("block")
    module.__file__ = path
    vars(module)["__block_source__"] = job["code"]  # a check that runs the block as a file of its own (a test file) reads it here
    sys.modules["block"] = module
    try:
        for name in job.get("needs", ()):
            exec(compile(PRELUDES[name], f"<prelude {name}>", "exec"), module.__dict__)
        exec(_compile_block(job["code"], path, line), module.__dict__)
    except SyntaxError as exc:
        return _outcome("raised", where="block", error=f"SyntaxError: {exc.msg} (line {exc.lineno})")
    except BaseException as exc:  # noqa: BLE001 - whatever the block raises is the verdict
        return _raised(exc, path)
    name = job.get("promise")
    if not name:
        return _outcome("ran")
    try:
        PROMISES[name].check(module)
    except Broken as broke:
        return _outcome("broke", reason=broke.reason, detail=broke.detail[:4000])
    except BaseException as exc:  # noqa: BLE001
        return _raised(exc, path)
    return _outcome("kept")


def main() -> None:
    job = json.loads(sys.stdin.read())
    report = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # the block's own prints go to stderr
    sys.stdout = sys.stderr
    outcome = run(job)
    report.write(json.dumps(outcome) + "\n")
    report.flush()
    os._exit(0)  # threads the block left running do not hold the verdict


if __name__ == "__main__":
    main()
