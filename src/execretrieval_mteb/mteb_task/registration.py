"""Add ``ExecRetrieval`` to mteb's task registry and the BM25 baseline to its model registry
(no fork of mteb, nothing patched but the two registries).

mteb has no plugin entry point: it builds ``TASK_LIST`` and ``_TASKS_REGISTRY`` once, when
``mteb.get_tasks`` is executed, from the classes in ``mteb.tasks``, and ``MODEL_REGISTRY`` once,
when ``mteb.models.model_implementations`` is executed. The package's ``.pth`` file
(``execretrieval_mteb_registration.pth``, one line, executed by ``site`` at interpreter start-up)
only puts a finder at the front of ``sys.meta_path``; it reads no file and imports no module, so
programs that never import mteb pay one tuple lookup per import. When one of those two modules is
imported, the finder calls ``find_registering_spec``: the module is loaded by its own loader, then
``register`` appends our task class to both task registries and to the ``mteb.tasks`` namespace, or
``register_models`` adds the BM25 baseline's ``ModelMeta`` (``bm25.model_meta``) to the model
registry; once both have happened the finder removes itself. ``mteb.get_task("ExecRetrieval")``,
``mteb run -t ExecRetrieval``, ``mteb available-tasks``, result loading, and
``mteb run -m execretrieval-mteb/bm25-code`` then all work. ``ensure_registered`` is for
environments without the ``.pth`` hook (e.g. a bare source checkout).
"""

from __future__ import annotations

import importlib
import sys
from importlib.machinery import ModuleSpec, PathFinder
from types import ModuleType
from typing import Any

_TASK_MODULE = f"{__package__}.task"
_OPEN_TASK_MODULE = f"{__package__}.open_task"  # ExecRetrievalOpen, registered beside ExecRetrieval
TASKS_MODULE = "mteb.get_tasks"
MODELS_MODULE = "mteb.models.model_implementations"
_pending: list[ModuleType] = []
_hooked: set[str] = set()


def register(get_tasks_module: ModuleType) -> None:
    """Register the task in an executed ``mteb.get_tasks`` module; idempotent.

    When ``task`` itself is what imported mteb (it is half-initialised at this point), the
    registration is deferred: ``task`` completes it via ``complete_pending`` once its class exists.
    """
    task_module = sys.modules.get(_TASK_MODULE)
    open_module = sys.modules.get(_OPEN_TASK_MODULE)
    if (task_module is not None and not hasattr(task_module, "ExecRetrieval")) or (
            open_module is not None and not hasattr(open_module, "ExecRetrievalOpen")):
        _pending.append(get_tasks_module)
        return
    from .open_task import ExecRetrievalOpen
    from .task import ExecRetrieval

    for task_class in (ExecRetrieval, ExecRetrievalOpen):
        _add_task(get_tasks_module, task_class)


def _add_task(get_tasks_module: ModuleType, task_class: type) -> None:
    name = task_class.metadata.name  # type: ignore[attr-defined]
    registry = get_tasks_module._TASKS_REGISTRY
    if registry.get(name) is task_class:
        return
    registry[name] = task_class
    get_tasks_module.TASK_LIST = (*get_tasks_module.TASK_LIST, task_class)
    tasks_namespace = sys.modules.get("mteb.tasks")
    if tasks_namespace is not None:
        setattr(tasks_namespace, task_class.__name__, task_class)


def register_models(model_implementations: ModuleType) -> None:
    """Add the BM25 baseline to an executed ``mteb.models.model_implementations``' registry; idempotent."""
    from .bm25 import MODEL_NAME, model_meta

    model_implementations.MODEL_REGISTRY.setdefault(MODEL_NAME, model_meta())


_REGISTRARS = {TASKS_MODULE: register, MODELS_MODULE: register_models}


class _RegisteringLoader:
    """The module's own loader, plus registration right after the module has run."""

    def __init__(self, loader: Any, registrar: Any) -> None:
        self._loader = loader
        self._registrar = registrar

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        self._registrar(module)


def find_registering_spec(fullname: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
    """The spec of a hooked mteb module with a loader that registers; the hook goes once both were seen."""
    registrar = _REGISTRARS.get(fullname)
    if registrar is None:
        return None
    _hooked.add(fullname)
    if _hooked >= set(_REGISTRARS):
        uninstall()
    spec = PathFinder.find_spec(fullname, path, target)
    if spec is not None and spec.loader is not None:
        spec.loader = _RegisteringLoader(spec.loader, registrar)
    return spec


def uninstall() -> None:
    """Remove the start-up finder (it is one-shot; also used by tests and benchmarks)."""
    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "MtebTaskRegistrar"]


def complete_pending() -> None:
    """Finish a registration the start-up hook had to defer (called at the end of ``task``)."""
    while _pending:
        register(_pending.pop())


def ensure_registered() -> None:
    """Import mteb's registries and make sure the task and the BM25 baseline are in them."""
    register(importlib.import_module(TASKS_MODULE))  # the module; `mteb.get_tasks` is the function
    register_models(importlib.import_module(MODELS_MODULE))
