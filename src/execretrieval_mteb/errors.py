"""Errors a user can fix. The CLI prints them as one line and exits 2; anything else is a bug."""


class ExecRetrievalError(Exception):
    """Base of every user-fixable error; the message names the file/field and the fix."""


class UsageError(ExecRetrievalError):
    """Bad command-line input."""
