"""Construction pipeline: authored task files -> AST mutants -> five gates -> built dataset.

Stages, one module each: ``task_files`` (read ``tasks/<domain>/<fn>.toml``), ``mutation``
(enumerate single-edit mutants), ``selection`` (keep up to four execution-verified mutants),
``gates`` (the five validation gates), ``sweeps`` (distractor-sanity and cross-canonical runs),
``ids`` (information-free ids), ``writer`` (both on-disk layouts and ``SHA256SUMS``),
``report`` (``build_report.json`` and the per-domain table), ``builder`` (the whole build) and
``validate`` (re-run the gates on a built dataset).
"""
