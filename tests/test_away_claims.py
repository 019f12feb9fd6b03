"""Called away while present, at the seat (PROTOCOL.md "Disputes", docs/protocol-decisions.md "Called away while
present"): a StandIn for a connected seat that owed a step for less than the step timeout is the seat's claimed
dispute; one after the timeout is not (it really was silent).

Sans-I/O: the real HostGame and SeatGames in one process (tests/local_table.py); the client's clock
(`client.away_claims.OwedClock`) is given its moments by the test. The network version (a cheating host process
against `watten-join`) is in test_disputes_network.py.
"""

from __future__ import annotations

from client.away_claims import ANSWERED_ALL, OwedClock
from watten_net.deal.seat import SeatGame
from watten_net.engine import Rules
from watten_net.verify import CLAIMED, VERIFIED, Report, verify_entries

from local_table import LocalTable

VICTIM = 1
STEP_TIMEOUT = 30.0


def _victim_owes_its_first_seal(signed: float = STEP_TIMEOUT) -> LocalTable:
    """Every seat answers every step until the first deal is sealed; the victim then holds its seal signature. The
    header's step timeout, which every seat signs, is `signed` seconds (0: no time limit)."""
    table = LocalTable(Rules.preset("bavarian", players=2), seed=3, step_timeout_ms=round(signed * 1000))
    table.start_until_owing_the_first_seal(VICTIM)
    victim = table.seats[VICTIM]
    assert [victim.parsed(raw).type for raw in victim.outbox] == ["DeckSealedSignature"]
    return table


def _called_away(table: LocalTable) -> SeatGame:
    table.deliver(table.host.stand_in(VICTIM, True))
    return table.seats[VICTIM]


def _played_out(table: LocalTable) -> Report:
    """The person comes back at once and the match is played to its end: the victim's record, verified."""
    table.come_back(VICTIM)
    table.play()
    return verify_entries(table.seat_entries(VICTIM))


def test_the_seat_notes_what_it_still_owed_when_the_host_called_it_away() -> None:
    table = _victim_owes_its_first_seal()
    owed = tuple(table.seats[VICTIM].outbox)
    victim = _called_away(table)
    [(seq, noted)] = victim.take_called_away()
    assert noted == owed and victim.chain_types[seq - 1] == "StandIn"  # (the seal completed without it came after)
    assert victim.take_called_away() == []  # (each StandIn once)


def test_called_away_right_after_the_step_reached_it_is_a_claim_naming_the_step() -> None:
    table = _victim_owes_its_first_seal()
    clock = OwedClock()
    assert clock.claims(table.seats[VICTIM], True, 100.0, STEP_TIMEOUT) == []  # the event that brought the seal
    victim = _called_away(table)
    [(seq, says)] = clock.claims(victim, True, 100.4, STEP_TIMEOUT)
    assert victim.chain_types[seq - 1] == "StandIn"
    assert says == ("the host says this seat is away, but it is connected and had owed its DeckSealedSignature for "
                    "only 0.4 s of the 30 s step timeout: it may be cheating")
    victim.note_claim(seq, says)  # (what the client does with it: its record says so)
    report = _played_out(table)
    assert report.verdict == CLAIMED and any("had owed its DeckSealedSignature" in n for n in report.notes)


def test_a_standin_in_the_same_event_as_the_step_is_a_claim() -> None:
    """The step and the StandIn in one change: the seat had it for no time at all."""
    table = _victim_owes_its_first_seal()
    [(_, says)] = OwedClock().claims(_called_away(table), True, 100.0, STEP_TIMEOUT)
    assert "for only 0.0 s of the 30 s step timeout" in says


def test_called_away_after_the_step_timeout_is_no_claim() -> None:
    table = _victim_owes_its_first_seal()
    clock = OwedClock()
    clock.claims(table.seats[VICTIM], True, 100.0, STEP_TIMEOUT)
    # (the host's clock started when it posted the step, a moment before it reached the seat: a little slack)
    assert clock.claims(_called_away(table), True, 100.0 + STEP_TIMEOUT - 1.0, STEP_TIMEOUT) == []
    assert _played_out(table).verdict == VERIFIED  # (nothing noted: the seat's record is a fair game)


def test_a_seat_that_owed_nothing_claims_as_before() -> None:
    table = _victim_owes_its_first_seal()
    victim = table.seats[VICTIM]
    while (raw := victim.next_automatic()) is not None:  # it answers its seal: nothing owed
        out = table.host.submit(VICTIM, raw)
        victim.accepted(raw)
        table.deliver(out)
    assert victim.outbox == []
    clock = OwedClock()
    clock.claims(victim, True, 100.0, STEP_TIMEOUT)
    [(seq, says)] = clock.claims(_called_away(table), True, 500.0, STEP_TIMEOUT)
    assert says == ANSWERED_ALL and victim.chain_types[seq - 1] == "StandIn"


def test_no_claim_where_the_seat_cannot_tell_it_was_there() -> None:
    """A catch-up or a stream just opened (not live), or a step that reached the seat before its stream was lost
    and opened again: it cannot tell how long the host waited, so it claims nothing."""
    table = _victim_owes_its_first_seal()
    clock = OwedClock()
    assert clock.claims(_called_away(table), False, 100.0, STEP_TIMEOUT) == []

    table = _victim_owes_its_first_seal()
    clock = OwedClock()
    clock.claims(table.seats[VICTIM], True, 100.0, STEP_TIMEOUT)
    clock.new_stream()
    assert clock.claims(_called_away(table), True, 100.4, STEP_TIMEOUT) == []

    table = _victim_owes_its_first_seal()
    clock = OwedClock()
    clock.claims(table.seats[VICTIM], False, 100.0, STEP_TIMEOUT)  # the seal came in a catch-up
    assert clock.claims(_called_away(table), True, 100.4, STEP_TIMEOUT) == []


def test_a_host_without_a_step_clock_never_calls_a_connected_seat_away_for_silence() -> None:
    table = _victim_owes_its_first_seal(signed=0.0)
    clock = OwedClock()
    clock.claims(table.seats[VICTIM], True, 100.0, 0.0)
    [(_, says)] = clock.claims(_called_away(table), True, 900.0, 0.0)
    assert "for only 800.0 s (the host runs no step clock): it may be cheating" in says


def test_a_host_that_lowers_its_stated_step_timeout_mid_match_does_not_escape_the_claim() -> None:
    table = _victim_owes_its_first_seal()
    clock = OwedClock()
    clock.claims(table.seats[VICTIM], True, 100.0, STEP_TIMEOUT)
    [(_, says)] = clock.claims(_called_away(table), True, 101.0, 0.5)
    assert "for only 1.0 s of the 30 s step timeout" in says
