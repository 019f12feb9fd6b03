"""The client's pace of tries after losing its stream (client/connection.py `Pace`): bounded for a LAN, quiet and
slow once the host said it left, and what the screen is told at each change."""

from __future__ import annotations

from client.connection import CHANNEL_OPTIONS, HOST_LEFT_PACE, RECONNECT_PACE, Pace


def test_the_pause_between_tries_grows_to_at_most_2_s_and_the_screen_hears_of_each_change_once() -> None:
    pace = Pace()
    assert pace.lost(host_left=False) == "reconnecting"
    states, delays = [], []
    for _ in range(20):
        states.append(pace.lost(host_left=False))
        delays.append(pace.delay)
    assert set(states) == {""}  # (told once)
    assert delays == sorted(delays) and max(delays) == RECONNECT_PACE[1] <= 2.0
    assert pace.lost(host_left=True) == "host-left"
    assert pace.delay == HOST_LEFT_PACE <= 2.0
    assert pace.lost(host_left=False) == ""  # a refused connection after the host left: still "host-left"
    pace.back()
    assert (pace.delay, pace.lost_since, pace.host_left) == (RECONNECT_PACE[0], None, False)


def test_grpcs_own_reconnect_backoff_is_bounded_too() -> None:
    options = dict(CHANNEL_OPTIONS)
    assert options["grpc.max_reconnect_backoff_ms"] <= 2_000
    assert options["grpc.initial_reconnect_backoff_ms"] <= 1_000
