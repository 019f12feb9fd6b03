"""Test set-up: the tests directory is importable (shared helpers such as netutil and local_table)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
