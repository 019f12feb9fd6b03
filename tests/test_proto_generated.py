"""The wire contract: the committed generated code matches proto/; messages and service are as designed."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from google.protobuf import any_pb2, descriptor_pb2
from google.protobuf.message import Message

from watten_net.v1 import regenerate, watten_pb2, watten_pb2_grpc

REPO_ROOT = Path(__file__).resolve().parents[1]
PROTO = Path("watten_net/v1/watten.proto")
GENERATED = [
    Path("watten_net/v1/watten_pb2.py"),
    Path("watten_net/v1/watten_pb2.pyi"),
    Path("watten_net/v1/watten_pb2_grpc.py"),
]

# method name -> (request type, response type, client streaming, server streaming)
EXPECTED_METHODS = {
    "GetTable": ("GetTableRequest", "TableInfo", False, False),
    "ListTables": ("ListTablesRequest", "ListTablesResponse", False, False),
    "Join": ("JoinRequest", "JoinResponse", False, False),
    "ChooseSeat": ("ChooseSeatRequest", "Ack", False, False),
    "SetName": ("SetNameRequest", "Ack", False, False),
    "Ready": ("ReadyRequest", "Ack", False, False),
    "Start": ("StartRequest", "Ack", False, False),
    "SubmitEnvelope": ("SubmitEnvelopeRequest", "SubmitEnvelopeResponse", False, False),
    "Leave": ("LeaveRequest", "Ack", False, False),
    "Subscribe": ("SubscribeRequest", "TableUpdate", False, True),
    "Say": ("SayRequest", "Ack", False, False),
}

# Envelope.type values, as documented on Envelope: every one must name a message of the package.
HOST_ENVELOPE_TYPES = [
    "GameHeader", "Relay", "KeySet", "HandOpen", "DeckSealed", "CardDelivery", "ActionAccepted",
    "PrivateEvent", "HandEnd", "Checkpoint", "HostSeedReveal", "HostKeyReveal", "AttemptAborted", "Disclosure",
    "MatchEnd", "StandIn",
]  # fmt: skip
CLIENT_ENVELOPE_TYPES = [
    "HeaderSignature", "KeyCommit", "KeySetSignature", "KeyReveal", "DeckSealedSignature",
    "ActionRequest", "CheckpointSignature",
]  # fmt: skip


# --- proto/ and the committed code agree ----------------------------------------------------------


def test_committed_generated_code_matches_proto() -> None:
    differing = regenerate.check()
    assert differing == [], (
        "proto/ and the committed generated code disagree; run `python -m watten_net.v1.regenerate`: "
        + ", ".join(path.as_posix() for path in differing)
    )


@pytest.mark.slow
def test_documented_check_command_exits_zero() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "watten_net.v1.regenerate", "--check"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _copy_tree(tmp_path: Path) -> Path:
    """A throwaway repository with the real proto and generated files."""
    root = tmp_path / "repo"
    shutil.copytree(REPO_ROOT / "proto", root / "proto")
    for relative in GENERATED:
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO_ROOT / relative, root / relative)
    return root


def test_check_reports_a_changed_proto(tmp_path: Path) -> None:
    root = _copy_tree(tmp_path)
    assert regenerate.check(root) == []
    with (root / "proto" / PROTO).open("a", encoding="utf-8") as proto:
        proto.write("\n// Added after generation.\nmessage Drift {\n  // A field.\n  string x = 1;\n}\n")
    # A new message changes the messages and their stubs; the service module does not mention it.
    assert regenerate.check(root) == sorted(GENERATED[:2])


def test_check_reports_missing_and_stale_files(tmp_path: Path) -> None:
    root = _copy_tree(tmp_path)
    (root / GENERATED[1]).unlink()
    stale = Path("watten_net/v1/old_pb2_grpc.py")
    (root / stale).write_text("# left over from a deleted proto\n", encoding="utf-8")
    assert regenerate.check(root) == sorted([GENERATED[1], stale])


def test_regenerate_writes_into_the_given_root(tmp_path: Path) -> None:
    root = _copy_tree(tmp_path)
    for relative in GENERATED:
        (root / relative).unlink()
    assert regenerate.generate(root, root) == GENERATED
    assert regenerate.check(root) == []


# --- the generated package imports the way the layout promises ------------------------------------


def test_generated_grpc_module_imports_messages_from_the_package() -> None:
    source = (REPO_ROOT / "watten_net/v1/watten_pb2_grpc.py").read_text(encoding="utf-8")
    assert "from watten_net.v1 import watten_pb2" in source
    assert watten_pb2.DESCRIPTOR.package == "watten_net.v1"
    assert watten_pb2.DESCRIPTOR.name == PROTO.as_posix()


# --- the service ----------------------------------------------------------------------------------


def test_service_has_the_expected_methods_and_streaming_kinds() -> None:
    assert list(watten_pb2.DESCRIPTOR.services_by_name) == ["WattenTable"]
    service = watten_pb2.DESCRIPTOR.services_by_name["WattenTable"]
    assert service.full_name == "watten_net.v1.WattenTable"
    actual = {
        method.name: (
            method.input_type.name,
            method.output_type.name,
            method.client_streaming,
            method.server_streaming,
        )
        for method in service.methods
    }
    assert actual == EXPECTED_METHODS


def test_grpc_module_has_stub_servicer_and_registration() -> None:
    servicer = watten_pb2_grpc.WattenTableServicer
    for name in EXPECTED_METHODS:
        assert callable(getattr(servicer, name))
    assert callable(watten_pb2_grpc.add_WattenTableServicer_to_server)
    assert callable(watten_pb2_grpc.WattenTableStub)


def test_every_envelope_type_names_a_message() -> None:
    messages = watten_pb2.DESCRIPTOR.message_types_by_name
    missing = [name for name in HOST_ENVELOPE_TYPES + CLIENT_ENVELOPE_TYPES if name not in messages]
    assert missing == []


def test_version_1_dealing_messages_are_gone() -> None:
    # Level 1 version 2 fixes every key before the first hand: no per-hand seeds, commitments or reveals remain.
    messages = watten_pb2.DESCRIPTOR.message_types_by_name
    gone = ["SeedCommit", "SeedCommitEntry", "CommitSet", "CommitSetSignature", "SeedReveal"]
    assert [name for name in gone if name in messages] == []
    assert "host_seed_commitment" not in watten_pb2.HandOpen.DESCRIPTOR.fields_by_name


# --- messages round-trip --------------------------------------------------------------------------


def test_signed_envelope_round_trips_with_its_payload_bytes_untouched() -> None:
    commit = watten_pb2.KeyCommit(seat=2, header_hash=b"\x01" * 32, commitment=b"\x02" * 32)
    payload = commit.SerializeToString()
    envelope = watten_pb2.Envelope(
        game_id=b"\x07" * 32,
        seq=5,
        prev_hash=b"\x00" * 32,
        sender_seat=2,
        type="KeyCommit",
        payload=payload,
        signature=b"\x09" * 64,
    )
    wire = watten_pb2.SubmitEnvelopeRequest(token="t0k3n", envelope=envelope.SerializeToString())
    received = watten_pb2.SubmitEnvelopeRequest.FromString(wire.SerializeToString())
    parsed = watten_pb2.Envelope.FromString(received.envelope)
    assert parsed == envelope
    assert parsed.payload == payload
    assert getattr(watten_pb2, parsed.type).FromString(parsed.payload) == commit

    host = watten_pb2.Envelope(sender_seat=-1, seq=1, type="GameHeader")
    assert watten_pb2.Envelope.FromString(host.SerializeToString()).sender_seat == -1


def test_level1_payloads_round_trip() -> None:
    header = watten_pb2.GameHeader(
        protocol_version=2,
        deck_version="deck/v1",
        rules_json='{"deck":32}',
        settings=watten_pb2.TableSettings(deal="verified", reveal="match-end"),
        roster=[watten_pb2.RosterEntry(seat=s, public_key=bytes([s]) * 32, name=f"p{s}") for s in range(4)],
        first_dealer_rule="deck-key",
        stand_in="reference/v1",
        host_nonce=b"\x03" * 32,
        join_nonces=[bytes([s]) * 32 for s in range(4)],
        game_id=b"\x04" * 32,
        host_key_commitment=b"\x0b" * 32,
    )
    accepted = watten_pb2.ActionAccepted(
        hand=0,
        seat=1,
        action="play HK",
        action_envelope_hash=b"\x05" * 32,
        openings=[watten_pb2.CardOpening(position=12, card="HK", salt=b"\x06" * 32)],
        events=[watten_pb2.GameEvent(kind="card-played", seat=1, fields={"card": "HK"})],
    )
    key_set = watten_pb2.KeySet(commits=[watten_pb2.KeyCommitEntry(seat=0, envelope=b"e")])
    messages: list[Message] = [
        header,
        accepted,
        key_set,
        watten_pb2.KeySetSignature(seat=1, key_set_hash=b"\x08" * 32),
        watten_pb2.KeyReveal(seat=1, key=b"\x09" * 32, chain_seq=12, chain_head=b"\x0a" * 32),
        watten_pb2.HandOpen(hand=0, attempt=1, dealer=3),
        watten_pb2.DeckSealed(hand=0, attempt=0, card_commitments=[bytes([k]) * 32 for k in range(32)]),
        watten_pb2.CardDelivery(seat=2, packet=1, cards=[watten_pb2.CardOpening(position=0, card="S7")]),
        watten_pb2.HandEnd(winner_side=1, points=[0, 3], scores=[4, 9], bummerl=[0, 0], reason="tricks"),
        watten_pb2.HostSeedReveal(hand=2, attempt=0, dealer=1, seed=b"\x0c" * 32),
        watten_pb2.HostKeyReveal(key=b"\x0d" * 32),
        watten_pb2.MatchEnd(scores=[15, 9], winner_side=0, reason="target-reached"),
        watten_pb2.MatchEnd(scores=[3, 2], winner_side=-1, reason="host-shutdown", hand=4, missing_keys=[1, 3]),
    ]
    for message in messages:
        assert type(message).FromString(message.SerializeToString()) == message


def test_stream_messages_round_trip() -> None:
    view = watten_pb2.TableView(
        table=watten_pb2.TableInfo(protocol_version=1, phase=watten_pb2.TABLE_PHASE_PLAYING, player_count=4),
        your_seat=1,
        hand_phase="play",
        your_hand=["HK", "S7", "LO"],
        legal_actions=["play HK", "play S7", "play LO", "raise"],
        current_trick=watten_pb2.Trick(leader=0, cards=[watten_pb2.TrickCard(seat=0, card="E9")], winner=-1),
        pending_raise=watten_pb2.PendingRaise(seat=0, side=0, proposed_value=3),
        tricks_per_side=[1, 0],
        extra={"schlecken_card": "S7"},
    )
    snapshot = watten_pb2.TableUpdate(
        snapshot=watten_pb2.Snapshot(
            seq=41,
            view=view,
            chain=[
                watten_pb2.ChainEntry(chain_seq=1, envelope=b"header bytes"),
                watten_pb2.ChainEntry(
                    chain_seq=2,
                    withheld=watten_pb2.Withheld(
                        envelope_hash=b"\x0a" * 32, type="CardDelivery", visible_to=[3]
                    ),
                ),
            ],
        )
    )
    event = watten_pb2.TableUpdate(
        event=watten_pb2.Event(seq=42, events=[watten_pb2.GameEvent(kind="offline", seat=3)], view=view)
    )
    for update in (snapshot, event):
        parsed = watten_pb2.TableUpdate.FromString(update.SerializeToString())
        assert parsed == update
    assert watten_pb2.TableUpdate.FromString(snapshot.SerializeToString()).WhichOneof("update") == "snapshot"
    assert watten_pb2.TableUpdate.FromString(event.SerializeToString()).WhichOneof("update") == "event"
    entries = watten_pb2.TableUpdate.FromString(snapshot.SerializeToString()).snapshot.chain
    assert [entry.WhichOneof("entry") for entry in entries] == ["envelope", "withheld"]


def test_join_seat_is_optional() -> None:
    def round_trip(request: watten_pb2.JoinRequest) -> watten_pb2.JoinRequest:
        return watten_pb2.JoinRequest.FromString(request.SerializeToString())

    anywhere = round_trip(watten_pb2.JoinRequest(name="Vroni"))
    seat_zero = round_trip(watten_pb2.JoinRequest(name="Sepp", seat=0))
    assert not anywhere.HasField("seat")
    assert seat_zero.HasField("seat") and seat_zero.seat == 0


def test_error_detail_packs_into_any() -> None:
    detail = watten_pb2.ErrorDetail(reason="not-your-turn", message="Wait: it is seat 2's turn.")
    packed = any_pb2.Any()
    packed.Pack(detail)
    assert packed.type_url == "type.googleapis.com/watten_net.v1.ErrorDetail"
    unpacked = watten_pb2.ErrorDetail()
    assert any_pb2.Any.FromString(packed.SerializeToString()).Unpack(unpacked)
    assert unpacked == detail


# --- the proto is documented ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def proto_source_info(tmp_path_factory: pytest.TempPathFactory) -> descriptor_pb2.FileDescriptorProto:
    from grpc_tools import protoc

    out = tmp_path_factory.mktemp("descriptor") / "watten.pb"
    status = protoc.main(
        [
            "grpc_tools.protoc",
            f"-I{REPO_ROOT / 'proto'}",
            "--include_source_info",
            f"--descriptor_set_out={out}",
            str(REPO_ROOT / "proto" / PROTO),
        ]
    )
    assert status == 0
    files = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file
    assert len(files) == 1
    assert files[0].syntax == "proto3"
    return files[0]


def test_every_message_field_enum_and_method_has_a_comment(
    proto_source_info: descriptor_pb2.FileDescriptorProto,
) -> None:
    commented = {
        tuple(location.path)
        for location in proto_source_info.source_code_info.location
        if location.leading_comments.strip()
    }
    file_fields = descriptor_pb2.FileDescriptorProto.DESCRIPTOR.fields_by_name
    message_fields = descriptor_pb2.DescriptorProto.DESCRIPTOR.fields_by_name
    enum_fields = descriptor_pb2.EnumDescriptorProto.DESCRIPTOR.fields_by_name
    service_fields = descriptor_pb2.ServiceDescriptorProto.DESCRIPTOR.fields_by_name
    undocumented: list[str] = []

    def need(path: tuple[int, ...], name: str) -> None:
        if path not in commented:
            undocumented.append(name)

    for m, message in enumerate(proto_source_info.message_type):
        path = (file_fields["message_type"].number, m)
        need(path, message.name)
        for f, field in enumerate(message.field):
            need((*path, message_fields["field"].number, f), f"{message.name}.{field.name}")
        for o, oneof in enumerate(message.oneof_decl):
            if not oneof.name.startswith("_"):  # synthetic oneofs of `optional` fields
                need((*path, message_fields["oneof_decl"].number, o), f"{message.name}.{oneof.name}")
    for e, enum in enumerate(proto_source_info.enum_type):
        path = (file_fields["enum_type"].number, e)
        need(path, enum.name)
        for v, value in enumerate(enum.value):
            need((*path, enum_fields["value"].number, v), f"{enum.name}.{value.name}")
    for s, service in enumerate(proto_source_info.service):
        path = (file_fields["service"].number, s)
        need(path, service.name)
        for r, method in enumerate(service.method):
            need((*path, service_fields["method"].number, r), f"{service.name}.{method.name}")
    assert undocumented == []
