"""A table rebuilt from its journal after a crash (same seats, same draws, same chain), and the journal's metadata
that makes that possible."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.deal.host_game import HostGame, Posted
from watten_net.deal.protocol import ProtocolError, parse_envelope
from watten_net.deal.seat import SeatGame
from watten_net.deal.series import Series
from watten_net.engine import Rules
from watten_net.printable import visible

from .journal import ABANDON, BOT_ACTION, DRAW, FORFEIT_AWAY, NONCE, STAND_IN, SUBMIT, TOKEN, Journal, read_journal
from .lobby import Occupant
from .settings import TableSettings, unheld_step_timeout

if TYPE_CHECKING:
    from .table import Table

log = logging.getLogger("watten.host")


def _seat_entries(table: Table) -> list[dict[str, Any] | None]:
    """Each seat as a journal keeps it (None: free)."""
    seats: list[dict[str, Any] | None] = []
    for s, occupant in enumerate(table.seats):
        if occupant is None:
            seats.append(None)
            continue
        entry: dict[str, Any] = {"name": occupant.name, "public_key": occupant.public_key.hex(),
                                 "join_nonce": occupant.join_nonce.hex(), "token_sha256": occupant.token_digest.hex(),
                                 "bot": occupant.bot, "ready": occupant.ready}
        if occupant.bot:
            bot = table.bots[s]
            entry["bot_key"] = bot.key.private_bytes_raw().hex()
            entry["level"] = bot.policy.level
        seats.append(entry)
    return seats


def _table_fields(table: Table) -> dict[str, Any]:
    settings = table.settings
    return {
        "rules": settings.rules.to_json(), "preset": settings.preset, "reveal": settings.reveal,
        "deal": settings.deal, "next_deal": settings.next_deal, "tls": settings.tls_fingerprint.hex(),
        "host_name": settings.host_name,
        "table_id": table.table_id, "port": table.port, "seats": _seat_entries(table),
        "record_dir": str(settings.record_dir) if settings.record_dir else "",
        "host_run": table.host_run, "index": table.index, "own_person_key": table.own_person_key.hex(),
        # The nonces of the lobby's joins (those of the game are NONCE entries): a resumed table refuses them.
        "used_nonces": sorted(n.hex() for n in table.lobby.used_nonces),
        # Which match of the table this is (host/rematch.py): a resumed table plays again as the one that crashed.
        "match": table.rematch.matches,
        # What this match's header (or the next one's, between matches) says of the series: same header after a crash.
        "previous_game_id": table.rematch.upcoming().previous_game_id.hex(),
        "carried": list(table.rematch.upcoming().carried),
        # The step timeout the table's headers name (GameHeader.step_timeout_ms, which its seats signed): a restart
        # keeps it, whatever --step-timeout it was given (the header again, byte for byte; the clock agreed to)
        "step_timeout": settings.step_timeout,
    }


def journal_meta(table: Table, host_nonce: bytes) -> dict[str, Any]:
    """What a journal holds besides its entries: everything needed to build the table again."""
    assert all(occupant is not None for occupant in table.seats)
    return {**_table_fields(table), "host_nonce": host_nonce.hex()}


def lobby_meta(table: Table) -> dict[str, Any]:
    """Between two matches (host/rematch.py): the table without a game, its seats (some may be free) and who asked
    for another match; the host nonce is drawn afresh at the next start."""
    return {**_table_fields(table), "between_matches": True}


def _settings_of(meta: dict[str, Any], host_key: Ed25519PrivateKey, bot_delay: float, grace: float,
                 step_timeout: float) -> TableSettings:
    return TableSettings(Rules.from_json(meta["rules"]), preset=meta["preset"], reveal=meta["reveal"],
                         deal=meta.get("deal", "verified"), host_key=host_key,
                         next_deal=meta.get("next_deal", ""),  # (journals of older hosts: the order they played)
                         tls_fingerprint=bytes.fromhex(meta["tls"]), host_name=meta["host_name"],
                         bot_delay=bot_delay, grace=grace, step_timeout=_journaled_step_timeout(meta, step_timeout),
                         record_dir=Path(meta["record_dir"]) if meta["record_dir"] else None)


def _journaled_step_timeout(meta: dict[str, Any], given: float) -> float:
    """The step timeout of the journaled table, not the restart's `given` one: its header's (GameHeader.step_timeout_ms,
    signed by its seats). A journal of an older host has none: its header had no step timeout either (0, no limit),
    so a game in progress goes on without one; between matches the next match takes the restart's."""
    older = given if meta.get("between_matches") else 0.0
    kept = meta.get("step_timeout", older)
    # (a journal edited by hand: said before anything is built, not at the next match's start. Only what a header can
    # hold: the floor is each seat's own to judge, and tests' seats sign less)
    if isinstance(kept, bool) or not isinstance(kept, int | float) or unheld_step_timeout(kept) is not None:
        raise ValueError(f"the journal's step timeout {kept!r} is no number of seconds a header can hold")
    if kept != given:
        log.warning("the resumed table keeps the step timeout its header names (%g s; 0: none), not "
                    "--step-timeout %g", kept, given)
    return float(kept)


def _seat_the_journaled(table: Table, meta: dict[str, Any]) -> None:
    """The seats, the bots' keys and the place of the table, as the journal's metadata has them."""
    table.table_id = meta["table_id"]
    table.host_run = str(meta.get("host_run", ""))  # journals of older hosts have neither
    table.index = int(meta.get("index", 0))
    table.own_person_key = bytes.fromhex(str(meta.get("own_person_key", "")))
    table.port = int(meta["port"])
    for s, entry in enumerate(meta["seats"]):
        if entry is None:  # (a free seat: only between matches)
            continue
        ready = bool(entry.get("ready", True)) if meta.get("between_matches") else True
        table.seats[s] = Occupant(entry["name"], bytes.fromhex(entry["public_key"]),
                                  bytes.fromhex(entry["join_nonce"]), bytes.fromhex(entry["token_sha256"]),
                                  bot=entry["bot"], online=entry["bot"], ready=ready)
        if entry["bot"]:
            key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(entry["bot_key"]))
            table.bot_worker.add(s, key, entry.get("level", "heuristic"))
    # Every nonce the table accepted before the start (a journal of an older host: the seats' join nonces).
    used = table.lobby.used_nonces
    used.update(bytes.fromhex(n) for n in meta.get("used_nonces", []))
    used.update(occupant.join_nonce for occupant in table.seats if occupant is not None and not occupant.bot)


def rebuild_bot_envelope(bot_game: SeatGame, raw: bytes) -> None:
    """Replaying the journal: build a host bot's journaled envelope again the way `BotWorker.step` built it, so that
    the bot's SeatGame moves on exactly as it did before the crash. An automatic one is the head of its outbox, signed
    by `next_automatic` on the bot's chain head of that moment (steps queued together, such as the shares of a deal's
    ShareRequests, are each signed again after the one before is taken: left as queued, the copy in the outbox no
    longer matches the journal's and is sent again after the resume, refused, and the bot worker stops). A game move
    (the bot's policy chose it) comes from `SeatGame.action`, which in a trustless game draws (the proof of a played
    card's opening): skipped, every later draw of the bot would go to another step. A rebuilt envelope differs from
    the journal's only if the replay went astray: the log says so."""
    signed = parse_envelope(raw, host=False)
    queued = bot_game.outbox[0] if bot_game.outbox else None
    try:
        if queued is not None and parse_envelope(queued, host=False).payload == signed.payload:
            rebuilt = bot_game.next_automatic()
        elif signed.type == "ActionRequest":
            rebuilt = bot_game.action(str(signed.payload.action))
        else:
            rebuilt = None
    except ProtocolError as err:
        log.warning("seat %d's %s cannot be built again from the journal: %s", bot_game.seat, signed.type,
                    err.message)
        return
    if rebuilt != raw:
        log.warning("seat %d's %s built again from the journal differs from the journaled one", bot_game.seat,
                    signed.type)


def _replay_entry(table: Table, game: HostGame, kind: int, seat: int, raw: bytes) -> list[Posted]:
    """One journal entry applied again: what it posted (the lobby's nonces and tokens post nothing)."""
    if kind == NONCE:
        table.lobby.used_nonces.add(raw)
        return []
    if kind == TOKEN:
        reclaimed = table.seats[seat]
        if reclaimed is not None:
            reclaimed.token_digest = raw
        return []
    if kind == STAND_IN:
        return game.stand_in(seat, bool(raw[0]))
    if kind == BOT_ACTION:
        return game.act_for(seat, raw.decode())
    if kind == FORFEIT_AWAY:
        return game.forfeit_away()
    if kind == ABANDON:
        return game.abandon(raw.decode())
    if kind != SUBMIT:
        return []
    bot = table.bots.get(seat)
    if bot is not None and bot.game is not None:
        rebuild_bot_envelope(bot.game, raw)
    posted = game.submit(seat, raw)
    if bot is not None and bot.game is not None:
        bot.game.accepted(raw)
    return posted


async def resume_table(path: Path, host_key: Ed25519PrivateKey, *, bot_delay: float, grace: float,
                       step_timeout: float) -> Table:
    """Rebuild the table of an unfinished game from its journal: same seats, same draws, same chain."""
    table, everything = rebuild_table(path, host_key, bot_delay=bot_delay, grace=grace, step_timeout=step_timeout)
    await go_live(table, everything)
    return table


def rebuild_table(path: Path, host_key: Ed25519PrivateKey, *, bot_delay: float, grace: float,
                  step_timeout: float) -> tuple[Table, list[Posted]]:
    """The table replayed from its journal, not yet live (no record written, no bot or clock running: nothing happens
    at it until `go_live`, so a host may first ask its person whether to resume it at all), and what it posted."""
    from .table import Table

    meta, entries = read_journal(path)
    table = Table(_settings_of(meta, host_key, bot_delay, grace, step_timeout))
    _seat_the_journaled(table, meta)
    table.journal_path = path
    table.rematch.matches = int(meta.get("match", 1))  # (journals of older hosts: their table's first match)
    table.rematch.next = Series(bytes.fromhex(meta.get("previous_game_id", "")),
                                tuple(int(b) for b in meta.get("carried", ())))
    if meta.get("between_matches"):  # the host stopped between two matches: the table, in its lobby
        log.info("table %s resumed between matches %d and %d", table.table_id, table.rematch.matches,
                 table.rematch.matches + 1)
        return table, []
    replay: dict[int, list[bytes]] = {}
    for kind, who, data in entries:
        if kind == DRAW:
            replay.setdefault(who, []).append(data)
    # Open before the replay: a party that runs out of journaled draws in it (the crash came after the draws of
    # a step were journaled, or before it drew at all) draws fresh bytes, and those must be journaled as well,
    # or the next resume would build another key share, shuffle or proof than the one that left the host.
    table.journal = Journal.reopen(path)
    game = table.make_game(bytes.fromhex(meta["host_nonce"]), replay)
    everything = list(game.start())
    table.bot_worker.feed(everything)
    for kind, seat, raw in entries:  # (the bots fed after each entry: a bot's next envelope is rebuilt from them)
        posted = _replay_entry(table, game, kind, seat, raw)
        table.bot_worker.feed(posted)
        everything += posted
    game.drain_events()
    return table, everything


async def go_live(table: Table, everything: list[Posted]) -> None:
    """A rebuilt table (`rebuild_table`) plays on: its record reopened, its bots and clocks running."""
    game = table.game
    if game is None:  # (between matches: the lobby needs nothing started)
        return
    table.changes.open_record()
    if table.journal is not None:  # (draws the replay made afresh: on disk before anything of the table leaves)
        await table.journal.sync()
    item = table.changes.new_item()
    item.posted = everything
    await table.changes.append(item)
    log.info("resumed game %s at chain envelope %d", game.game_id.hex()[:12], len(game.chain))
    table.bot_worker.start()
    for s, taken in enumerate(table.seats):  # every person is offline until their client reconnects
        if taken is not None and not taken.bot:
            table.clocks.start_grace(s)
    table.clocks.watch_steps()  # (a trustless game that was waiting for a seat away goes on waiting, on a clock)


# ---------------------------------------------------------------- what a restart found (issue 13 item 7)
# The words of what a restart found, in English. host/main.py (the composition root, which may import the client)
# passes the client's words in the host person's --lang instead (client/i18n.py, the `resume_*` keys and
# `bot_mark`), as it does for the lobby (host/addresses.py LOBBY_WORDS): this module imports nothing of the client.
RESUME_WORDS: dict[str, str] = {
    "resume_left_off": "left off {when} ({ago} min ago), match {match} at table {table}",
    "resume_rules": "rules:   {rules}, deal {deal}", "resume_preset": "{preset} for {players} players",
    "resume_players": "players: {people}", "resume_score": "score:   {score}", "resume_free": "{seat} free",
    "resume_between": "between matches: match {match} is over, the next has not begun",
    "resume_no_hand": "no hand dealt yet", "resume_in_hand": "{scores} in hand {hand}",
    "resume_abandoned": ", abandoned (its end waits for the players' signatures)",
    "resume_and": ", ", "bot_mark": " (bot)",
}
BOT_SUFFIX = " (bot)"  # how the host names its bots (host/lobby.py): the roster's name, in English


def found_lines(table: Table, path: Path, now: float | None = None,
                words: Mapping[str, str] = RESUME_WORDS) -> list[str]:
    """What the host found, in words for its person: the rules, the players, the score and when it was left off."""
    settings = table.settings
    try:
        written = path.stat().st_mtime
    except OSError:
        written = now or time.time()
    ago = max(0, int((now or time.time()) - written) // 60)
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(written))
    changed = ", ".join(f"{k}={v}" for k, v in sorted(settings.rules.differences(
        Rules.preset(settings.preset, settings.players)).items())) if settings.preset in Rules.PRESET_NAMES else ""
    rules = words["resume_preset"].format(preset=visible(settings.preset), players=settings.players) + (
        f" ({changed})" if changed else "")
    people = words["resume_and"].join(f"{s} {_named(o, words)}" if o is not None else
                                      words["resume_free"].format(seat=s) for s, o in enumerate(table.seats))
    return ["  " + words["resume_left_off"].format(when=when, ago=ago, match=table.rematch.matches,
                                                   table=table.table_id),
            "  " + words["resume_rules"].format(rules=rules, deal=settings.deal),
            "  " + words["resume_players"].format(people=people),
            "  " + words["resume_score"].format(score=score_line(table, words))]


def _named(occupant: Occupant, words: Mapping[str, str]) -> str:
    """A seat's name, a bot's marked in the person's language ('Vroni (Bot)', 'Vroni（机器人）'): the console said an
    English " (bot)" in every language. A person's name is never touched, whatever it ends with."""
    if not occupant.bot:
        return visible(occupant.name)
    name = occupant.name[: -len(BOT_SUFFIX)] if occupant.name.endswith(BOT_SUFFIX) else occupant.name
    return visible(name) + words["bot_mark"]


def score_line(table: Table, words: Mapping[str, str] = RESUME_WORDS) -> str:
    game = table.game
    engine = game.engine if game is not None else None
    if game is None:
        return words["resume_between"].format(match=table.rematch.matches)
    if engine is None:
        return words["resume_no_hand"]
    scores = " : ".join(str(points) for points in engine.scores)
    state = words["resume_abandoned"] if game.end_reason else ""
    return words["resume_in_hand"].format(scores=scores, hand=engine.hand_number + 1) + state


def overridden(table: Table, wanted: TableSettings, bots: int) -> list[str]:
    """The options of this start that the resumed game does not follow (it keeps its own), in words."""
    settings, out = table.settings, []
    if wanted.players != settings.players:
        out.append(f"--players {wanted.players} (it has {settings.players})")
    if wanted.preset != settings.preset:
        out.append(f"--rules {visible(wanted.preset)} (it plays {visible(settings.preset)})")
    elif wanted.players == settings.players and wanted.rules != settings.rules:
        flags = ", ".join(f"{k}={v}" for k, v in sorted(wanted.rules.differences(settings.rules).items()))
        out.append(f"--set {flags} (it keeps its own rules)")
    for name in ("deal", "reveal"):
        if getattr(wanted, name) != getattr(settings, name):
            out.append(f"--set {name}={getattr(wanted, name)} (it has {getattr(settings, name)})")
    seated_bots = sum(1 for o in table.seats if o is not None and o.bot)
    if bots and bots != seated_bots:
        out.append(f"--bots {bots} (it has {seated_bots})")
    return out
