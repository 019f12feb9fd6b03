"""Generated protobuf and gRPC code (from proto/); regenerate with `python -m watten_net.v1.regenerate`."""
