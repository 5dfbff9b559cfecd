"""Load the named hypothesis profile for tests and doctests alike; keep hypothesis's files out of the checkout.

dev locally, ci under CI, or $BPE_HYPOTHESIS_PROFILE. Hypothesis's storage (its Unicode tables, and an example
database where a test asks for one) goes to a temporary directory removed at exit, as for the command line,
unless $HYPOTHESIS_STORAGE_DIRECTORY names one; pytest's cache is off (pyproject.toml's addopts), so a test run
leaves neither .hypothesis/ nor .pytest_cache/ behind.
"""

from hypothesis import settings

from bpe_conformance.settings import active_effort_name, keep_storage_out_of_cwd, register_efforts

register_efforts()
settings.load_profile(active_effort_name())
keep_storage_out_of_cwd()

# Hostile fixtures are programs that talk on stdin/stdout; importing them to look for doctests would run them.
# Third-party adapters import optional libraries; tests/adapters/thirdparty/ tests them where they are installed.
collect_ignore_glob = [
    "tests/fixtures/*",
    "bench/*",
    "bpe_conformance/adapters/thirdparty/*",
    "conformance/*",
    "reference/*",
]
