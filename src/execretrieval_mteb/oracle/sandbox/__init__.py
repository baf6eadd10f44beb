"""The sandbox programs: stdlib-only modules that run inside the sandbox, never imported by the host.

``program.py`` concatenates their source texts in dependency order: ``LAUNCHER_MODULES`` (all but
``server.py``) and ``SERVER_MODULES`` make the program a world-readable system interpreter runs
as the fork server of a worker, and the server hands the first part, compiled, to the fresh
interpreter that becomes its launcher. Each module may use the names defined by the ones before
it; the relative imports at their top only serve tests and type checkers.
"""
