"""Serves correctly, but first daemonizes a helper the classic way: a child in a session of its own, with an empty
environment and no pipe of the server's, starts the helper and exits. The helper is then an orphan that carries
nothing of the audit (no canary, no pipe): only an auditor that is the reaper of its descendants' orphans finds it."""

import subprocess
import sys

import tiny

HELPER = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(3600)"
LAUNCHER = (f"import subprocess, sys; p = subprocess.Popen([sys.executable, '-c', {HELPER!r}]); "
            "open(sys.argv[1], 'a').write(f'{p.pid}\\n') if sys.argv[1] else None")
pidfile = tiny.option("--pidfile") or ""
subprocess.run([sys.executable, "-c", LAUNCHER, pidfile], start_new_session=True, env={}, close_fds=True,
               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
tiny.serve()
