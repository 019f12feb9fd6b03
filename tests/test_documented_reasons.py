"""The refusal reasons the proto header documents, held against the reasons the code can answer with.

A static reading of the source (every `ProtocolError`, `TableRefusal`, `Refusal`, the `errors.py` helpers, the
trustless `Reason`s and the engine's `RuleViolation`s): each reason documented under a status code must be raised
somewhere with that code, and each reason the host can answer a client with must be documented under the code it
comes with (an engine reason is documented as the engine's, FAILED_PRECONDITION, verbatim).
"""

from __future__ import annotations

import re
from pathlib import Path

from watten_net.trustless.errors import Reason

ROOT = Path(__file__).resolve().parent.parent
PROTO = ROOT / "proto" / "watten_net" / "v1" / "watten.proto"

_KINDS = {"invalid": "INVALID_ARGUMENT", "precondition": "FAILED_PRECONDITION", "permission": "PERMISSION_DENIED",
          "unauthenticated": "UNAUTHENTICATED", "aborted": "ABORTED"}
_HELPERS = {"invalid_argument": "INVALID_ARGUMENT", "failed_precondition": "FAILED_PRECONDITION",
            "permission_denied": "PERMISSION_DENIED", "unauthenticated": "UNAUTHENTICATED", "aborted": "ABORTED"}
_TRUSTLESS_INVALID = {Reason.MALFORMED.value, Reason.INVALID_POINT.value, Reason.NON_CANONICAL_SCALAR.value}

NOT_REASONS = {"reason", "type", "insecure", "resource-exhausted"}
"""Backticked words of the status block that are no reason of the host's: field names, the `insecure` fingerprint
value, and gRPC's own refusal of an oversized message (which carries no details)."""

HOST_ONLY = {"not-away", "stand-in-mismatch", "not-trustless"}
"""Raised only by the host's own calls (`HostGame.act_for`, `forfeit_away`: a stand-in move, a forfeit) and the
verifier's replay of them, never in answer to a client's request."""

HOST_SIDE = [*(ROOT / "host").glob("*.py"),
             *(ROOT / "watten_net" / "deal" / name for name in
               ("host_game.py", "level1.py", "level2.py", "dealer.py", "protocol.py", "envelope.py"))]


def documented() -> dict[str, set[str]]:
    text = PROTO.read_text()
    block = text[text.index("// Status codes"):text.index("// Retries:")]
    out: dict[str, set[str]] = {}
    code = None
    for line in block.splitlines():
        m = re.match(r"//\s{3}([A-Z_]+)\s", line)
        if m:
            code = m.group(1)
        if code is None:
            continue
        for reason in re.findall(r"`([a-z][a-z0-9-]*)`", line):
            if reason not in NOT_REASONS:
                out.setdefault(reason, set()).add(code)
    return out


def engine_reasons() -> set[str]:
    src = "\n".join(p.read_text() for p in (ROOT / "watten_net" / "engine").rglob("*.py"))
    return set(re.findall(r'RuleViolation\(\s*"([a-z-]+)"', src))


def host_reasons() -> dict[str, set[str]]:
    """reason -> status codes, for everything the host side can refuse a client with (engine reasons aside)."""
    src = "\n".join(p.read_text() for p in HOST_SIDE)
    constants = dict(re.findall(r'^([A-Z_]+)\s*=\s*"([a-z][a-z0-9-]*)"', src, re.M))
    out: dict[str, set[str]] = {}

    def add(reason: str, code: str) -> None:
        if reason in ("reason", "violation"):  # the helpers' own parameters, not a reason
            return
        out.setdefault(constants.get(reason, reason), set()).add(code)

    for kind, reason in re.findall(r'(?:ProtocolError|TableRefusal)\(\s*"([a-z]+)",\s*"([a-z][a-z0-9-]*)"', src):
        add(reason, _KINDS[kind])
    for code, reason in re.findall(r'Refusal\(\s*grpc\.StatusCode\.([A-Z_]+),\s*"?([A-Za-z_][A-Za-z0-9_-]*)"?', src):
        add(reason, code)
    for helper, reason in re.findall(r"\b(invalid_argument|failed_precondition|permission_denied|unauthenticated|"
                                     r'aborted)\(\s*"?([A-Za-z_][A-Za-z0-9_-]*)"?', src):
        add(reason, _HELPERS[helper])
    # The limits refuse with their module's constants (host/limits.py, server.py): all RESOURCE_EXHAUSTED.
    for name, reason in constants.items():
        if name in ("RATE_LIMITED_REASON", "REQUEST_TOO_LARGE_REASON", "TOO_MANY_CONNECTIONS", "TOO_MANY_STREAMS",
                    "TOO_MANY_SEATS", "JOIN_RATE_LIMITED", "REQUEST_TOO_LARGE"):
            out.setdefault(reason, set()).add("RESOURCE_EXHAUSTED")
    for reason in Reason:  # the trustless deal's refusals (watten_net/deal/level2.py trustless_error)
        out.setdefault(reason.value, set()).add(
            "INVALID_ARGUMENT" if reason.value in _TRUSTLESS_INVALID else "FAILED_PRECONDITION")
    out.setdefault("malformed", set()).add("INVALID_ARGUMENT")  # the engine's, as host_game maps it
    for reason in HOST_ONLY:
        out.pop(reason, None)
    for reason in ("internal-error", "unimplemented"):  # INTERNAL and UNIMPLEMENTED: not a client's refusal
        out.pop(reason, None)
    return out


def test_the_scan_finds_the_host_refusals() -> None:
    host = host_reasons()
    for reason, code in (("bad-envelope", "INVALID_ARGUMENT"), ("stale-envelope-seq", "ABORTED"),
                         ("stream-replaced", "ABORTED"), ("subscriber-lagging", "ABORTED"),
                         ("rate-limited", "RESOURCE_EXHAUSTED"), ("unknown-table", "FAILED_PRECONDITION"),
                         ("nonce-used", "PERMISSION_DENIED"), ("bad-token", "UNAUTHENTICATED")):
        assert code in host.get(reason, set()), reason
    assert {"not-your-turn", "card-not-in-hand", "malformed"} <= engine_reasons()


def test_every_documented_reason_is_raised_with_its_code() -> None:
    host, engine = host_reasons(), engine_reasons()
    wrong = []
    for reason, codes in sorted(documented().items()):
        raised = set(host.get(reason, set()))
        if reason in engine:
            raised.add("FAILED_PRECONDITION")
        if not codes <= raised:
            wrong.append(f"{reason}: documented {sorted(codes)}, raised {sorted(raised) or 'nowhere'}")
    assert not wrong, "\n".join(wrong)


def test_every_host_refusal_is_documented_with_its_code() -> None:
    docs = documented()
    wrong = [f"{reason}: raised {sorted(codes)}, documented {sorted(docs.get(reason, set())) or 'nowhere'}"
             for reason, codes in sorted(host_reasons().items()) if not codes <= docs.get(reason, set())]
    assert not wrong, "\n".join(wrong)
