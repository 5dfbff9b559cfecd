"""Adapters that put real third-party BPE libraries behind the plug-in contract.

Each adapter only maps ids between the library and our numbering (bytes 0-255, rule ``r`` is
``256 + r`` in every profile these libraries follow) and calls the library; it never repairs
behaviour. Every adapter class has ``name``, ``version`` (the library's), ``profile`` (the
dialect it declares, see ``specs/profiles.md``) and ``capabilities``.

The libraries are optional extras: importing an adapter module imports its library, so import
them through :data:`ADAPTERS` (``"module:Class"`` specs) only where the library is installed.

>>> sorted(ADAPTERS)
['bpeasy', 'bpetokenizer', 'hf-tokenizers', 'minbpe', 'rustbpe', 'tiktoken']
>>> ADAPTERS["tiktoken"]
'conformance.adapters.thirdparty.tiktoken_encoding:TiktokenAdapter'
"""

from __future__ import annotations

__all__ = ["ADAPTERS", "LIBRARIES"]

ADAPTERS: dict[str, str] = {
    "hf-tokenizers": "conformance.adapters.thirdparty.hf_tokenizers:HFTokenizersAdapter",
    "tiktoken": "conformance.adapters.thirdparty.tiktoken_encoding:TiktokenAdapter",
    "rustbpe": "conformance.adapters.thirdparty.rustbpe_trainer:RustbpeAdapter",
    "bpeasy": "conformance.adapters.thirdparty.bpeasy_trainer:BpeasyAdapter",
    "minbpe": "conformance.adapters.thirdparty.minbpe_basic:MinbpeAdapter",
    "bpetokenizer": "conformance.adapters.thirdparty.bpetokenizer_base:BpetokenizerAdapter",
}

# The importable module each adapter needs (what ``pytest.importorskip`` is given).
LIBRARIES: dict[str, str] = {
    "hf-tokenizers": "tokenizers",
    "tiktoken": "tiktoken",
    "rustbpe": "rustbpe",
    "bpeasy": "bpeasy",
    "minbpe": "MiniBpeRust",
    "bpetokenizer": "bpetokenizer",
}
