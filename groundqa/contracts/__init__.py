"""Contracts for DSPy 3 modules: Assert / Suggest, declarative constraints, ``constrained`` (what
GroundedQA uses) and, in the ``decorator`` subpackage, ``@contract`` for users' own modules."""

from groundqa.contracts.constrained import constrained
from groundqa.contracts.constraints import Assert, Constraint, Suggest
from groundqa.contracts.decorator import contract
from groundqa.contracts.errors import ContractConfigurationError, ContractDefinitionError, ContractError
from groundqa.contracts.options import ContractOptions, Policy
from groundqa.contracts.records import AttemptRecord, ContractReport, Violation
from groundqa.contracts.runner import collect_reports

__all__ = [
    "Assert",
    "AttemptRecord",
    "Constraint",
    "ContractConfigurationError",
    "ContractDefinitionError",
    "ContractError",
    "ContractOptions",
    "ContractReport",
    "Policy",
    "Suggest",
    "Violation",
    "collect_reports",
    "constrained",
    "contract",
]
