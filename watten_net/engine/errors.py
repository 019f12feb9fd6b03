"""Typed errors with a machine-readable reason the host maps to a status code and the client to words."""

from __future__ import annotations


class RuleViolation(Exception):
    """An action the rules do not allow now. `reason` is a short code such as `not-your-turn`."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message

    def __repr__(self) -> str:
        return f"RuleViolation({self.reason!r}, {self.message!r})"
