"""``build_report.json`` and the per-domain markdown table.

The report holds counts (per domain and in total), bug-type shares, each gate's pass/fail
counts, both sweeps, the candidate funnel (enumerated, removed by each realism rule per bug type,
executed, accepted, rejected by reason, suites run by purpose), the equivalent mutants of every
task (pass every test, agree with the canonical on every generated input: recorded, never
shipped), each task's validation-only check (inputs generated, canonical agrees with the
reference), the stacked-mutant counts, the content targets of the release (>= 1,000 queries,
>= 4,900 snippets, >= 95 queries per domain, each bug type >= 10 % of mutants) with whether they
are met, and every excluded task with its gate and reasons. Nothing in it depends on time, machine or absolute paths.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..dataset.schema import DOMAINS, BugType
from .gates import Gate, GateFailure
from .mutation import Mutant
from ..oracle.agreement import Agreement
from .writer import ShippedTask

TARGET_QUERIES, TARGET_SNIPPETS, TARGET_PER_DOMAIN, TARGET_TYPE_SHARE = 1000, 4900, 95, 0.10


def canonical_lines(code: str) -> int:
    """Non-blank lines of a snippet."""
    return sum(1 for line in code.splitlines() if line.strip())


def _median(values: Sequence[int]) -> float | None:
    return float(statistics.median(values)) if values else None


def build_report(
    *,
    seed: int,
    settings: Mapping[str, Any],
    task_paths: Sequence[str],
    shipped: Sequence[ShippedTask],
    exclusions: Mapping[str, Sequence[GateFailure]],
    gate_counts: Mapping[Gate, Mapping[str, int]],
    sweeps: Mapping[str, Any],
    candidates: Mapping[str, Any],
    equivalents: Mapping[str, Sequence[Mutant]] | None = None,
    validation: Mapping[str, Agreement | None] | None = None,
    stacked: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The report; ``equivalents`` and ``validation`` are per task path (``validation`` None: no table or not run)."""
    mutant_types = Counter(m.bug_type for s in shipped for m in s.mutants)
    n_mutants = sum(mutant_types.values())
    domains: dict[str, Any] = {}
    for domain in DOMAINS:
        ours = [s for s in shipped if s.task.domain == domain]
        types = Counter(m.bug_type for s in ours for m in s.mutants)
        domains[domain] = {
            "task_files": sum(1 for p in task_paths if p.startswith(f"{domain}/")),
            "queries": len(ours),
            "excluded": sum(1 for p in exclusions if p.startswith(f"{domain}/")),
            "median_canonical_lines": _median([canonical_lines(s.task.canonical) for s in ours]),
            "mutants_by_bug_type": {t.value: types.get(t, 0) for t in BugType},
        }
    shares = {
        t.value: {
            "count": mutant_types.get(t, 0),
            "share": round(mutant_types.get(t, 0) / n_mutants, 4) if n_mutants else 0.0,
        }
        for t in BugType
    }
    n_queries = len(shipped)
    n_snippets = n_queries + n_mutants
    smallest_domain = min(d["queries"] for d in domains.values())
    smallest_share = min(s["share"] for s in shares.values())
    targets = {
        "queries": {"value": n_queries, "target": TARGET_QUERIES, "met": n_queries >= TARGET_QUERIES},
        "snippets": {"value": n_snippets, "target": TARGET_SNIPPETS, "met": n_snippets >= TARGET_SNIPPETS},
        "min_queries_per_domain": {
            "value": smallest_domain,
            "target": TARGET_PER_DOMAIN,
            "met": smallest_domain >= TARGET_PER_DOMAIN,
        },
        "min_bug_type_share": {
            "value": smallest_share,
            "target": TARGET_TYPE_SHARE,
            "met": smallest_share >= TARGET_TYPE_SHARE,
        },
    }
    return {
        "seed": seed,
        "settings": dict(settings),
        "counts": {
            "task_files": len(task_paths),
            "queries": n_queries,
            "snippets": n_snippets,
            "mutants": n_mutants,
            "excluded_tasks": len(exclusions),
            "median_canonical_lines": _median([canonical_lines(s.task.canonical) for s in shipped]),
        },
        "bug_types": shares,
        "domains": domains,
        "gates": {g.value: dict(gate_counts.get(g, {"passed": 0, "failed": 0})) for g in Gate},
        "sweeps": dict(sweeps),
        "candidates": dict(candidates),
        "equivalent_mutants": {
            path: [{"bug_type": m.bug_type.value, "line": m.line, "description": m.bug_description} for m in mutants]
            for path, mutants in sorted((equivalents or {}).items())
            if mutants
        },
        "validation": {
            path: {"inputs": None, "canonical_agrees": None}
            if agreement is None
            else {"inputs": agreement.inputs, "canonical_agrees": agreement.agrees}
            for path, agreement in sorted((validation or {}).items())
        },
        "stacked_mutants": dict(stacked or {}),
        "targets": targets,
        "all_targets_met": all(t["met"] for t in targets.values()),
        "exclusions": [
            {"task": path, "gate": failures[0].gate.value, "reasons": [f.reason for f in failures]}
            for path, failures in sorted(exclusions.items())
        ],
    }


def domain_table(report: Mapping[str, Any]) -> str:
    """Markdown: one row per domain (queries, median canonical lines, mutants by bug type) and a total."""
    types = [t.value for t in BugType]
    head = "| domain | queries | median canonical lines | " + " | ".join(types) + " |\n"
    rule = "|---|---:|---:|" + "---:|" * len(types) + "\n"
    rows = []
    for domain, stats in report["domains"].items():
        median = stats["median_canonical_lines"]
        cells = [domain, str(stats["queries"]), "-" if median is None else f"{median:g}"]
        cells += [str(stats["mutants_by_bug_type"][t]) for t in types]
        rows.append("| " + " | ".join(cells) + " |\n")
    total = report["counts"]
    median = total["median_canonical_lines"]
    cells = ["**all**", str(total["queries"]), "-" if median is None else f"{median:g}"]
    cells += [f"{report['bug_types'][t]['count']} ({100 * report['bug_types'][t]['share']:.1f} %)" for t in types]
    rows.append("| " + " | ".join(cells) + " |\n")
    return head + rule + "".join(rows)


def dumps_report(report: Mapping[str, Any]) -> str:
    return json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
