"""Hatchling build hook: ship the task-registration ``.pth`` in editable installs too.

``[tool.hatch.build.targets.wheel.force-include]`` puts the ``.pth`` at the root of a normal
wheel; hatchling ignores that table for editable wheels, which take extra files only from a
hook's ``force_include_editable``.
"""

from __future__ import annotations

from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PTH_SOURCE = "src/execretrieval_mteb/mteb_task/execretrieval_mteb_registration.pth"
PTH_TARGET = "execretrieval_mteb_registration.pth"


class RegistrationPthHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version == "editable":
            build_data.setdefault("force_include_editable", {})[PTH_SOURCE] = PTH_TARGET
