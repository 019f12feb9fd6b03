"""The engine's refusal: an action the rules do not allow now (see watten_net/refusal.py for the one model)."""

from __future__ import annotations

from watten_net.refusal import Code, Reason, Refusal

NO_ACTION_AT_ALL = frozenset({Reason.MALFORMED, Reason.BAD_ACTION, Reason.BAD_CARD, Reason.UNKNOWN_SIGNAL})
"""Reasons that say the text is no action at all (INVALID_ARGUMENT); every other rule refusal is against the state
of the match (FAILED_PRECONDITION)."""


class RuleViolation(Refusal):
    """An action the rules do not allow now. `reason` is a short code such as `not-your-turn`."""

    def __init__(self, reason: Reason, message: str, seat: int | None = None) -> None:
        code = Code.INVALID if reason in NO_ACTION_AT_ALL else Code.PRECONDITION
        super().__init__(code, reason, message, seat)

    def blaming(self, seat: int) -> RuleViolation:
        """The same refusal naming `seat` as the one that cheated."""
        return RuleViolation(self.reason, self.message, seat)

    def __repr__(self) -> str:
        return f"RuleViolation({self.reason.value!r}, {self.message!r})"


def no_card(text: object, err: ValueError) -> RuleViolation:
    """Where a card belongs: a string that is no card (`play XX`) is `bad-card`; nothing there is `malformed`."""
    written = isinstance(text, str) and text.strip()
    return RuleViolation(Reason.BAD_CARD if written else Reason.MALFORMED, str(err))
