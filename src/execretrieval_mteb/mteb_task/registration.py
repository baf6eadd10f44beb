"""Add ``ExecRetrieval`` to mteb's task registry and the BM25 baseline to its model registry
(no fork of mteb, nothing patched but the two registries), until the task is merged upstream.

mteb has no plugin entry point: it builds ``TASK_LIST`` and ``_TASKS_REGISTRY`` once, when
``mteb.get_tasks`` is executed, from the classes in ``mteb.tasks``, and ``MODEL_REGISTRY`` once,
when ``mteb.models.model_implementations`` is executed. The package's ``.pth`` file
(``execretrieval_mteb_registration.pth``, one line, executed by ``site`` at interpreter start-up)
only puts a finder at the front of ``sys.meta_path``; it reads no file and imports no module, so
programs that never import mteb pay one tuple lookup per import. When one of those two modules is
imported, the finder calls ``find_registering_spec``: the module is loaded by its own loader, then
``register`` appends the task class (``task.ExecRetrieval``: the very class an mteb pull request
adds, ``exec_retrieval.ExecRetrieval``, with only ``load_data`` reading the data the package chooses,
bundled by default, so that it runs offline today) and ``ExecRetrievalOpen`` to both task
registries and to the ``mteb.tasks`` namespace, or ``register_models`` adds the BM25 baseline's ``ModelMeta`` (``bm25.model_meta``) to the model registry; once both have
happened the finder removes itself. ``mteb.get_task("ExecRetrieval")``, ``mteb run -t
ExecRetrieval``, ``mteb available-tasks``, result loading, and ``mteb run -m
execretrieval-mteb/bm25-code`` then all work. ``ensure_registered`` is for environments without the
``.pth`` hook (e.g. a bare source checkout).

It only registers into an mteb it knows: a version inside the range this package requires
(``pyproject.toml``, read from the installed metadata) whose registries have the expected shape.
Anything else, and any error while registering, is one line on stderr naming the installed mteb and
the supported range, and mteb runs on without the task: a start-up hook must never turn an import
into a traceback. Once mteb ships the task itself, the hook steps aside (mteb's class is kept).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import sys
from importlib.machinery import ModuleSpec, PathFinder
from types import ModuleType
from typing import Any

# The modules defining the registered classes (the upstream class, the package's class that reads the
# chosen data, the open task): if one of them is what imported mteb, registration waits for its class.
_TASK_MODULES = ((f"{__package__}.exec_retrieval", "ExecRetrieval"), (f"{__package__}.task", "ExecRetrieval"),
                 (f"{__package__}.open_task", "ExecRetrievalOpen"))
TASKS_MODULE = "mteb.get_tasks"
MODELS_MODULE = "mteb.models.model_implementations"
DISTRIBUTION = "execretrieval-mteb"
_pending: list[ModuleType] = []
_hooked: set[str] = set()
_warned: list[str] = []


class UnknownMteb(Exception):
    """The installed mteb is not one this package was tested with; the message says which and what to do."""


def supported_mteb() -> str:
    """The mteb version range this package requires (from its installed metadata), e.g. ``<2.27,>=2.26``."""
    from packaging.requirements import Requirement

    for line in importlib.metadata.requires(DISTRIBUTION) or ():
        requirement = Requirement(line)
        if requirement.name == "mteb":
            return str(requirement.specifier)
    return ""


def check_mteb(version: str, module: ModuleType, names: tuple[str, ...]) -> None:
    """Refuse an mteb outside the required range, or whose registry module lacks ``names``."""
    from packaging.specifiers import SpecifierSet

    supported = supported_mteb()
    if supported and version not in SpecifierSet(supported):
        raise UnknownMteb(f"mteb {version} is outside the range this package supports (mteb{supported})")
    missing = [name for name in names if not hasattr(module, name)]
    if missing:
        raise UnknownMteb(f"mteb {version} has no {module.__name__}.{missing[0]}")


def _guarded(registrar: Any, names: tuple[str, ...]) -> Any:
    """``registrar`` run only on an mteb it knows; refusals and errors become one line on stderr."""

    def run(module: ModuleType) -> None:
        try:
            check_mteb(importlib.metadata.version("mteb"), module, names)
            registrar(module)
        except Exception as exc:  # a start-up hook must never break the program importing mteb
            reason = str(exc) if isinstance(exc, UnknownMteb) else f"{type(exc).__name__}: {exc}"
            line = (f"execretrieval-mteb: ExecRetrieval is not registered with mteb: {' '.join(reason.split())}; "
                    f"install a supported mteb (pip install 'mteb{supported_mteb() or ''}') or switch the hook "
                    "off with EXECRETRIEVAL_MTEB_NO_REGISTER=1")
            if line not in _warned:
                _warned.append(line)
                print(line, file=sys.stderr)

    return run


def register(get_tasks_module: ModuleType) -> None:
    """Register the task in an executed ``mteb.get_tasks`` module; idempotent.

    When the task module itself is what imported mteb (it is half-initialised at this point), the
    registration is deferred: ``task`` completes it via ``complete_pending`` once the class exists.
    """
    half_initialised = [name for module, name in _TASK_MODULES
                        if module in sys.modules and not hasattr(sys.modules[module], name)]
    if half_initialised:
        _pending.append(get_tasks_module)
        return
    from .open_task import ExecRetrievalOpen
    from .task import ExecRetrieval

    for task_class in (ExecRetrieval, ExecRetrievalOpen):
        _add_task(get_tasks_module, task_class)


def _add_task(get_tasks_module: ModuleType, task_class: type) -> None:
    name = task_class.metadata.name  # type: ignore[attr-defined]
    registry = get_tasks_module._TASKS_REGISTRY
    if name in registry:
        return  # ours already, or mteb's own once the task is merged upstream
    registry[name] = task_class
    get_tasks_module.TASK_LIST = (*get_tasks_module.TASK_LIST, task_class)
    tasks_namespace = sys.modules.get("mteb.tasks")
    if tasks_namespace is not None:
        setattr(tasks_namespace, task_class.__name__, task_class)


def register_models(model_implementations: ModuleType) -> None:
    """Add the BM25 baseline to an executed ``mteb.models.model_implementations``' registry; idempotent."""
    from .bm25 import MODEL_NAME, model_meta

    model_implementations.MODEL_REGISTRY.setdefault(MODEL_NAME, model_meta())


_REGISTRARS = {
    TASKS_MODULE: _guarded(register, ("_TASKS_REGISTRY", "TASK_LIST")),
    MODELS_MODULE: _guarded(register_models, ("MODEL_REGISTRY",)),
}


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
    """Finish a registration the start-up hook had to defer (called by ``task`` once the class exists)."""
    while _pending:
        _REGISTRARS[TASKS_MODULE](_pending.pop())


def ensure_registered() -> None:
    """Import mteb's registries and make sure the task and the BM25 baseline are in them."""
    register(importlib.import_module(TASKS_MODULE))  # the module; `mteb.get_tasks` is the function
    register_models(importlib.import_module(MODELS_MODULE))
