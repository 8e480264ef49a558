"""Entry point for ``python -m reference_server``."""
from __future__ import annotations

import sys

from reference_server.cli import main

if __name__ == "__main__":
    sys.exit(main())
