"""Adapters that put real third-party BPE libraries behind the plug-in contract.

Each adapter only maps ids between the library and our numbering (bytes 0-255, rule ``r`` is
``256 + r`` in every profile these libraries follow) and calls the library; it never repairs
behaviour. Every adapter class has ``name``, ``version`` (the library's), ``profile`` (the
dialect it declares, see ``specs/profiles.md``) and ``capabilities``.

The libraries are optional extras: importing an adapter module imports its library, so import
them through :data:`ADAPTERS` (``"module:Class"`` specs) only where the library is installed.

npm libraries are driven through the ``cmd:`` protocol by small Node adapters in ``npm/`` (one
``.mjs`` per library, their versions pinned by ``npm/package.json`` and its lockfile, installed by
``tox -e impl-npm`` with ``npm ci``): :data:`NPM_ADAPTERS` gives each its ``cmd:`` spec (run from the
repository root) and the npm package it needs, :func:`npm_installed` whether that package is there.

>>> sorted(ADAPTERS)[:6]
['bpeasy', 'bpetokenizer', 'cminbpe', 'cminbpe-c', 'fast-bpe-rs', 'flashbpe']
>>> sorted(NPM_ADAPTERS)
['gpt-tokenizer', 'js-tiktoken', 'tiktoken-wasm']
>>> ADAPTERS["tiktoken"]
'bpe_conformance.adapters.thirdparty.tiktoken_encoding:TiktokenAdapter'
"""

from __future__ import annotations

import shutil
from pathlib import Path

__all__ = ["ADAPTERS", "LIBRARIES", "NPM_ADAPTERS", "NPM_DIRECTORY", "NPM_PRODUCTION_ADAPTERS", "npm_installed"]

ADAPTERS: dict[str, str] = {
    "hf-tokenizers": "bpe_conformance.adapters.thirdparty.hf_tokenizers:HFTokenizersAdapter",
    "tiktoken": "bpe_conformance.adapters.thirdparty.tiktoken_encoding:TiktokenAdapter",
    "rustbpe": "bpe_conformance.adapters.thirdparty.rustbpe_trainer:RustbpeAdapter",
    "bpeasy": "bpe_conformance.adapters.thirdparty.bpeasy_trainer:BpeasyAdapter",
    "minbpe": "bpe_conformance.adapters.thirdparty.minbpe_basic:MinbpeAdapter",
    "bpetokenizer": "bpe_conformance.adapters.thirdparty.bpetokenizer_base:BpetokenizerAdapter",
    "flashbpe": "bpe_conformance.adapters.thirdparty.flashbpe_trainer:FlashbpeAdapter",
    "fast-bpe-rs": "bpe_conformance.adapters.thirdparty.fast_bpe_rs_trainer:FastBpeRsAdapter",
    "smoltoken": "bpe_conformance.adapters.thirdparty.smoltoken_trainer:SmoltokenAdapter",
    "tinybpe": "bpe_conformance.adapters.thirdparty.tinybpe_trainer:TinybpeAdapter",
    "cminbpe": "bpe_conformance.adapters.thirdparty.cminbpe_regex:CminbpeAdapter",
    "cminbpe-c": "bpe_conformance.adapters.thirdparty.cminbpe_regex:CminbpeCAdapter",
    "turbobpe": "bpe_conformance.adapters.thirdparty.turbobpe_regex:TurbobpeAdapter",
    "smolbpe": "bpe_conformance.adapters.thirdparty.smolbpe_tokenizer:SmolbpeAdapter",
    "riptoken": "bpe_conformance.adapters.thirdparty.riptoken_encoding:RiptokenAdapter",
    "kitoken": "bpe_conformance.adapters.thirdparty.kitoken_encoding:KitokenAdapter",
}

# The importable module each adapter needs (what ``pytest.importorskip`` is given).
LIBRARIES: dict[str, str] = {
    "hf-tokenizers": "tokenizers",
    "tiktoken": "tiktoken",
    "rustbpe": "rustbpe",
    "bpeasy": "bpeasy",
    "minbpe": "MiniBpeRust",
    "bpetokenizer": "bpetokenizer",
    "flashbpe": "flashbpe",
    "fast-bpe-rs": "fast_bpe_rs",
    "smoltoken": "smoltoken",
    "tinybpe": "tinybpe",
    "cminbpe": "cminbpe",
    "cminbpe-c": "cminbpe",
    "turbobpe": "turbobpe",
    "smolbpe": "smolbpe",
    "riptoken": "riptoken",
    "kitoken": "kitoken",
}

NPM_DIRECTORY = Path(__file__).parent / "npm"

# label -> (``cmd:`` spec, relative to the repository root; the npm package the adapter drives).
NPM_ADAPTERS: dict[str, tuple[str, str]] = {
    "js-tiktoken": ("cmd:node conformance/adapters/thirdparty/npm/js_tiktoken.mjs", "js-tiktoken"),
    "tiktoken-wasm": ("cmd:node conformance/adapters/thirdparty/npm/tiktoken_wasm.mjs", "tiktoken"),
    "gpt-tokenizer": ("cmd:node conformance/adapters/thirdparty/npm/gpt_tokenizer.mjs", "gpt-tokenizer"),
}

# label -> (``cmd:`` spec, to which the encoding's name is appended; the npm package; the released encodings
# it ships, judged with ``run --vocabulary``: specs/protocol.md 3.4, docs/findings-production.md).
NPM_PRODUCTION_ADAPTERS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "js-tiktoken": (
        "cmd:node conformance/adapters/thirdparty/npm/js_tiktoken_production.mjs",
        "js-tiktoken",
        ("cl100k_base", "o200k_base"),
    ),
    "gpt-tokenizer": (
        "cmd:node conformance/adapters/thirdparty/npm/gpt_tokenizer_production.mjs",
        "gpt-tokenizer",
        ("cl100k_base", "o200k_base"),
    ),
    "tiktoken-wasm": (
        "cmd:node conformance/adapters/thirdparty/npm/tiktoken_wasm_production.mjs",
        "tiktoken",
        ("cl100k_base", "o200k_base"),
    ),
}


def npm_installed(package: str) -> bool:
    """Whether Node.js is on PATH and ``npm ci`` has installed ``package`` beside the Node adapters."""
    return shutil.which("node") is not None and (NPM_DIRECTORY / "node_modules" / package / "package.json").is_file()
