"""The package's small public API: importing it costs nothing; the task and the embedded-model set-up are one import away."""

from __future__ import annotations

import subprocess
import sys


def test_public_names_are_lazy_and_are_the_real_objects() -> None:
    code = (
        "import sys\n"
        "import execretrieval_mteb as pkg\n"
        "assert 'mteb' not in sys.modules and 'torch' not in sys.modules\n"
        "assert set(pkg.__all__) == {'ExecRetrieval', 'install_embedded_model', 'load_task', '__version__'}\n"
        "from execretrieval_mteb import ExecRetrieval, install_embedded_model, load_task\n"
        "from execretrieval_mteb.mteb_task.embedded import install\n"
        "import mteb\n"
        "assert type(mteb.get_task('ExecRetrieval')) is ExecRetrieval and install_embedded_model is install\n"
        "assert type(load_task('bundled').task) is ExecRetrieval\n"
        "try:\n"
        "    pkg.no_such_name\n"
        "except AttributeError:\n"
        "    print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"
