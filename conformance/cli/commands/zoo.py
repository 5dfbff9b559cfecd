"""``bpe-conformance zoo gallery|check``: write the bug-zoo gallery, or prove the harness against the zoo.

``gallery`` runs the quick proof (:func:`bpe_conformance.zoo.proof.quick_proof`) on every member and
control and writes ``docs/bug-zoo.md``, rendered by :mod:`bpe_conformance.teaching.gallery`.
``check`` runs every check on every member and control and exits 0 only if every member is rejected
with a clause it names and every control is accepted.

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="bpe-conformance")
>>> register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["zoo", "check", "--quick", "--only", "stops-at-two"])
>>> args.zoo_action, args.quick, args.only, args.handler is handle
('check', True, ['stops-at-two'], True)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from bpe_conformance.cli.arguments import whole_number_at_least
from bpe_conformance.errors import HarnessError
from bpe_conformance.files import writable_path, write_report
from bpe_conformance.reports.common import plural, to_json_safe
from bpe_conformance.settings import EFFORTS
from bpe_conformance.spec.resources import checkout_root
from bpe_conformance.teaching.gallery import gallery_is_current, render_gallery
from bpe_conformance.zoo import CONTROLS, ZOO, by_name
from bpe_conformance.zoo.proof import (
    DEFAULT_EFFORT,
    DEFAULT_SEED,
    Proof,
    as_record,
    failures,
    headline,
    own_clause_line,
    prove_all,
    proven,
    tally,
    verdict,
)

if TYPE_CHECKING:
    import argparse

    from bpe_conformance.reference.json_values import JSONObject

__all__ = ["gallery_path", "handle", "register"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``zoo`` command and its ``gallery`` and ``check`` actions."""
    parser = subparsers.add_parser(
        "zoo",
        help="prove the harness against the bug zoo, or regenerate the gallery",
        description="Run the conformance checks on every bug-zoo member and control (in-process).",
    )
    actions = parser.add_subparsers(dest="zoo_action", required=True, metavar="{gallery,check}")
    gallery = actions.add_parser("gallery", help="write docs/bug-zoo.md from a fresh proof of every member")
    gallery.add_argument(
        "--output",
        type=Path,
        help="where to write (default: the checkout's docs/bug-zoo.md; required when installed from a wheel)",
    )
    gallery.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if the file is missing or not current"
    )
    check = actions.add_parser("check", help="run the whole harness over every member and control")
    check.add_argument("--quick", action="store_true", help="only each member's relevant checks, until one matches")
    check.add_argument("--only", action="append", metavar="NAME", help="prove only this member or control (repeat)")
    check.add_argument("--effort", default=DEFAULT_EFFORT, choices=sorted(EFFORTS), help="default: %(default)s")
    check.add_argument("--seed", type=whole_number_at_least(0), default=DEFAULT_SEED, help="default: %(default)s")
    check.add_argument("--json", type=Path, metavar="PATH", help="also write every proof as JSON to PATH")
    for action in (gallery, check):
        action.add_argument("--jobs", type=int, default=1, help="prove this many implementations at once")
    parser.set_defaults(handler=handle)


def gallery_path(output: Path | None) -> Path:
    """Where ``zoo gallery`` reads or writes: ``--output``, else the checkout's gallery; never the installed package."""
    if output is not None:
        return output
    root = checkout_root()
    if root is None:
        raise HarnessError("zoo gallery: give --output PATH (installed from a wheel, there is no docs/bug-zoo.md)")
    return root / "docs" / "bug-zoo.md"


def _gallery(args: argparse.Namespace) -> int:
    path = gallery_path(args.output)
    if args.check:
        if not path.is_file():
            print(f"{path} is missing; run `bpe-conformance zoo gallery` to write it")
            return 1
    else:
        writable_path(path, "--output")  # before the proofs: a typo must not cost a minute of them
    text = render_gallery(prove_all([*ZOO, *CONTROLS], jobs=args.jobs))
    if args.check:
        if not gallery_is_current(path.read_text(encoding="utf-8"), text):
            print(f"{path} is not current; run `bpe-conformance zoo gallery` and review the diff")
            return 1
        print(f"{path} is up to date")
        return 0
    write_report(path, text, "--output")
    print(f"wrote {path}")
    return 0


def _chosen(names: list[str] | None) -> list[type]:
    if not names:
        return [*ZOO, *CONTROLS]
    try:
        return [by_name(name) for name in names]
    except ValueError as error:
        raise HarnessError(str(error)) from None


def _print_proof(proof: Proof) -> None:
    mark = "ok  " if proven(proof) else "FAIL"
    failed = len(failures(proof))
    extra = f" ({plural(failed, 'check')} failed)" if proof.claimed else ""
    print(f"{mark} {proof.name:<36} {verdict(proof)}{extra}", flush=True)


def _check(args: argparse.Namespace) -> int:
    implementations = _chosen(args.only)
    if args.json is not None:
        writable_path(args.json, "--json")
    proofs = prove_all(
        implementations, full=not args.quick, effort=args.effort, seed=args.seed, jobs=args.jobs, on_proof=_print_proof
    )
    counts = tally(proofs)
    if args.json is not None:
        records: list[JSONObject] = [to_json_safe(as_record(proof)) for proof in proofs]
        write_report(args.json, json.dumps(records, indent=2, ensure_ascii=True) + "\n", "--json")
    scope = "relevant checks" if args.quick else "every check"
    print(f"{headline(counts)} ({scope}, effort {args.effort}, seed {args.seed})")
    for name in counts.unproven:
        print(f"  not proven: {name}")
    if not args.quick:  # the quick proof stops at the first failure under the own clause: this line adds nothing
        print(own_clause_line(counts))
        for name in counts.other_clause:
            print(f"  not under its own clause: {name}")
    return 0 if not counts.unproven else 1


def handle(args: argparse.Namespace) -> int:
    """Run the chosen action; 0 on success, 1 when the gallery is stale or a member or control is not proven."""
    if isinstance(args.jobs, int) and args.jobs < 1:
        raise HarnessError(f"--jobs must be at least 1, got {args.jobs}")
    if args.zoo_action == "gallery":
        return _gallery(args)
    return _check(args)
