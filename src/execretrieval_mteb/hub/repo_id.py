"""Hub repository ids (``ORG/NAME``), checked before anything is read, written or deleted.

The Hub's rule (huggingface_hub's ``validate_repo_id``): letters, digits, ``-``, ``_`` and ``.``,
no leading or trailing ``-``/``.``, no ``--`` or ``..``, at most 96 characters. A release always
lives under an owner, so the owner is required here too.
"""

from __future__ import annotations

from ..errors import ExecRetrievalError


class RepoIdError(ExecRetrievalError):
    """Not a Hub repository id; the message says what one looks like."""


def check_repo_id(repo_id: str) -> str:
    """``repo_id`` unchanged when it is a valid ``ORG/NAME``; a one-line ``RepoIdError`` otherwise."""
    from huggingface_hub.errors import HFValidationError
    from huggingface_hub.utils import validate_repo_id

    problem = None
    if repo_id.count("/") != 1:
        problem = "it must be ORG/NAME (one '/')"
    else:
        try:
            validate_repo_id(repo_id)
        except HFValidationError:
            problem = ("use letters, digits, '-', '_' and '.' only (no spaces, no leading or trailing '-' or '.', "
                       "at most 96 characters)")
    if problem:
        raise RepoIdError(f"--repo-id {repo_id!r}: not a Hub repository id; {problem}")
    return repo_id
