"""The start-up check proves each layer it reports: with any one seccomp rule group missing from a
copy of the filter, a strict oracle refuses to start, naming the canaries that group guards."""

from __future__ import annotations

import os

import pytest

from execretrieval_mteb.oracle.api import Oracle, OracleUnavailableError
from execretrieval_mteb.oracle.protections import Protection
from execretrieval_mteb.oracle.sandbox.seccomp import SECCOMP_CHILD_RULE_GROUPS, SECCOMP_RULE_GROUPS
from execretrieval_mteb.oracle.selfcheck import CANARIES, LAYER_CANARIES, canaries

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the full sandbox needs root")


def test_every_rule_group_and_listed_layer_has_quick_canaries() -> None:
    quick = {c.name for c in canaries(quick_only=True)}
    for group in (*SECCOMP_RULE_GROUPS, *SECCOMP_CHILD_RULE_GROUPS):
        assert LAYER_CANARIES.get(group), group
    for layer, names in LAYER_CANARIES.items():
        assert set(names) <= quick, (layer, set(names) - quick)
    listed = {p.value for p in Protection} | set(SECCOMP_RULE_GROUPS) | set(SECCOMP_CHILD_RULE_GROUPS)
    assert set(LAYER_CANARIES) <= listed
    assert len({c.name for c in CANARIES}) == len(CANARIES)


@pytest.mark.parametrize("group", [*SECCOMP_RULE_GROUPS, *SECCOMP_CHILD_RULE_GROUPS])
def test_a_strict_oracle_refuses_a_filter_missing_a_rule_group(group: str) -> None:
    oracle = Oracle(workers=1, strict=True)
    oracle._pool.servers[0].omit_rule_groups = (group,)
    with pytest.raises(OracleUnavailableError, match="self-check failed") as refused:
        oracle.start()
    failed = {name for name in (c.name for c in CANARIES) if f"{name} gave" in str(refused.value)}
    assert set(LAYER_CANARIES[group]) <= failed, (group, str(refused.value))
    assert oracle._pool.servers[0]._proc is None  # closed: nothing left running


def test_the_full_filter_passes_and_the_start_up_check_stays_cheap() -> None:
    with Oracle(workers=1, strict=True) as oracle:
        assert all(r.ok for r in oracle.canary_results)
        assert {r.canary.name for r in oracle.canary_results} == {c.name for c in canaries(quick_only=True)}


@pytest.mark.parametrize("disabled", [Protection.MINIMAL_ROOT, Protection.UNPRIVILEGED_UID])
def test_the_canaries_of_a_disabled_layer_fail(disabled: Protection) -> None:
    """Layers other than seccomp's rules: switched off (the namespaces go together, as they are
    set up together), each one's canaries fail, and a strict oracle would refuse to start."""
    with pytest.warns(RuntimeWarning, match="self-check failed"), Oracle(workers=1, disabled={disabled}) as weak:
        failed = {r.canary.name for r in weak.canary_results if not r.ok}
        off = {p.value for p in Protection} - {p.value for p in weak.protections}
    for layer in off & set(LAYER_CANARIES):
        assert set(LAYER_CANARIES[layer]) <= failed, (layer, failed)
    assert off & set(LAYER_CANARIES)
