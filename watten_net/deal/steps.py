"""The steps of a game on the host: the stage `HostGame` is at and the dealing step it waits for.

`DealStep` is the one spelling of the step a game waits for: the dealing layers (Level 1, the trustless Level 2)
and `HostGame` return its members, the host puts `step.wire` in `DealStatus.step`, and a client reads that word
back with `DealStep.from_wire` to find the message it owes (`step.owed`).
"""

from __future__ import annotations

from enum import StrEnum


class Stage(StrEnum):
    """Where `HostGame` is: before the header, signing it, dealing, playing, co-signing a checkpoint, or over."""

    NEW = "new"
    HEADER = "header"
    DEAL = "deal"  # the dealing layer's own steps (a `DealStep`)
    PLAY = "play"
    CHECKPOINT = "checkpoint"
    OVER = "over"


class DealStep(StrEnum):
    """What the game waits for, as `HostGame.waiting_for` names it."""

    HEADER = "HeaderSignature"
    # Level 1 (verified deals)
    KEY_COMMIT = "key-commit"
    KEY_SIGN = "key-sign"
    KEY_REVEAL = "key-reveal"
    SEAL_SIGN = "seal-sign"
    DEALT = "dealt"
    # Level 2 (trustless deals)
    KEYS = "keys"
    SHUFFLE = "shuffle"
    SHARES = "shares"
    OPEN = "open"  # the openings a decided hand's obligations need
    # Either
    NONE = ""  # nothing is being dealt right now
    PLAY = "play"  # a seat's move
    CHECKPOINT = "checkpoint"
    NEW = "new"
    OVER = "over"

    @property
    def wire(self) -> str:
        """The word of `DealStatus.step` (see the proto) for this step."""
        return _WIRE.get(self, self.value)

    @classmethod
    def from_wire(cls, word: str) -> DealStep | None:
        """The step a `DealStatus.step` word names (None: a word this client does not know)."""
        return _FROM_WIRE.get(word)

    @property
    def owed(self) -> str | None:
        """The envelope type a seat the game waits for owes at this step (None: none of the protocol's own)."""
        return _OWED.get(self)


_WIRE = {
    DealStep.HEADER: "header", DealStep.KEY_SIGN: "key-set", DealStep.SEAL_SIGN: "sealed", DealStep.PLAY: "dealt",
    DealStep.OVER: "revealed",
}
# Several steps share a word on the wire ("dealt"): reading one back gives the dealing step.
_FROM_WIRE: dict[str, DealStep] = {step.wire: step for step in reversed(DealStep)}
_OWED = {
    DealStep.HEADER: "HeaderSignature", DealStep.KEY_COMMIT: "KeyCommit", DealStep.KEY_SIGN: "KeySetSignature",
    DealStep.KEY_REVEAL: "KeyReveal", DealStep.SEAL_SIGN: "DeckSealedSignature",
    DealStep.CHECKPOINT: "CheckpointSignature",
}
