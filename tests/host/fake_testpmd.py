#!/usr/bin/env python3
"""A stand-in for dpdk-testpmd in tests/host/test_testpmd.py: it speaks
just enough of testpmd's start-up output, prompt and statistics blocks for
the runner's error paths, without polling a core.  FAKE_TESTPMD_MODE:
  ok          sockets, prompt, statistics on request, "quit" ends it
  port-fail   testpmd's messages for a port that cannot start, then prompt
  cores       EAL's refusal of an unavailable lcore, exit status 1
  silent      prints nothing and sleeps (readiness timeout)
  crash       like ok, but dies by SIGKILL after the first statistics
  events      like ok, but the first port statistics carry the event lines
              QEMU's closing sockets cause, one of them inside a counter's
              line (as testpmd's other threads print them)
  moving      like ok, but every reading counts one more frame
FAKE_TESTPMD_STUBBORN=1: do not end when stdin closes (only a signal
ends it), so that PR_SET_PDEATHSIG is what the test sees.
FAKE_TESTPMD_PIDFILE: write the pid and the EAL runtime directory there
first.  Only the private directory and that runtime directory are touched."""

import os
import signal
import sys
import time

NIC = """  ######################## NIC statistics for port {p}  ########################
  RX-packets: {rx}          RX-missed: 0          RX-bytes:  {rxb}
  RX-errors: 0
  RX-nombuf:  0
  TX-packets: {tx}          TX-errors: 0          TX-bytes:  {txb}

  Throughput (since last show)
  Rx-pps:            0          Rx-bps:            0
  Tx-pps:            0          Tx-bps:            0
  ############################################################################
"""
FWD = """  ---------------------- Forward statistics for port {p}  ----------------------
  RX-packets: {rx}             RX-dropped: 0             RX-total: {rx}
  TX-packets: {tx}             TX-dropped: 0             TX-total: {tx}
  ----------------------------------------------------------------------------
"""


def arg_after(flag):
    argv = sys.argv
    return argv[argv.index(flag) + 1] if flag in argv else None


def sockets():
    return [a.split("iface=", 1)[1] for a in sys.argv if "iface=" in a]


def runtime_dir():
    prefix = arg_after("--file-prefix")
    base = "/var/run" if os.getuid() == 0 else os.environ.get(
        "XDG_RUNTIME_DIR", "/tmp")
    return os.path.join(base, "dpdk", prefix)


EVENT = "\nPort 0: link state change event\n"


def port_stats(mode, reading):
    extra = reading if mode == "moving" else 0
    text = "".join(NIC.format(p=p, rx=(100 + extra) * (1 - p),
                              rxb=6400 * (1 - p), tx=100 * p, txb=6400 * p)
                   for p in (0, 1))
    if mode == "events" and reading == 0:
        head = text.index("\n") + 1
        text = text[:head] + EVENT + text[head:]        # after port 0's head
        split = text.index("RX-packets: 0") + len("RX-packets: ")
        text = text[:split] + EVENT + text[split:]      # inside port 1's line
    return text


def serve(mode):
    readings = 0
    os.makedirs(runtime_dir(), exist_ok=True)
    for path in sockets():
        open(path, "w").close()
    print("Configuring Port 0 (socket 0)\nConfiguring Port 1 (socket 0)")
    print("testpmd> ", end="", flush=True)
    for line in sys.stdin:
        cmd = line.strip()
        if cmd == "quit":
            break
        if cmd == "show port stats all":
            print(port_stats(mode, readings))
            readings += 1
        elif cmd == "show fwd stats all":
            print("".join(FWD.format(p=p, rx=100 * (1 - p), tx=100 * p)
                          for p in (0, 1)))
            if mode == "crash":
                os.kill(os.getpid(), signal.SIGKILL)
        print("testpmd> ", end="", flush=True)
    else:
        while os.environ.get("FAKE_TESTPMD_STUBBORN"):
            time.sleep(1)
    for path in sockets():
        os.unlink(path)
    print("Bye...")


def main():
    pidfile = os.environ.get("FAKE_TESTPMD_PIDFILE")
    if pidfile:
        with open(pidfile, "w") as fh:
            fh.write("%d\n%s\n" % (os.getpid(), runtime_dir()))
    mode = os.environ.get("FAKE_TESTPMD_MODE", "ok")
    if mode == "port-fail":
        print("Failed to start driver for %s" % sockets()[0])
        print("Port0 dev_configure = -1\nFail to configure port 0")
        print("Start ports failed\ntestpmd> ", end="", flush=True)
        for line in sys.stdin:
            if line.strip() == "quit":
                break
    elif mode == "cores":
        print("EAL: lcore 2 unavailable\nEAL: invalid core list, please "
              "check specified cores are part of 0-1", flush=True)
        sys.exit(1)
    elif mode == "silent":
        time.sleep(600)
    else:
        serve(mode)


if __name__ == "__main__":
    main()
