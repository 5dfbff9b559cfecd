"""How long a campaign runs: ``90s``, ``10m``, ``2h``, or several units together (``1h30m``).

>>> parse_duration("90s"), parse_duration("10m"), parse_duration("2h"), parse_duration("1h30m")
(90.0, 600.0, 7200.0, 5400.0)
>>> parse_duration("1.5m")
90.0
>>> parse_duration("10")
Traceback (most recent call last):
...
ValueError: duration '10' has no unit: write 10s, 10m or 10h
>>> format_duration(5400), format_duration(90), format_duration(4.2), format_duration(0)
('1h 30m', '1m 30s', '4.2s', '0s')
"""

from __future__ import annotations

import math
import re

__all__ = ["MAX_SECONDS", "format_duration", "parse_duration"]

_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600}
_PART = re.compile(r"(\d+(?:\.\d+)?)([smh])")
# A year: anything longer is surely a typo, not a campaign.
MAX_SECONDS = 366 * 24 * 3600


def parse_duration(text: str) -> float:
    """Seconds in ``text``: numbers each followed by ``s``, ``m`` or ``h``; a ValueError says what is wrong."""
    compact = text.strip().lower()
    if re.fullmatch(r"\d+(?:\.\d+)?", compact):
        raise ValueError(f"duration {text!r} has no unit: write {compact}s, {compact}m or {compact}h")
    if not compact or _PART.sub("", compact):
        raise ValueError(f"duration {text!r} is not like 90s, 10m, 2h or 1h30m")
    seconds = sum(float(number) * _UNIT_SECONDS[unit] for number, unit in _PART.findall(compact))
    if not math.isfinite(seconds) or seconds <= 0:
        raise ValueError(f"duration {text!r} must be longer than 0s")
    if seconds > MAX_SECONDS:
        raise ValueError(f"duration {text!r} is longer than a year")
    return seconds


def format_duration(seconds: float) -> str:
    """``seconds`` for people: ``1h 30m``, ``2m 5s``, ``4.2s``."""
    if seconds < 10:
        return f"{seconds:.1f}s".replace(".0s", "s")
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours}h" if hours else "", f"{minutes}m" if minutes else "", f"{secs}s" if secs else ""]
    return " ".join(part for part in parts if part) or "0s"
