"""Server reflection under both its names: `grpc.reflection.v1` (current) and `grpc.reflection.v1alpha` (older tools).

grpcio-reflection serves only v1alpha. The two protocols are the same messages with the same field numbers in another
package, so the v1alpha servicer answers v1 requests too: its handler is registered a second time under the v1 service
name (the bytes parse the same), and a copy of the v1alpha file descriptor renamed to `grpc/reflection/v1/
reflection.proto` goes into the descriptor pool, so that a client that lists the v1 service can also fetch its file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import grpc
import grpc.aio
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2

V1_SERVICE_NAME = "grpc.reflection.v1.ServerReflection"
V1ALPHA_SERVICE_NAME: str = reflection.SERVICE_NAME
_V1_FILE = "grpc/reflection/v1/reflection.proto"


def _v1_file() -> descriptor_pb2.FileDescriptorProto:
    """The v1alpha file descriptor, moved to package grpc.reflection.v1 (types renamed, nothing else changed)."""
    proto = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(proto)
    old, new = f".{proto.package}.", ".grpc.reflection.v1."
    proto.name, proto.package = _V1_FILE, "grpc.reflection.v1"
    proto.ClearField("options")
    for message in proto.message_type:
        for fld in message.field:
            if fld.type_name.startswith(old):
                fld.type_name = new + fld.type_name[len(old):]
    for service in proto.service:
        for method in service.method:
            method.input_type = new + method.input_type[len(old):]
            method.output_type = new + method.output_type[len(old):]
    return proto


def _register_v1_descriptor() -> None:
    pool = descriptor_pool.Default()
    try:
        pool.FindFileByName(_V1_FILE)
    except KeyError:
        pool.Add(_v1_file())


def enable(service_names: Sequence[str], server: grpc.aio.Server) -> None:
    """Serve reflection for `service_names` (and for both reflection services) under v1 and v1alpha."""
    _register_v1_descriptor()
    names = (*service_names, V1_SERVICE_NAME, V1ALPHA_SERVICE_NAME)
    servicer: Any = reflection.aio.ReflectionServicer(names)
    handlers = {
        "ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
            servicer.ServerReflectionInfo,
            request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
            response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
        ),
    }
    for name in (V1_SERVICE_NAME, V1ALPHA_SERVICE_NAME):
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(name, handlers),))
