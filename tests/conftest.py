"""Load the named hypothesis profile (dev locally, ci under CI, or $BPE_HYPOTHESIS_PROFILE)."""

from hypothesis import settings

from conformance.settings import active_profile_name, register_profiles

register_profiles()
settings.load_profile(active_profile_name())
