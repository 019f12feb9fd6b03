"""Every refusal reason is a member of the one `Reason` (watten_net/refusal.py), and three lists agree with the code.

* The proto header (proto/watten_net/v1/watten.proto, "Status codes") documents each reason under its status code:
  every documented reason is a Reason raised with that code, and every reason the host can answer a client with is
  documented under the code it comes with (an engine reason as the engine's).
* The client's words (client/i18n.py REASONS) cover the same reasons in every language, and only Reasons.
* No refusal is raised with a string literal for its reason: a static reading (ast) of watten_net/, host/, client/.

What the host answers with is read from the source with ast: every refusal constructor or helper (`ProtocolError`,
`TableRefusal`, `Refusal`, the host/errors.py helpers, the engine's `RuleViolation`) with its code and reason, a
name resolved through the module's constants; the trustless maths' reasons with the code level2.py gives them.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from client.i18n import REASONS as WORDS
from watten_net.deal.level2 import _MALFORMED as TRUSTLESS_INVALID
from watten_net.engine.errors import NO_ACTION_AT_ALL
from watten_net.refusal import Code, Reason

ROOT = Path(__file__).resolve().parent.parent
PROTO = ROOT / "proto" / "watten_net" / "v1" / "watten.proto"
SOURCES = sorted(p for top in ("watten_net", "host", "client") for p in (ROOT / top).rglob("*.py")
                 if "watten_pb2" not in p.name)

REASON_ARG = {"RuleViolation": 0, "HostBrokeProtocol": 0, "TrustlessError": 0, "_fail": 0, "invalid_argument": 0,
              "failed_precondition": 0, "permission_denied": 0, "unauthenticated": 0, "aborted": 0,
              "ProtocolError": 1, "TableRefusal": 1, "Refusal": 1}
HELPER_STATUS = {"invalid_argument": "INVALID_ARGUMENT", "failed_precondition": "FAILED_PRECONDITION",
                 "permission_denied": "PERMISSION_DENIED", "unauthenticated": "UNAUTHENTICATED",
                 "aborted": "ABORTED"}
STATUS_OF = {Code.INVALID: "INVALID_ARGUMENT", Code.PRECONDITION: "FAILED_PRECONDITION",
             Code.PERMISSION: "PERMISSION_DENIED", Code.UNAUTHENTICATED: "UNAUTHENTICATED", Code.ABORTED: "ABORTED",
             Code.RESOURCE_EXHAUSTED: "RESOURCE_EXHAUSTED", Code.UNAVAILABLE: "UNAVAILABLE"}

NOT_REASONS = {"reason", "type", "insecure", "resource-exhausted"}
"""Backticked words of the status block that are no reason of the host's: field names, the `insecure` fingerprint
value, and gRPC's own refusal of an oversized message (which carries no details)."""

HOST_ONLY = {Reason.NOT_AWAY, Reason.STAND_IN_MISMATCH, Reason.NOT_TRUSTLESS}
"""Raised only by the host's own calls (`HostGame.act_for`, `forfeit_away`: a stand-in move, a forfeit) and the
verifier's replay of them, never in answer to a client's request."""
NO_REFUSAL = {Reason.INTERNAL_ERROR, Reason.UNIMPLEMENTED}  # INTERNAL and UNIMPLEMENTED: not a client's refusal

HOST_SIDE = {*(f"host/{p.name}" for p in (ROOT / "host").glob("*.py")),
             *(f"watten_net/deal/{name}" for name in
               ("host_game.py", "level1.py", "level2.py", "dealer.py", "protocol.py", "envelope.py"))}


# ---------------------------------------------------------------------------------------------- reading the code
def _name(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _constants(tree: ast.Module) -> dict[str, ast.expr]:
    return {node.targets[0].id: node.value for node in tree.body
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)}


def _reasons_of(node: ast.expr, constants: dict[str, ast.expr]) -> set[Reason]:
    """The Reasons an argument can be: `Reason.X`, a literal, a module constant, either branch of `a if c else b`."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "Reason":
        return {Reason[node.attr]}
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in Reason._value2member_map_:
        return {Reason(node.value)}
    if isinstance(node, ast.Name) and node.id in constants:
        return _reasons_of(constants[node.id], constants)
    if isinstance(node, ast.IfExp):
        return _reasons_of(node.body, constants) | _reasons_of(node.orelse, constants)
    return set()


def _status_of(call: str, node: ast.Call) -> str | None:
    if call in HELPER_STATUS:
        return HELPER_STATUS[call]
    code = node.args[0] if node.args else None
    if isinstance(code, ast.Attribute) and isinstance(code.value, ast.Name) and code.value.id == "Code":
        return STATUS_OF[Code[code.attr]]
    if isinstance(code, ast.Constant) and code.value in Code._value2member_map_:
        return STATUS_OF[Code(code.value)]
    if isinstance(code, ast.Attribute) and ast.unparse(code.value) == "grpc.StatusCode":
        return code.attr
    return None


def refusal_calls() -> Iterator[tuple[str, ast.Call, str, ast.expr, dict[str, ast.expr]]]:
    """(file, call, constructor name, reason argument, the file's constants) for every refusal call."""
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = _constants(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and (call := _name(node.func)) in REASON_ARG:
                at = REASON_ARG[call]
                args = [node.args[at]] if len(node.args) > at else []
                for arg in args + [k.value for k in node.keywords if k.arg == "reason"]:
                    yield str(path.relative_to(ROOT)), node, call, arg, constants


def engine_reasons() -> set[Reason]:
    """Every reason the engine's RuleViolation is raised with (watten_net/engine, and level2.py's engine step)."""
    out: set[Reason] = set()
    for where, _, call, arg, constants in refusal_calls():
        if call == "RuleViolation" and (where.startswith("watten_net/engine/") or where.endswith("level2.py")):
            out |= _reasons_of(arg, constants)
    return out | set(NO_ACTION_AT_ALL)  # (`no_card` picks bad-card or malformed)


def host_reasons() -> dict[Reason, set[str]]:
    """reason -> gRPC status names, for everything the host side can refuse a client with."""
    out: dict[Reason, set[str]] = {}
    for where, node, call, arg, constants in refusal_calls():
        if where not in HOST_SIDE or call in ("RuleViolation", "_fail", "HostBrokeProtocol", "TrustlessError"):
            continue
        status = _status_of(call, node)
        for reason in _reasons_of(arg, constants):
            if status is not None:
                out.setdefault(reason, set()).add(status)
    for reason in NO_ACTION_AT_ALL:  # the engine's refusals of what is no action at all; the others see `raised`
        out.setdefault(reason, set()).add("INVALID_ARGUMENT")
    for reason in (Reason.MALFORMED, Reason.INVALID_POINT, Reason.NON_CANONICAL_SCALAR, Reason.WRONG_CONTEXT,
                   Reason.OUT_OF_TURN, Reason.CONFLICTING_MESSAGE, Reason.BAD_KEY_PROOF, Reason.BAD_SHUFFLE_PROOF,
                   Reason.BAD_DECRYPTION_PROOF, Reason.DEGENERATE_KEY, Reason.NOT_A_CARD):
        # the trustless maths' refusals, as level2.py `trustless_error` codes them
        out.setdefault(reason, set()).add("INVALID_ARGUMENT" if reason in TRUSTLESS_INVALID else "FAILED_PRECONDITION")
    for reason in HOST_ONLY | NO_REFUSAL:
        out.pop(reason, None)
    return out


def raised() -> dict[Reason, set[str]]:
    """host_reasons, and every engine reason as FAILED_PRECONDITION: the proto documents those as "the engine's
    `RuleViolation` reason verbatim" and names only some."""
    out = host_reasons()
    for reason in engine_reasons() - NO_ACTION_AT_ALL:
        out.setdefault(reason, set()).add("FAILED_PRECONDITION")
    return out


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


# ---------------------------------------------------------------------------------------------- the lists agree
def test_the_scan_finds_the_host_refusals() -> None:
    host = host_reasons()
    for reason, code in (("bad-envelope", "INVALID_ARGUMENT"), ("stale-envelope-seq", "ABORTED"),
                         ("stream-replaced", "ABORTED"), ("subscriber-lagging", "ABORTED"),
                         ("rate-limited", "RESOURCE_EXHAUSTED"), ("unknown-table", "FAILED_PRECONDITION"),
                         ("nonce-used", "PERMISSION_DENIED"), ("bad-token", "UNAUTHENTICATED"),
                         ("too-many-seats", "RESOURCE_EXHAUSTED"), ("request-too-large", "RESOURCE_EXHAUSTED"),
                         ("bad-action", "INVALID_ARGUMENT"), ("bad-card", "INVALID_ARGUMENT")):
        assert code in host.get(Reason(reason), set()), reason
    assert {Reason.NOT_YOUR_TURN, Reason.CARD_NOT_IN_HAND, Reason.MALFORMED} <= engine_reasons()


def test_every_documented_reason_is_a_reason_raised_with_its_code() -> None:
    host = raised()
    unknown = sorted(set(documented()) - set(Reason._value2member_map_))
    assert not unknown, f"documented but no Reason: {unknown}"
    wrong = [f"{reason}: documented {sorted(codes)}, raised {sorted(host.get(Reason(reason), set())) or 'nowhere'}"
             for reason, codes in sorted(documented().items()) if not codes <= host.get(Reason(reason), set())]
    assert not wrong, "\n".join(wrong)


def test_every_host_refusal_is_documented_with_its_code() -> None:
    docs = documented()
    wrong = [f"{reason}: raised {sorted(codes)}, documented {sorted(docs.get(reason, set())) or 'nowhere'}"
             for reason, codes in sorted(host_reasons().items()) if not codes <= docs.get(reason, set())]
    assert not wrong, "\n".join(wrong)


def test_the_client_has_words_for_the_same_reasons_in_every_language() -> None:
    languages = sorted(WORDS)
    assert languages == ["de", "en", "zh"]
    for lang in languages:
        assert set(WORDS[lang]) == set(WORDS["en"]), lang
        assert all(WORDS[lang].values()), lang
    unknown = sorted(set(WORDS["en"]) - set(Reason._value2member_map_))
    assert not unknown, f"words for reasons the code does not have: {unknown}"


def test_every_reason_has_words_in_every_language() -> None:
    """A person sees every reason: a refusal of theirs ("Not allowed: …"), or their client catching the host
    (`wrong-series`, `second-header`: "deal check FAILED: …"); without words a German or Chinese screen showed the
    English sentence. A German or Chinese sentence is no copy of the English one."""
    for lang in ("de", "en", "zh"):
        missing = sorted(r.value for r in Reason if not WORDS[lang].get(r.value))
        assert not missing, (lang, missing)
    copied = sorted(r.value for r in Reason if r.value != "not-now" and len(WORDS["en"][r.value]) > 12
                    and WORDS["en"][r.value] in (WORDS["de"][r.value], WORDS["zh"][r.value]))
    assert not copied, copied


# ---------------------------------------------------------------------------------------------- no free strings
def test_no_refusal_is_raised_with_a_string_literal_reason() -> None:
    free: list[str] = []
    for where, node, call, arg, constants in refusal_calls():
        value = constants.get(arg.id) if isinstance(arg, ast.Name) else arg
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            free.append(f"{where}:{node.lineno}: {call}(... {value.value!r} ...)")
    assert not free, "reasons as strings (pass a Reason member):\n" + "\n".join(free)


def test_a_reason_from_a_host_is_read_never_trusted() -> None:
    """The client keeps the host's string; it is a Reason only when this version knows it (never an exception)."""
    from client.errors import RefusalInfo
    from watten_net.refusal import known_reason

    assert known_reason("not-your-turn") is Reason.NOT_YOUR_TURN
    for hostile in ("", "NOT-YOUR-TURN", "no-such-reason", "\x1b[2J", "not-your-turn ", "x" * 10_000):
        assert known_reason(hostile) is None
    info = RefusalInfo(None, "a-reason-of-a-newer-host", "words")  # type: ignore[arg-type]
    assert info.known_reason is None and info.reason == "a-reason-of-a-newer-host"
