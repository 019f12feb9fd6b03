"""Several envelopes of one seat in one SubmitEnvelope (`more_envelopes`), between a real host process and real
clients over gRPC on 127.0.0.1: at every change of deal a seat's CheckpointSignature and DeckSealedSignature go in
one call; and at the first such call, before the real one goes out, hostile variants of it: too many envelopes,
too many bytes, another seat's token, another seat's envelope after our own (ours stays applied), our own twice (one
envelope, one answer), a refused second envelope (the first stays applied, the answer says which, the third is not
applied), then the real call and a blind retry of it (the same answer). The match plays on to its end
and every record verifies."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
from google.rpc import status_pb2  # type: ignore[import-untyped, unused-ignore]

from client.connection import Connection, open_channel
from watten_net.deal.envelope import envelope_hash
from watten_net.deal.protocol import make_signed, parse_envelope
from watten_net.v1 import watten_pb2 as pb
from watten_net.verify import verify_file

from netutil import play_randomly_to_the_end, run_then_host_ends, start_host

pytestmark = pytest.mark.network

PAIR = ["CheckpointSignature", "DeckSealedSignature"]


def _detail(err: grpc.aio.AioRpcError) -> Any:
    """The host's ErrorDetail of a refused call (None when gRPC refused it itself, without details)."""
    trailer = dict(err.trailing_metadata() or ()).get("grpc-status-details-bin")
    if trailer is None:
        return None
    detail = pb.ErrorDetail()
    assert status_pb2.Status.FromString(trailer).details[0].Unpack(detail)
    return detail


async def _refused(submit: Any, request: Any) -> grpc.aio.AioRpcError:
    try:
        await submit(request, timeout=10)
    except grpc.aio.AioRpcError as err:
        return err
    raise AssertionError("the host accepted a call it must refuse")


async def _probe(submit: Any, request: Any, key: Any, other: Connection, seen: dict[str, Any]) -> None:
    """Hostile variants of a seat's real call of two envelopes (`request`), sent before it; what came back in `seen`."""
    first, second = bytes(request.envelope), bytes(request.more_envelopes[0])
    token = request.token
    one, two = parse_envelope(first, host=False), parse_envelope(second, host=False)
    # (10,000 tiny ones: 30 kB, under gRPC's 64 KiB, so the host's own bound answers)
    many = pb.SubmitEnvelopeRequest(token=token, envelope=first, more_envelopes=[b"x"] * 10_000)
    seen["many"] = await _refused(submit, many)
    nine = pb.SubmitEnvelopeRequest(token=token, envelope=first, more_envelopes=[second] * 8)
    seen["nine"] = await _refused(submit, nine)
    heavy = pb.SubmitEnvelopeRequest(token=token, envelope=first, more_envelopes=[bytes(40_000)] * 2)
    seen["heavy"] = await _refused(submit, heavy)
    stolen = pb.SubmitEnvelopeRequest(token=other.token, envelope=first, more_envelopes=[second])
    seen["stolen"] = await _refused(submit, stolen)
    # The other seat's envelope (signed by it, on its chain) after our first: ours is applied, theirs refused.
    theirs = make_signed(other.key, bytes(one.envelope.game_id), 1, bytes(32), other.seat, one.payload).raw
    mixed = pb.SubmitEnvelopeRequest(token=token, envelope=first, more_envelopes=[theirs])
    seen["mixed"] = await _refused(submit, mixed)
    twice = pb.SubmitEnvelopeRequest(token=token, envelope=first, more_envelopes=[first])
    seen["twice"] = await submit(twice, timeout=10)
    seen["bad"] = second[:-1] + bytes([second[-1] ^ 1])  # (its signature broken)
    broken = pb.SubmitEnvelopeRequest(token=token, envelope=first, more_envelopes=[seen["bad"], second])
    seen["broken"] = await _refused(submit, broken)
    # Was the third envelope (`second`, whole) applied? Then another envelope at its place in our chain is stale.
    instead = make_signed(key, bytes(one.envelope.game_id), two.seq, one.hash, one.sender, one.payload).raw
    seen["instead"] = await _refused(submit, pb.SubmitEnvelopeRequest(token=token, envelope=instead))
    seen["real"] = await submit(request, timeout=10)
    seen["retry"] = await submit(request, timeout=10)


def test_a_seats_two_signatures_go_in_one_call_and_a_hostile_batch_changes_nothing(tmp_path: Path) -> None:
    records = tmp_path / "records"
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "3", "--bots", "1",
                            "--record", str(records), "--set", "target=11")
    calls: list[list[str]] = []  # every SubmitEnvelope of both seats: its envelopes' types
    seen: dict[str, Any] = {}

    def watch(conn: Connection, other: Connection, probe: bool) -> None:
        submit = conn.stub.SubmitEnvelope

        async def watched(request: Any, **kwargs: Any) -> Any:
            raws = [bytes(request.envelope), *map(bytes, request.more_envelopes)]
            types = [parse_envelope(raw, host=False).type for raw in raws]
            calls.append(types)
            if probe and types == PAIR and "real" not in seen:
                await _probe(submit, request, conn.key, other, seen)
                return seen["real"]
            return await submit(request, **kwargs)

        conn.stub.SubmitEnvelope = watched

    async def play() -> None:
        conns = [Connection(await open_channel("127.0.0.1", port, insecure=True), record_dir=records)
                 for _ in range(2)]
        for i, conn in enumerate(conns):
            await conn.join(f"seat{i}")
        watch(conns[0], conns[1], probe=True)
        watch(conns[1], conns[0], probe=False)
        await asyncio.gather(*(play_randomly_to_the_end(conn, random.Random(i)) for i, conn in enumerate(conns)))
        for conn in conns:
            await conn.close()

    run_then_host_ends(host, play(), 240)

    pairs = sum(types == PAIR for types in calls)
    assert pairs >= 2, calls  # (a match to 11 has more than one hand: each seat signs a change of deal)
    # Every CheckpointSignature rode with the next deal's seal signature, but the last of the match (no deal after
    # it): one call for both, where there were two. (A redeal's seal signature, with no checkpoint, goes alone.)
    assert sum(types == ["CheckpointSignature"] for types in calls) <= 2, calls
    assert all(len(types) <= 2 for types in calls), calls

    for name in ("many", "nine"):
        assert seen[name].code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert _detail(seen[name]).reason == "request-too-large"
    assert seen["heavy"].code() == grpc.StatusCode.RESOURCE_EXHAUSTED  # (gRPC's own limit: 64 KiB a message)
    assert seen["stolen"].code() == grpc.StatusCode.PERMISSION_DENIED
    stolen = _detail(seen["stolen"])
    assert stolen.reason == "wrong-seat" and stolen.envelope_index == 0 and not stolen.applied

    real = seen["real"]
    mixed = _detail(seen["mixed"])
    assert seen["mixed"].code() == grpc.StatusCode.PERMISSION_DENIED
    assert mixed.reason == "wrong-seat" and mixed.envelope_index == 1
    assert list(mixed.applied) == [real.answers[0]]  # (our first, applied there and answered the same ever after)
    assert list(seen["twice"].answers) == [real.answers[0]] * 2  # (applied once: the second is its retry)

    broken = _detail(seen["broken"])
    assert broken.envelope_index == 1  # the broken second envelope; the first stays applied, the third is not
    assert bytes(broken.receipt.envelope_hash) == envelope_hash(seen["bad"])
    assert [answer.envelope_hash for answer in broken.applied] == [real.answers[0].envelope_hash]
    assert broken.applied[0] == real.answers[0]  # the first one's answer, the same when it comes again
    # (not `stale-envelope-seq`: the place after the first envelope was still free, the third was not applied)
    assert _detail(seen["instead"]).reason == "unexpected-message"
    assert (real.seq, real.chain_seq, real.envelope_hash) == (
        real.answers[1].seq, real.answers[1].chain_seq, real.answers[1].envelope_hash)
    assert seen["retry"] == real  # a blind retry of the whole call: the same answer

    paths = sorted(records.glob("*.wrec"))
    assert len(paths) == 3  # the host's and the two seats'
    reports = [verify_file(str(p)) for p in paths]
    assert all(r.ok for r in reports) and len({tuple(r.final_scores) for r in reports}) == 1
