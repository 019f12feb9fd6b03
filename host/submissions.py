"""The envelopes people's seats submit to a table's game: each applied and journaled once."""

from __future__ import annotations

from typing import TYPE_CHECKING

from watten_net.deal.envelope import envelope_hash
from watten_net.deal.protocol import ProtocolError
from watten_net.refusal import Code, Reason

from .refusal import TableRefusal

if TYPE_CHECKING:
    from .table import Table


class Submissions:
    """A seat's envelopes into the game of one `Table`. The answer to every envelope a seat submitted is kept by
    envelope hash: a retry of the same bytes gets the original answer (the proto's promise), and is neither
    journaled nor applied again."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self._answers: dict[bytes, tuple[int, int, bytes]] = {}

    def forget(self) -> None:
        self._answers.clear()

    async def submit(self, token: str, raw: bytes) -> tuple[int, int, bytes]:
        table = self.table
        seat = table.seat_of(token)
        async with table.lock:
            if table.game is None:
                raise TableRefusal(Code.PRECONDITION, Reason.GAME_NOT_STARTED, "the game has not started yet")
            # A person who acts is back, whatever their stream is doing: the bot gives the seat back first.
            await table.stand_in_locked(seat, False)
            digest = envelope_hash(raw)
            replay = digest in table.game.seat_chains[seat].accepted
            try:
                posted = table.game.submit(seat, raw)
            except ProtocolError as err:
                raise TableRefusal(err.code, err.reason, err.message, table.game.refusal_receipt(raw, err.reason)) \
                    from None
            if replay:
                # Already accepted (a blind retry): the original answer; journaling it again would let a client
                # grow the journal, one fsync per retry, without end.
                return self._answers.get(digest, (len(table.log), 0, digest))
            if table.journal is not None:
                table.journal.submit(seat, raw)  # on disk before anything it caused leaves the host
            table.clocks.answered(seat)
            # The host envelope that carries this one: a Relay, an ActionAccepted, or the CommitSet that the
            # last seed commitment completes (an earlier commitment waits for it: 0).
            chain_seq = posted[0].seq if posted and posted[0].type in ("Relay", "ActionAccepted", "KeySet") else 0
            # Published even when it posted nothing (a seed commitment that does not complete the set): the seats'
            # views (DealStatus.waiting_for) must show that this seat has answered, as they do for a bot's.
            await table.publish(posted)
            self._answers[digest] = (len(table.log), chain_seq, digest)
            return len(table.log), chain_seq, digest
