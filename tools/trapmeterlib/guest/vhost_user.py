"""The vhost-user NICs as QEMU and the backend agree on them: the two
sockets in the run's private directory, the guest RAM shared with the
backend, and the backend's options the runner reads (--testpmd-args,
its forwarding cores).  Pure; backends/testpmd.py starts the backend
itself (DPDK testpmd) on these sockets, guest/virtio.py adds the NICs."""

import os

from ..values import exitstatus
from ..values.errors import TrapmeterError

DEFAULT_BINARY = "dpdk-testpmd"
MEM_MB = 256                    # testpmd -m and QEMU's shared memory backend
MEM_ID = "tmmem"
SOCKETS = ("vhost0.sock", "vhost1.sock")


class TestpmdError(TrapmeterError):
    """testpmd could not serve the run; exit status BACKEND_ERROR."""

    code = exitstatus.BACKEND_ERROR


def split_args(text):
    """--testpmd-args "..." into words (no shell: spaces separate)."""
    return (text or "").split()


def forwarding_cores(app_args):
    """--nb-cores of the application options (the last one wins)."""
    value = 1
    for i, word in enumerate(app_args):
        if word.startswith("--nb-cores="):
            text = word.split("=", 1)[1]
        elif word == "--nb-cores" and i + 1 < len(app_args):
            text = app_args[i + 1]
        else:
            continue
        try:
            value = int(text)
        except ValueError:
            raise TestpmdError("--testpmd-args: --nb-cores needs a number "
                               "(got %r)" % text)
    return value


def qemu_args(private_dir):
    """QEMU options: guest RAM shared with the backend, two vhost-user
    NICs (the caller adds the -device properties)."""
    argv = ["-object", "memory-backend-memfd,id=%s,size=%dM,share=on"
            % (MEM_ID, MEM_MB), "-numa", "node,memdev=%s" % MEM_ID]
    for i, name in enumerate(SOCKETS):
        path = os.path.join(private_dir, name).replace(",", ",,")
        argv += ["-chardev", "socket,id=tmvc%d,path=%s" % (i, path),
                 "-netdev", "vhost-user,id=tmnet%d,chardev=tmvc%d" % (i, i)]
    return argv
