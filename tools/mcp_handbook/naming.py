"""How a rule, its probe and the probe's module are named: one scheme, and the few documented exceptions.

A rule ``content/rules/<gate>/<slug>.md`` is proved by the probe named ``<slug>`` with ``-`` written ``_``,
registered (``@probe``) by a function of that name in ``tools/mcp_handbook/probes/<gate folder>/<probe>.py``. A
reader who knows one of the three names knows the other two. ``mcp-handbook check`` holds every automated rule to
this (HB039) unless :data:`NAMED_APART` gives the reason its names differ; an entry that no longer explains a
difference is reported too, so the table never outlives the reason.

This module imports only the model: linting and ``new-rule`` read it without loading any probe.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath

from .model import Corpus, Diagnostic, Location, Rule

NAMING_FILE = "tools/mcp_handbook/naming.py"
"""Where :data:`NAMED_APART` lives, relative to the handbook's root (diagnostics point here)."""
PROBES_DIR = Path(__file__).resolve().parent / "probes"
"""The probes package, found without importing it (importing it registers every probe)."""
PLACEHOLDER = "TODO(new-rule)"
"""What ``mcp-handbook new-rule`` writes where the author must decide or write; ``check`` names each one left in a
rule file or its probe module (HB016), so a skeleton never passes for a finished rule."""


def gate_folder(gate: str) -> str:
    """The package under ``probes/`` that holds ``gate``'s probes: the gate key with ``-`` written ``_``, since a
    Python package name cannot hold ``-`` (gate ``agent-ux`` -> ``probes/agent_ux/``)."""
    return gate.replace("-", "_")


def probe_name(slug: str) -> str:
    """The probe a rule file named ``<slug>.md`` is proved by: the slug with ``-`` written ``_`` (a probe's name is a
    Python identifier: its function and module carry it too)."""
    return slug.replace("-", "_")


_FETCH = ("security/ssrf.py: SEC-020 to SEC-023 share one local HTTP listener, the search for a tool that takes a URL "
          "and the operator allow-list that lets the reference server reach the listener; split, four modules would "
          "import the same machinery from one another")
_INVALID_ARGUMENTS = ("errors/invalid_arguments.py: ERR-003 and ERR-004 send the same invalid calls, built from each "
                      "tool's schema, and read the one answer each gets in two ways (named field; no handler ran)")
_PROTOCOL_ERRORS = ("errors/protocol_errors.py: ERR-006 and ERR-010 send the same malformed protocol requests and judge "
                    "the one error each gets: its code for one rule, what its message and data show for the other")

NAMED_APART: dict[str, str] = {
    "fetch_refuse_internal": _FETCH,
    "fetch_http_schemes_only": _FETCH,
    "fetch_check_redirects": _FETCH,
    "fetch_bounded": _FETCH,
    "invalid_arguments_feedback": _INVALID_ARGUMENTS,
    "validate_before_handler": _INVALID_ARGUMENTS,
    "protocol_error_codes": _PROTOCOL_ERRORS,
    "clean_protocol_errors": _PROTOCOL_ERRORS,
    "structured_output_mirrored": ("tool_definitions/structured_output.py: TOOL-014 judges the same calls as TOOL-011 "
                                   "(a tool with an outputSchema), reading the text block beside the structured content"),
    "tool_names_snake_case": ("tool_definitions/tool_names.py: TOOL-005 and TOOL-006 read the same listed names against "
                              "the specification's character set and the handbook's case convention"),
}
"""Probe -> why its name, or its module's, differs from its rule's slug: the one place such a difference is allowed.
A probe that several rules share, or a module that holds a family of probes, is named here with the reason."""


def _named_apart(rule: Rule, module: str) -> Iterable[tuple[str, str]]:
    """How ``rule``'s probe (registered in ``module``, relative to ``probes/``) departs from the scheme: (what, hint)."""
    folder, stem = str(PurePosixPath(module).parent), PurePosixPath(module).stem
    if folder != gate_folder(rule.gate):
        yield (f"probe {rule.probe!r} is registered in probes/{module}, outside probes/{gate_folder(rule.gate)}/ "
               f"(gate {rule.gate})", f"move it to probes/{gate_folder(rule.gate)}/")
    if rule.probe in NAMED_APART:
        return
    expected = probe_name(PurePosixPath(rule.path).stem)
    if rule.probe != expected:
        yield (f"probe {rule.probe!r} is not named after its rule's file ({PurePosixPath(rule.path).name})",
               f"rename it {expected!r} (its @probe name and `probe:` here), or give the reason in NAMED_APART ({NAMING_FILE})")
    elif stem != rule.probe:
        yield (f"probe {rule.probe!r} is registered in probes/{module}, not probes/{folder}/{rule.probe}.py",
               f"rename the module, or give the reason in NAMED_APART ({NAMING_FILE})")


def naming_scheme(corpus: Corpus, modules: Mapping[str, str]) -> Iterable[Diagnostic]:
    """HB039: every automated rule's probe and its module carry the rule's slug, or :data:`NAMED_APART` says why not;
    every entry there explains a probe that exists and departs from the scheme. ``modules`` is probe -> its module
    relative to ``probes/`` (``security/ssrf.py``)."""
    explained: set[str] = set()
    proved = {rule.probe for rule in corpus.rules if rule.check == "automated"}
    for rule in corpus.rules:
        if rule.check != "automated" or rule.probe not in modules:
            continue  # no probe, or an unknown one: HB030/HB031 say so
        for what, hint in _named_apart(rule, modules[rule.probe]):
            yield Diagnostic(Location(rule.path, rule.line_of("probe")), "HB039", what, hint)
        slug_named = rule.probe == probe_name(PurePosixPath(rule.path).stem)
        if not slug_named or PurePosixPath(modules[rule.probe]).stem != rule.probe:
            explained.add(rule.probe)
    for name in sorted(set(NAMED_APART) - explained):
        if name in modules and name not in proved:
            continue  # a doctrine without this probe's rule (a fixture, a fork) cannot judge the entry
        why = "no probe of that name exists" if name not in modules else "its rule, probe and module already share one name"
        yield Diagnostic(Location(NAMING_FILE, 1), "HB039", f"NAMED_APART explains probe {name!r}, but {why}",
                         "remove the entry")


def placeholders(text: str) -> list[tuple[int, str]]:
    """Each line of ``text`` that still holds :data:`PLACEHOLDER`, with what it asks for (the words after it)."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if PLACEHOLDER in line:
            asks = line.split(PLACEHOLDER, 1)[1].split('"')[0].strip(" :#'`)").strip()  # up to the end of its string
            found.append((number, asks[:120] or line.strip()[:120]))
    return found


def placeholder_diagnostic(path: str, line: int, asks: str) -> Diagnostic:
    """HB016 for one placeholder ``new-rule`` left."""
    return Diagnostic(Location(path, line), "HB016", f"placeholder left by new-rule: {asks}",
                      f"write it, then delete the {PLACEHOLDER} marker")


def probe_placeholders(corpus: Corpus, modules: Mapping[str, str]) -> Iterable[Diagnostic]:
    """HB016 in the probe module of each automated rule: the placeholders ``new-rule`` wrote there."""
    for name in sorted({rule.probe for rule in corpus.rules if rule.check == "automated" and rule.probe in modules}):
        source = PROBES_DIR / modules[name]
        try:
            text = source.read_text(encoding="utf-8")
        except OSError:
            continue
        shown = source.relative_to(corpus.root).as_posix() if source.is_relative_to(corpus.root) else str(source)
        for line, asks in placeholders(text):
            yield placeholder_diagnostic(shown, line, asks)
