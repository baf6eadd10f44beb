"""The near-duplicate finder flags restatements and leaves distinct neighbours alone."""

from pathlib import Path

from execretrieval_mteb.construction.near_duplicates import TaskText, find_near_duplicates, load_task_texts, main

GCD = "def {n}(a, b):\n    while b:\n        a, b = b, a % b\n    return abs(a)\n"


def _task(name: str, query: str, code: str) -> TaskText:
    return TaskText(name, f"{name}.toml", query, code)


def test_renamed_restatement_is_flagged_by_code_and_query() -> None:
    a = _task("gcd_euclid", "Return the greatest common divisor of a and b using Euclid's algorithm.", GCD.format(n="gcd_euclid"))
    b = _task("greatest_common_divisor", "Using Euclid's algorithm, return the greatest common divisor of a and b.", GCD.format(n="greatest_common_divisor"))
    signals = {d.signal for d in find_near_duplicates([a, b])}
    assert signals == {"query", "code"}


def test_inverse_functions_and_topical_neighbours_are_not_flagged() -> None:
    to_roman = _task("int_to_roman", "Convert a positive integer to a Roman numeral string.", "def int_to_roman(n):\n    out = ''\n    for v, s in [(10, 'X'), (5, 'V'), (1, 'I')]:\n        while n >= v:\n            out += s\n            n -= v\n    return out\n")
    from_roman = _task("roman_to_int", "Parse a Roman numeral string into its integer value.", "def roman_to_int(s):\n    vals = {'I': 1, 'V': 5, 'X': 10}\n    total = 0\n    for i, ch in enumerate(s):\n        v = vals[ch]\n        total += -v if i + 1 < len(s) and vals[s[i + 1]] > v else v\n    return total\n")
    assert find_near_duplicates([to_roman, from_roman]) == []


def test_plural_name_variant_is_flagged() -> None:
    a = _task("count_leap_years", "How many leap years lie in the inclusive range.", "def count_leap_years(a, b):\n    return b - a\n")
    b = _task("count_leap_year", "Number of Gregorian leap years between two bounds.", "def count_leap_year(lo, hi):\n    n = 0\n    for y in range(lo, hi + 1):\n        n += y % 4 == 0\n    return n\n")
    assert [d.signal for d in find_near_duplicates([a, b])] == ["name"]


def test_cli_exit_status_reflects_findings(tmp_path: Path, capsys) -> None:
    domain = tmp_path / "math_numerical"
    domain.mkdir()
    for name in ("gcd_euclid", "greatest_common_divisor"):
        (domain / f"{name}.toml").write_text(
            f"query = \"Return the greatest common divisor of a and b using Euclid's algorithm.\"\n"
            f"canonical = '''\n{GCD.format(n=name)}'''\ntests = []\n"
        )
    assert len(load_task_texts(tmp_path)) == 2
    assert main([str(tmp_path)]) == 1
    assert "near-duplicate pair" in capsys.readouterr().out
    (domain / "greatest_common_divisor.toml").unlink()
    assert main([str(tmp_path)]) == 0
