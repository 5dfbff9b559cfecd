"""The npm adapters (conformance/adapters/thirdparty/npm/) over the cmd: protocol; skipped without npm ci."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from bpe_conformance.adapters import load_implementation
from bpe_conformance.adapters.thirdparty import NPM_ADAPTERS, NPM_DIRECTORY, npm_installed
from bpe_conformance.errors import ImplementationRaised

if TYPE_CHECKING:
    from collections.abc import Iterator

    from bpe_conformance.adapters.subject import Subject


@pytest.fixture(params=sorted(NPM_ADAPTERS))
def subject(request: pytest.FixtureRequest) -> Iterator[Subject]:
    spec, package = NPM_ADAPTERS[request.param]
    if not npm_installed(package):
        pytest.skip(f"{package} is not installed (tox -e impl-{request.param}, or npm ci in {NPM_DIRECTORY})")
    opened = load_implementation(spec)
    yield opened
    opened.close()


def test_handshake_names_the_package_and_profile(subject: Subject) -> None:
    assert subject.info.profile == "tiktoken"
    assert subject.info.capabilities == {"load", "encode", "decode"}
    assert subject.info.version[0].isdigit()


def test_loaded_rules_encode_by_piece_rank(subject: Subject) -> None:
    """BPE-ENCODE-ORDER relaxed to piece rank, as tiktoken does: 'abc' is rule 258's piece."""
    subject.load([(98, 99), (97, 98), (257, 99)])
    assert subject.encode("abc") == [258]
    assert subject.encode("a\u00e9b") == [97, 195, 169, 98]
    assert subject.decode([256, 97]) == "bca"


def test_rules_are_mapped_only_when_they_name_bytes_or_earlier_rules(subject: Subject) -> None:
    """The adapter builds the rank table, so it refuses what has no piece; a float part is refused too."""
    for rules, kind in (([[97, 256]], "ValueError"), ([[97.0, 98]], "TypeError"), ([[97]], "ValueError")):
        with pytest.raises(ImplementationRaised) as raised:
            # malformed rules on purpose: the adapter must refuse them
            subject.load(rules)  # type: ignore[arg-type]
        assert raised.value.kind == kind
