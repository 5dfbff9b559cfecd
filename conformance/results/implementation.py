"""What the reports say of the implementation under test, as one typed record (JSON only at the edge).

Built by one builder, :meth:`ImplementationRecord.of`, from a subject (``run``, ``fuzz``, ``matrix``,
``compare``) or from its declarations (the protocol's handshake); the serializers call
:meth:`~ImplementationRecord.report_json`, :meth:`~ImplementationRecord.compare_json` or
:meth:`~ImplementationRecord.declarations`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Set

    from bpe_conformance.reference.json_values import JSONObject

__all__ = ["ImplementationRecord"]


class Declarations(Protocol):
    """What an implementation declares (:class:`~bpe_conformance.adapters.subject.ImplementationInfo`)."""

    @property
    def name(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def language(self) -> str: ...
    @property
    def capabilities(self) -> Set[str]: ...
    @property
    def profile(self) -> str: ...


class Judged(Protocol):
    """An implementation under test as judged (:class:`~bpe_conformance.adapters.subject.Subject`)."""

    @property
    def info(self) -> Declarations: ...
    @property
    def declared_profile(self) -> str: ...


@dataclass(frozen=True)
class ImplementationRecord:
    """What every report says of the implementation under test; only the serializers turn it into JSON.

    ``profile`` is the profile the checks judged by (the declared one, or ``--profile``'s), ``declared_profile``
    the one the implementation declares; ``spec`` is the ``--impl`` given (None: the bundled reference).

    >>> record = ImplementationRecord("tok", "1", "c", "minbpe", ("train",), "cmd:./t", "strict", "process")
    >>> record.report_json()
    {'name': 'tok', 'version': '1', 'language': 'c', 'profile': 'minbpe', 'capabilities': ['train'], 'spec': 'cmd:./t'}
    >>> record.declarations()["profile"], record.label
    ('minbpe', 'tok 1')
    """

    name: str
    version: str = "unknown"
    language: str = "python"
    profile: str = "strict"
    capabilities: tuple[str, ...] = ()
    spec: str | None = None
    declared_profile: str | None = None
    isolation: str | None = None

    @classmethod
    def of(cls, subject: Judged, spec: str | None = None, isolation: str | None = None) -> ImplementationRecord:
        """The record of ``subject`` as judged (a ``--profile`` subject keeps its declared profile apart)."""
        info = subject.info
        record = cls.from_info(info, spec)
        return dataclasses.replace(record, declared_profile=subject.declared_profile, isolation=isolation)

    @classmethod
    def from_info(cls, info: Declarations, spec: str | None = None) -> ImplementationRecord:
        """The record of what ``info`` declares."""
        capabilities = tuple(sorted(info.capabilities))
        return cls(info.name, info.version, info.language, info.profile, capabilities, spec, info.profile)

    @property
    def label(self) -> str:
        """``name version``, or just the name when the implementation declares no version."""
        return self.name if self.version in ("unknown", "None", "") else f"{self.name} {self.version}"

    def declarations(self) -> JSONObject:
        """What the implementation declares, in the order of the protocol's handshake result."""
        return {
            "name": self.name,
            "version": self.version,
            "language": self.language,
            "capabilities": list(self.capabilities),
            "profile": self.profile,
        }

    def report_json(self) -> JSONObject:
        """The ``implementation`` object of the run and fuzz reports."""
        fields = ("name", "version", "language", "profile", "capabilities", "spec")
        return {name: list(self.capabilities) if name == "capabilities" else getattr(self, name) for name in fields}

    def compare_json(self) -> JSONObject:
        """The ``implementation`` object of the compare report: also the declared profile and the isolation."""
        record = self.report_json()
        return {
            **{key: record[key] for key in ("name", "version", "language", "profile")},
            "declared_profile": self.declared_profile,
            "capabilities": record["capabilities"],
            "spec": self.spec,
            "isolation": self.isolation,
        }
