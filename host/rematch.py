"""Another match at the same table: everyone still seated agrees, and the table plays again.

After a match (the table's phase MATCH_OVER or ABANDONED) a person's `Ready(true)` means "another match"
(docs/protocol.md, "Play again"); the host's bots always agree. Once every seat is held and every person has
agreed, the same table (same id, same seats, same tokens) starts a new match: a new game id (a fresh host nonce),
its own records and journal. A person who leaves between matches frees the seat and the table goes back to its lobby,
where the host's person decides who takes it (a bot, or a newcomer's Join); there the table starts again by itself
once it is full and every person has agreed (or when the host's person starts it).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from watten_net.deal.series import Series, next_series, series_total

from .changelog import LOBBY_KEPT
from .journal import Journal

if TYPE_CHECKING:
    from pathlib import Path

    from watten_net.deal.host_game import HostGame

    from .table import Table

log = logging.getLogger("watten.host")


class Rematch:
    """The matches of one `Table` after its first: who agreed, when the next one starts, what the old one leaves."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.matches = 0  # matches started at this table
        # Whether this table may play another match after the current one (a headless host's last match of
        # `--matches M` may not: the host ends after it). Set by the table's place (host/places.py).
        self.offered = True
        # What the next match's header says of the series (watten_net/deal/series.py): the previous game and the
        # Bummerl of this table's earlier matches, per scorer. Each match is its own signed game whose engine
        # counts from 0 (docs/protocol-decisions.md, "The first dealer of another match": each record verifies
        # alone), so the views add the running game's header's Bummerl to its sides: "Bummerl 0–1" after the first
        # match stays 0–1 in the next one. Once a side has the limit the next match begins a new series.
        self.next: Series = Series()

    def between_matches(self) -> bool:
        """The table's match is over (or abandoned) and the table is still served: "again" is what Ready means."""
        game = self.table.game
        return game is not None and game.finished and not self.table.released

    def agreed(self) -> bool:
        """Every seat is held, and every person at the table asked for another match (bots always agree)."""
        return all(o is not None and (o.bot or o.ready) for o in self.table.seats)

    def asked_again(self, seat: int) -> bool:
        """A person at `seat` asked for another match (their stream stays open after the end to follow into it)."""
        occupant = self.table.seats[seat] if 0 <= seat < len(self.table.seats) else None
        return self.between_matches() and occupant is not None and not occupant.bot and occupant.ready

    def waiting_for(self) -> list[int]:
        """The persons' seats that have not asked for another match yet."""
        return [s for s, o in enumerate(self.table.seats) if o is not None and not o.bot and not o.ready]

    def series_bummerl(self, match_marks: tuple[int, ...]) -> tuple[int, ...]:
        """The Bummerl of the series so far: those its header carries into the match under way, and the match's."""
        game = self.table.game
        return series_total(game.series.carried if game is not None else (), match_marks)

    def upcoming(self) -> Series:
        """What the next match's header says of the series (journaled: a restarted host says the same)."""
        game = self.table.game
        return self.after(game) if game is not None and game.finished else self.next

    def after(self, game: HostGame) -> Series:
        """After the match `game`: the next header names it and carries its Bummerl with the series' (a series one
        side lost ends: the next starts at 0). The seats that played it compute the same (`next_series`)."""
        match = game.public if game.trustless else game.match
        marks = tuple(match.bummerl) if match is not None else ()
        return next_series(game.game_id, game.series, marks, self.table.rules.bummerl_limit)

    async def maybe_begin(self) -> None:
        """After a change between matches or in the lobby after a match: start the next match once all agree."""
        table = self.table
        async with table.lock:
            if not self.matches or table.released or not self.agreed():
                return
            if table.game is not None and not table.game.finished:
                return
            self.drop_finished()
            log.info("table %s: everyone agreed, match %d begins", table.table_id, self.matches + 1)
            await table.start_locked()

    def drop_finished(self) -> None:
        """The finished match leaves memory (its record and journal are closed on disk): the table is back in its
        lobby, with the same seats. The log keeps its numbering; its oldest part is dropped as a lobby's is."""
        table = self.table
        if table.game is None:
            return
        self.next = self.after(table.game)
        table.changes.close_records()
        table.bot_worker.stop()
        table.clocks.stop()
        table.game = None
        table.bot_worker.forget_games()
        table.submissions.forget()
        table.finished.clear()
        table.end_seq = 0
        table.saw_end.clear()
        table.log.keep_last(LOBBY_KEPT)

    # ------------------------------------------------------------------ a crash between matches
    def lobby_journal(self) -> Path | None:
        """Where the table's seats are kept between matches (None: no crash recovery), beside the matches' journals.
        A restart finds it as it finds an unfinished game's (host/resume.py) and opens the same table in its lobby:
        same id, seats, tokens and bots, each person's "again" as it was."""
        table = self.table
        return table.journal_path.with_name(f"{table.table_id}-lobby.wjournal") if table.journal_path else None

    def save_lobby(self) -> None:
        """After a match and after every change of the lobby that follows: the seats as they are now, replaced
        whole (written aside, then renamed: a crash leaves the old or the new one, never half of one)."""
        from .resume import lobby_meta

        table, path = self.table, self.lobby_journal()
        if path is None or not self.matches or not self.offered or table.released:
            return
        if table.game is not None and not table.game.finished:
            return
        aside = path.with_suffix(".tmp")
        Journal(aside, lobby_meta(table)).close()
        aside.replace(path)

    def drop_lobby(self) -> None:
        """The next match has its own journal (or the table is gone): the lobby's is no longer needed."""
        path = self.lobby_journal()
        if path is not None:
            path.unlink(missing_ok=True)

    def journal_path(self, first: Path) -> Path:
        """The journal file of the match about to start: the table's own for its first match, then one per match
        beside it (a finished match's journal is moved aside as `.done`, and must not be written over)."""
        return first if self.matches <= 1 else first.with_name(f"{self.table.table_id}-match{self.matches}.wjournal")
