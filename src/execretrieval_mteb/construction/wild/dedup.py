"""When two snippets are the same: exactly, or up to whitespace.

- exact: the sha256 of the text;
- whitespace-insensitive: the sha256 of its token stream, each token's text joined by one space,
  with the layout tokens (``NL``, ``NEWLINE``) dropped and indentation kept only as ``INDENT`` /
  ``DEDENT`` marks. Two spaces or four, a blank line more, a trailing space, a line continued in
  brackets: same key. A comment or a docstring that differs, or a different block structure: a
  different key. (``" ".join(code.split())`` would also merge a function with a copy of it whose
  blocks were re-nested.)

Keys are 16-byte digests: a set of a million of them stays small, which is how the builder streams.
"""

from __future__ import annotations

import hashlib
import io
import tokenize

_LAYOUT = (tokenize.NL, tokenize.NEWLINE, tokenize.ENCODING, tokenize.ENDMARKER)


def exact_key(code: str) -> bytes:
    return hashlib.sha256(code.encode("utf-8")).digest()[:16]


def whitespace_key(code: str) -> bytes:
    """Digest of the token stream (see the module docstring); falls back to the split words on a tokenizer error."""
    try:
        parts = []
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type in _LAYOUT:
                continue
            if token.type == tokenize.INDENT:
                parts.append("<INDENT>")
            elif token.type == tokenize.DEDENT:
                parts.append("<DEDENT>")
            else:
                parts.append(token.string)
        text = " ".join(parts)
    except (tokenize.TokenError, SyntaxError):
        text = " ".join(code.split())
    return hashlib.sha256(text.encode("utf-8")).digest()[:16]
