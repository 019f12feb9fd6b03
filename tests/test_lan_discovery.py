"""A real LAN in a test: two network namespaces joined by a veth pair, the host in one, the joining machine in the
other, and mDNS between them (issue #13).

The namespaces have their own interfaces, addresses and multicast: what the host announces reaches the other
namespace over the veth link and nothing else (no other interface is in either namespace, so nothing is sent to any
other address). They are made with `ip netns add` (root and iproute2; CI runs as root) and always removed at the end;
where they cannot be made the test is skipped with the reason.

    host namespace   lo + veth 10.77.x.1/24, fd77:x::1/64   watten-host --headless --bots 3
    guest namespace  lo + veth 10.77.x.2/24, fd77:x::2/64   watten-join --list [--json]; watten-join --bot heuristic
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from netutil import ROOT, Proc, isolated_env

pytestmark = pytest.mark.network


def ip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)


@dataclass
class Lan:
    host_ns: str
    guest_ns: str
    host_v4: str
    host_v6: str

    def run(self, ns: str, module: str, args: list[str], env: dict[str, str]) -> Proc:
        """`python -m module args` inside namespace `ns` (its output read as netutil's processes are)."""
        command = ["ip", "netns", "exec", ns, sys.executable, "-m", module, *args]
        return Proc(subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True))

    def join(self, args: list[str], env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["ip", "netns", "exec", self.guest_ns, sys.executable, "-m", "client.main", *args],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def _make_lan(tag: str, subnet: int) -> Lan:
    host_ns, guest_ns = f"wn{tag}h", f"wn{tag}g"
    for ns in (host_ns, guest_ns):
        made = ip("netns", "add", ns)
        if made.returncode != 0:
            pytest.skip(f"cannot make a network namespace here (`ip netns add`: {made.stderr.strip()})")
    link = ip("link", "add", f"wv{tag}h", "netns", host_ns, "type", "veth", "peer", "name", f"wv{tag}g",
              "netns", guest_ns)
    assert link.returncode == 0, link.stderr
    for ns, end, last in ((host_ns, "h", 1), (guest_ns, "g", 2)):
        device = f"wv{tag}{end}"
        for step in (["link", "set", "lo", "up", "multicast", "on"],
                     ["link", "set", device, "up", "multicast", "on"],
                     ["addr", "add", f"10.77.{subnet}.{last}/24", "dev", device],
                     ["-6", "addr", "add", f"fd77:{subnet}::{last}/64", "dev", device, "nodad"]):
            done = ip("-n", ns, *step)
            assert done.returncode == 0, (step, done.stderr)
    return Lan(host_ns, guest_ns, f"10.77.{subnet}.1", f"fd77:{subnet}::1")


@pytest.fixture
def lan() -> Iterator[Lan]:
    if shutil.which("ip") is None:
        pytest.skip("iproute2's `ip` is not installed: no network namespaces")
    if os.geteuid() != 0:
        pytest.skip("network namespaces need root (CI runs as root)")
    tag = f"{os.getpid() % 100000}"  # (unique per test process: parallel runs do not meet)
    made: list[str] = []
    try:
        lan = _make_lan(tag, os.getpid() % 250)
        made = [lan.host_ns, lan.guest_ns]
        yield lan
    finally:
        for ns in made or [f"wn{tag}h", f"wn{tag}g"]:
            ip("netns", "del", ns)  # (the veth pair goes with its namespaces)
        left = ip("netns", "list").stdout
        assert f"wn{tag}h" not in left and f"wn{tag}g" not in left, left


def _listed(lan: Lan, env: dict[str, str], tries: int = 5) -> list[dict[str, object]]:
    """`watten-join --list --json` in the guest namespace, again while the host's name is still being probed."""
    for _ in range(tries):
        listed = lan.join(["--list", "--json"], env)
        if listed.returncode == 0:
            return [json.loads(line) for line in listed.stdout.splitlines()]
    raise AssertionError(f"nothing listed after {tries} tries: {listed.stdout} {listed.stderr}")


@pytest.mark.slow  # (a whole match: about 13 s)
def test_a_friend_on_the_lan_finds_the_table_by_mdns_and_plays_it_without_an_address(lan: Lan, tmp_path: Path) -> None:
    env = isolated_env(tmp_path)
    host = lan.run(lan.host_ns, "host.main", ["--headless", "--bots", "3", "--port", "0"], env)
    try:
        port = int(host.wait_for_line(r"on port (\d+)").group(1))
        fingerprint = host.wait_for_line(r"TLS certificate fingerprint ([0-9a-f ]+)").group(1)
        # The banner shows the veth addresses, both families, and the command without an address.
        host.wait_for_line(re.escape(f"or: watten-join {lan.host_v4}:{port}"))
        host.wait_for_line(re.escape(f"or: watten-join [{lan.host_v6}]:{port}"))
        host.wait_for_line(r"join with: watten-join   \(it finds this table on the LAN\)")
        assert "127.0.0.1" not in host.output()

        [table] = _listed(lan, env)
        assert table["port"] == port and table["addresses"] == [lan.host_v4, lan.host_v6]
        assert (table["rules"], table["players"], table["free"], table["deal"]) == ("bavarian", 4, 1, "verified")
        assert table["tls"] is True and fingerprint.replace(" ", "").startswith(str(table["fingerprint_prefix"]))
        text = lan.join(["--list"], env)
        assert text.returncode == 0 and re.fullmatch(
            r" 1  \S+: bavarian, 4 players, 1 seat free, verified deal, TLS [0-9a-f]{8}…, "
            rf"at {re.escape(lan.host_v4)}, {re.escape(lan.host_v6)} port {port}\n", text.stdout), text.stdout

        # A bot with no address: found by mDNS, its pin compared with the certificate, the match played to its end.
        bot = lan.join(["--bot", "heuristic", "--fingerprint", fingerprint], env, timeout=300)
        assert bot.returncode == 0, bot.stdout + bot.stderr
        assert re.search(rf"seat 3 at {re.escape(lan.host_v4)}:{port} \(table {table['table']}\)", bot.stdout)
        assert "own record verified" in bot.stdout, bot.stdout
        assert host.wait(120) == 0, host.output()
        assert "match over; record written to" in host.output()
    finally:
        host.stop()
    # The host withdrew its announcement when it exited: nobody finds it any more.
    gone = lan.join(["--list"], env)
    assert gone.returncode == 1 and "no Watten table found on the LAN" in gone.stderr


def test_a_host_on_loopback_only_or_with_no_announce_is_not_announced(lan: Lan, tmp_path: Path) -> None:
    env = isolated_env(tmp_path)
    loopback = lan.run(lan.host_ns, "host.main", ["--headless", "--bots", "3", "--port", "0", "--bind", "127.0.0.1",
                                                   "--insecure"], env)
    quiet = lan.run(lan.host_ns, "host.main", ["--headless", "--bots", "3", "--port", "0", "--no-announce",
                                                "--insecure"], env)
    try:
        port = int(loopback.wait_for_line(r"on port (\d+)").group(1))
        loopback.wait_for_line(re.escape(f"listening on this machine only (127.0.0.1): join here with watten-join "
                                         f"127.0.0.1:{port} --insecure; --bind 0.0.0.0 lets the LAN in"))
        quiet_port = int(quiet.wait_for_line(r"on port (\d+)").group(1))
        # Without the announcement the banner still names the veth address, with --insecure in the command.
        quiet.wait_for_line(re.escape(f"join with: watten-join {lan.host_v4}:{quiet_port} --insecure"))
        # (`--list` looks for two seconds, longer than an announced name's probing takes)
        listed = lan.join(["--list"], env)
        assert listed.returncode == 1 and listed.stdout == "", listed.stdout
        assert "finds this table" not in loopback.output() + quiet.output()
    finally:
        loopback.stop()
        quiet.stop()
