"""``bpe-conformance compare``: train an implementation and the reference on a real corpus and compare.

Both train on the same documents under the profile (the implementation's declared one, or --profile);
the rule lists are compared round by round, the first divergent round is judged in the reference's
state there (counts, top candidates, diagnosis), then texts are encoded with both and compared id by
id. The implementation runs in its own process (a hang is a timeout, a crash a crash).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from rich.text import Text

from bpe_conformance.adapters import ISOLATIONS, load_implementation
from bpe_conformance.cli.arguments import add_limit_arguments, limits_from, positive_seconds, whole_number_at_least
from bpe_conformance.compare.comparison import (
    DEFAULT_SHRINK_SECONDS,
    DEFAULT_TIMEOUT,
    SPLIT_DIAGNOSIS_SKIPPED,
    Request,
    check_texts,
    compare,
    read_corpus,
)
from bpe_conformance.compare.corpus import corpus_files, write_jsonl
from bpe_conformance.compare.progress import LiveDisplay, Observer
from bpe_conformance.compare.report import build_report, exit_code, report_lines, verdict_line, write_report
from bpe_conformance.dialects.context import known_profile
from bpe_conformance.errors import HarnessError
from bpe_conformance.files import STDOUT, writable_path
from bpe_conformance.reference.pretokenization import SPLIT_PROFILES, SplitProfile, get_split_profile
from bpe_conformance.reference.profile_spec import resolve_profile
from bpe_conformance.reports.terminal import make_console, wrap_command, wrap_detail
from bpe_conformance.running.suite import judged_subject

if TYPE_CHECKING:
    from bpe_conformance.adapters.subject import Subject

__all__ = ["DEFAULT_SHRINK_PATH", "DEFAULT_TIMEOUT", "handle", "judged_split", "register"]

DEFAULT_SHRINK_PATH = "compare-shrunk.jsonl"
_REPRODUCE = "  reproduce: "

_EPILOG = """\
PATH: a file (one document), a .jsonl file (one document per line, field "text"), or a directory
(every regular file below it, in sorted path order, each read as above). Files must be UTF-8.

Without --encode every tenth document is held back from training and encoded instead (of two to
nine documents, the last one). When the rules differ, an implementation that can load is given the
reference's rules before encoding, so its encoder is compared alone.

exit codes: 0 the rules and the encoded ids agree; 1 they differ somewhere, or the implementation
failed (raised, answered with the wrong type, timed out, crashed); 2 usage error (a bad path, an
undecodable file, an empty corpus, a bad .jsonl line, an unknown profile, a --split the implementation
does not declare, --shrink behind a split).

Behind a split (--split, or the split the implementation declares) both sides train on the chunks the
production pattern makes, never merging across one; the first divergent round is reported with the two
rules there but not judged, and nothing is shrunk (both would retrain on whole documents)."""


def register(subparsers: Any) -> None:
    """Add the ``compare`` parser."""
    parser = subparsers.add_parser(
        "compare",
        help="train an implementation and the reference on a real corpus, and compare rules and ids",
        description=__doc__.replace("``", "") if __doc__ else None,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--impl",
        required=True,
        metavar="SPEC",
        help="implementation: module:attr, cmd:<command line>, reference or reference-literal",
    )
    parser.add_argument(
        "--corpus", required=True, action="append", metavar="PATH", help="documents to train on (repeatable)"
    )
    parser.add_argument(
        "--merges", required=True, type=whole_number_at_least(0), metavar="N", help="max_merges for both"
    )
    parser.add_argument(
        "--profile",
        metavar="PROFILE",
        help="judge under this profile of specs/profiles.md instead of the one the implementation declares: a name, "
        "base+field=value+... (e.g. strict+tie=first-seen+min_count=1) or a .toml/.json profile file",
    )
    parser.add_argument(
        "--split",
        choices=list(SPLIT_PROFILES),
        help="train and encode both sides behind this production profile's split pattern (the reference with the "
        "word-count engine, which keeps only the distinct chunks); it must be the split the implementation declares "
        "(its 'split' attribute), which is used when this is not given",
    )
    parser.add_argument(
        "--encode",
        action="append",
        metavar="PATH",
        help="texts to encode with both after training (repeatable); then every corpus document is trained on",
    )
    parser.add_argument(
        "--json", metavar="PATH", help="write the JSON report (specs/schema/compare.schema.json); - for stdout"
    )
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"limit per call to the implementation, process isolation only (default {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--isolation",
        choices=ISOLATIONS,
        default="process",
        help="run the implementation in its own process (default) or in the harness's",
    )
    parser.add_argument(
        "--shrink",
        nargs="?",
        const=DEFAULT_SHRINK_PATH,
        metavar="PATH",
        help="on a divergence, write a smaller corpus with the same first divergence to PATH, a .jsonl file "
        f"(default {DEFAULT_SHRINK_PATH}), and print the command that reproduces it",
    )
    parser.add_argument(
        "--shrink-seconds",
        type=positive_seconds,
        default=DEFAULT_SHRINK_SECONDS,
        metavar="SECONDS",
        help=f"stop shrinking after this long and keep the smallest corpus so far (default {DEFAULT_SHRINK_SECONDS:g})",
    )
    parser.add_argument("--quiet", action="store_true", help="print only the verdict line")
    add_limit_arguments(parser)
    parser.set_defaults(handler=handle)


def _request(args: argparse.Namespace, profile_name: str, split: SplitProfile | None) -> Request:
    return Request(
        impl=args.impl.strip(),
        corpus=tuple(args.corpus),
        encode=None if args.encode is None else tuple(args.encode),
        merges=args.merges,
        profile=known_profile(profile_name),
        timeout=args.timeout,
        isolation=args.isolation,
        shrink=args.shrink,
        shrink_seconds=args.shrink_seconds,
        split=split,
        limits=limits_from(args).record() if args.isolation == "process" else None,
    )


def judged_split(subject: Subject, requested: str | None) -> SplitProfile | None:
    """The split both sides train behind: the one the implementation declares, which ``--split`` must name.

    An implementation splits as it splits, so unlike ``--profile`` the option cannot change it; it states
    what the user expects, and a mismatch is a usage error before any training.
    """
    declared = subject.info.split
    name = subject.info.name
    if requested is not None and declared != requested:
        held = (
            "declares no split (it trains on whole documents)" if declared is None else f"declares split {declared!r}"
        )
        raise HarnessError(f"--split {requested}: {name} {held}")
    if declared is None:
        return None
    try:
        return get_split_profile(declared)
    except ValueError as error:
        raise HarnessError(f"{name} declares a split, but {error}") from None


def _check_paths(args: argparse.Namespace) -> None:
    """Every path is checked before the implementation starts: a typo must not cost a training run."""
    for path in args.corpus:
        corpus_files(path, "--corpus")
    for path in args.encode or ():
        corpus_files(path, "--encode")
    # An output over an input would destroy it (--shrink c.jsonl replaced the corpus it shrank).
    inputs = [("--corpus", path) for path in args.corpus] + [("--encode", path) for path in args.encode or ()]
    if args.json is not None:
        args.json = writable_path(args.json, "--json", inputs, stdout_allowed=True)
    if args.shrink is not None:
        args.shrink = str(writable_path(args.shrink, "--shrink", inputs))


def handle(args: argparse.Namespace) -> int:
    """Compare, print the report, write the JSON and the shrunk corpus asked for."""
    if not args.impl.strip():
        raise HarnessError("--impl is empty (an unset variable?)")
    if args.profile is not None:
        args.profile = _known_or_usage(args.profile)
    if args.split is not None and args.shrink is not None:
        raise HarnessError(f"--shrink: {SPLIT_DIAGNOSIS_SKIPPED}; run without --shrink")
    _check_paths(args)
    console = make_console(sys.stderr if str(args.json) == STDOUT else None)  # --json -: stdout is the JSON's
    observer: Observer = LiveDisplay(console) if console.is_terminal and not args.quiet else Observer()
    try:
        # Everything read (and every --encode text checked) first: a bad file must not cost a training run.
        corpus = read_corpus(args.corpus, hold_back=args.encode is None, observer=observer)
        if args.encode is not None:
            check_texts(args.encode)
        subject = load_implementation(
            args.impl.strip(), isolation=args.isolation, timeout=args.timeout, limits=limits_from(args)
        )
        try:
            subject = judged_subject(subject, args.profile)
            request = _request(args, subject.info.profile, judged_split(subject, args.split))
            if request.split is not None and args.shrink is not None:
                raise HarnessError(f"--shrink: {SPLIT_DIAGNOSIS_SKIPPED}; run without --shrink")
            if request.profile.tie_break is None:
                raise HarnessError(f"profile {request.profile.name!r} is encode-only: it has no training to compare")
            if not subject.supports("train"):
                raise HarnessError(f"{args.impl}: the implementation does not declare the train capability")
            comparison = compare(subject, request, corpus, observer)
        finally:
            subject.close()
    finally:
        observer.close()
    if comparison.shrink is not None and args.shrink is not None:
        write_jsonl(comparison.shrink.documents, args.shrink)
    report = build_report(comparison)
    if args.json is not None:
        write_report(report, args.json)
    for line in [verdict_line(report)] if args.quiet else report_lines(report):
        wrap = wrap_command if line.startswith(_REPRODUCE) else wrap_detail
        for piece in wrap(line, console.width) if line else [""]:
            console.print(Text(piece), overflow="fold")
    return exit_code(comparison)


def _known_or_usage(name: str) -> str:
    """The canonical name of the profile ``name`` gives (a name, base+field=value, a file); a usage error if none."""
    try:
        return resolve_profile(name).name
    except (ValueError, TypeError) as error:
        raise HarnessError(f"--profile: {error}") from None
