"""What a seat recorded of a game before its client restarted: kept until the host's chain is shown to hold it.

A seat's record is its evidence against the host (two host envelopes signed at one chain seq are a proven dispute;
a refusal receipt, a claim). A restarted `watten-join` writes the record of the game it rejoins anew, under the same
name (the game's fingerprint and the seat), from the host's catch-up. It used to truncate the old file first: a host
that showed the seat one history before the restart and another after it left no trace, and the seat played on in
the rewritten one. Now the old file is moved aside (`NAME.before-restart.wrec`, `NAME.before-restart-2.wrec`, ...:
never over an earlier one) before the new one is opened, and every chain entry the seat receives is compared with it:

- an entry whose hash differs from the one recorded at that seq is a fork: the seat stops (`fork`), and the file
  aside stays, the host's other envelope in it (a record: `watten-verify` of the records folder compares the two and
  finds the host's two signatures at one seq);
- once the chain holds every entry recorded before, the old file's own evidence (refusal receipts, the seat's
  notes) goes into the new record, and the file aside is removed: nothing lost, nothing left behind.

A file aside that does not read as a record (cut off in a write) is kept and compares nothing.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from watten_net.deal.envelope import envelope_hash
from watten_net.deal.seat import RecordEntry, SeatGame
from watten_net.printable import visible
from watten_net.record import KIND_HOST, KIND_NOTE, KIND_REFUSED, KIND_WITHHELD, RecordError, read_record
from watten_net.refusal import Reason
from watten_net.v1 import watten_pb2 as pb

log = logging.getLogger(__name__)

ASIDE = ".before-restart"


@dataclass
class EarlierRecord:
    """The chain (entry hashes by seq) and the evidence of a record this seat wrote before a restart, set aside."""

    path: Path
    hashes: list[bytes] = field(default_factory=list)
    evidence: list[RecordEntry] = field(default_factory=list)  # its refusal receipts and notes
    checked: int = 0  # chain seqs compared so far

    @classmethod
    def set_aside(cls, record: Path) -> EarlierRecord | None:
        """Move `record` aside if it exists (a restart), and read it; None when there is none."""
        if not record.exists():
            return None
        aside = record.with_name(f"{record.stem}{ASIDE}{record.suffix}")
        n = 1
        while aside.exists():  # (a second restart before the first was settled: that evidence stays too)
            n += 1
            aside = record.with_name(f"{record.stem}{ASIDE}-{n}{record.suffix}")
        os.replace(record, aside)
        earlier = cls(aside)
        try:
            _, entries = read_record(aside)
        except (OSError, RecordError) as err:
            log.warning("kept %s aside, unread: %s", visible(str(aside)), visible(str(err)))
            return None
        for entry in entries:
            if entry.kind == KIND_HOST:
                earlier.hashes.append(envelope_hash(entry.data))
            elif entry.kind == KIND_WITHHELD:
                earlier.hashes.append(bytes(pb.Withheld.FromString(entry.data).envelope_hash))
            elif entry.kind in (KIND_REFUSED, KIND_NOTE):
                earlier.evidence.append(RecordEntry(entry.kind, entry.data))
        return earlier

    def check(self, game: SeatGame) -> bool:
        """Compare the chain `game` holds with the one recorded before; True once all of it is matched (the evidence
        then joins `game.record` and the file aside is gone). Raises HostBrokeProtocol (`fork`) at a difference."""
        upto = min(len(game.chain_hashes), len(self.hashes))
        for seq in range(self.checked + 1, upto + 1):
            if game.chain_hashes[seq - 1] != self.hashes[seq - 1]:
                raise game.fault(Reason.FORK, f"the host shows this seat another envelope at chain seq {seq} than "
                                 f"it showed before the client restarted (kept: {self.path.name})")
        self.checked = upto
        if self.checked < len(self.hashes):
            return False
        game.record.extend(self.evidence)
        self.path.unlink(missing_ok=True)
        return True

