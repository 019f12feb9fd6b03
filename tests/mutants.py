"""A fixed list of critical mutants: each removes or weakens one security check, and a chosen fast test file must
catch it (issue #18: every defence has a test that fails when it breaks).

Why a small harness of our own and not a mutation tool such as mutmut: what matters here is a short, reviewed list
of bugs a cheating host or client would want (a signature not checked, a commitment not opened, a duplicate
accepted), each tied to the test that must catch it, run in CI in well under two minutes. A generic tool plants
thousands of mechanical mutants, needs minutes to hours, and reports a score rather than failing on the one check
that matters. Each mutant here is a textual replacement that must match its module exactly once (so a refactor that
moves the check makes the harness fail loudly instead of planting nothing).

How it runs: the packages and tests are copied once into a temporary directory; for each mutant the one file is
rewritten there, `python -m pytest -x -q` runs the mutant's test files in a subprocess with that directory as its
working directory (so the copy is imported, not the installed package), and the file is put back. A mutant is
caught when pytest reports failing tests (exit code 1); exit 0 means it survived; anything else is a harness error.

    python tests/mutants.py            # every mutant, one line each; exit 1 if any survived
    python tests/mutants.py NAME...    # only these
    python tests/mutants.py --sweep [MODULE...]   # the mutation score per security-critical module (not in CI)

The sweep adds mechanical mutants to the reviewed list, for a score per module: every guard of a refusal (an `if`
or `elif` on one line whose body starts with `raise`, or makes a TableRefusal to answer later) is disabled in turn
(its condition becomes `False`), and the module's test files must notice. A survivor is either a defence no test
drives or an equivalent mutant (a guard that another check already covers); docs/mutation.md lists the scores
and explains every survivor.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COPIED = ("watten_net", "host", "client", "tests", "pyproject.toml")

SEAT = "tests/test_seat_defences.py"
OWN_ECHO = "tests/test_seat_own_echo.py"
VERIFY = "tests/test_verify_checks.py"
HOST = "tests/test_host_refusals.py"
LOBBY = "tests/test_lobby.py"
HOSTILE = "tests/test_hostile_host.py"
TRUSTLESS = "tests/test_trustless_seat_defences.py"
TRUSTLESS_HOST = "tests/test_trustless_host_refusals.py"


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str  # the module, relative to the repository
    old: str  # text that occurs exactly once in it
    new: str
    tests: tuple[str, ...]  # the test files (or node ids) that must catch it (-x: the first failure is enough)


MUTANTS = (
    # ------------------------------------------------------------------ the seat's live checks (deal/seat.py)
    Mutant("seat: no host signature check on CardDelivery", "watten_net/deal/seat.py",
           "        if not check_signature(signed, self.host_key):",
           '        if signed.type != "CardDelivery" and not check_signature(signed, self.host_key):', (SEAT,)),
    Mutant("seat: no signature check on a relayed envelope", "watten_net/deal/seat.py",
           "        if not proven and not check_signature(inner, self.roster_keys[seat]):", "        if False:",
           (SEAT,)),
    Mutant("seat: a relayed envelope in this seat's name is taken as its own unchecked", "watten_net/deal/seat.py",
           "        return inner, False", "        return inner, inner.sender == self.seat", (OWN_ECHO,)),
    Mutant("seat: an own envelope not held as made is taken unsigned", "watten_net/deal/seat.py",
           "            if not self.check_seat_signature(inner):", "            if False:", (OWN_ECHO,)),
    Mutant("seat: no card-opening check", "watten_net/deal/seat.py",
           'raise self.fault(Reason.CARD_COMMIT_MISMATCH, f"card {card} at position {k} does not open its commitment")',
           "pass", (SEAT,)),
    Mutant("seat: a card may be played twice", "watten_net/deal/seat.py",
           "            if k in self.played_positions:", "            if False:", (SEAT,)),
    Mutant("seat: no chain link check", "watten_net/deal/seat.py",
           "or env.prev_hash != self.chain_head:", ":", (SEAT,)),
    Mutant("seat: no TLS fingerprint check of the header", "watten_net/deal/seat.py",
           "bytes(h.host_tls_fingerprint) != self.tls_fingerprint:", "False:", (HOSTILE,)),
    Mutant("seat: a checkpoint over another head is signed", "watten_net/deal/seat.py",
           "if p.chain_seq != self.chain_seq - 1 or not self._head_before(signed):", "if False:", (SEAT,)),
    # ------------------------------------------------------------------ the seat's Level 1 checks (level1_seat.py)
    Mutant("level1_seat: no KeySet own-entry check", "watten_net/deal/level1_seat.py",
           "        if commitments[game.seat] != mine and not game.observer:", "        if False:", (SEAT,)),
    Mutant("level1_seat: a KeySet entry's signature is not checked", "watten_net/deal/level1_seat.py",
           "\n                    or not (game.made_here(raw) or check_signature(inner, game.roster_keys[seat]))", "",
           (SEAT,)),
    Mutant("level1_seat: no opening check of a relayed KeyReveal", "watten_net/deal/level1_seat.py",
           "seat_key_commitment(\n                game.game_id, seat, game.header_hash, key) != self.commitments[seat]",
           "False", (SEAT,)),
    Mutant("level1_seat: the host key is not checked against K_H", "watten_net/deal/level1_seat.py",
           " or host_key_commitment(game.game_id, key) != bytes(game.header.host_key_commitment)", "", (SEAT,)),
    Mutant("level1_seat: the deck is not recomputed from every key", "watten_net/deal/level1_seat.py",
           "        if seal_deck(secret, game.game_id, h, a, deck) != self.sealed[hand]:", "        if False:",
           (SEAT,)),
    # ------------------------------------------------------------------ the seat's Level 2 checks (level2_seat.py)
    Mutant("level2_seat: a share is given for a card its recipient may not see", "watten_net/deal/level2_seat.py",
           "        if not due:", "        if False:", (TRUSTLESS,)),
    Mutant("level2_seat: an opening's claimed card is not compared", "watten_net/deal/level2_seat.py",
           "            if card != opening.card:", "            if False:", (TRUSTLESS,)),
    Mutant("level2_seat: a seat's action is not checked for its signature", "watten_net/deal/level2_seat.py",
           " or not (\n                proven or self.game.check_seat_signature(inner)):", ":", (TRUSTLESS,)),
    Mutant("level2_seat: the host's score is not replayed", "watten_net/deal/level2_seat.py",
           "        if [int(x) for x in p.scores] != list(self.match.scores):", "        if False:", (TRUSTLESS,)),
    # ------------------------------------------------------------------ the verifier (verify.py)
    Mutant("verify: no own-envelope count", "watten_net/verify.py",
           "    if owner is not None and expected_seq - 1 != game.seat_chains[owner].seq:", "    if False:",
           (VERIFY,)),
    Mutant("verify: no 'chain envelope not sent by the host' check", "watten_net/verify.py",
           "        if signed.sender != HOST_SEAT:", "        if False:", (VERIFY,)),
    Mutant("verify: no header roster check", "watten_net/verify.py",
           "    if len(header.roster) != rules.players or len(header.join_nonces) != rules.players:", "    if False:",
           (VERIFY,)),
    Mutant("verify: no deal-mode check", "watten_net/verify.py",
           """    if deal not in ("verified", "trustless") or (deal == "trustless" and rules.blind):""",
           "    if False:",
           (VERIFY,)),
    Mutant("verify: a StandIn may name a seat that does not exist", "watten_net/verify.py",
           "            if not 0 <= p.seat < game.n:", "            if False:", (VERIFY,)),
    Mutant("verify: a disclosed envelope's signature is not checked", "watten_net/verify.py",
           "            if signed.seq != target.seq or not check_signature(signed, host_key):", "            if False:",
           (VERIFY,)),
    # ------------------------------------------------------------------ the host's refusals (level1.py, host_game.py)
    Mutant("level1: a KeySetSignature over the wrong hash is accepted", "watten_net/deal/level1.py",
           "        if p.key_set_hash != self.keys.key_set:", "        if False:", (HOST,)),
    Mutant("level1: a duplicate KeySetSignature is accepted", "watten_net/deal/level1.py",
           "        if seat in self.keys.signed:", "        if False:", (HOST,)),
    Mutant("level1: a duplicate KeyReveal is accepted", "watten_net/deal/level1.py",
           "        if seat in self.keys.keys:", "        if False:", (HOST,)),
    Mutant("level1: a KeyReveal that does not open is accepted", "watten_net/deal/level1.py",
           " or seat_key_commitment(self.game_id, seat, self._header_hash(), bytes(p.key)) != \\\n"
           "                self.keys.commits[seat][0]:", ":", (HOST,)),
    Mutant("level1: a DeckSealedSignature for another attempt is accepted", "watten_net/deal/level1.py",
           "        if p.hand != att.hand or p.attempt != att.attempt:", "        if False:", (HOST,)),
    Mutant("level1: a duplicate DeckSealedSignature is accepted", "watten_net/deal/level1.py",
           "        if seat in att.seal_signed:", "        if False:", (HOST,)),
    Mutant("host_game: a duplicate CheckpointSignature is accepted", "watten_net/deal/host_game.py",
           "        if seat in self.checkpoint_signed:", "        if False:", (HOST,)),
    Mutant("host_game: no stand-in recomputation", "watten_net/deal/host_game.py",
           "        if action is not None and normalise_action(action) != move:", "        if False:", (HOSTILE,)),
    Mutant("level2: a seat may share the cards dealt to itself", "watten_net/deal/level2.py",
           "        if seat == ask.recipient:", "        if False:", (TRUSTLESS_HOST,)),
    Mutant("level2: a share of a position not asked for is taken", "watten_net/deal/level2.py",
           "                if k not in ask.positions or k in seen:", "                if False:", (TRUSTLESS_HOST,)),
    Mutant("level2: a public share of a card its sender has seen is taken", "watten_net/deal/level2.py",
           "                if seat in att.learnt.get(k, ()):", "                if False:",
           (TRUSTLESS_HOST + "::test_a_public_share_of_a_card_its_sender_has_seen",)),
    Mutant("level2: an opening without its owner's share is taken", "watten_net/deal/level2.py",
           "                if seat not in extra:", "                if False:", (TRUSTLESS_HOST,)),
    # ------------------------------------------------------------------ the lobby (host/lobby.py)
    Mutant("lobby: no seat-taken check", "host/lobby.py",
           "            if self.seats[wanted] is not None:", "            if False:", (LOBBY,)),
    Mutant("lobby: no TLS fingerprint comparison of a join proof", "host/lobby.py",
           "        if fingerprint != own:", "        if False:", (LOBBY,)),
    Mutant("lobby: a join proof's nonce may be used twice", "host/lobby.py",
           "        if nonce in self.used_nonces:", "        if False:", (LOBBY,)),
    Mutant("lobby: no join-nonce length check", "host/lobby.py",
           'raise TableRefusal(Code.INVALID, Reason.BAD_NONCE, "the join nonce must be 32 bytes")', "pass", (LOBBY,)),
    Mutant("lobby: a new key joins a started game", "host/lobby.py",
           'raise TableRefusal(Code.PRECONDITION, Reason.GAME_STARTED, "the game has started: every seat is taken")',
           "pass", (LOBBY,)),
)


@dataclass(frozen=True)
class Outcome:
    mutant: Mutant
    status: str  # "caught", "SURVIVED" or "ERROR"
    seconds: float
    detail: str = ""


def _copy(into: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "_tmp*")
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, into / name, ignore=ignore)
        else:
            shutil.copy2(source, into / name)


def _pytest(copy: Path, tests: tuple[str, ...], timeout: float) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPATH", None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *tests],
        cwd=copy, env=env, capture_output=True, text=True, timeout=timeout, check=False)


def run(mutants: tuple[Mutant, ...] = MUTANTS, timeout: float = 120.0) -> list[Outcome]:
    """Plant each mutant in turn into one temporary copy and run its tests there."""
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="watten-mutants-") as tmp:
        copy = Path(tmp)
        _copy(copy)
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        imported = subprocess.run([sys.executable, "-c", "import watten_net, host; print(watten_net.__file__); "
                                   "print(host.__file__)"], cwd=copy, env=env, capture_output=True, text=True,
                                  check=True).stdout.split()
        if not all(Path(p).resolve().is_relative_to(copy.resolve()) for p in imported):
            raise RuntimeError(f"the copy is not what gets imported: {imported}")
        # Unmutated, every chosen test passes: a failure below is the mutant's doing.
        files = tuple(sorted({t.split("::")[0] for m in mutants for t in m.tests}))
        baseline = _pytest(copy, files, timeout)
        if baseline.returncode != 0:
            raise RuntimeError("the tests fail without any mutant:\n"
                               f"{baseline.stdout[-2000:]}{baseline.stderr[-2000:]}")
        for mutant in mutants:
            target = copy / mutant.path
            original = target.read_text()
            planted = _plant(mutant, original)
            if planted is None:
                outcomes.append(Outcome(mutant, "ERROR", 0.0, "the text to replace does not occur exactly once"))
                continue
            target.write_text(planted)
            start = time.monotonic()
            try:
                done = _pytest(copy, mutant.tests, timeout)
            except subprocess.TimeoutExpired:
                outcomes.append(Outcome(mutant, "ERROR", time.monotonic() - start, "timed out"))
                continue
            finally:
                target.write_text(original)
            seconds = time.monotonic() - start
            status = {1: "caught", 0: "SURVIVED"}.get(done.returncode, "ERROR")
            failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED ")]
            if status == "caught":
                detail = failed[0][len("FAILED "):] if failed else ""
            elif status == "ERROR":
                detail = f"pytest exit {done.returncode}: {done.stdout[-800:]}{done.stderr[-800:]}"
            else:
                detail = "every test passed"
            outcomes.append(Outcome(mutant, status, seconds, detail))
    return outcomes


# The security-critical modules and the test files that must notice a disabled guard in each.
SWEEP: dict[str, tuple[str, ...]] = {
    "watten_net/deal/seat.py": (SEAT, HOSTILE, OWN_ECHO),
    "watten_net/deal/level1_seat.py": (SEAT, HOSTILE),
    "watten_net/deal/level1.py": (HOST, HOSTILE),
    "watten_net/deal/level2_seat.py": (TRUSTLESS,),
    "watten_net/deal/level2.py": (TRUSTLESS_HOST,),
    "watten_net/verify.py": (VERIFY, HOSTILE, "tests/test_verify_tamper.py"),
    "host/lobby.py": (LOBBY, "tests/test_join_proof.py::test_the_nonces_a_table_keeps_are_bounded_and_churn_cannot_"
                             "lock_a_seat_out", "tests/test_arrange.py",  # (Ready after the host's last match)
                      "tests/test_spectators.py::test_sixteen_spectators_are_counted_none_may_act_and_the_"
                      "seventeenth_is_refused"),  # (a spectator's token used to act)
    "host/table.py": (LOBBY,),  # (Start's guards; the lobby's own are in host/lobby.py)
    "host/submissions.py": (LOBBY,),
}
_GUARD = re.compile(r"^(?P<indent>\s*)(?P<kw>if|elif) (?P<cond>.+):\s*$")


def guard_mutants(path: str, tests: tuple[str, ...]) -> tuple[Mutant, ...]:
    """Every one-line guard of a refusal in `path`, disabled: `if COND:` -> `if False:` (by line, so that a guard
    written twice gets two mutants). A refusal is raised, or (host/submissions.py's batch) made to be answered once
    the batch is on disk: a guard whose next line makes a TableRefusal."""
    lines = (ROOT / path).read_text().splitlines(keepends=True)
    out = []
    for i, line in enumerate(lines[:-1]):
        m = _GUARD.match(line)
        body = lines[i + 1].lstrip()
        refuses = ((body.startswith("raise ") and not body.startswith("raise asyncio.CancelledError"))
                   or "TableRefusal(" in body)  # (a cancellation re-raised once a change is out whole is no refusal)
        if m and refuses and m["cond"].strip() != "False" and not m["cond"].startswith("__name__"):
            out.append(Mutant(f"{path}:{i + 1}: {m['cond'].strip()[:70]}", path, f"@{i}",
                              f"{m['indent']}{m['kw']} False:\n", tests))
    return tuple(out)


def _plant(mutant: Mutant, original: str) -> str | None:
    """The module's text with `mutant` in it; None when its text is not there exactly once."""
    if mutant.old.startswith("@"):  # a line of the sweep
        lines = original.splitlines(keepends=True)
        lines[int(mutant.old[1:])] = mutant.new
        return "".join(lines)
    return original.replace(mutant.old, mutant.new) if original.count(mutant.old) == 1 else None


def sweep(only: list[str]) -> int:
    total_caught = total = 0
    for path, tests in SWEEP.items():
        if only and path not in only:
            continue
        outcomes = run(guard_mutants(path, tests))
        caught = sum(o.status == "caught" for o in outcomes)
        total_caught, total = total_caught + caught, total + len(outcomes)
        print(f"{path}: {caught} of {len(outcomes)} caught")
        for o in outcomes:
            if o.status != "caught":
                print(f"  {o.status:8} {o.mutant.name}: {o.detail[:120]}")
    print(f"all: {total_caught} of {total} caught")
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--sweep"]:
        return sweep(argv[1:])
    chosen = tuple(m for m in MUTANTS if not argv or m.name in argv)
    outcomes = run(chosen)
    for o in outcomes:
        print(f"{o.status:8} {o.seconds:4.1f}s  {o.mutant.name}: {o.detail[:150]}")
    caught = sum(o.status == "caught" for o in outcomes)
    print(f"{caught} of {len(outcomes)} mutants caught")
    return 0 if caught == len(outcomes) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
