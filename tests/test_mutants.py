"""Every critical mutant of tests/mutants.py is caught by the test it names (issue #18); about a minute."""

from __future__ import annotations

import pytest
from mutants import MUTANTS, run

pytestmark = pytest.mark.slow  # each mutant runs its test files in a pytest process of its own


def test_every_critical_mutant_is_caught() -> None:
    outcomes = run()
    assert len(outcomes) == len(MUTANTS) >= 35
    not_caught = [f"{o.status}: {o.mutant.name} ({o.detail[:300]})" for o in outcomes if o.status != "caught"]
    assert not not_caught, "\n".join(not_caught)
