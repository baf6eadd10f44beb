"""The wild corpus's card (``README.md``): what it is, how it was cut, and every source with its licence."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from jinja2 import Environment, StrictUndefined

if TYPE_CHECKING:
    from .build import SourceStats

_TEMPLATE = """\
# ExecRetrievalOpen wild corpus

{{ "{:,}".format(total) }} real Python functions from code installed on the machine that built it: the
standard library of the sandbox's Python {{ python }} and the distributions of the project's environment.
Each is one self-contained top-level function (3-60 lines; it reads no module-level name but
builtins and itself; it imports only standard-library modules), parsed with the sandbox's grammar, and
none is the same as another or as one of the benchmark's snippets, exactly or up to whitespace.
Only permissive licences are used (MIT, BSD, Apache-2.0, PSF), read from each distribution's metadata;
every source seen is listed below, with those excluded and why.

Built by `execretrieval_mteb.construction.wild` (builder version {{ version }}): the same sources give
the same bytes. Each row of `wild_corpus.jsonl` records its package, version, file, line and licence.

| | count |
|---|---|
| sources used | {{ used | length }} |
| sources excluded (licence) | {{ excluded | length }} |
| top-level functions seen in used sources | {{ "{:,}".format(seen) }} |
{%- for reason, n in rejected %}
| rejected: {{ reason }} | {{ "{:,}".format(n) }} |
{%- endfor %}
{%- for kind, n in duplicates %}
| duplicate ({{ kind }}) | {{ "{:,}".format(n) }} |
{%- endfor %}
| **kept** | **{{ "{:,}".format(total) }}** |

## Kept functions by licence

| licence | functions |
|---|---|
{%- for licence, n in by_licence %}
| {{ licence }} | {{ "{:,}".format(n) }} |
{%- endfor %}

## Sources used

| package | version | licence (as declared) | read from | files | functions kept |
|---|---|---|---|---|---|
{%- for s in used %}
| {{ s.package }} | {{ s.version }} | {{ s.license }} ({{ s.license_declared | replace("|", "/") }}) | {{ s.license_field }} | {{ s.files }} | {{ "{:,}".format(s.kept) }} |
{%- endfor %}

## Sources excluded (licence not permissive, or not declared)

| package | version | licence (as declared) | read from |
|---|---|---|---|
{%- for s in excluded %}
| {{ s.package }} | {{ s.version }} | {{ s.license_declared | replace("|", "/") }} | {{ s.license_field }} |
{%- endfor %}

Each function keeps its source's licence; the original notices are in each distribution's
metadata (`pip show -f NAME`) and, for the standard library, in Python's `LICENSE` file.
"""


def render_card(stats: Sequence[SourceStats], total: int, python: str) -> str:
    from .build import BUILDER_VERSION

    used = [s for s in stats if s.license is not None]
    excluded = [s for s in stats if s.license is None]
    rejected: Counter[str] = Counter()
    duplicates: Counter[str] = Counter()
    by_licence: Counter[str] = Counter()
    for s in used:
        rejected.update(s.rejected)
        duplicates.update(s.duplicates)
        by_licence[s.license or ""] += s.kept
    env = Environment(undefined=StrictUndefined, keep_trailing_newline=True, autoescape=False)
    return env.from_string(_TEMPLATE).render(
        total=total, python=python, version=BUILDER_VERSION, used=used, excluded=excluded,
        seen=sum(s.functions for s in used), rejected=sorted(rejected.items()), duplicates=sorted(duplicates.items()),
        by_licence=sorted(by_licence.items()),
    )
