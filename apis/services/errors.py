"""The catalog's refusals (all DomainErrors: pages and the API show their text) and the executor's modes."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from apis.engine.executor import (
    Mode,
)
from apis.engine.model import Problem
from kopa_site.errors import DomainError

MODES = tuple(mode.value for mode in Mode)
# An exception inside the engine (not an API failure): the call is still logged, under this class.
INTERNAL_ERROR = "internal.error"


class CatalogError(DomainError):
    """A catalog request that cannot be carried out; the message says why, for the person who asked."""


class SpecImportError(CatalogError):
    """A spec with errors: every problem, each with its JSON pointer. Nothing was imported."""

    def __init__(self, problems: list[tuple[str, Problem]]):
        self.problems = problems
        super().__init__(self.report())

    def report(self) -> str:
        errors = [p for _, p in self.problems if p.level == "error"]
        lines = [f"Import refused: {len(errors)} problem(s); nothing was imported."]
        for source, problem in self.problems:
            where = f"{source}#{problem.pointer}" if source else (problem.pointer or "/")
            lines.append(f"- [{problem.level}] {where}: {problem.message}")
        return "\n".join(lines)

    def problem_dicts(self) -> list[dict[str, str]]:
        return [{"source": source, **asdict(problem)} for source, problem in self.problems]

    def as_dict(self) -> dict[str, Any]:
        return {"detail": self.report(), "problems": self.problem_dicts()}


class ToolExecutionError(CatalogError):
    """A call that could not be made as asked (bad mode, no key for live mode, an engine fault). Key-free text."""


class ParamsInvalid(ToolExecutionError):
    """Parameters that do not fit the tool's schema; nothing was sent. `problems` lists each one."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("parameters refused, nothing was sent: " + "; ".join(problems))


class MissingCredential(ToolExecutionError):
    """Live mode was asked for and no service key is known for the provider."""


class ExecutorFault(ToolExecutionError):
    """The engine itself failed (not the API): the call is still logged, under INTERNAL_ERROR."""

    status_code = 502
