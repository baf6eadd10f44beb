"""Construction pipeline: authored task files -> AST mutants -> five gates -> built dataset.

Stages, one module each: ``task_files`` (read ``tasks/<domain>/<fn>.toml``), ``mutation``
(enumerate single-edit mutants, minus the realism rules; agreement of two implementations on a
task's generated inputs is ``oracle.agreement``), ``selection`` (judge candidates, keep four
verified mutants), ``gates`` (the five validation gates), ``stacked`` (composed multi-edit
mutants, kept out of the corpus), ``sweeps`` (distractor-sanity and cross-canonical runs),
``ids`` (information-free ids), ``writer`` (both on-disk layouts and ``SHA256SUMS``),
``report`` (``build_report.json`` and the per-domain table), ``builder`` (the whole build),
``validate`` (re-run the gates on a built dataset) and ``task_doctor`` (the build's checks on
task files, for their authors). For the open task: ``wild`` (the wild corpus of real functions)
and ``open_validation`` (the validation references shipped with it).
"""
