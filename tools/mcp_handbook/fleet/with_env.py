"""``python -m mcp_handbook.fleet.with_env FILE -- COMMAND...``: run COMMAND with the variables in FILE added.

The audit starts a server with nothing inherited and names its command in the worksheet, so a secret cannot ride
in the environment or on the command line without being lost or written down. The fleet writes the secrets an
entry needs to FILE (``NAME=value`` lines, mode 0600, in a folder removed after the audit) and starts the server
through this; the process then becomes COMMAND itself (``exec``), so its PID, signals and pipes are the server's.
"""

from __future__ import annotations

import os
import sys


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        print("usage: python -m mcp_handbook.fleet.with_env FILE -- COMMAND [ARGS...]", file=sys.stderr)
        return 2
    env = dict(os.environ)
    with open(argv[0], encoding="utf-8") as handle:
        for n, line in enumerate(handle, start=1):
            name, eq, value = line.rstrip("\n").partition("=")
            if not eq or not name:
                print(f"with_env: {argv[0]}:{n}: not a NAME=value line", file=sys.stderr)
                return 2
            env[name] = value
    try:
        os.execvpe(argv[2], argv[2:], env)
    except OSError as exc:
        print(f"with_env: cannot run {argv[2]}: {exc.strerror or exc}", file=sys.stderr)
        return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
