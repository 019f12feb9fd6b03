"""The step timeout is a term of the match every seat signs (GameHeader.step_timeout_ms; docs/protocol.md "The step
timeout", docs/protocol-decisions.md "The step timeout is signed").

The attack: a hostile host states a tiny step timeout (50 ms) so that it may call any honest, connected seat away on
every deal step (its client cannot answer that fast), a stand-in plays the seat, and the seat's record says nothing
because it "really was" silent past the timeout. Closed on two sides: a seat signs no header whose step timeout is
above 0 and below its floor (5 s unless the seat itself says otherwise), and its dispute claims measure against the
header's value, never the host's lower unsigned TableInfo word.

Sans-I/O: the real HostGame and SeatGames (tests/local_table.py); the network versions are in
test_step_timeout_network.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from client.away_claims import OwedClock
from watten_net.deal.protocol import STEP_TIMEOUT_FLOOR, header_step_timeout, parse_envelope
from watten_net.deal.seat import SeatGame
from watten_net.engine import Rules
from watten_net.record import KIND_HOST, Entry
from watten_net.refusal import HostBrokeProtocol, Reason
from watten_net.verify import VERIFIED, verify_entries

from local_table import LocalTable

VICTIM = 1


def _table(step_timeout_ms: int, deal: str = "verified") -> LocalTable:
    return LocalTable(Rules.preset("bavarian", players=2).with_flag("target", "3"), seed=5, deal=deal,
                      step_timeout_ms=step_timeout_ms)


@pytest.mark.parametrize("deal", ["verified", "trustless"])
@pytest.mark.parametrize("step_timeout_ms", [50, 1, round(STEP_TIMEOUT_FLOOR * 1000) - 1])
def test_a_seat_signs_no_header_with_a_step_timeout_below_its_floor(step_timeout_ms: int, deal: str) -> None:
    table = _table(step_timeout_ms, deal)
    [header] = table.host.start()
    for seat in table.seats:
        with pytest.raises(HostBrokeProtocol) as caught:
            header.deliver_to(seat)
        assert caught.value.reason == Reason.SHORT_STEP_TIMEOUT == "short-step-timeout"
        assert f"a step timeout of {step_timeout_ms / 1000:g} s is below the 5 s" in str(caught.value)
        assert seat.problems and not seat.outbox  # no HeaderSignature: nothing signed


def test_the_floor_is_the_seats_own_setting() -> None:
    # (tests with quick stand-ins lower it on their seats; the host cannot: it is no field of anything it sends)
    table = _table(50)
    for seat in table.seats:
        seat.step_timeout_floor = 0.05
    table.play()
    assert table.host.finished and all(not seat.problems for seat in table.seats)
    report = verify_entries(table.seat_entries(VICTIM))  # (verify has no floor: the seats signed it)
    assert report.verdict == VERIFIED and report.step_timeout == 0.05, report


@pytest.mark.parametrize(("step_timeout_ms", "deal"), [
    (0, "verified"),  # (no time limit)
    (30_000, "verified"),
    # (attack: the edges of the check; 5000 ms is no "below the floor", and 2^32-1 ms, 49.7 days, is a header's most)
    (round(STEP_TIMEOUT_FLOOR * 1000), "verified"), (2**32 - 1, "verified"),
    (round(STEP_TIMEOUT_FLOOR * 1000), "trustless"), (2**32 - 1, "trustless"),
])
def test_no_limit_the_floor_and_above_up_to_a_headers_largest_are_signed_and_verified(step_timeout_ms: int,
                                                                                        deal: str) -> None:
    table = _table(step_timeout_ms, deal)
    table.play()
    header = parse_envelope(table.host.chain[0].raw, host=True).payload
    assert header.step_timeout_ms == step_timeout_ms and table.host.finished
    assert all(not seat.problems for seat in table.seats)
    report = verify_entries(table.seat_entries(VICTIM))
    assert report.verdict == VERIFIED and report.step_timeout == step_timeout_ms / 1000, report


def test_a_record_whose_header_says_another_step_timeout_than_the_host_replayed_fails() -> None:
    # The step timeout is in the header every seat signed, so it is in the header hash and the game id's record: a
    # host that rewrites it after the match (to excuse its stand-ins) re-signs a header no seat signed.
    import tampering

    table = _table(30_000)
    table.play()

    def shorter(header: object) -> None:
        header.step_timeout_ms = 50  # type: ignore[attr-defined]

    record = tampering.edit_host(table.host_entries(), 0, shorter, table.host.host_key)
    assert verify_entries(record).verdict == "failed"


@pytest.mark.parametrize(("signed_ms", "stated_s", "away_after_s", "claim"), [
    # The host signed 30 s in the header but states 0.05 s in every TableInfo from the start, then calls the victim
    # away 1 s after its step reached it: the seat claims it, against the 30 s it signed. (Measured against the
    # TableInfo's word, as before the header held the timeout, the seat "really was" silent: no claim.)
    pytest.param(30_000, 0.05, 1.0, "for only 1.0 s of the 30 s step timeout", id="tiny-unsigned-word"),
    # Header 0 (no time limit): the host promised never to stand in for a seat online, whatever its TableInfo says.
    pytest.param(0, 30.0, 100.0, "for only 100.0 s (the host runs no step clock)", id="no-limit-signed"),
    # (a TableInfo that says less than the header: the header counts, and past it the seat was silent: no claim)
    pytest.param(10_000, 0.0, 10.0, None, id="past-the-signed-timeout"),
    # The host signs 2^32-1 ms (49.7 days) and calls the victim away 1000 s after its step reached it, stating a
    # 1 s timeout in its TableInfo: a claim, measured against the 4294967.295 s it signed.
    pytest.param(2**32 - 1, 1.0, 1000.0, "for only 1000.0 s of the 4294967.295 s step timeout: it may be cheating",
                 id="largest-signed"),
])
def test_a_claim_measures_the_silence_against_the_signed_step_timeout_not_the_hosts_word(
        signed_ms: int, stated_s: float, away_after_s: float, claim: str | None) -> None:
    # Every seat answers every step until the first deal is sealed; the victim then holds its seal signature, and
    # the host calls it away `away_after_s` after that step reached it, stating `stated_s` in every TableInfo.
    table = _table(signed_ms)
    table.start_until_owing_the_first_seal(VICTIM)
    victim = table.seats[VICTIM]
    assert header_step_timeout(victim.header) == signed_ms / 1000
    clock = OwedClock()
    clock.claims(victim, True, 100.0, stated_s)
    table.deliver(table.host.stand_in(VICTIM, True))
    claims = clock.claims(victim, True, 100.0 + away_after_s, stated_s)
    if claim is None:
        assert claims == []
    else:
        [(seq, says)] = claims
        assert victim.chain_types[seq - 1] == "StandIn"
        assert claim in says, says


def test_a_restarted_seat_signs_no_second_header_of_its_game_with_another_step_timeout(tmp_path: Path) -> None:
    # (attack: the victim signed 30 s; its client restarts, and the host offers the same game's header again saying
    # 6 s, above the floor, to get the shorter clock signed after all: the seat's note on disk refuses it)
    import tampering

    table = _table(30_000)
    [header] = table.host.start()
    first = table.seats[VICTIM]
    first.secrets_dir = tmp_path
    header.deliver_to(first)
    assert not first.problems and first.outbox  # signed, its header noted on disk

    def shorter(payload: object) -> None:
        payload.step_timeout_ms = 6_000  # type: ignore[attr-defined]

    [again] = tampering.edit_host([Entry(KIND_HOST, header.raw)], 0, shorter, table.host.host_key)
    restarted = SeatGame(VICTIM, first.key, secrets_dir=tmp_path)
    with pytest.raises(HostBrokeProtocol) as caught:
        restarted.receive(header.seq, again.data)
    assert caught.value.reason == Reason.SECOND_HEADER and not restarted.outbox
    same = SeatGame(VICTIM, first.key, secrets_dir=tmp_path)  # (the header it signed, again: signed again)
    same.receive(header.seq, header.raw)
    assert not same.problems and same.outbox


@pytest.mark.parametrize(("seconds", "unusual"), [(0.05, True), (4.999, True), (5.0, False), (30.0, False),
                                                  (0.0, False)])
def test_verify_says_when_the_signed_step_timeout_is_one_no_unchanged_seat_signs(seconds: float,
                                                                                  unusual: bool) -> None:
    # (attack: a host that seats only its own bots, or seats whose floor was lowered, signs a 50 ms step timeout; the
    # record verifies, as every seat did sign it, but a person reading watten-verify is told no unchanged client did)
    from watten_net.verify import step_timeout_term

    term = step_timeout_term(seconds)
    assert ("below the 5 s floor a seat signs unless its software was changed" in term) == unusual, term


def test_a_step_timeout_reads_as_seconds_never_in_exponent_form() -> None:
    """The largest step timeout a header holds read "4.29497e+06 s" in a claim (`:g`); a person reads seconds."""
    from watten_net.deal.protocol import seconds_text

    assert [seconds_text(x) for x in (30.0, 5.0, 12.5, 0.05, 4294967.295)] == ["30", "5", "12.5", "0.05",
                                                                                 "4294967.295"]
