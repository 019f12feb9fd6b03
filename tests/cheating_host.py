"""`watten-host` changed at run time to cheat an honest seat (`python -m tests.cheating_host`), as a hostile host's
operator could: a test double of the real host, never part of the product.

WATTEN_CHEAT says how (the victim is seat WATTEN_CHEAT_SEAT, default 1):
- `away`: from the second hand on, whenever the victim has to move while connected, the host calls it away (posts
  the StandIn an honest host posts for a silent seat) so that a stand-in plays for it; the victim comes back by
  acting, and is called away again at its next move.
- `refuse`: the host refuses the victim's DeckSealed signature of the second hand as `wrong-hash` (the real host's
  code signs the refusal's receipt), and then calls the seat away.
- `skip-checkpoint`: with the next deal sealed with the checkpoint (GameHeader.next_deal), the host takes the victim's
  first CheckpointSignature without relaying it and counts it: the next hand's cut comes before the checkpoint is
  complete in the chain every seat holds.
- `away-owing`: once, from the second hand on, right after posting a Checkpoint (with the next deal's HandOpen
  and DeckSealed when they follow it at once), in the same change, the host calls the victim away: the victim owes
  that checkpoint's (and seal's) signatures and had no time to send them; the host completes them without it. The
  victim comes back by acting.
- `odd-header`: the header asks for an order of the next deal no seat knows (GameHeader.next_deal "whenever"), which
  watten-verify fails: an honest seat signs no such header.
- `other-rules`: every TableInfo shows the table's rules, but the header (and the host's game) plays to a target 4
  points higher: the seats would sign rules nobody was shown.
- `short-step-timeout`: with `--step-timeout 0.05` the header (and every TableInfo) says a step timeout of 50 ms, so
  that the host could call any seat away on every deal step before its client can answer: an honest seat signs no
  such header.
"""

from __future__ import annotations

import os
import time
from typing import Any

from host.botworker import BotWorker
from host.main import main
from watten_net.deal.host_game import HostGame
from watten_net.deal.level1_seat import VerifiedSeat
from watten_net.deal.protocol import ProtocolError, parse_envelope
from watten_net.deal.seat import SeatGame
from watten_net.engine import Rules

CHEAT = os.environ.get("WATTEN_CHEAT", "")
VICTIM = int(os.environ.get("WATTEN_CHEAT_SEAT", "1"))


STARTED = time.monotonic()
AFTER = 3.0  # seconds after the host started: the victim has been connected a while (a claim needs that)


def _second_hand(game: HostGame) -> bool:
    engine = game.engine  # (Level 1's Match, or a trustless game's PublicMatch)
    return engine is not None and engine.hand_number >= 1 and time.monotonic() - STARTED > AFTER


def cheat_away() -> None:
    honest_step = BotWorker.step

    async def bot_step(self: Any) -> str:
        game = self.table.game
        if (game is not None and not game.finished and _second_hand(game) and VICTIM not in game.absent
                and game.phase == "play" and VICTIM in game.waiting_for()[1]):
            await self.table.stand_in_locked(VICTIM, True)
            return "move"
        return str(await honest_step(self))

    BotWorker.step = bot_step  # type: ignore[method-assign]


def cheat_refuse() -> None:
    """Refuse the victim's DeckSealed signature of the second hand against the very head it answers (posting
    nothing first, so the receipt names that head), then call the seat away at the host's next step."""
    honest_submit = HostGame.submit
    honest_step = BotWorker.step
    refused: list[bool] = []

    def submit(self: HostGame, seat: int, raw: bytes) -> Any:
        if not refused and seat == VICTIM and _second_hand(self) and parse_envelope(raw, host=False).type == \
                "DeckSealedSignature":
            refused.append(True)
            raise ProtocolError("precondition", "wrong-hash", "the signature is not over the current DeckSealed")
        return honest_submit(self, seat, raw)

    async def bot_step(self: Any) -> str:
        game = self.table.game
        if refused and len(refused) == 1 and game is not None and VICTIM not in game.absent:
            refused.append(True)
            await self.table.stand_in_locked(VICTIM, True)
            return "protocol"
        return str(await honest_step(self))

    HostGame.submit = submit  # type: ignore[method-assign]
    BotWorker.step = bot_step  # type: ignore[method-assign]


def cheat_skip_checkpoint() -> None:
    honest = HostGame.HANDLERS["CheckpointSignature"]

    def unrelayed(self: HostGame, seat: int, signed: Any) -> Any:
        if seat == VICTIM and self.deal_waits_for_checkpoint:
            self.checkpoint_signed.add(seat)
            return self._checkpoint_done()
        return honest(self, seat, signed)

    HostGame.HANDLERS["CheckpointSignature"] = unrelayed
    # (the cheating host's own bots look away: their SeatGames run in this process)
    VerifiedSeat.check_checkpoint_complete = lambda self, what: None  # type: ignore[method-assign]


def cheat_away_owing() -> None:
    honest_submit = HostGame.submit
    honest_act_for = HostGame.act_for
    done: list[bool] = []

    def called_away_at_once(game: HostGame, posted: list[Any]) -> list[Any]:
        if not done and _second_hand(game) and VICTIM not in game.absent and any(
                p.type == "Checkpoint" for p in posted):
            done.append(True)
            return posted + game.stand_in(VICTIM, True)  # (published with the checkpoint: one change)
        return posted

    def submit(self: HostGame, seat: int, raw: bytes) -> Any:
        return called_away_at_once(self, honest_submit(self, seat, raw))

    def act_for(self: HostGame, seat: int, action: str | None = None) -> Any:
        return called_away_at_once(self, honest_act_for(self, seat, action))

    HostGame.submit = submit  # type: ignore[method-assign]
    HostGame.act_for = act_for  # type: ignore[method-assign]


def cheat_odd_header() -> None:
    honest_start = HostGame.start

    def start(self: HostGame) -> Any:
        self.next_deal = "whenever"
        return honest_start(self)

    HostGame.start = start  # type: ignore[method-assign]
    # (the cheating host's own bots look away: their SeatGames run in this process)
    SeatGame._header_rules = lambda self, h: Rules.from_json(h.rules_json)  # type: ignore[method-assign]


def cheat_other_rules() -> None:
    honest_start = HostGame.start

    def start(self: HostGame) -> Any:
        self.rules = self.rules.with_flag("target", str(self.rules.target + 4))
        return honest_start(self)

    HostGame.start = start  # type: ignore[method-assign]


def cheat_short_step_timeout() -> None:
    """Run with `--step-timeout 0.05`: the real host's start-up check looks away, and so does the floor of its own
    bots' seats; the header it writes (and every TableInfo) then says 50 ms."""
    import host.settings
    import watten_net.deal.seat

    host.settings.hostable_step_timeout_problem = lambda seconds: None  # (host/main.py imports it when it starts)
    watten_net.deal.seat.step_timeout_problem = lambda seconds, floor: None  # (the host's bots run in this process)


if __name__ == "__main__":
    {"away": cheat_away, "refuse": cheat_refuse, "skip-checkpoint": cheat_skip_checkpoint,
     "away-owing": cheat_away_owing, "odd-header": cheat_odd_header, "other-rules": cheat_other_rules,
     "short-step-timeout": cheat_short_step_timeout}[CHEAT]()
    raise SystemExit(main())
