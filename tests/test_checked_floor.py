"""The checked floor (bench/load_floor.py `--checks`) is a lower bound only if it really checks: the server refuses a
request whose seat signature fails, and a seat refuses an event whose server signature, or whose embedded request
signature, fails. A floor that only spent the time would prove nothing about what the checks cost."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

import pytest

from netutil import ROOT


def _load_floor() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_load_floor", ROOT / "bench" / "load_floor.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up there)
    spec.loader.exec_module(module)
    return module


floor = _load_floor()


def _flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 1]) + data[at + 1:]


def _request(seat: int = 2) -> tuple[object, bytes]:
    mandated = floor.Mandated()
    header = floor._ITEM.pack(7, 1, 1025, 40)
    return mandated, mandated.request(header, seat, 238)


def test_a_signed_request_makes_an_event_every_seat_accepts() -> None:
    mandated, request = _request()
    mandated.accept(request)
    event = mandated.event(request, 1025)
    assert len(request) == 238 and len(event) == 1025
    floor.Mandated().check(event)  # (another process derives the same keys)


@pytest.mark.parametrize("at", [0, 16, 100, -1])
def test_the_server_refuses_a_request_whose_signature_fails(at: int) -> None:
    mandated, request = _request()
    with pytest.raises(ValueError, match="request's signature"):
        mandated.accept(_flip(request, at % len(request)))


def test_the_server_refuses_a_request_of_a_seat_that_does_not_exist() -> None:
    mandated, request = _request()
    with pytest.raises(ValueError, match="request's signature"):
        mandated.accept(request[:16] + bytes([9]) + request[17:])


@pytest.mark.parametrize("at", [3, 16, 200, 600, -70, -1])
def test_a_seat_refuses_an_event_whose_signatures_fail(at: int) -> None:
    mandated, request = _request()
    event = mandated.event(request, 1025)
    with pytest.raises(ValueError, match="event's signatures"):
        mandated.check(_flip(event, at % len(event)))


def test_a_seat_refuses_an_event_the_server_signed_over_a_forged_request() -> None:
    mandated, request = _request()
    forged = _flip(request, 50)  # (the seat's signature no longer covers it: the server signs it all the same)
    with pytest.raises(ValueError, match="event's signatures"):
        mandated.check(mandated.event(forged, 1025))
