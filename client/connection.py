"""The Python client library: connect (TLS pinned on first use), join, follow the stream, act.

The terminal client, remote bots (`watten-join --bot`) and the tests all use `Connection`. It owns the
seat's `SeatGame`, so every host envelope is checked on arrival and the seat's own record is written
as the game goes; protocol steps (signatures, seed commitment and reveal) are answered by themselves.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.cardwords import record_name
from watten_net.deal.identity import INSECURE as INSECURE_PROOF
from watten_net.deal.identity import join_proof, leave_proof, new_nonce, public_key_bytes, require_proof_fingerprint
from watten_net.deal.own_hand import complete_seat_view
from watten_net.deal.protocol import PROTOCOL_VERSION, STEP_TIMEOUT_FLOOR, ProtocolError
from watten_net.deal.seat import SeatGame
from watten_net.deal.series import Series
from watten_net.deal.steps import DealStep
from watten_net.paths import ensure_private_dir, open_private
from watten_net.printable import visible
from watten_net.record import RecordWriter
from watten_net.refusal import HostBrokeProtocol as HostBrokeProtocol  # (the client shows it: client/app.py)
from watten_net.refusal import Reason
from watten_net.v1 import watten_pb2 as pb
from watten_net.v1 import watten_pb2_grpc as pb_grpc

from . import pinning
from .away_claims import CONNECTED_FOR, OwedClock
from .earlier_record import EarlierRecord
from .errors import refusal_from_error
from .requests import Refused as Refused  # (the client's callers import it from here)
from .requests import TableCalls
from .tls import proof_fingerprint, secure_channel

log = logging.getLogger("watten.client")
CHANNEL_OPTIONS = [
    ("grpc.max_receive_message_length", 16 << 20),
    ("grpc.keepalive_time_ms", 20_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    # gRPC's own pause between connection attempts grows to 120 s by default (1 s, x1.6 each, with jitter): a host
    # back after half a minute was then found only 26-66 s later, whatever the client's own retries asked for. On a
    # LAN a try costs nothing: at most 1 s between tries (the channel's and the stream's own, which add up), so a
    # restarted host has its players back within about 2 s.
    ("grpc.initial_reconnect_backoff_ms", 250),
    ("grpc.min_reconnect_backoff_ms", 250),
    ("grpc.max_reconnect_backoff_ms", 1_000),
]
RECONNECT_PACE = (0.2, 1.0)  # the stream's own retries: the first pause, doubled up to the last (seconds)
HOST_LEFT_PACE = 2.0  # after the host said it left: a quiet try every this many seconds
HOST_LEFT_WAIT = 3600.0  # ... for up to an hour (its person may take a while to start it again)


class Pace:
    """When `Connection.follow` tries again after losing the stream, and what the screen is told."""

    def __init__(self) -> None:
        self.delay = RECONNECT_PACE[0]
        self.lost_since: float | None = None
        self.host_left = False

    def lost(self, host_left: bool) -> str:
        """Another failed try: the state to show if it changed ("reconnecting", "host-left"), else ""."""
        before = "host-left" if self.host_left else ("reconnecting" if self.lost_since is not None else "")
        if self.lost_since is None:
            self.lost_since = time.monotonic()
        else:
            self.delay = min(self.delay * 2, RECONNECT_PACE[1])
        self.host_left = self.host_left or host_left
        if self.host_left:
            self.delay = HOST_LEFT_PACE
        now = "host-left" if self.host_left else "reconnecting"
        return now if now != before else ""

    def waited(self) -> float:
        return 0.0 if self.lost_since is None else time.monotonic() - self.lost_since

    def back(self) -> None:
        self.delay, self.lost_since, self.host_left = RECONNECT_PACE[0], None, False


def parse_address(text: str, default_port: int) -> tuple[str, int]:
    """`HOST`, `HOST:PORT`, `[IPv6]:PORT` -> (host, port)."""
    text = text.strip()
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        return host, int(rest[1:]) if rest.startswith(":") else default_port
    if text.count(":") == 1:
        host, _, port = text.partition(":")
        return host, int(port)
    return text, default_port


@dataclass
class TrustDecision:
    """A host's certificate fingerprint to trust or not (first contact: "new"; already known: "match")."""

    host_port: str
    fingerprint: str
    verdict: str  # "new" or "match"


async def open_channel(
    host: str,
    port: int,
    *,
    insecure: bool = False,
    fingerprint: str | None = None,
    confirm: Callable[[TrustDecision], bool] | None = None,
) -> grpc.aio.Channel:
    """A channel to the host. TLS: pinned to `fingerprint`, or trusted on first use (`confirm` asks the person)."""
    target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    if insecure:
        return grpc.aio.insecure_channel(target, options=CHANNEL_OPTIONS)
    pem = await asyncio.to_thread(pinning.fetch_certificate, host, port)
    if fingerprint:
        pinning.verify_pinned(pem, fingerprint)
    else:
        where = pinning.host_port(host, port)
        verdict = pinning.require_not_changed(where, pem)
        if verdict == "new":
            decision = TrustDecision(where, pinning.pem_fingerprint(pem), verdict)
            if confirm is None or not confirm(decision):
                raise PermissionError("the host's certificate was not confirmed; nothing was sent to it")
            pinning.remember(where, pem)
    return secure_channel(target, pem, CHANNEL_OPTIONS)


SUBMIT_TRIES = 3  # a submit that got no answer (deadline, dropped line) is sent again, at most this often
# Envelopes in one SubmitEnvelope (the host's bound is 8: host/limits.py MAX_ENVELOPES_PER_SUBMIT).
MAX_ENVELOPES_PER_CALL = 8
RETRYABLE = frozenset({grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE})

# Refusals of a queued protocol step that mean "that step is over", not "this client is wrong" (the match was
# abandoned, or a bot stood in for this seat while it was away and the step went on without it).
# (`wrong-hash`: a co-signature of a checkpoint the host has since replaced, e.g. by the closing one of an abandoned
# match; a seat that does not sign loses nothing, and its own copy of the chain still shows any real mismatch.)
STALE_STEP = frozenset({Reason.UNEXPECTED_MESSAGE, Reason.WRONG_HAND, Reason.WRONG_HASH})


def count_abandonment(path: Path, host_key: bytes, game_id: bytes) -> None:
    """Remember that the host with `host_key` abandoned game `game_id` after its KeySet (once per game)."""
    seen = _abandonments(path)
    games = seen.setdefault(host_key.hex(), [])
    if game_id.hex() in games:
        return
    games.append(game_id.hex())
    ensure_private_dir(path.parent)
    with open_private(path) as out:
        out.write(json.dumps(seen, sort_keys=True).encode())


def abandonments(path: Path, host_key: bytes) -> int:
    """How many matches the host with `host_key` abandoned after their KeySet, as this client saw."""
    return len(_abandonments(path).get(host_key.hex(), []))


def _abandonments(path: Path) -> dict[str, list[str]]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): [str(g) for g in v] for k, v in data.items() if isinstance(v, list)}


def owed_message(view: Any, seat: int) -> str | None:
    """The protocol message the host waits for from `seat`, according to its view (None: nothing)."""
    if view is None or seat not in view.deal.waiting_for:
        return None
    step = DealStep.from_wire(view.deal.step)
    return step.owed if step is not None else None


class Connection(TableCalls):
    """One seat's connection to a host."""

    def __init__(self, channel: grpc.aio.Channel, key: Ed25519PrivateKey | None = None,
                 record_dir: Path | None = None, tls_fingerprint: bytes | None = None,
                 step_timeout_floor: float = STEP_TIMEOUT_FLOOR) -> None:
        self.channel = channel
        # The certificate our join proofs bind (watten_net.deal.identity.join_proof_message): the raw SHA-256 of the
        # DER certificate this channel pinned and verified (`client.tls.secure_channel` remembers it), else
        # b"insecure" for plaintext. Proofs bound to it are refused by any host that does not serve that certificate.
        self.tls_fingerprint = require_proof_fingerprint(
            tls_fingerprint if tls_fingerprint is not None else proof_fingerprint(channel))
        self.stub = pb_grpc.WattenTableStub(channel)  # type: ignore[no-untyped-call]
        self.key = key or Ed25519PrivateKey.generate()
        self.record_dir = record_dir
        self.step_timeout_floor = step_timeout_floor  # the shortest header step timeout it signs (its own, no option)
        self.secrets_dir: Path | None = None  # where the seat's seeds are kept (set it to survive a restart)
        self.seat = -1
        self.token = ""
        self.join_nonce = b""
        self.table_id = ""  # the host's id of the table this seat is at (from the JoinResponse)
        self._host_keys: dict[str, bytes] = {}  # table id -> the host's public key (what a key proof binds)
        self.game: SeatGame | None = None
        self.view: Any = None
        self.record: RecordWriter | None = None
        self.record_path: Path | None = None
        self.earlier: EarlierRecord | None = None  # what this seat recorded before a restart, until matched
        self._written = 0
        self._send_lock = asyncio.Lock()
        self.last_seq = 0  # the last table event applied (to resume the stream after a drop)
        self.on_update: Callable[[Any], None] | None = None  # sees every raw TableUpdate (tests, diagnostics)
        # Told of every accepted envelope, one call of several too: (envelope kind "action" or "protocol", seconds
        # from the call to its reply). For measurements (`watten-join --latency-log`); None costs nothing.
        self.on_submitted: Callable[[str, float], None] | None = None
        # Disputes (docs/protocol.md): what this seat says the host did wrong, in words, for the screen at once.
        self.disputes: list[str] = []
        self.on_dispute: Callable[[str], None] | None = None
        self.owed_clock = OwedClock()  # when each step this seat owes reached it (a StandIn too early is disputed)
        self._left = False  # we said Leave: a StandIn for us is then no dispute
        # Where this client counts, per host key, the matches abandoned after the KeySet (None: it does not)
        self.abandon_log: Path | None = None
    async def join(self, name: str, seat: int | None = None, timeout: float = 5.0, table_id: str = "",
                   spectate: bool = False) -> int:
        """Take a seat at the table `table_id` (empty: where the host puts us), or a spectator's place (seat -1)."""
        # The proof that we hold our key is bound to one table of this host, so the Join names the table: the one
        # where our key already holds a seat (a restart: we take it back), else where GetTable says a Join goes.
        table_id = table_id or self.table_id  # (joining again on this connection: the same table)
        if not table_id and not spectate:
            mine = public_key_bytes(self.key)
            held = [t for t in await self.list_tables(timeout) if any(s.public_key == mine for s in t.seats)]
            table_id = str(held[0].table_id) if held else ""
        if table_id not in self._host_keys:
            info = await self.table(table_id, timeout)
            table_id = str(info.table_id)
            self._host_keys[table_id] = bytes(info.host_public_key)
        nonce = new_nonce()
        proof = join_proof(self.key, table_id, self._host_keys[table_id], self.tls_fingerprint, nonce)
        request = pb.JoinRequest(protocol_version=PROTOCOL_VERSION, name=name, public_key=public_key_bytes(self.key),
                                 join_nonce=nonce, key_proof=proof, table_id=table_id,
                                 tls_fingerprint=self.tls_fingerprint, spectate=spectate)
        if seat is not None:
            request.seat = seat
        response = await self._call(self.stub.Join, request, timeout)
        self.join_nonce, self.seat, self.token = nonce, int(response.seat), str(response.token)
        self.table_id = str(response.table.table_id)
        self.game = None if spectate else new_seat_game(self, terms=response.table)  # (a spectator keeps no record)
        return self.seat

    async def choose_seat(self, seat: int, timeout: float = 5.0) -> int:
        """Lobby: move to the free seat `seat`; an open stream then ends and `follow()` subscribes for the new seat."""
        response = await self._call(self.stub.ChooseSeat, pb.ChooseSeatRequest(token=self.token, seat=seat), timeout)
        if int(response.seat) != self.seat:
            self.seat = int(response.seat)
            self.game = new_seat_game(self)
        return self.seat

    async def leave(self, timeout: float = 3.0) -> None:
        """Leave the table: in the lobby the seat is freed; in a game a bot stands in until we come back. In a game
        the request is signed (`leave_proof`: table, host, game, seat, a fresh nonce; the game id is our chain's)."""
        self._left = True
        request = pb.LeaveRequest(token=self.token)
        game_id = self.game.game_id if self.game is not None else b""
        if not game_id and self.table_id:
            game_id = bytes((await self.table(self.table_id, timeout)).game_id)
        host_key = self._host_keys.get(self.table_id)
        if game_id and host_key is not None and self.seat >= 0:
            request.nonce = new_nonce()
            request.leave_proof = leave_proof(self.key, self.table_id, host_key, game_id, self.seat, request.nonce)
        await self._call(self.stub.Leave, request, timeout)

    # ------------------------------------------------------------------ the stream
    async def follow(self, on_state: Callable[[str], None] | None = None,
                     give_up_after: float = 120.0) -> AsyncIterator[Any]:
        """Like `updates()`, but a dropped connection is resumed from the last event seen, at a bounded pace.

        `on_state("reconnecting")`, `on_state("host-left")` (the host ended the stream as it exited: the client
        goes on trying quietly, every HOST_LEFT_PACE seconds) and `on_state("connected")` tell the screen; after
        `give_up_after` seconds without the host (HOST_LEFT_WAIT once it said it left) the last error is raised
        (nothing waits forever).
        """
        pace = Pace()
        while True:
            try:
                async for view in self.updates():
                    if pace.lost_since is not None:
                        pace.back()
                        if on_state is not None:
                            on_state("connected")
                    yield view
                return
            except Refused as err:
                if err.code == grpc.StatusCode.ABORTED and err.reason == Reason.SUBSCRIBER_LAGGING:
                    await asyncio.sleep(0.05)  # fell behind what the host keeps: a fresh snapshot, at once
                    continue
                if err.code not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED,
                                    grpc.StatusCode.CANCELLED):
                    raise
                state = pace.lost(err.reason == Reason.HOST_LEFT)
                if state and on_state is not None:
                    on_state(state)
                if pace.waited() > (HOST_LEFT_WAIT if pace.host_left else give_up_after):
                    raise
            await asyncio.sleep(pace.delay)

    async def updates(self) -> AsyncIterator[Any]:
        """Follow the table: yields the seat's TableView after every change, until the game's stream ends.

        Called again after a drop, it resumes from the last event this connection applied.
        """
        known = self.game.chain_seq if self.game is not None else 0
        game_id = self.game.game_id if self.game is not None else b""
        request = pb.SubscribeRequest(token=self.token, from_seq=self.last_seq, known_chain_seq=known,
                                      known_game_id=game_id)
        loop = asyncio.get_running_loop()
        since = loop.time()  # when this stream opened: a StandIn on it after CONNECTED_FOR came while we were there
        self.owed_clock.new_stream()
        try:
            async for update in self.stub.Subscribe(request):
                if self.on_update is not None:
                    self.on_update(update)
                catch_up = False
                body = update.snapshot if (snapshot := update.HasField("snapshot")) else update.event
                entries, view = body.chain, body.view
                # (an event that changed nothing a seat sees carries no view; ByteSize encodes the whole view, so once)
                has_view = body.HasField("view") and view.ByteSize() > 0
                if not snapshot:
                    self.last_seq = int(update.event.seq)
                    keep_table_info(view, self.view, self.last_seq, has_view)
                elif not update.snapshot.resumed:
                    self.last_seq = int(update.snapshot.seq)
                    catch_up = True
                _follow_a_move(self, view, has_view)
                try:
                    for entry in entries if self.game is not None else ():
                        self._receive(entry)
                finally:  # the record written once per event (before any answer leaves), whatever the entries raised
                    self._flush_record()
                self._check_called_away(not catch_up and loop.time() - since > CONNECTED_FOR, loop.time())
                if catch_up and self.game is not None:
                    # Replaying history queued answers to steps long done: keep only what is still owed.
                    self.game.keep_only(owed_message(view, self.seat))
                if has_view:
                    if view.table.phase == pb.TABLE_PHASE_LOBBY and self.game is not None and self.game.chain_seq:
                        self._next_match()  # back in the lobby after a match (a seat was freed): none yet
                    if view.deal.mode == "trustless" and self.game is not None:
                        complete_seat_view(view, self.game)  # the host does not know our cards
                    self.view = view
                yield self.view
                # The protocol's own steps after the screen got the view: a person sees the table at once.
                await self.send_automatic()
        except grpc.aio.AioRpcError as err:
            info = refusal_from_error(err)
            raise Refused(info.code, info.reason, info.message) from None

    def _check_called_away(self, live: bool, now: float) -> None:
        """The host stood in for this seat while we were connected and not silent past its step timeout: a claimed
        dispute (the host's word against ours; only a contradiction it signed would prove it). See away_claims."""
        game = self.game
        if game is None:
            return
        step_timeout = self.view.table.step_timeout if self.view is not None else 0.0
        for seq, says in self.owed_clock.claims(game, live and not self._left, now, step_timeout):
            game.note_claim(seq, says)
            self._dispute(says)
        for says in game.take_disputes():
            self._dispute(says)
        if game.abandoned_after_keys and self.abandon_log is not None:
            count_abandonment(self.abandon_log, game.host_key, game.game_id)
        self._flush_record()

    def _dispute(self, says: str) -> None:
        self.disputes.append(says)
        log.info("dispute: %s", says)  # (on the screen already; a warning would print over the full screen)
        if self.on_dispute is not None:
            self.on_dispute(says)

    def _receive(self, entry: Any) -> None:
        assert self.game is not None
        if int(entry.chain_seq) == 1 and self.game.chain_seq >= 1:
            self._next_match()
        try:
            if entry.HasField("withheld"):
                self.game.receive(int(entry.chain_seq), withheld=entry.withheld)
            else:
                self.game.receive(int(entry.chain_seq), bytes(entry.envelope))
        except (HostBrokeProtocol, ProtocolError) as err:  # (an envelope that does not parse is a ProtocolError)
            # (its message may quote what the host sent; what came before it is written by `updates` all the same)
            raise HostBrokeProtocol(err.reason, visible(err.message), err.seat) from None
        keep_record(self)

    def _next_match(self) -> None:
        """Another match at the table (or its lobby after one): a new SeatGame and record; the last one's is closed."""
        self._flush_record()
        if self.record is not None:
            self.record.close()
        self.record, self.record_path, self._written = None, None, 0
        self.game = new_seat_game(self, *((self.game.next_series(), self.game.agreed_terms) if self.game else ()))
        self._left = False

    def _flush_record(self) -> None:  # (what is not written yet, in one write and flush)
        if self.record is None or self.game is None or self._written == len(self.game.record):
            return
        self.record.extend((entry.kind, entry.data) for entry in self.game.record[self._written:])
        self._written = len(self.game.record)

    async def send_automatic(self) -> None:
        """Submit the protocol's own steps (signatures, commitment, reveal) that this seat owes."""
        if self.game is None or not self.game.outbox:
            return  # (after most events: nothing owed, and only receiving, in this very task, queues anything)
        async with self._send_lock:
            await self._flush_automatic()

    async def act(self, action: str, timeout: float = 10.0) -> None:
        """Send one game action (docs/rules.md notation). Raises Refused with the host's reason when refused."""
        if self.game is None:  # (a spectator: refused here as the host would refuse it)
            raise Refused(grpc.StatusCode.PERMISSION_DENIED, Reason.SPECTATOR, "spectators cannot act")
        async with self._send_lock:
            await self._flush_automatic()
            try:
                raw = self.game.action(action)
            except ProtocolError as err:
                # Refused before it left (a trustless seat checks its own cards): the same answer as the host's.
                raise Refused(grpc.StatusCode.FAILED_PRECONDITION, err.reason, err.message) from None
            await self._submit([raw], timeout, kind="action")

    async def _flush_automatic(self) -> None:
        """The queued protocol steps, oldest first (the caller holds `_send_lock`)."""
        if self.game is None:
            return  # (a spectator owes nothing)
        while run := owed_run(self.game):
            try:
                await self._submit(run)
            except Refused as err:
                if err.code in RETRYABLE:
                    raise
                # Never dropped silently (docs/protocol.md Disputes): the receipt goes into the record, and the seat
                # judges it. Against a head that had moved on since the step was made it is a race (the table went
                # past the step); against the very head the step answered, the host refused a step it was owed.
                judged = self.game.judge_refusal(raw := refused_in_run(self.game, run, err), err.receipt)
                for says in self.game.take_disputes():
                    self._dispute(says)
                if judged not in ("dispute", "proven", "pending") and (
                        err.code != grpc.StatusCode.FAILED_PRECONDITION or err.reason not in STALE_STEP):
                    raise
                log.info("dropped a %s the host no longer expects: %s", err.reason, err.message)
                # Kept at the head of the queue it would block every later step (and end the client).
                if raw in self.game.outbox:
                    self.game.outbox.remove(raw)
                self._flush_record()

    async def _submit(self, raws: list[bytes], timeout: float = 10.0, kind: str = "protocol") -> None:
        assert self.game is not None
        started = time.perf_counter()
        request = pb.SubmitEnvelopeRequest(token=self.token, envelope=raws[0], more_envelopes=raws[1:])
        for attempt in range(SUBMIT_TRIES):
            try:
                await self._call(self.stub.SubmitEnvelope, request, timeout)
                break
            except Refused as err:
                # No answer in time, or the line dropped: the host may or may not have taken it. The same bytes
                # again are safe (an accepted envelope resubmitted gets its original answer), so try again.
                if err.code not in RETRYABLE or attempt + 1 == SUBMIT_TRIES:
                    raise
                await asyncio.sleep(0.2 * (attempt + 1))
        for raw in raws:  # (each envelope of the call told: a measurement counts steps, not calls)
            if self.on_submitted is not None:
                self.on_submitted(kind, time.perf_counter() - started)
            self.game.accepted(raw)
        self._flush_record()

    async def close(self) -> None:
        self._flush_record()
        if self.record is not None:
            self.record.close()
            self.record = None
        await self.channel.close()


def owed_run(game: SeatGame) -> list[bytes]:
    """The protocol steps this seat owes now that go in one SubmitEnvelope: the oldest (rebuilt on our chain head),
    then each queued one that follows it on our chain (seq and prev_hash), at most MAX_ENVELOPES_PER_CALL. A
    checkpoint's and the next deal's seal signatures, owed together, so cost one round trip instead of two."""
    first = game.next_automatic()
    if first is None:
        return []
    run, last = [first], game.parsed(first)
    for raw in game.outbox[1:MAX_ENVELOPES_PER_CALL]:
        signed = game.parsed(raw)
        if signed.seq != last.seq + 1 or signed.envelope.prev_hash != last.hash:
            break
        run.append(raw)
        last = signed
    return run


def refused_in_run(game: SeatGame, run: list[bytes], err: Refused) -> bytes:
    """The envelope of `run` the host refused; those before it were applied (the host's answer, checked as any
    answer is: by the chain that must embed them). A hostile index is bounded to the run."""
    index = min(err.envelope_index, len(run) - 1)
    for raw in run[:index]:
        game.accepted(raw)
    return run[index]


def keep_record(conn: Connection) -> None:
    """The seat's record, opened once the game is known (named by the fingerprint the screen shows, so a person
    finds the record of the game they saw); one written before a restart is set aside first and the chain compared
    with it (client/earlier_record.py: a host that rewrote the seat's history is caught, and the evidence kept)."""
    game = conn.game
    assert game is not None
    if conn.record is None and game.game_id and conn.record_dir is not None:
        conn.record_path = conn.record_dir / record_name(game.fingerprint, f"seat{conn.seat}")
        conn.earlier = EarlierRecord.set_aside(conn.record_path)
        conn.record = RecordWriter(conn.record_path, {"written_by": "watten-join", "seat": conn.seat})
    if conn.earlier is not None and conn.earlier.check(game):
        conn.earlier = None


def new_seat_game(conn: Connection, follows: Series | None = None, terms: Any = None) -> SeatGame:
    """The seat's checks of a new game: its header must name this certificate, carry `follows` (the series this seat
    played), the rules and deal settings of `terms` (the TableInfo it joined under; the lobby's later ones replace it)
    and a step timeout no shorter than the seat's floor. (Beside `Connection`: its class is at its limit.)"""
    header_fp = b"" if conn.tls_fingerprint == INSECURE_PROOF else conn.tls_fingerprint
    return SeatGame(conn.seat, conn.key, secrets_dir=conn.secrets_dir, tls_fingerprint=header_fp, follows=follows,
                    step_timeout_floor=conn.step_timeout_floor, agreed_terms=terms)


def _follow_a_move(conn: Connection, view: Any, has_view: bool) -> None:
    """The host's person moved this seat in the lobby (docs/protocol.md, arranging the lobby): before a game has
    begun, the seat the host shows is ours, so the game to come is checked against it. Harmless to believe: the game
    header must still seat our key there, and once a chain has begun the seat never changes. The lobby's rules and
    deal settings, as the screen shows them, are the terms the game's header must carry (`SeatGame.agreed_terms`)."""
    seat = int(view.your_seat) if has_view else conn.seat
    if seat != conn.seat and seat >= 0 and (conn.game is None or not conn.game.chain_seq):
        conn.seat = seat
        conn.game = new_seat_game(conn, terms=conn.game.agreed_terms if conn.game is not None else None)
    if has_view and view.table.phase == pb.TABLE_PHASE_LOBBY and conn.game is not None and not conn.game.chain_seq:
        conn.game.agreed_terms = view.table  # (the lobby's terms as the screen shows them, up to the start)


def keep_table_info(view: Any, last: Any, seq: int, has_view: bool | None = None) -> None:
    """An Event's view leaves out the TableInfo while it is the one this stream carried last (docs/protocol.md, the
    event stream): the last one goes on, at the Event's seq. Nothing else of the view is derived here. `has_view`:
    whether the view is not empty, when the caller knows it already."""
    if not (view.ByteSize() > 0 if has_view is None else has_view) or view.HasField("table"):
        return
    if last is not None:
        view.table.CopyFrom(last.table)
    view.table.seq = seq
