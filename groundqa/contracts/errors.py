"""Exceptions of the contracts runtime."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from groundqa.contracts.records import AttemptRecord, ContractReport


class ContractError(Exception):
    """A hard constraint is still violated when the attempts run out (policy ``raise``).

    Carries every attempt (:class:`AttemptRecord`) and every violation message, in order.
    ``stage`` names the failing stage for ``@contract`` (``input_validation``, ``act`` or
    ``output_validation``) and is ``None`` for ``constrained`` modules.
    """

    def __init__(
        self,
        message: str,
        *,
        module: str,
        attempts: list[AttemptRecord] | None = None,
        report: ContractReport | None = None,
        stage: str | None = None,
    ) -> None:
        super().__init__(message)
        self.module = module
        self.attempts: list[AttemptRecord] = list(attempts or [])
        self.report = report
        self.stage = stage

    @property
    def messages(self) -> list[str]:
        """Every violation message of every attempt, in the order they were recorded."""
        return [v.message for attempt in self.attempts for v in attempt.violations]


class ContractDefinitionError(TypeError):
    """A contract is written wrongly (bad condition, missing annotation, ``pre`` returning False...).

    The message always names the module and the method at fault.
    """


class ContractConfigurationError(RuntimeError):
    """Something a contract needs at call time is missing, such as the LM of a remedy."""
