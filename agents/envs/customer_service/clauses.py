"""The clause splitter, shared by every routing environment (`agents.envs.clauses`); kept here for the
modules and scripts that name it from the customer-service package."""

from agents.envs.clauses import CLAUSE_SPLIT, split_clauses

__all__ = ["CLAUSE_SPLIT", "split_clauses"]
