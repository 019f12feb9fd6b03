"""The lobby's refusals (host/lobby.py: Join, Leave, Start, the lobby settings), in process and without the network:
every refusal with its exact reason and words, and what it leaves unchanged (a seat that stays its holder's, a
token that stays good). tests/test_join_proof.py covers the same over real gRPC and TLS; this one is fast enough for
the mutation run (tests/mutants.py).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.table import MAX_NAME, Table, TableRefusal, TableSettings
from watten_net.deal.identity import INSECURE, leave_proof, new_nonce, public_key_bytes
from watten_net.deal.protocol import PROTOCOL_VERSION
from watten_net.engine import Rules

from netutil import signed_join

FP = b"\x11" * 32  # the host's certificate fingerprint
RULES = Rules.preset("bavarian", players=2)


def run(body: Callable[[Table], Awaitable[Any]], **table: Any) -> Any:
    async def main() -> Any:
        t = Table(TableSettings(table.pop("rules", RULES), tls_fingerprint=table.pop("fp", FP), **table))
        try:
            return await body(t)
        finally:
            await t.shutdown()

    return asyncio.run(asyncio.wait_for(main(), 30))


async def refused(awaitable: Awaitable[Any], kind: str, reason: str, words: str) -> None:
    with pytest.raises(TableRefusal) as err:
        await awaitable
    assert (err.value.code, err.value.reason) == (kind, reason), err.value.message
    assert words in err.value.message, err.value.message


def join(t: Table, key: Ed25519PrivateKey, **fields: Any) -> Any:
    fields.setdefault("fingerprint", FP)
    return t.join(signed_join(key, t.info(), **fields))


# ---------------------------------------------------------------------- seats
def test_a_taken_seat_stays_its_holders() -> None:
    """Asking for a seat a person holds is refused; the seat, its key and its token stay as they were."""
    alice, bob = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()

    async def body(t: Table) -> None:
        seat, token = await join(t, alice, name="Alice", seat=0)
        assert seat == 0
        await refused(join(t, bob, name="Bob", seat=0), "precondition", "seat-taken", "seat 0 is taken")
        occupant = t.seats[0]
        assert occupant is not None and occupant.name == "Alice" and occupant.public_key == public_key_bytes(alice)
        assert t.seat_of(token) == 0 and t.seats[1] is None
        seat, _ = await join(t, bob, name="Bob")
        assert seat == 1

    run(body)


def test_a_full_table_and_a_started_game_take_no_new_key() -> None:
    keys = [Ed25519PrivateKey.generate() for _ in range(3)]

    async def body(t: Table) -> None:
        tokens = [(await join(t, k))[1] for k in keys[:2]]
        await refused(join(t, keys[2]), "precondition", "table-full", "every seat at this table is taken")
        await t.start()
        await refused(join(t, keys[2]), "precondition", "game-started", "the game has started: every seat is taken")
        seat, token = await join(t, keys[1])  # a seated key takes its seat back, with a fresh token
        assert seat == 1 and t.seat_of(token) == 1
        with pytest.raises(TableRefusal) as err:
            t.seat_of(tokens[1])  # the old token died with the reclaim
        assert err.value.reason == "bad-token" and "unknown seat token" in err.value.message

    run(body)


def test_a_seat_number_outside_the_table() -> None:
    async def body(t: Table) -> None:
        for seat in (2, -1, 7):
            await refused(join(t, Ed25519PrivateKey.generate(), seat=seat), "invalid", "bad-seat",
                          "seats are numbered 0 to 1")
        assert t.seats == [None, None]

    run(body)


# ---------------------------------------------------------------------- the request's fields
# (a spectator's Join is checked the same way, by the same code: host/lobby.py checked_join)
def nobody_joined(t: Table) -> bool:
    return t.seats == [None, None] and not t.spectators.people


@pytest.mark.parametrize("spectate", [False, True])
@pytest.mark.parametrize(("change", "kind", "reason", "words"), [
    ({"protocol_version": PROTOCOL_VERSION + 1}, "precondition", "protocol-version", "update watten-join"),
    ({"name": "x" * (MAX_NAME + 1)}, "invalid", "bad-name", "at most 32 characters"),
    ({"name": "\u202e\u200b "}, "invalid", "bad-name", "choose a name of 1 to 32 printable characters"),
])
def test_a_join_with_a_field_the_host_refuses(change: dict[str, Any], kind: str, reason: str, words: str,
                                              spectate: bool) -> None:
    async def body(t: Table) -> None:
        await refused(join(t, Ed25519PrivateKey.generate(), spectate=spectate, **change), kind, reason, words)
        assert nobody_joined(t)

    run(body)


@pytest.mark.parametrize("spectate", [False, True])
@pytest.mark.parametrize("length", [0, 31, 33])
def test_a_join_nonce_of_the_wrong_length(length: int, spectate: bool) -> None:
    async def body(t: Table) -> None:
        request = signed_join(Ed25519PrivateKey.generate(), t.info(), fingerprint=FP, nonce=os.urandom(length),
                              spectate=spectate)
        await refused(t.join(request), "invalid", "bad-nonce", "the join nonce must be 32 bytes")
        assert nobody_joined(t)

    run(body)


@pytest.mark.parametrize("spectate", [False, True])
def test_a_public_key_of_the_wrong_length(spectate: bool) -> None:
    async def body(t: Table) -> None:
        request = signed_join(Ed25519PrivateKey.generate(), t.info(), fingerprint=FP, spectate=spectate)
        request.public_key = request.public_key[:31]
        await refused(t.join(request), "invalid", "bad-public-key", "the public key must be 32 bytes")
        assert nobody_joined(t)

    run(body)


def test_a_name_that_is_not_text() -> None:
    from host.table import clean_name

    with pytest.raises(TableRefusal) as err:
        clean_name(b"Resi")  # type: ignore[arg-type]
    assert err.value.reason == "bad-name" and "the name must be text" in err.value.message


# ---------------------------------------------------------------------- the key proof
def test_a_proof_bound_to_another_certificate_or_to_plaintext() -> None:
    key = Ed25519PrivateKey.generate()

    async def body(t: Table) -> None:
        await refused(join(t, key, fingerprint=b"\x22" * 32), "permission", "wrong-certificate",
                      "bound to another certificate than this host's")
        await refused(join(t, key, fingerprint=INSECURE), "permission", "insecure-proof",
                      "this host serves TLS: a proof made over plaintext is refused")
        short = signed_join(key, t.info(), fingerprint=FP)
        short.tls_fingerprint = FP[:31]
        await refused(t.join(short), "invalid", "bad-fingerprint", "32-byte SHA-256")
        assert t.seats == [None, None]
        assert (await join(t, key))[0] == 0

    run(body)


def test_a_plaintext_host_refuses_a_proof_bound_to_a_certificate() -> None:
    async def body(t: Table) -> None:
        await refused(join(t, Ed25519PrivateKey.generate(), fingerprint=FP), "permission", "wrong-certificate",
                      "another host relayed the Join")
        assert (await join(t, Ed25519PrivateKey.generate(), fingerprint=INSECURE))[0] == 0

    run(body, fp=b"")


def test_a_join_without_a_proof_or_with_anothers() -> None:
    alice, bob = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()

    async def body(t: Table) -> None:
        bare = signed_join(bob, t.info(), fingerprint=FP)
        bare.key_proof = b""
        await refused(t.join(bare), "permission", "proof-required", "every Join must prove that you hold your key")
        await join(t, alice, name="Alice")
        thief = signed_join(bob, t.info(), fingerprint=FP)
        thief.public_key = public_key_bytes(alice)  # Alice's key, Bob's signature: would reclaim her seat
        await refused(t.join(thief), "permission", "bad-key-proof", "does not verify with this key for this table")
        occupant = t.seats[0]
        assert occupant is not None and occupant.public_key == public_key_bytes(alice)

    run(body)


def test_a_join_proof_is_good_once() -> None:
    key = Ed25519PrivateKey.generate()

    async def body(t: Table) -> None:
        request = signed_join(key, t.info(), fingerprint=FP)
        seat, token = await t.join(request)
        await refused(t.join(request), "permission", "nonce-used", "a proof is good once")
        assert t.seat_of(token) == seat  # the replay revoked nothing

    run(body)


# ---------------------------------------------------------------------- tokens, settings, start, leave
def test_calls_without_a_good_token() -> None:
    async def body(t: Table) -> list[tuple[str, str]]:
        out = []
        for token in ("", "not-a-token\udcff"):
            try:
                t.seat_of(token)
            except TableRefusal as err:
                out.append((err.reason, err.message))
        return out

    assert run(body) == [("no-token", "this call needs your seat token: join first"),
                         ("bad-token", "unknown seat token: join the table again")]


def test_bots_settings_and_start_in_the_lobby_and_after() -> None:
    async def body(t: Table) -> None:
        await refused(t.add_bots(3, "easy"), "precondition", "table-full", "only 2 seats are free for bots")
        await refused(t.set_deal("lucky"), "invalid", "bad-setting", "the deal is verified or trustless")
        await refused(t.start(), "precondition", "not-enough-players", "wait until every seat is taken")
        await join(t, Ed25519PrivateKey.generate())
        await t.add_bots(1, "easy")
        await t.start()
        await refused(t.start(), "precondition", "game-started", "the game has already started")
        await refused(t.set_deal("trustless"), "precondition", "game-started", "the deal mode is fixed")
        await refused(t.set_ready(0, True), "precondition", "game-started", "readiness is over")

    run(body)


def test_blind_is_never_dealt_trustless() -> None:
    async def body(t: Table) -> None:
        await refused(t.set_deal("trustless"), "precondition", "not-supported", "blind cannot be dealt trustless")

    run(body, rules=Rules.preset("blind", players=4))


def test_a_leave_during_the_game_needs_the_seats_signature() -> None:
    alice = Ed25519PrivateKey.generate()

    async def body(t: Table) -> None:
        await join(t, alice)
        await t.add_bots(1, "easy")
        await t.start()
        game = t.game
        assert game is not None
        info = t.info()
        nonce = new_nonce()
        await refused(t.leave(0), "permission", "proof-required", "needs your key's signature")
        short = nonce[:31]
        await refused(t.leave(0, short, leave_proof(alice, info.table_id, info.host_public_key, game.game_id, 0,
                                                    short)), "invalid", "bad-nonce", "the leave nonce must be 32")
        other = Ed25519PrivateKey.generate()
        await refused(t.leave(0, nonce, leave_proof(other, info.table_id, info.host_public_key, game.game_id, 0,
                                                    nonce)), "permission", "bad-key-proof",
                      "does not verify with this seat's key")
        assert 0 not in game.absent | game.away_before_first_deal
        await t.leave(0, nonce, leave_proof(alice, info.table_id, info.host_public_key, game.game_id, 0, nonce))
        assert 0 in game.absent | game.away_before_first_deal

    run(body)


def test_a_submit_before_the_game() -> None:
    async def body(t: Table) -> None:
        _, token = await join(t, Ed25519PrivateKey.generate())
        await refused(t.submissions.submit_all(token, [b""]), "precondition", "game-not-started",
                      "the game has not started yet")

    run(body)
