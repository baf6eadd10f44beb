"""The sandbox program: stdlib-only modules that run inside the sandbox, never imported by the host.

``program.py`` concatenates their source texts, in ``SANDBOX_MODULES`` order, into one program
that a world-readable system interpreter runs as the fork server of a worker. Each module may use
the names defined by the ones before it; the relative imports at their top only serve tests and
type checkers.
"""
