"""A series' next match names the previous game and the Bummerl carried in its signed header (GameHeader fields
previous_game_id and bummerl_carried; docs/protocol-decisions.md, "The series in the header"), in process: the seat
that played the previous match refuses a header that carries anything else, a seat new to the series cannot tell,
any seat refuses a malformed one; watten-verify given both records checks the second against the first.

The real 2-match series over real processes is tests/test_play_again.py's first test."""

from __future__ import annotations

import pytest

from watten_net.deal.envelope import GENESIS_PREV_HASH
from watten_net.deal.protocol import HOST_SEAT, make_envelope
from watten_net.deal.seat import SeatGame
from watten_net.deal.series import FIRST_MATCH, Series, next_series
from watten_net.engine import Rules
from watten_net.refusal import HostBrokeProtocol
from watten_net.verify import check_series, main, verify_entries

from local_table import LocalTable


def _rules() -> Rules:
    return Rules.preset("bavarian", 4).with_flag("target", "5")


def _first_match(seed: int = 1) -> LocalTable:
    table = LocalTable(_rules(), seed=seed)
    table.play()
    assert table.host.finished and table.host.match is not None
    return table


def _next_at(first: LocalTable, series: Series, seed: int = 2) -> LocalTable:
    """The table's next match (the same seats' keys) whose header says `series`; each seat knows what the first
    match left (as a client that played it does: client/connection.py `_next_match`)."""
    second = LocalTable(_rules(), seed=seed, series=series, keys=[seat.key for seat in first.seats])
    for before, seat in zip(first.seats, second.seats, strict=True):
        seat.follows = before.next_series()
    return second


def _refused_header(seat: SeatGame, raw: bytes) -> str:
    with pytest.raises(HostBrokeProtocol) as err:
        seat.receive(1, raw)
    assert seat.outbox == [], "nothing signed for a refused header"
    return err.value.reason


def test_the_honest_next_header_names_the_first_game_and_its_bummerl_and_every_seat_plays_it() -> None:
    first = _first_match()
    marks = tuple(first.host.match.bummerl)  # type: ignore[union-attr]
    assert sum(marks) == 1, marks  # (a match gives one side a Bummerl; the limit is 3: the series goes on)
    honest = next_series(first.host.game_id, FIRST_MATCH, marks, _rules().bummerl_limit)
    assert honest == Series(first.host.game_id, marks)
    assert all(seat.next_series() == honest for seat in first.seats)  # the seats compute what the host does
    second = _next_at(first, honest)
    second.play()
    assert second.host.finished
    header = second.seats[0].header
    assert bytes(header.previous_game_id) == first.host.game_id and tuple(header.bummerl_carried) == marks
    # watten-verify given both records: the second carries on from the first
    reports = [verify_entries(first.host_entries()), verify_entries(second.host_entries())]
    check_series(reports)
    assert all(r.ok for r in reports), [e.sentence() for r in reports for e in r.errors]
    assert reports[1].to_json()["previous_game_id"] == first.host.game_id.hex()
    assert reports[1].to_json()["bummerl_carried"] == list(marks)
    # A first match says nothing of a series: its header has neither field (its bytes are those of before them).
    assert not first.seats[0].header.previous_game_id and not first.seats[0].header.bummerl_carried


@pytest.mark.parametrize("lie", ["another previous game", "Bummerl not carried", "Bummerl for the other side",
                                 "a new series too early"])
def test_a_seat_that_played_the_first_match_refuses_a_header_that_carries_something_else(lie: str) -> None:
    first = _first_match()
    marks = tuple(first.host.match.bummerl)  # type: ignore[union-attr]
    game = first.host.game_id
    told = {
        "another previous game": Series(bytes(32), marks),
        "Bummerl not carried": Series(game, (0, 0)),
        "Bummerl for the other side": Series(game, marks[::-1]),
        "a new series too early": Series(game, ()),
    }[lie]
    second = _next_at(first, told)
    header = second.host.start()[0]
    for seat in second.seats:
        assert _refused_header(seat, header.raw) == "wrong-series"
    # A seat new to the series (a newcomer at the table, a restarted client) cannot tell: it signs the header.
    newcomer = SeatGame(0, second.seats[0].key)
    assert newcomer.receive(1, header.raw) and newcomer.header is not None
    # watten-verify given both records names the lie too (the second record alone verifies: it cannot tell either);
    # the same match played by seats that did not check (new to the series)
    unchecked = LocalTable(_rules(), seed=2, series=told, keys=[seat.key for seat in first.seats])
    unchecked.play()
    alone = verify_entries(unchecked.host_entries())
    assert alone.ok, [e.sentence() for e in alone.errors]
    reports = [verify_entries(first.host_entries()), alone]
    check_series(reports)
    if told.previous_game_id != game:  # (a header naming a game no record given is: nothing to compare it with)
        assert reports[0].ok and reports[1].ok
        return
    assert reports[0].ok and not reports[1].ok and reports[1].errors[-1].reason == "wrong-series"
    assert reports[1].verdict == "failed"


@pytest.mark.parametrize(("previous", "carried"), [
    (b"\x01" * 5, []),  # a game id of the wrong length
    (b"", [1, 0]),  # Bummerl carried without a previous game
    (b"\x01" * 32, [1, 0, 0]),  # three sides at a four-player table
    (b"\x01" * 32, [0, 3]),  # the limit reached: that series was over
    (b"\x01" * 32, [0, 2**32 - 1]),  # an absurd number
    (b"\x01" * 32, [0] * 1000),  # an absurd count
])
def test_every_seat_refuses_a_malformed_series(previous: bytes, carried: list[int]) -> None:
    table = LocalTable(_rules(), seed=4)
    host = table.host
    header = host.header_message()
    header.previous_game_id, header.bummerl_carried[:] = previous, carried
    raw = make_envelope(host.host_key, host.game_id, 1, GENESIS_PREV_HASH, HOST_SEAT, header)
    for seat in table.seats:  # new to the series: malformed is malformed all the same
        assert _refused_header(seat, raw) == "wrong-series"
    with pytest.raises(ValueError):  # and an honest host makes no such header
        LocalTable(_rules(), seed=4, series=Series(previous, tuple(carried)))


def test_watten_verify_shows_the_series_of_a_record(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from watten_net.record import encode_entries

    first = _first_match()
    marks = tuple(first.host.match.bummerl)  # type: ignore[union-attr]
    second = _next_at(first, Series(first.host.game_id, marks))
    second.play()
    paths = []
    for n, table in enumerate((first, second)):
        path = tmp_path / f"match{n + 1}.wrec"
        path.write_bytes(encode_entries({"written_by": "test"}, table.host_entries()))
        paths.append(str(path))
    assert main(paths) == 0
    out = capsys.readouterr().out
    said = f"series: after game {first.host.game_id.hex()[:12]}, Bummerl carried {marks[0]}–{marks[1]}"
    assert out.count("series:") == 1 and said in out, out
    assert f"(game {verify_entries(first.host_entries()).fingerprint} given)" in out, out  # the first match, as shown
