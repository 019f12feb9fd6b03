"""The envelopes people's seats submit to a table's game: each applied and journaled once; those that arrive together
applied in arrival order, made durable by one fsync and published as one change."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from watten_net.deal.envelope import envelope_hash
from watten_net.deal.host_game import Posted
from watten_net.deal.protocol import ProtocolError
from watten_net.refusal import Code, Reason

from .limits import MAX_ENVELOPES_PER_SUBMIT
from .refusal import BatchRefusal, TableRefusal

if TYPE_CHECKING:
    from .table import Table

Answer = tuple[int, int, bytes]  # (log seq of the change, chain seq of the host envelope carrying it, envelope hash)


@dataclass
class _Waiting:
    """One envelope in the queue: its seat and bytes, and the answer its caller waits for."""

    seat: int
    raw: bytes
    follows: _Waiting | None = None  # the envelope before it in the same call (a refusal of that one skips this one)
    refusal: BaseException | None = None  # why it was not applied (its own refusal, or the one of an earlier)
    answer: asyncio.Future[Answer] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


@dataclass
class _Batch:
    """Envelopes applied since the last publish: what they posted, and each one's answer once it is on disk."""

    posted: list[Posted] = field(default_factory=list)
    applied: bool = False  # (an envelope that posted nothing is still a change: the views show who has answered)
    accepted: list[tuple[_Waiting, int, bytes]] = field(default_factory=list)  # (envelope, chain seq, hash)
    after: list[tuple[_Waiting, BaseException | bytes]] = field(default_factory=list)  # refusals and retries


def _retrieved(answer: asyncio.Future[Answer]) -> None:
    """(An answer whose caller gave up is read here, so that its refusal is not reported as never retrieved.)"""
    if not answer.cancelled():
        answer.exception()


class Submissions:
    """A seat's envelopes into the game of one `Table`. The answer to every envelope a seat submitted is kept by
    envelope hash: a retry of the same bytes gets the original answer (the proto's promise), and is neither
    journaled nor applied again.

    Group commit: envelopes queue in arrival order, and one task of the table's (`_apply_all`), under the table's
    lock, applies every envelope queued by then (the four co-signatures of a checkpoint arrive together; more queue
    while a change waits for its fsync), journals them, and publishes them as one change after one fsync. Every
    answer of the batch, refusals included (a refusal's receipt reflects the envelopes applied before it), leaves
    only after that fsync. The task is the table's, not a caller's: a caller that gives up (its RPC cancelled) cannot
    stop a batch half way. A change of co-signatures alone, its step not complete, is answered so too, but the
    streams carry it with the change that completes the step (`changelog.held_back`)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self._answers: dict[bytes, Answer] = {}
        self._queue: list[_Waiting] = []
        self._applier: asyncio.Future[None] | None = None

    def forget(self) -> None:
        self._answers.clear()

    async def submit_all(self, token: str, raws: list[bytes]) -> list[Answer]:
        """Several envelopes of one seat (one SubmitEnvelope call), applied in order as if submitted one by one, in
        the same group commit. The first refused one ends the call (`BatchRefusal` when there are several: which
        one, and the answers of those before it, which stay applied); the ones after it are not applied."""
        if len(raws) > MAX_ENVELOPES_PER_SUBMIT:  # (before anything: a hostile call costs no work and changes nothing)
            raise TableRefusal(Code.RESOURCE_EXHAUSTED, Reason.REQUEST_TOO_LARGE,
                               f"at most {MAX_ENVELOPES_PER_SUBMIT} envelopes in one SubmitEnvelope, "
                               f"not {len(raws)}")
        seat = self.table.seat_of(token)
        mine: list[_Waiting] = []
        for raw in raws:
            mine.append(_Waiting(seat, raw, mine[-1] if mine else None))
            mine[-1].answer.add_done_callback(_retrieved)
        self._queue += mine  # (together: taken by one `_apply_queued`, so in order and in one group commit)
        if self._applier is None or self._applier.done():
            self._applier = asyncio.ensure_future(self._apply_all())
        try:
            for waiting in mine:
                await _answered(waiting.answer)
        except asyncio.CancelledError:
            # (the caller is gone before its envelopes were taken: none is applied)
            self._queue = [waiting for waiting in self._queue if waiting not in mine]
            raise
        return _answers(mine)

    async def _apply_all(self) -> None:
        while self._queue:
            async with self.table.lock:
                with contextlib.suppress(Exception):  # (its callers have it: `_apply_queued`)
                    await self._apply_queued()

    async def _apply_queued(self) -> None:
        """Under the lock: every queued envelope applied in order, one publish, then every answer."""
        batch, self._queue = self._queue, []
        done = _Batch()
        try:
            for waiting in batch:
                if self._away(waiting.seat):
                    # A person who acts is back, whatever their stream is doing: the bot gives the seat back first,
                    # after what this batch applied so far (the log keeps the chain's order).
                    await self._publish(done)
                    done = _Batch()
                    await self.table.stand_in_locked(waiting.seat, False)
                self._apply(waiting, done)
            await self._publish(done)
        except Exception as err:  # (the journal cannot be written: every caller of the batch hears it)
            for waiting in batch:
                if not waiting.answer.done():
                    waiting.answer.set_exception(err)
            raise

    def _away(self, seat: int) -> bool:
        game = self.table.game
        return game is not None and not game.finished and seat in game.absent

    def _apply(self, waiting: _Waiting, done: _Batch) -> None:
        """One envelope applied and journaled (not yet on disk); its answer is set once the batch is."""
        table = self.table
        if waiting.follows is not None and waiting.follows.refusal is not None:
            waiting.refusal = waiting.follows.refusal  # (an earlier envelope of its call was refused: not applied)
            done.after.append((waiting, waiting.refusal))
            return
        if table.game is None:
            waiting.refusal = TableRefusal(Code.PRECONDITION, Reason.GAME_NOT_STARTED, "the game has not started yet")
            done.after.append((waiting, waiting.refusal))
            return
        raw, seat = waiting.raw, waiting.seat
        digest = envelope_hash(raw)
        replay = digest in table.game.seat_chains[seat].accepted
        try:
            posted = table.game.submit(seat, raw)
        except ProtocolError as err:
            waiting.refusal = TableRefusal(err.code, err.reason, err.message,
                                           table.game.refusal_receipt(raw, err.reason))
            done.after.append((waiting, waiting.refusal))
            return
        if replay:
            # Already accepted (a blind retry): the original answer, once known; journaling it again would let a
            # client grow the journal, one fsync per retry, without end.
            done.after.append((waiting, digest))
            return
        if table.journal is not None:
            table.journal.submit(seat, raw)  # written; on disk (`Table.publish`) before anything it caused leaves
        table.clocks.answered(seat)
        # The host envelope that carries this one: a Relay, an ActionAccepted, or the CommitSet that the
        # last seed commitment completes (an earlier commitment waits for it: 0).
        chain_seq = posted[0].seq if posted and posted[0].type in ("Relay", "ActionAccepted", "KeySet") else 0
        done.posted += posted
        done.applied = True
        done.accepted.append((waiting, chain_seq, digest))

    async def _publish(self, done: _Batch) -> None:
        """The batch as one change, after one fsync (`Table.publish`); then its answers."""
        table = self.table
        if done.applied:
            # Published even when it posted nothing (a seed commitment that does not complete the set): the seats'
            # views (DealStatus.waiting_for) must show that this seat has answered, as they do for a bot's.
            await table.publish(done.posted)
        for waiting, chain_seq, digest in done.accepted:
            self._answers[digest] = (len(table.log), chain_seq, digest)
            waiting.answer.set_result(self._answers[digest])
        for waiting, outcome in done.after:
            if isinstance(outcome, bytes):
                waiting.answer.set_result(self._answers.get(outcome, (len(table.log), 0, outcome)))
            else:
                waiting.answer.set_exception(outcome)


async def _answered(answer: asyncio.Future[Answer]) -> None:
    """Until `answer` is set, whatever it holds; the caller's cancellation does not cancel it (the table's task sets
    it). As `asyncio.wait` of one future, at a smaller cost at every SubmitEnvelope: no sets, no tasks, no timeout."""
    if not answer.done():
        with contextlib.suppress(Exception):  # (a refusal: read by `_answers`; a CancelledError is the caller's)
            await asyncio.shield(answer)


def _answers(call: list[_Waiting]) -> list[Answer]:
    """Every envelope's answer of one call, or the first refusal (with which one, and the answers before it)."""
    answers: list[Answer] = []
    for index, waiting in enumerate(call):
        err = waiting.answer.exception()
        if err is None:
            answers.append(waiting.answer.result())
        elif len(call) > 1 and isinstance(err, TableRefusal):
            raise BatchRefusal(err, index, answers)
        else:
            raise err
    return answers
