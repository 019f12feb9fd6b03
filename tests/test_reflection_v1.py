"""Server reflection over real gRPC under both names: grpc.reflection.v1 (what current tools ask first) and v1alpha.

grpcio-reflection ships stubs for v1alpha only; the v1 messages are the same fields in another package, so the test
speaks v1 with v1alpha's message classes on the v1 method path, byte for byte what a v1 client sends.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2

from netutil import start_host

pytestmark = pytest.mark.network

METHOD = "/grpc.reflection.{}.ServerReflection/ServerReflectionInfo"


async def _ask(port: int, version: str,
               requests: list[reflection_pb2.ServerReflectionRequest]) -> list[reflection_pb2.ServerReflectionResponse]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        call = channel.stream_stream(METHOD.format(version),
                                     request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                                     response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
        return [answer async for answer in call(iter(requests), timeout=5)]


def _files(answer: reflection_pb2.ServerReflectionResponse) -> list[descriptor_pb2.FileDescriptorProto]:
    return [descriptor_pb2.FileDescriptorProto.FromString(raw)
            for raw in answer.file_descriptor_response.file_descriptor_proto]


def test_reflection_v1_and_v1alpha(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2")
    requests = [
        reflection_pb2.ServerReflectionRequest(list_services=""),
        reflection_pb2.ServerReflectionRequest(file_containing_symbol="watten_net.v1.WattenTable"),
        reflection_pb2.ServerReflectionRequest(file_containing_symbol="grpc.reflection.v1.ServerReflection"),
    ]
    try:
        answers = {version: asyncio.run(_ask(port, version, requests)) for version in ("v1", "v1alpha")}
    finally:
        host.stop()
    for version, (listed, table, own) in answers.items():
        names = {s.name for s in listed.list_services_response.service}
        assert {"watten_net.v1.WattenTable", "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection",
                "grpc.reflection.v1alpha.ServerReflection"} <= names, version
        table_files = _files(table)
        assert any(f.package == "watten_net.v1" and any(s.name == "WattenTable" for s in f.service)
                   for f in table_files), version
        own_files = _files(own)
        assert own_files and own_files[0].name == "grpc/reflection/v1/reflection.proto", version
        service = own_files[0].service[0]
        assert service.name == "ServerReflection" and service.method[0].input_type == \
            ".grpc.reflection.v1.ServerReflectionRequest", version
