"""What every report format needs: JSON-safe values, failure selection, reproduce commands.

>>> to_json_safe({"pair": (97, 98), "piece": b"\\xe4\\xbd", (1, 2): {3}})
{'pair': [97, 98], 'piece': 'e4bd', '[1, 2]': [3]}
>>> render_value(["a\\n", "\\ud800", (1, 2)])
'["a\\\\n", "\\\\ud800", [1, 2]]'
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import shlex
import unicodedata
from collections import Counter
from typing import TYPE_CHECKING, Any

from bpe_conformance.adapters.limits import DEFAULT_MEMORY_LIMIT
from bpe_conformance.checks.base import LEVELS
from bpe_conformance.reports.grouping import deviations, is_refusal_only, refusals
from bpe_conformance.results.outcomes import CheckResult, LimitsRecord, Outcome, SuiteResult
from bpe_conformance.results.text import printable
from bpe_conformance.running.suite import DEFAULT_TIMEOUT, RunConfig, catalogue

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from bpe_conformance.reference.json_values import JSONObject
    from bpe_conformance.results.implementation import ImplementationRecord

__all__ = [
    "JSON_MESSAGE_CHARS",
    "OUTCOME_ORDER",
    "SHOWN_MESSAGE_CHARS",
    "Verdict",
    "capped_for_json",
    "clause_examples",
    "counterexample_lines",
    "cut",
    "escaped_lines",
    "failures",
    "hypothesis_note",
    "implementation_label",
    "level_verdict",
    "level_verdicts",
    "localisation_lines",
    "lookalike",
    "outcome_counts",
    "plural",
    "printable",
    "render_value",
    "reproduce_command",
    "root_cause_lines",
    "root_causes",
    "run_command",
    "shown_message",
    "to_json_safe",
    "total_advisories",
    "verdict",
    "verdict_line",
]

# Terminal and Markdown show this much of a message or counterexample value; JSON keeps up to the cap.
SHOWN_MESSAGE_CHARS = 2000
JSON_MESSAGE_CHARS = 64 * 1024
OUTCOME_ORDER = (
    Outcome.PASS,
    Outcome.FAIL,
    Outcome.ERROR,
    Outcome.TIMEOUT,
    Outcome.CRASH,
    Outcome.MEMORY_LIMIT,
    Outcome.SKIP,
)


def _json_key(key: Any) -> str:
    if isinstance(key, str):
        return key
    return json.dumps(to_json_safe(key), ensure_ascii=True)


def to_json_safe(value: Any) -> Any:
    """``value`` made of JSON types only: tuples and sets become lists, bytes hex, other keys strings.

    Strings are left as they are, lone surrogates included; ``json.dumps(..., ensure_ascii=True)``
    writes those as ``\\ud800`` escapes, which read back to the same string.
    """
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, enum.Enum):
        return to_json_safe(value.value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if isinstance(value, dict):
        return {_json_key(key): to_json_safe(item) for key, item in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((to_json_safe(item) for item in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [to_json_safe(item) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {item.name: to_json_safe(getattr(value, item.name)) for item in dataclasses.fields(value)}
    return repr(value)


def render_value(value: Any) -> str:
    """One line of JSON for a person: real characters, but control characters and lone surrogates escaped."""
    text = json.dumps(to_json_safe(value), ensure_ascii=False)
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def plural(count: int, noun: str) -> str:
    """``"1 example"``, ``"2 examples"``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def cut(text: str, max_chars: int, note: str = "") -> str:
    """``text``, or its first ``max_chars`` characters and a statement of how many were cut.

    The one place reports shorten what an implementation wrote: a message can be megabytes long,
    and rendering it whole costs more than the run (rich wraps text in quadratic time).

    >>> cut("abcdef", 4), cut("abc", 4)
    ('abcd... (2 characters cut)', 'abc')
    """
    if len(text) <= max_chars:
        return text
    return f"{text[:max_chars]}... ({len(text) - max_chars} characters cut{note})"


def shown_message(message: str) -> str:
    """A check's message as the terminal and Markdown show it: printable, at most ``SHOWN_MESSAGE_CHARS``."""
    return printable(cut(message, SHOWN_MESSAGE_CHARS, "; the JSON report keeps more"))


def capped_for_json(value: Any) -> Any:
    """``value`` with every string longer than ``JSON_MESSAGE_CHARS`` cut (the JSON report's documented cap).

    >>> capped_for_json({"actual": ["x" * (JSON_MESSAGE_CHARS + 5)]})["actual"][0].endswith("(5 characters cut)")
    True
    """
    if isinstance(value, str):
        return cut(value, JSON_MESSAGE_CHARS)
    if isinstance(value, dict):
        return {key: capped_for_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [capped_for_json(item) for item in value]
    return value


def _shortened(text: str, max_chars: int | None) -> str:
    return text if max_chars is None else cut(text, max_chars, "; the JSON report keeps more")


# Characters that print as nothing, as a mark on their neighbour, or as an ordinary space: combining marks,
# format characters (a BOM, a zero-width joiner), other controls and spaces, private use, unassigned.
_LOOKALIKE_CATEGORIES = frozenset({"Mn", "Mc", "Me", "Cf", "Cc", "Co", "Cs", "Cn", "Zs", "Zl", "Zp"})
_BYTES_SHOWN = 48
_STRINGS_SHOWN = 4


def lookalike(text: str) -> bool:
    r"""Whether ``text`` holds a character a reader cannot tell apart on screen (outside ASCII), or is not NFC.

    >>> lookalike("e\u0301"), lookalike("\ufeffab"), lookalike("é"), lookalike("a b\n")
    (True, True, False, False)
    """
    if not text.isascii() and not unicodedata.is_normalized("NFC", text):
        return True
    return any(
        ord(character) >= 0x7F and unicodedata.category(character) in _LOOKALIKE_CATEGORIES for character in text
    )


def _strings_in(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings_in(item)]
    if isinstance(value, (list, tuple)):
        return [text for item in value for text in _strings_in(item)]
    return []


def _utf8(text: str) -> str:
    data = text.encode("utf-8", "surrogatepass")
    shown = " ".join(f"{byte:02x}" for byte in data[:_BYTES_SHOWN])
    return shown + (f" ... ({len(data)} bytes)" if len(data) > _BYTES_SHOWN else "")


def escaped_lines(counterexample: JSONObject) -> list[str]:
    r"""Where a counterexample holds look-alike or invisible characters: each value escaped, and their UTF-8 bytes.

    An NFC/NFD pair or a BOM prints as identical strings; escaped, ``\u0301`` and ``\ufeff`` show where
    expected and actual differ.

    >>> for line in escaped_lines({"expected": ["\u00e9"], "actual": ["e\u0301"]}):
    ...     print(line)
    expected, escaped: ["\u00e9"]
    actual, escaped: ["e\u0301"]
    utf-8 of "\u00e9": c3 a9
    utf-8 of "e\u0301": 65 cc 81
    >>> escaped_lines({"expected": ["é"], "actual": ["é"]})
    []
    """
    # The divergence and the localisation are shown by their own lines; their inputs are the same texts.
    values = {label: value for label, value in counterexample.items() if label not in {"divergence", "localisation"}}
    strings = list(dict.fromkeys(text for value in values.values() for text in _strings_in(value)))
    if not any(lookalike(text) for text in strings):
        return []
    lines = [
        f"{label}, escaped: {json.dumps(to_json_safe(value), ensure_ascii=True)}" for label, value in values.items()
    ]
    shown = [text for text in strings if not text.isascii()][:_STRINGS_SHOWN]
    lines += [f"utf-8 of {json.dumps(text, ensure_ascii=True)}: {_utf8(text)}" for text in shown]
    return lines


def counterexample_lines(counterexample: JSONObject | None, max_chars: int | None = None) -> list[str]:
    """``inputs``, ``expected``, ``actual`` one per line; a divergence as one line per non-empty detail; then,
    when a value holds look-alike or invisible characters, :func:`escaped_lines`.

    >>> divergence = {"round": 0, "cause": "", "diagnosis": "stopped early"}
    >>> counterexample_lines({"inputs": {"text": "ab"}, "divergence": divergence})
    ['inputs: {"text": "ab"}', 'first divergent merge round:', '  round: 0', '  diagnosis: stopped early']
    """
    lines = []
    for label, value in (counterexample or {}).items():
        if label == "refused":
            continue  # the refusal is shown once, with the checks it blocked (reports.grouping.refusals)
        if label == "refusals" and isinstance(value, list):
            errors = "; ".join(str(record.get("error", "")) for record in value if isinstance(record, dict))
            lines.append(
                f"also refused (shown once above, with the checks it blocked): {_shortened(errors, max_chars)}"
            )
        elif label == "localisation" and isinstance(value, dict):
            lines += [_shortened(line, max_chars) for line in localisation_lines(value)]
        elif label == "divergence" and isinstance(value, dict):
            lines.append("first divergent merge round:")
            for key, item in value.items():
                if item is None or item == "":
                    continue
                shown = printable(item) if isinstance(item, str) else render_value(item)
                lines.append(f"  {key}: {_shortened(shown, max_chars)}")
        else:
            lines.append(f"{label}: {_shortened(render_value(value), max_chars)}")
    lines += [_shortened(line, max_chars) for line in escaped_lines(counterexample or {})]
    return lines


def localisation_lines(localisation: JSONObject) -> list[str]:
    """What the experiments on the counterexample decided, in a few lines: the stage and the question that
    showed it (the JSON report keeps every experiment with its inputs and answers, to rerun them).

    >>> question = {"stage": "tie", "question": "ties go to the smallest pair", "control": False,
    ...             "inputs": {"documents": ["abab"]}, "expected": [[97, 98]], "answer": [[98, 97]], "agrees": False}
    >>> for line in localisation_lines({"localised": True, "stage": "tie", "clause": "BPE-TRAIN-TIE",
    ...                                 "experiments": [question]}):
    ...     print(line)
    localisation: stage tie [BPE-TRAIN-TIE], decided by 1 experiment (the JSON report lists each)
      ties go to the smallest pair: inputs {"documents": ["abab"]}, expected [[97, 98]], got [[98, 97]]
    """
    experiments = [item for item in localisation.get("experiments", []) if isinstance(item, dict)]
    counted = plural(len(experiments), "experiment")
    if localisation.get("localised"):
        head = f"localisation: stage {localisation.get('stage')} [{localisation.get('clause')}], decided by {counted}"
    else:
        head = f"localisation: none decided by {counted} ({localisation.get('label', 'unlocalised')})"
    lines = [f"{head} (the JSON report lists each)"]
    for item in experiments:
        if item.get("agrees") is False and not item.get("control"):
            lines.append(
                f"  {printable(str(item.get('question')))}: inputs {render_value(item.get('inputs'))}, "
                f"expected {render_value(item.get('expected'))}, got {render_value(item.get('answer'))}"
            )
            break
    return lines


def implementation_label(implementation: ImplementationRecord) -> str:
    """``name version``, or just the name when the implementation declares no version.

    >>> from bpe_conformance.results.implementation import ImplementationRecord
    >>> implementation_label(ImplementationRecord("minbpe", "unknown"))
    'minbpe'
    >>> implementation_label(ImplementationRecord("x", "2"))
    'x 2'
    """
    name, version = printable(str(implementation.name)), printable(str(implementation.version))
    return name if version in ("unknown", "None", "") else f"{name} {version}"


def failures(suite: SuiteResult) -> list[CheckResult]:
    """The results that make the run fail: fail, error, timeout and crash."""
    return [result for result in suite.results if not result.outcome.counts_as_success]


def root_causes(results: Sequence[CheckResult]) -> dict[str, str]:
    """Check name → the clause at the root of its failure, for failures that are consequences of another.

    Failures with the same localised root are one deviation (:func:`bpe_conformance.reports.grouping.deviations`):
    the check that owns the root's clause reports it, every other check that saw it is its consequence
    (a pre-tokenizer fails greedy-selection under BPE-ENCODE-RAW, which no-pre-tokenization fails as itself).

    >>> from bpe_conformance.results.outcomes import Outcome
    >>> def failed(check, clause, own):
    ...     return CheckResult(check, clause, (own,), "", Outcome.FAIL, "", 1, 0.0)
    >>> root_causes([failed("raw", "BPE-ENCODE-RAW", "BPE-ENCODE-RAW"),
    ...              failed("greedy", "BPE-ENCODE-RAW", "BPE-TRAIN-GREEDY"),
    ...              failed("order", "BPE-ENCODE-ORDER", "BPE-ENCODE-ORDER")])
    {'greedy': 'BPE-ENCODE-RAW'}
    """
    return {check: deviation.clause for deviation in deviations(results) for check in deviation.consequences}


def root_cause_lines(suite: SuiteResult) -> list[str]:
    """One line per deviation that several checks saw, naming the checks besides its owner.

    >>> from bpe_conformance.results.outcomes import Outcome
    >>> results = [CheckResult("raw", "BPE-ENCODE-RAW", ("BPE-ENCODE-RAW",), "", Outcome.FAIL, "", 1, 0.0),
    ...            CheckResult("greedy", "BPE-ENCODE-RAW", ("BPE-TRAIN-GREEDY",), "", Outcome.FAIL, "", 1, 0.0)]
    >>> root_cause_lines(SuiteResult({}, results, 0, "dev", 0.0, "0"))
    ['BPE-ENCODE-RAW (raw) also explains: greedy']
    """
    return [
        f"{deviation.label} ({deviation.owner}) also explains: {', '.join(deviation.consequences)}"
        for deviation in deviations(suite.results)
        if deviation.consequences
    ]


def outcome_counts(suite: SuiteResult) -> dict[str, int]:
    """How many checks ended with each outcome, every outcome present."""
    return {outcome.value: suite.count(outcome) for outcome in OUTCOME_ORDER}


def clause_examples(suite: SuiteResult) -> dict[str, int]:
    """Clause id → examples tried by the checks that ran (skipped checks tried none), in first-seen order."""
    totals: Counter[str] = Counter()
    for result in suite.results:
        if result.outcome is Outcome.SKIP:
            continue
        for clause in result.clauses:
            totals[clause] += result.examples
    return dict(totals)


def _environment_prefix(effort: str) -> list[str]:
    # dev is what a plain command line gets; other profiles must be asked for to see the same examples.
    if effort in ("dev", "thorough"):
        return []
    return [f"BPE_HYPOTHESIS_PROFILE={effort}"]


def reproduce_command(suite: SuiteResult, check: str) -> str:
    """The one-line command that re-runs only ``check`` the way this run did."""
    return run_command(suite.config.given(), suite.effort, check, suite.seed)


def run_command(config: Mapping[str, Any], effort: str, check: str, seed: int | None) -> str:
    """``bpe-conformance run`` with the options of ``config`` (a report's config) that decide ``check``'s verdict.

    ``seed`` None leaves ``--seed`` out: a failure replayed from ``--database`` needs none.

    >>> run_command({"impl": "m:T", "profile": "minbpe", "database": "redis://h:1/2"}, "dev", "tie-break", None)
    'bpe-conformance run --impl m:T --profile minbpe --database redis://h:1/2 --check tie-break'
    """
    words = [*_environment_prefix(effort), "bpe-conformance", "run"]
    impl = config.get("impl")
    if impl is not None:
        words += ["--impl", impl]
    default_isolation = RunConfig(impl=impl).isolation_used
    if config.get("isolation", default_isolation) != default_isolation:
        words += ["--isolation", config["isolation"]]
    if effort == "thorough":
        words.append("--thorough")
    timeout = config.get("timeout")
    if impl is not None and timeout is not None and timeout != DEFAULT_TIMEOUT:
        words += ["--timeout", f"{timeout:g}"]
    if config.get("profile") is not None:
        words += ["--profile", config["profile"]]
    if config.get("database") is not None:
        words += ["--database", config["database"]]
    if config.get("vocabulary") is not None:  # a production run (run --vocabulary)
        words += ["--vocabulary", config["vocabulary"]["source"]]
    limits = config.get("limits")
    if impl is not None and limits is not None:  # a memory limit decides whether a hog ends as memory-limit
        recorded = LimitsRecord(limits["memory_limit"], limits["clean_env"], tuple(limits["env"]), limits["temp_cwd"])
        words += recorded.options(default_memory=DEFAULT_MEMORY_LIMIT)
    words += ["--check", check]
    if seed is not None:
        words += ["--seed", str(seed)]
    return shlex.join(words)


def total_advisories(results: list[CheckResult]) -> int:
    """How many advisory notes (a SHOULD not followed, never a failure) the results carry."""
    return sum(len(result.advisories) for result in results)


_NOT_DEVIATIONS = {
    Outcome.ERROR: "error",
    Outcome.TIMEOUT: "timeout",
    Outcome.CRASH: "crash",
    Outcome.MEMORY_LIMIT: "memory-limit",
}


def level_verdict(level: str, results: list[CheckResult]) -> str:
    """One level's verdict: ``conforms (passed/ran)``, the count of deviations, or ``not run``.

    Skipped checks count neither way; advisory notes are named after the verdict. An error, a timeout,
    a crash or running out of the memory limit is counted as what it is, never as a deviation: a slow
    or memory-hungry correct implementation deviates from nothing.

    >>> from bpe_conformance.results.outcomes import CheckResult, Outcome
    >>> def result(outcome, advisories=()):
    ...     return CheckResult("c", "X", ("X",), "", outcome, "", 1, 0.0, level="interface", advisories=advisories)
    >>> level_verdict("interface", [result(Outcome.PASS, ("a note",)), result(Outcome.SKIP)])
    'interface: conforms (1/1, 1 advisory)'
    >>> level_verdict("interface", [result(Outcome.FAIL), result(Outcome.CRASH), result(Outcome.PASS)])
    'interface: 1 deviation, 1 crash'
    >>> level_verdict("algorithm", [result(Outcome.MEMORY_LIMIT), result(Outcome.PASS)])
    'algorithm: 1 memory-limit'
    >>> level_verdict("algorithm", [result(Outcome.TIMEOUT), result(Outcome.TIMEOUT)])
    'algorithm: 2 timeouts'
    >>> level_verdict("algorithm", [])
    'algorithm: not run'
    """
    ran = [result for result in results if result.outcome is not Outcome.SKIP]
    if not ran:
        return f"{level}: {'not run' if not results else 'all skipped'}"
    deviations = sum(1 for result in ran if result.outcome is Outcome.FAIL)
    advisories = total_advisories(ran)
    noted = f", {advisories} {'advisory' if advisories == 1 else 'advisories'}" if advisories else ""
    parts = [plural(deviations, "deviation")] if deviations else []
    # A refusal is one finding however many checks met it: counted once, not as each check's error.
    refused = [result for result in ran if is_refusal_only(result)]
    if refused:
        parts.append(plural(len(refusals(refused)), "refused input"))
    for outcome, noun in _NOT_DEVIATIONS.items():
        count = sum(1 for result in ran if result.outcome is outcome and result not in refused)
        if count:
            parts.append(f"{count} {noun}" if count == 1 else f"{count} {noun}{'es' if noun.endswith('sh') else 's'}")
    if parts:
        return f"{level}: {', '.join(parts)}{noted}"
    return f"{level}: conforms ({len(ran)}/{len(ran)}{noted})"


def level_verdicts(suite: SuiteResult) -> str:
    """Both conformance levels' verdicts, apart: ``algorithm: conforms (26/26) · interface: 3 deviations``."""
    return " · ".join(
        level_verdict(level, [result for result in suite.results if result.level == level]) for level in LEVELS
    )


def hypothesis_note(check: str, version: str) -> str:
    """``"  # hypothesis X"`` when ``check`` searches with hypothesis: a seed draws the same examples only there.

    Checks that replay fixed cases need no note.

    >>> hypothesis_note("tie-break", "6.1.0"), hypothesis_note("vectors-training", "6.1.0")
    ('  # hypothesis 6.1.0', '')
    """
    searched = {known.name for known in catalogue() if known.strategy is not None}
    return f"  # hypothesis {version}" if version and check in searched else ""


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The verdict in its parts: the outcome (counts, time, implementation) and each level's verdict.

    >>> verdict = Verdict("FAILED: 1 fail in 1.0 s (x)", ("algorithm: 1 deviation", "interface: not run"))
    >>> verdict.line
    'FAILED: 1 fail in 1.0 s (x) — algorithm: 1 deviation · interface: not run'
    """

    outcome: str
    levels: tuple[str, ...]

    @property
    def line(self) -> str:
        """The verdict on one line, as ``--quiet`` and the Markdown report print it."""
        return f"{self.outcome} — {' · '.join(self.levels)}" if self.levels else self.outcome


def verdict(suite: SuiteResult) -> Verdict:
    """``PASSED``/``FAILED``, the count of every outcome that occurred, the time taken, and each level's verdict."""
    counts = ", ".join(f"{count} {name}" for name, count in outcome_counts(suite).items() if count)
    word = "PASSED" if suite.succeeded else "FAILED"
    outcome = (
        f"{word}: {counts or 'no checks'} in {suite.seconds:.1f} s "
        f"(implementation {suite.implementation.name}, seed {suite.seed}, effort {suite.effort})"
    )
    levels = tuple(
        level_verdict(level, [result for result in suite.results if result.level == level]) for level in LEVELS
    )
    return Verdict(outcome, levels)


def verdict_line(suite: SuiteResult) -> str:
    """:func:`verdict` on one line."""
    return verdict(suite).line
