"""The next deal derived ahead (HostGame.prepare_next_deal, while the seats sign a checkpoint) changes no byte."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.deal.protocol import parse_envelope
from watten_net.deal.steps import Stage
from watten_net.engine import Rules

import local_table
from local_table import LocalTable


class SeededKeys:
    """LocalTable's keys from a counter: two tables of one seed then hold the same keys, so the same chain."""

    def __init__(self) -> None:
        self.count = 0

    def generate(self) -> Ed25519PrivateKey:
        self.count += 1
        return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"key %d" % self.count).digest())


def chain_of(monkeypatch: pytest.MonkeyPatch, rules: Rules, seed: int, prepare: bool,
             absences: dict[int, tuple[int, int]] | None = None) -> tuple[list[bytes], int]:
    """The host chain of one whole match; with `prepare`, the next deal is derived after every submission (and so
    also at moments when there is nothing to prepare). Also: how many deals were opened from a prepared one."""
    monkeypatch.setattr(local_table, "Ed25519PrivateKey", SeededKeys())
    table = LocalTable(rules, seed=seed)
    host = table.host
    dealing = host.verified_dealing
    assert dealing is not None
    used = 0
    submit, open_attempt = host.submit, dealing.open_attempt

    def submit_then_prepare(seat: int, raw: bytes) -> Any:
        out = submit(seat, raw)
        if prepare:
            host.prepare_next_deal()
        return out

    def counted_open(hand: int, attempt: int, dealer: int | None) -> list[Any]:
        nonlocal used
        prepared = dealing._prepared
        used += prepared is not None and prepared.of == (hand, attempt)
        return open_attempt(hand, attempt, dealer)

    monkeypatch.setattr(host, "submit", submit_then_prepare)
    monkeypatch.setattr(dealing, "open_attempt", counted_open)
    table.play(absences=absences)
    assert host.phase == Stage.OVER
    if prepare:  # every new hand after the first opened from the deal derived during its checkpoint (not a redeal)
        opened = [parse_envelope(p.raw, host=True).payload for p in host.chain if p.type == "HandOpen"]
        assert used == sum(1 for o in opened if o.hand > 0 and o.attempt == 0) > 0
    return [p.raw for p in host.chain], used


@pytest.mark.parametrize(("preset", "players", "seed"), [("bavarian", 4, 1), ("south-tyrolean", 2, 5),
                                                         ("bavarian", 3, 9)])
def test_a_prepared_deal_is_the_deal(monkeypatch: pytest.MonkeyPatch, preset: str, players: int, seed: int) -> None:
    rules = Rules.preset(preset, players).with_flag("target", "11")
    plain, none_used = chain_of(monkeypatch, rules, seed, prepare=False)
    prepared, _ = chain_of(monkeypatch, rules, seed, prepare=True)
    assert none_used == 0
    assert prepared == plain


def test_a_prepared_deal_with_a_seat_away(monkeypatch: pytest.MonkeyPatch) -> None:
    # A stand-in plays seat 2 for a while (its signatures are not waited for): the same chain, prepared or not.
    rules = Rules.preset("bavarian", 4).with_flag("target", "11")
    absences = {40: (2, 60)}
    plain, _ = chain_of(monkeypatch, rules, 3, prepare=False, absences=absences)
    prepared, _ = chain_of(monkeypatch, rules, 3, prepare=True, absences=absences)
    assert prepared == plain
