"""Channel credentials that trust exactly one pinned host certificate, reached by any address.

gRPC Python has no "skip verification" and no verification callback, and it checks that the address dialled is
named in the certificate. A LAN host's address changes, so instead of naming addresses the host's certificate is
made out to "watten-host" (watten_net/fingerprints.py) and every channel checks that name
(`grpc.ssl_target_name_override`). With the pinned PEM as the only root, the handshake itself is the pin check: a
different certificate fails to connect, and there is no window between checking and using.
"""

from __future__ import annotations

import ssl
import weakref
from collections.abc import Sequence
from typing import Any

import grpc
import grpc.aio

from watten_net.deal.identity import INSECURE, certificate_fingerprint
from watten_net.fingerprints import TLS_NAME

# The certificate each channel made here trusts, as the raw SHA-256 of its DER bytes: what a join proof binds.
_PINNED: weakref.WeakKeyDictionary[grpc.aio.Channel, bytes] = weakref.WeakKeyDictionary()

TARGET_NAME_OPTION: tuple[str, str] = ("grpc.ssl_target_name_override", TLS_NAME)
"""Add to every TLS channel's options: makes gRPC check the certificate for "watten-host", not the address."""


def channel_credentials(pem: bytes) -> grpc.ChannelCredentials:
    """Credentials that accept only the certificate `pem` (the one pinned for this host)."""
    return grpc.ssl_channel_credentials(root_certificates=pem)


def channel_options(extra: Sequence[tuple[str, Any]] = ()) -> list[tuple[str, Any]]:
    """`extra` plus the name override; the override comes last so a caller cannot switch it off by accident."""
    return [option for option in extra if option[0] != TARGET_NAME_OPTION[0]] + [TARGET_NAME_OPTION]


def secure_channel(target: str, pem: bytes, options: Sequence[tuple[str, Any]] = ()) -> grpc.aio.Channel:
    """An aio channel to `target` ("ip:port") that trusts only `pem`. Create it inside the running event loop."""
    channel = grpc.aio.secure_channel(target, channel_credentials(pem), options=channel_options(options))
    _PINNED[channel] = pem_to_fingerprint(pem)
    return channel


def pem_to_fingerprint(pem: bytes) -> bytes:
    """SHA-256 of the DER bytes of the (first) certificate in `pem`, raw: 32 bytes."""
    return certificate_fingerprint(ssl.PEM_cert_to_DER_cert(pem.decode("ascii")))


def proof_fingerprint(channel: grpc.aio.Channel) -> bytes:
    """What a join proof made for `channel` binds: the fingerprint of the one certificate the channel trusts (a
    channel made by `secure_channel`), else `INSECURE` (b"insecure": a plaintext channel)."""
    return _PINNED.get(channel, INSECURE)
