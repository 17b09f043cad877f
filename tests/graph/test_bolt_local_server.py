"""The local FalkorDB that tests and benchmarks start serves Bolt to this machine only: FalkorDB binds its
Bolt port to every interface, so it runs in a network namespace with nothing but lo, behind a forwarder
on 127.0.0.1; the checks that say so read /proc/net/tcp, tcp6 and dev, tested here on fixed text."""

from __future__ import annotations

import fcntl
import ipaddress
import os
import socket
import struct
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from support.bolt import falkordb

from arkg.errors import ArkgError
from arkg.graph.bolt import BoltGraph
from arkg.graph.bolt.local_server import (
    INNER_BOLT_PORT,
    check_confined,
    is_loopback,
    listening_addresses,
    network_interfaces,
    parse_listening,
)

# Port 7687 (1E07): IPv4 listeners on 127.0.0.1 and 0.0.0.0, a connection to it (state 01, not a
# listener), a listener on another port; IPv6 listeners on ::1, ::ffff:127.0.0.2 and [::].
TCP = """\
  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1E07 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 37755 1 0000000019d2f0e9 100 0 0 10 0
   1: 00000000:1E07 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 37756 1 0000000019d2f0e9 100 0 0 10 0
   2: 0100007F:1E07 0100007F:D953 01 00000000:00000000 00:00000000 00000000     0        0 37757 1 0000000019d2f0e9 20 4 30 10 -1
   3: 0100007F:18EB 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 37758 1 0000000019d2f0e9 100 0 0 10 0
"""
TCP6 = """\
  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:1E07 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 37756 1 000000003a0128d5 100 0 0 10 0
   1: 0000000000000000FFFF00000200007F:1E07 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 37757 1 0000000065c61241 100 0 0 10 0
   2: 00000000000000000000000000000000:1E07 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 33291 1 00000000dcba1a26 100 0 0 10 0
"""
DEV = """\
Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:    1234      12    0    0    0     0          0         0     1234      12    0    0    0     0       0          0
  eth0: 9876543    4321    0    0    0     0          0         0   123456     321    0    0    0     0       0          0
"""


def test_the_listeners_of_a_port_are_read_from_proc_net_tcp_and_tcp6() -> None:
    assert parse_listening(TCP, 7687, "little") == [ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("0.0.0.0")]
    assert parse_listening(TCP6, 7687, "little") == [
        ipaddress.ip_address("::1"),
        ipaddress.ip_address("::ffff:127.0.0.2"),
        ipaddress.ip_address("::"),
    ]
    assert parse_listening(TCP, 6379, "little") == [ipaddress.ip_address("127.0.0.1")]  # 18EB
    assert parse_listening(TCP, 80, "little") == []
    loopback = [is_loopback(address) for address in parse_listening(TCP + TCP6.split("\n", 1)[1], 7687, "little")]
    assert loopback == [True, False, True, True, False]
    assert network_interfaces(DEV) == ["eth0", "lo"]


def test_the_parser_reads_this_machine_as_it_is() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        probe.listen()
        port = probe.getsockname()[1]
        assert listening_addresses(port) == [ipaddress.ip_address("127.0.0.1")]
    assert listening_addresses(port) == []


def fake_proc(root: Path, tcp: str, tcp6: str, dev: str, *, same_namespace: bool = False) -> Path:
    """A /proc with `self` and the server's process 42, each in a network namespace of its own."""
    theirs = "net:[4026531840]" if same_namespace else "net:[4026532999]"
    for pid, namespace in (("self", "net:[4026531840]"), ("42", theirs)):
        (root / pid / "ns").mkdir(parents=True)
        (root / pid / "ns" / "net").symlink_to(namespace)
        (root / pid / "net").mkdir()
    (root / "self" / "net" / "tcp").write_text(tcp)
    (root / "self" / "net" / "tcp6").write_text(tcp6)
    (root / "42" / "net" / "dev").write_text(dev)
    return root


def test_the_check_refuses_a_bolt_port_that_listens_on_every_interface(tmp_path: Path) -> None:
    header6 = TCP6.splitlines(keepends=True)[0]
    loopback_only = "".join(TCP.splitlines(keepends=True)[:2])  # the header and 127.0.0.1
    lo = "".join(DEV.splitlines(keepends=True)[:3])
    check_confined(7687, 42, fake_proc(tmp_path / "good", loopback_only, header6, lo))
    with pytest.raises(ArkgError, match=r"port 7687 listens on every interface \(0\.0\.0\.0\).*refusing"):
        check_confined(7687, 42, fake_proc(tmp_path / "v4", TCP, header6, lo))
    with pytest.raises(ArkgError, match=r"port 7687 listens on every interface \(::\).*refusing"):
        everywhere6 = header6 + TCP6.splitlines(keepends=True)[3]
        check_confined(7687, 42, fake_proc(tmp_path / "v6", loopback_only, everywhere6, lo))
    with pytest.raises(ArkgError, match="nothing listens on port 6380"):
        check_confined(6380, 42, fake_proc(tmp_path / "none", loopback_only, header6, lo))
    with pytest.raises(ArkgError, match="runs in this machine's network namespace"):
        check_confined(7687, 42, fake_proc(tmp_path / "same", loopback_only, header6, lo, same_namespace=True))
    with pytest.raises(ArkgError, match="interfaces besides lo: eth0, lo"):
        check_confined(7687, 42, fake_proc(tmp_path / "eth0", loopback_only, header6, DEV))


def this_machines_addresses() -> list[str]:
    """Every IPv4 and global IPv6 address of this machine's interfaces other than lo."""
    addresses = []
    for name in network_interfaces(Path("/proc/self/net/dev").read_text()):
        if name == "lo":
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as control:
            try:  # SIOCGIFADDR
                answer = fcntl.ioctl(control.fileno(), 0x8915, struct.pack("256s", name.encode()))
            except OSError:
                continue  # no IPv4 address
            addresses.append(socket.inet_ntoa(answer[20:24]))
    for line in Path("/proc/net/if_inet6").read_text().splitlines() if Path("/proc/net/if_inet6").exists() else []:
        raw, _, _, scope, _, name = line.split()
        if name != "lo" and scope == "00":  # global scope: link-local ones need an interface to reach
            addresses.append(str(ipaddress.IPv6Address(bytes.fromhex(raw))))
    return addresses


def falkordb_process(workdir: Path) -> int:
    """The process id of the redis-server that runs in `workdir` (it rewrites its command line)."""
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "comm").read_text().strip() == "redis-server":
                if Path(os.readlink(entry / "cwd")) == workdir:
                    return int(entry.name)
        except OSError:
            continue  # gone meanwhile, or not ours to read
    raise AssertionError(f"no redis-server runs in {workdir}")


def test_falkordb_serves_bolt_to_this_machine_only(tmp_path: Path) -> None:
    with falkordb(tmp_path) as url:
        port = urlsplit(url).port
        assert port is not None
        with BoltGraph(url) as graph:
            assert graph.stats().triples == 0
        # Here, only a loopback address listens on the Bolt port: no other address of the machine reaches it.
        listeners = listening_addresses(port)
        assert listeners and all(is_loopback(address) for address in listeners), listeners
        for address in this_machines_addresses():
            with pytest.raises(ConnectionRefusedError):
                socket.create_connection((address, port), timeout=5).close()
        # FalkorDB itself listens on every interface, of a network namespace that has none but lo.
        server = falkordb_process(tmp_path)
        assert os.readlink(f"/proc/{server}/ns/net") != os.readlink("/proc/self/ns/net")
        assert network_interfaces(Path(f"/proc/{server}/net/dev").read_text()) == ["lo"]
        assert listening_addresses(INNER_BOLT_PORT, Path(f"/proc/{server}/net")) == [ipaddress.ip_address("::")]
    assert not Path(f"/proc/{server}").exists()  # stopped with the server
