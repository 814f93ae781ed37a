"""A minimal QMP client (QEMU Machine Protocol over a unix socket) for
reading the vCPU exit counters with `query-stats` (QEMU >= 7.1 under KVM)
and pausing the VM while they are read.

QEMU option used by the runner: -qmp unix:PATH,server=on,wait=off."""

import json
import os
import socket
import time

from ..values import exitstatus
from ..values.errors import TrapmeterError

CONNECT_TIMEOUT_S = 10.0
REPLY_TIMEOUT_S = 10.0
# vCPU statistics that say how often and why the guest left the CPU.
EXIT_STATS = ("exits", "io_exits", "mmio_exits", "insn_emulation",
              "halt_exits")


class QmpError(TrapmeterError):
    """QMP is unreachable or answered with an error."""

    code = exitstatus.QEMU_ERROR


class Qmp:
    """One QMP connection: handshake, commands, events skipped."""

    def __init__(self, path, timeout=CONNECT_TIMEOUT_S, alive=None):
        self.sock = None
        self._buf = b""
        self._next_id = 0
        self._pending = {}          # id -> name of commands not yet answered
        deadline = time.monotonic() + timeout
        while True:
            try:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.settimeout(REPLY_TIMEOUT_S)
                sock.connect(path)
                self.sock = sock
                break
            except OSError as exc:
                sock.close()
                if time.monotonic() > deadline or (alive and not alive()):
                    raise QmpError("cannot connect to QMP socket: %s"
                                   % (exc.strerror or exc))
                time.sleep(0.02)
        greeting = self._read_obj()
        if "QMP" not in greeting:
            raise QmpError("no QMP greeting (got %r)" % greeting)
        self.command("qmp_capabilities")

    def close(self):
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
            self.sock = None

    def _read_obj(self):
        while b"\n" not in self._buf:
            try:
                chunk = self.sock.recv(65536)
            except OSError as exc:
                raise QmpError("QMP read failed: %s" % (exc.strerror or exc))
            if not chunk:
                raise QmpError("QMP connection closed by QEMU")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        try:
            obj = json.loads(line)
        except ValueError:
            raise QmpError("QMP sent invalid JSON: %r" % line[:80])
        if not isinstance(obj, dict):
            raise QmpError("QMP sent a non-object: %r" % line[:80])
        return obj

    def _encode(self, name, arguments=None):
        """One command line with a fresh id, noted as pending."""
        self._next_id += 1
        msg = {"execute": name, "id": self._next_id}
        if arguments:
            msg["arguments"] = arguments
        self._pending[self._next_id] = name
        return self._next_id, json.dumps(msg).encode() + b"\n"

    def send(self, *commands):
        """Write commands ((name, arguments or None), ...) in one go,
        without waiting; returns their ids for wait()."""
        ids, data = [], b""
        for name, arguments in commands:
            cmd_id, line = self._encode(name, arguments)
            ids.append(cmd_id)
            data += line
        try:
            self.sock.sendall(data)
        except OSError as exc:
            raise QmpError("QMP write failed: %s" % (exc.strerror or exc))
        return ids

    def wait(self, cmd_id):
        """The reply to command cmd_id.  Replies to earlier commands sent
        without waiting are taken on the way (an error in one is raised
        here), events are skipped."""
        while True:
            obj = self._read_obj()
            if "event" in obj:
                continue
            rid = obj.get("id")
            name = self._pending.pop(rid, None)
            if "error" in obj:
                err = obj["error"]
                raise QmpError("QMP %s failed: %s" % (
                    name or "command", err.get("desc", err)
                    if isinstance(err, dict) else err))
            if rid == cmd_id and "return" in obj:
                return obj["return"]

    def command(self, name, **arguments):
        return self.wait(self.send((name, arguments))[0])

    def vcpu_stats(self, then=None, names=EXIT_STATS):
        """{stat name: value} summed over vCPUs, only those of names (the
        EXIT_STATS) that the host's KVM offers; {} when none (e.g. TCG).  then: a command sent
        in the same write after the query, whose reply is not waited for
        (the next wait takes it): QEMU runs a monitor's commands in order,
        so the counters are read before it runs (the sync points' "cont")."""
        commands = [("query-stats", {"target": "vcpu", "providers": [
            {"provider": "kvm", "names": list(names)}]})]
        if then is not None:
            commands.append((then, None))
        return sum_vcpu_stats(self.wait(self.send(*commands)[0]), names)


def sum_vcpu_stats(ret, names=EXIT_STATS):
    """Sum query-stats' per-vCPU integer values by name (pure)."""
    total = {}
    if not isinstance(ret, list):
        return total
    for entry in ret:
        stats = entry.get("stats") if isinstance(entry, dict) else None
        for stat in stats or []:
            name, value = stat.get("name"), stat.get("value")
            if name in names and isinstance(value, int) \
                    and not isinstance(value, bool):
                total[name] = total.get(name, 0) + value
    return total


def socket_path(tmpdir):
    return os.path.join(tmpdir, "qmp.sock")
