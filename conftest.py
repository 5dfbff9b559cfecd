"""Load the named hypothesis profile for tests and doctests alike.

dev locally, ci under CI, or $BPE_HYPOTHESIS_PROFILE.
"""

from hypothesis import settings

from bpe_conformance.settings import active_effort_name, register_efforts

register_efforts()
settings.load_profile(active_effort_name())

# Hostile fixtures are programs that talk on stdin/stdout; importing them to look for doctests would run them.
# Third-party adapters import optional libraries; tests/adapters/thirdparty/ tests them where they are installed.
collect_ignore_glob = [
    "tests/fixtures/*",
    "bench/*",
    "bpe_conformance/adapters/thirdparty/*",
    "conformance/*",
    "reference/*",
]
