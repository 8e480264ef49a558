"""SEC-003: a child process gets an environment built from an allow-list, not the server's own.

The server's environment holds its secrets (API tokens, connection strings). A child that inherits it,
or gets it through a deny-list of secret-looking names, hands those secrets to whatever the model made
it run. The probe starts the server with decoys (a connection string holding the canary, a random
variable) and has a child print its environment: neither the canary nor any of the server's own
variables beyond a few fixed, non-secret names may show up there.
"""

from __future__ import annotations

import secrets

from ..registry import probe
from ..support import Finding, Target, failed, passed, session_with_tools
from ._common import child_environment

_BENIGN_ENV = frozenset({"PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TERM", "USER", "LOGNAME", "SHELL", "TMPDIR", "PWD"})
"""Variables a child may share with the server without that being a leak (their values are not secrets)."""


@probe("child_env_minimal", "a child process sees none of the server's environment", calls_tools=True, reasons={
    "canary_reached_child": "the server's secret reached a child's environment: it was inherited or filtered by a deny-list",
    "server_env_inherited": "variables of the server's own environment (not fixed, non-secret names) reached a child",
})
def child_env_minimal(target: Target) -> Finding:
    """Start the server with decoy secrets; a child that prints its environment must show none of them."""
    decoys = {"DATABASE_URL": f"postgresql://app:{target.canary}@db.internal:5432/app",
              "HB_PROBE_DECOY": f"hb-decoy-{secrets.token_hex(6)}"}
    session, _, tools = session_with_tools(target, extra_env=decoys)
    env, text, evidence = child_environment(target, session, tools)
    server_env = {**target.env, **decoys}
    inherited = sorted(n for n, v in env.items()
                       if n in server_env and server_env[n] == v and n not in _BENIGN_ENV and not n.startswith("LC_"))
    evidence.append(f"the child saw: {', '.join(sorted(env)) or '(an empty environment)'}")
    if target.canary in text:
        holders = [n for n, v in env.items() if target.canary in v]
        return failed("canary_reached_child", f"the server's secret reached the child "
                      f"(in {', '.join(holders) or 'its output'}): the child environment was inherited or filtered "
                      "by a deny-list", *evidence)
    if inherited:
        return failed("server_env_inherited", f"{len(inherited)} variable(s) of the server's own environment were passed "
                      f"through: {', '.join(inherited)}; build the child environment from an allow-list", *evidence)
    if not env:
        return passed("the child printed an empty environment (or the tool does not show the program's output): "
                      "nothing of the server's environment is visible", *evidence)
    return passed(f"the child's environment holds {len(env)} variable(s), none inherited from the server "
                  "beyond fixed, non-secret names", *evidence)
