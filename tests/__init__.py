"""The tests, one folder per package of the source tree: ``tests/checks/`` tests ``conformance/checks/``.

``tests/support/`` holds the implementations the tests run (one bug each, correct variants, the seed
chapter); ``tests/fixtures/`` the programs run in their own process (hostile, Node.js). The tests at
the top test the project as a whole: packaging, the README, the wheel, the CI example, the layering.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
