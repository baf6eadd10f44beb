"""Which licence a distribution declares, read from its metadata, and whether the open pool may use it.

Permissive families kept (the issue's list): MIT, BSD (2- and 3-clause), Apache-2.0 and the PSF
licence. Read in this order, the first that says something deciding:

1. ``License-Expression`` (PEP 639, SPDX): of ``OR`` alternatives one permissive is enough (we take
   that one); with ``AND`` (a project's own licence and those of components it bundles, e.g.
   numpy's ``BSD-3-Clause AND 0BSD AND MIT AND Zlib AND CC0-1.0``) the first identifier must be of a
   kept family and every other one of a kept family or another non-copyleft licence
   (``OTHER_PERMISSIVE``: Zlib, CC0, BSL-1.0, ISC, MIT-CMU, CNRI-Python, Apache-2.0 WITH
   LLVM-exception); the family is the first one's;
2. the ``License ::`` trove classifiers: all must be permissive (a package that lists GPL next to
   MIT is treated as GPL);
3. the free-text ``License`` field: only its first line, matched against the families' usual names.

Anything else (GPL, LGPL, MPL, ISC, unknown, nothing declared) is excluded and listed as such on the
card: an unknown licence is never guessed permissive.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

PERMISSIVE_SPDX = {
    "MIT": "MIT", "MIT-0": "MIT", "BSD-2-Clause": "BSD-2-Clause", "BSD-3-Clause": "BSD-3-Clause",
    "BSD-3-Clause-Clear": "BSD-3-Clause", "0BSD": "BSD", "Apache-2.0": "Apache-2.0", "PSF-2.0": "PSF-2.0",
    "Python-2.0": "PSF-2.0", "Python-2.0.1": "PSF-2.0",
}
_CLASSIFIERS = {
    "License :: OSI Approved :: MIT License": "MIT",
    "License :: OSI Approved :: MIT No Attribution License (MIT-0)": "MIT",
    "License :: OSI Approved :: BSD License": "BSD",
    "License :: OSI Approved :: Apache Software License": "Apache-2.0",
    "License :: OSI Approved :: Python Software Foundation License": "PSF-2.0",
}
_TEXT = (
    (re.compile(r"^\s*(the\s+)?mit(\s+license)?\b", re.I), "MIT"),
    (re.compile(r"^\s*(new\s+|modified\s+|simplified\s+)?bsd\b|bsd[- ]?[23][- ]clause", re.I), "BSD"),
    (re.compile(r"^\s*apache(\s+license)?(\s*,?\s*version)?\s*2(\.0)?\b|^\s*apache[- ]2(\.0)?\b", re.I), "Apache-2.0"),
    (re.compile(r"^\s*(psf|python software foundation)", re.I), "PSF-2.0"),
)
OTHER_PERMISSIVE = frozenset({"Zlib", "CC0-1.0", "BSL-1.0", "ISC", "MIT-CMU", "CNRI-Python", "LLVM-exception",
                              "Unlicense", "HPND"})
_SPDX_TOKEN = re.compile(r"\(|\)|[A-Za-z0-9.+-]+")


@dataclass(frozen=True)
class Licence:
    """``name``: what the metadata declares (shortened); ``family``: the permissive family used, or None."""

    name: str
    family: str | None
    field: str

    @property
    def permissive(self) -> bool:
        return self.family is not None


def from_expression(expression: str) -> str | None:
    """The permissive family an SPDX expression allows, or None (see the module docstring)."""
    tokens = [t for t in _SPDX_TOKEN.findall(expression) if t not in "()"]
    ids = [t for t in tokens if t.upper() not in ("AND", "OR", "WITH")]
    if not ids:
        return None
    families = [PERMISSIVE_SPDX.get(i) for i in ids]
    if any(t.upper() == "AND" for t in tokens) or any(t.upper() == "WITH" for t in tokens):
        others_ok = all(f or i in OTHER_PERMISSIVE for f, i in zip(families[1:], ids[1:]))
        return families[0] if families[0] and others_ok else None
    return next((f for f in families if f), None)


def from_classifiers(classifiers: Iterable[str]) -> str | None | bool:
    """The family of the licence classifiers, None if some is not permissive, False if there is none."""
    found = [c for c in classifiers if c.startswith("License ::")]
    if not found:
        return False
    families = [_CLASSIFIERS.get(c.strip()) for c in found]
    return families[0] if all(families) else None


def from_text(text: str) -> str | None:
    first = next((line for line in text.splitlines() if line.strip()), "")
    if re.search(r"\b(l?gpl|gnu|mozilla|mpl|agpl|eupl|cddl|epl)\b", first, re.I):
        return None
    return next((family for pattern, family in _TEXT if pattern.search(first)), None)


def read_licence(expression: str | None, classifiers: Iterable[str], text: str | None) -> Licence:
    """A distribution's licence from its ``License-Expression``, classifiers and ``License`` field."""
    if expression and expression.strip():
        return Licence(expression.strip(), from_expression(expression), "License-Expression")
    classifiers = list(classifiers)
    by_classifier = from_classifiers(classifiers)
    if by_classifier is not False:
        names = "; ".join(c.rsplit("::", 1)[-1].strip() for c in classifiers if c.startswith("License ::"))
        return Licence(names, by_classifier or None, "Classifier")
    if text and text.strip():
        first = next(line for line in text.splitlines() if line.strip()).strip()
        return Licence(first[:80], from_text(text), "License")
    return Licence("not declared", None, "none")
