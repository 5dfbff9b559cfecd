"""``bpe-conformance badge REPORT.json``: shields.io endpoint badges, one per conformance level.

Reads a JSON report of ``run --json`` (``specs/schema/report.schema.json``) and prints one endpoint
document per level, or with ``--dir DIR`` writes them as ``DIR/bpe-algorithm.json`` and
``DIR/bpe-interface.json`` for a site to serve (``https://img.shields.io/endpoint?url=<their URL>``).
Exit 0 once written; 2 when the report cannot be read or is not a report.

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="bpe-conformance")
>>> register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["badge", "report.json", "--dir", "badges"])
>>> args.handler is handle, args.report, args.dir
(True, 'report.json', 'badges')
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jsonschema

from bpe_conformance.errors import HarnessError
from bpe_conformance.files import read_text_file, writable_path
from bpe_conformance.reports.badge import badge_documents
from bpe_conformance.spec.resources import read_spec_text

if TYPE_CHECKING:
    import argparse

    from bpe_conformance.reference.json_values import JSONObject

__all__ = ["badge_file_name", "handle", "register"]


def register(subparsers: Any) -> None:
    """Add the ``badge`` parser."""
    parser = subparsers.add_parser(
        "badge",
        help="shields.io endpoint badges (one per conformance level) from a run --json report",
        description=__doc__.split("\n\n>>>")[0].replace("``", "") if __doc__ else None,
    )
    parser.add_argument("report", metavar="REPORT.json", help="a report written by run --json")
    parser.add_argument("--dir", metavar="DIR", help="write bpe-<level>.json here instead of printing them")
    parser.set_defaults(handler=handle)


def badge_file_name(level: str) -> str:
    """The file a level's badge is written to under ``--dir``."""
    return f"bpe-{level}.json"


def _read_report(path: str) -> JSONObject:
    text = read_text_file(path, "report")
    try:
        report = json.loads(text)
    except ValueError as error:
        raise HarnessError(f"report {path!r} is not JSON: {error}") from None
    schema = json.loads(read_spec_text("schema", "report.schema.json"))
    problem = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(report))
    if problem is not None:
        where = "/".join(str(part) for part in problem.absolute_path) or "the top level"
        raise HarnessError(f"report {path!r} is not a run --json report ({where}: {problem.message[:200]})")
    if not isinstance(report, dict):  # the schema's top level is an object; this tells mypy so
        raise HarnessError(f"report {path!r} is not a run --json report (not an object)")
    return report


def handle(args: argparse.Namespace) -> int:
    """Print the badges, or write them under ``--dir``."""
    badges = badge_documents(_read_report(args.report))
    if args.dir is None:
        print(json.dumps(badges, indent=2, ensure_ascii=True))
        return 0
    directory = Path(args.dir)
    if not directory.is_dir():
        raise HarnessError(f"--dir {args.dir!r} is not a directory")
    for level, badge in badges.items():
        path = writable_path(directory / badge_file_name(level), "--dir")
        try:
            path.write_text(json.dumps(badge, ensure_ascii=True) + "\n", encoding="utf-8")
        except OSError as error:
            raise HarnessError(f"cannot write {str(path)!r}: {error.strerror or error}") from None
        print(f"wrote {path}: {badge['label']}: {badge['message']}")
    return 0
