"""The virtio suite's side of the runner: the two virtio-net NICs on one
QEMU hub, the notification-path options (--virtio-transport, --ioeventfd),
the six-boot matrix's rows and table (--virtio-matrix; its boots:
commands/virtio_matrix.py), labels in results.json and the
per-size table.

The guest sends on NIC A and receives on NIC B; nothing leaves the VM:
  -netdev hubport,id=tmnet0,hubid=0 -device virtio-net-pci,netdev=tmnet0,...
  -netdev hubport,id=tmnet1,hubid=0 -device virtio-net-pci,netdev=tmnet1,...
or, with --virtio-backend vhost-user, each NIC is a vhost-user port of DPDK
testpmd, which forwards port 0 to port 1 (tools/trapmeterlib/backends/testpmd.py;
guest/vhost_user.py the sockets and options both sides agree on).

Suite dma uses the same pair (NIC A's frames land in NIC B's buffers) and a
third NIC on a hub of its own, which QEMU reads frames from and drops:
  -netdev hubport,id=tmnet2,hubid=1 -device virtio-net-pci,netdev=tmnet2,...
  -netdev hubport,id=tmsink,hubid=1
The second port of that hub has no peer: QEMU drops what reaches it (a hub
with no port to send to would hold the frame, net/hub.c can_receive).
With --viommu intel every NIC gets iommu_platform=on: its DMA (rings and
buffers) then goes through the IOMMU, which needs the modern transport.
"""

from ..values.numbers import number_or_none
from ..values.texttable import aligned
from . import viommu
from .dump import time_mark
from .vhost_user import (DEFAULT_BINARY, TestpmdError, forwarding_cores,
                         qemu_args, split_args)

# transport -> virtio-net-pci properties (QEMU 7.2 names)
TRANSPORTS = {
    "legacy": "disable-legacy=off,disable-modern=on",
    "modern": "disable-legacy=on",
    "modern-pio": "disable-legacy=on,modern-pio-notify=on",
}
IOEVENTFD = ("on", "off")
MATRIX = [(t, i) for t in ("legacy", "modern", "modern-pio") for i in IOEVENTFD]
DEFAULT_TRANSPORT = "modern"
DEFAULT_IOEVENTFD = "on"
NIC_COUNT = 2
MAC_FMT = "52:54:00:74:6d:%02x"
SUITE = "virtio"
DMA_SUITE = "dma"
LONE_HUB = 1            # suite dma's third NIC: alone on its hub
SINK = "hubport,id=tmsink,hubid=%d" % LONE_HUB
IOMMU_PLATFORM = "iommu_platform=on"
NIC_TARGET = "virtio-net"     # suite dma's vnet rows: virtio-net.tx, .hub
SIZES = (64, 128, 260, 520, 1024, 1500)
POLICIES = ("each", "batch32", "event")
BACKENDS = ("hub", "vhost-user")
# Measured here: with sync=on every QMP stop/cont restarts QEMU's vhost-user
# device (vhost_net_stop/start); testpmd drops the frames it forwards while
# its port 1 comes back (3 to 6 per run in net.64.each).
VHOST_NO_SYNC_WHY = ("the exit counter's QMP stop/cont restarts the vhost-user "
                     "device and testpmd drops frames meanwhile")
VHOST_NO_SYNC = ("--count-exits cannot be used with --virtio-backend "
                 "vhost-user: " + VHOST_NO_SYNC_WHY)
DEFAULT_BACKEND = "hub"


def add_options(add):
    """Runner options (called from commands.run.add_parser)."""
    add("--virtio-transport", choices=tuple(TRANSPORTS), default=None,
        help="virtio-net transport for --suite virtio: legacy (I/O BAR, "
        "legacy notify), modern (MMIO notify) or modern-pio (modern, I/O-"
        "port notify); default %s" % DEFAULT_TRANSPORT)
    add("--ioeventfd", choices=IOEVENTFD, default=None,
        help="virtio-net ioeventfd=on (KVM answers the kick) or off (every "
        "kick is a round trip to QEMU); default %s" % DEFAULT_IOEVENTFD)
    add("--virtio-nics", type=int, choices=(0, 1, 2), default=None,
        help="virtio-net NICs to attach with --suite virtio (default 2; "
        "0 or 1 show the suite's skip paths)")
    add("--virtio-backend", choices=BACKENDS, default=None,
        help="what connects NIC A to NIC B: hub (QEMU's own virtio-net "
        "and hub, default) or vhost-user (DPDK testpmd forwards between two "
        "vhost-user ports; needs root or hugepage-free DPDK, 2 CPUs)")
    add("--testpmd", metavar="PATH", default=None,
        help="--virtio-backend vhost-user: the testpmd binary (default "
        "%s from PATH)" % DEFAULT_BINARY)
    add("--testpmd-args", metavar="ARGS", default=None,
        help="--virtio-backend vhost-user: extra testpmd application "
        "options (after its '--'; write --testpmd-args=\"...\" since they "
        "start with --), e.g. --testpmd-args=\"--forward-mode=noisy "
        "--noisy-lkup-memory=64 --noisy-lkup-num-reads-writes=4000\"")
    add("--virtio-matrix", action="store_true",
        help="boot six times (3 transports x ioeventfd on/off, suite "
        "virtio unless --suite says otherwise) and print one table")


def wanted(suite, which=SUITE):
    """Does the kernel word suite=LIST select the virtio suite (or which)?"""
    names = (suite or "").split(",")
    return which in names or "all" in names


def nics_wanted(suite):
    """Does a selected suite use the NICs (virtio, or dma's vnet cases)?"""
    return wanted(suite) or wanted(suite, DMA_SUITE)


def settings(args):
    """The NIC configuration of one boot, or None when no suite uses them
    (suite dma adds the lone NIC; --viommu intel iommu_platform=on)."""
    if not nics_wanted(args.suite):
        return None
    conf = {"transport": args.virtio_transport or DEFAULT_TRANSPORT,
            "ioeventfd": args.ioeventfd or DEFAULT_IOEVENTFD,
            "nics": NIC_COUNT if args.virtio_nics is None else args.virtio_nics}
    if wanted(args.suite, DMA_SUITE):
        conf["lone_nic"] = True
    if viommu.intel(args):
        conf["iommu_platform"] = True
    backend = getattr(args, "virtio_backend", None) or DEFAULT_BACKEND
    if backend != DEFAULT_BACKEND:
        conf.update(backend=backend,
                    testpmd=getattr(args, "testpmd", None)
                    or DEFAULT_BINARY,
                    testpmd_args=split_args(
                        getattr(args, "testpmd_args", None)))
    return conf


def vhost_user(conf):
    return bool(conf) and conf.get("backend") == "vhost-user"


def device_args(conf, private_dir=None):
    """QEMU arguments for the NICs of one boot (empty without virtio);
    vhost-user sockets live in private_dir."""
    if not conf:
        return []
    props = "%s,ioeventfd=%s,romfile=" % (TRANSPORTS[conf["transport"]],
                                         conf["ioeventfd"])
    if conf.get("iommu_platform"):
        props += "," + IOMMU_PLATFORM
    argv = qemu_args(private_dir) if vhost_user(conf) else []
    for i in range(conf["nics"]):
        if not vhost_user(conf):
            argv += ["-netdev", "hubport,id=tmnet%d,hubid=0" % i]
        argv += _nic(i, props)
    if conf.get("lone_nic"):
        i = max(conf["nics"], NIC_COUNT)
        argv += ["-netdev", "hubport,id=tmnet%d,hubid=%d" % (i, LONE_HUB)]
        argv += _nic(i, props) + ["-netdev", SINK]
    return argv


def _nic(i, props):
    return ["-device", "virtio-net-pci,netdev=tmnet%d,mac=%s,%s"
            % (i, MAC_FMT % (i + 1), props)]


def validate_backend(args):
    """Options of the vhost-user backend; a message or None."""
    backend = getattr(args, "virtio_backend", None)
    for name in ("testpmd", "testpmd_args"):
        if getattr(args, name, None) is not None and backend != "vhost-user":
            return "--%s needs --virtio-backend vhost-user" % name.replace(
                "_", "-")
    if backend != "vhost-user":
        return None
    if not wanted(args.suite):
        return "--virtio-backend needs the virtio suite (--suite virtio)"
    if args.ioeventfd == "off":
        return ("--virtio-backend vhost-user needs --ioeventfd on (the "
                "backend is kicked through an eventfd)")
    if args.virtio_nics not in (None, NIC_COUNT):
        return "--virtio-backend vhost-user attaches both NICs (drop --virtio-nics)"
    if args.virtio_matrix:
        return ("--virtio-matrix varies ioeventfd, which vhost-user needs "
                "on; use --virtio-transport with --virtio-backend vhost-user")
    try:
        forwarding_cores(split_args(
            getattr(args, "testpmd_args", None)))
    except TestpmdError as exc:
        return exc.message
    return None


def validate_viommu(args):
    """iommu_platform=on needs a modern transport; a message or None."""
    if not viommu.intel(args) or not nics_wanted(args.suite):
        return None
    if args.virtio_matrix or args.virtio_transport == "legacy":
        return ("--viommu intel gives the virtio-net NICs iommu_platform=on, "
                "which the legacy transport cannot carry; drop %s"
                % ("--virtio-matrix" if args.virtio_matrix
                   else "--virtio-transport legacy"))
    return None


def validate(args):
    """Option combinations that make no sense; a message or None."""
    problem = validate_backend(args) or validate_viommu(args)
    if problem:
        return problem
    used = [n for n in ("virtio_transport", "ioeventfd", "virtio_nics")
            if getattr(args, n) is not None]
    if args.virtio_matrix and used:
        return ("--virtio-matrix chooses transport and ioeventfd itself; "
                "drop --%s" % used[0].replace("_", "-"))
    if used and not args.virtio_matrix and not nics_wanted(args.suite):
        return ("--%s needs a suite with virtio-net NICs (--suite virtio "
                "or dma)" % used[0].replace("_", "-"))
    if args.virtio_matrix and args.repeat != 1:
        return "--virtio-matrix runs one boot per path; drop --repeat"
    return None


def guest_info(dump):
    """The guest's {"type":"virtio"} record (what it found/negotiated)."""
    for rec in (dump.other if dump is not None else []):
        if rec.get("type") == "virtio":
            return rec
    return None


def annotate(dump, conf):
    """Label every virtio record with the runner's configuration."""
    if dump is None or not conf:
        return
    label = {"transport": conf["transport"], "ioeventfd": conf["ioeventfd"]}
    if vhost_user(conf):
        label.update(backend="vhost-user", testpmd_args=conf["testpmd_args"])
    pairs = [o for o in dump.other if o.get("type") == "virtio_kicks"]
    for group in (dump.results, dump.checks, dump.skips, pairs):
        for rec in group:
            if rec.get("suite") == SUITE or str(rec.get("name", "")).startswith(
                    SUITE + "."):
                rec["virtio"] = dict(label)
    for rec in dump.results:
        kick_handler(rec, conf)


def kick_handler(rec, conf):
    """A kick row's handler, which the guest cannot know: with ioeventfd=on
    KVM answers the doorbell ("ioeventfd"), so the QMP counter does not
    see it; the guest leaves "none"."""
    kicks = rec.get("suite") == SUITE or str(rec.get("target", "")).startswith(
        NIC_TARGET)
    if kicks and rec.get("handler") == "none" and conf["ioeventfd"] == "on":
        rec["handler"] = "ioeventfd"


def boot_fields(dump, conf):
    """Extra keys for a results.json boot entry."""
    if not conf:
        return {}
    return {"virtio": dict(conf, guest=guest_info(dump))}


# ---------------------------------------------------------------- tables

def _fmt(value, places=0):
    value = number_or_none(value)
    if value is None:
        return "-"
    return "%.*f" % (places, value) if places else "%d" % round(value)


def _by_case(results):
    return {r.get("case"): r for r in results if r.get("suite") == SUITE}


def render_sizes(results):
    """Per packet size: packets/s, cycles/packet, kicks/packet per policy."""
    cases = _by_case(results)
    if not any(c.startswith("net.") for c in cases):
        return []
    head = ["bytes"]
    for pol in POLICIES:
        head += ["%s pkt/s" % pol, "cyc/pkt", "kicks/pkt", "cyc/kick"]
    rows = [head]
    for size in SIZES:
        row = [str(size)]
        for pol in POLICIES:
            res = cases.get("net.%d.%s" % (size, pol), {})
            row += [_fmt(res.get("packets_per_s")) + time_mark(res),
                    _fmt(res.get("cycles_per_packet")),
                    _fmt(res.get("kicks_per_packet"), 3),
                    _fmt(res.get("cycles_per_kick"))]
        rows.append(row)
    return ["virtio-net, per packet size:"] + aligned(rows)


def matrix_row(transport, ioeventfd, boot):
    """One line of the six-path table from a results.json boot entry."""
    cases = _by_case(boot.get("results") or [])
    kick = cases.get("kick.alone", {})
    pair = next((o for o in boot.get("other") or []
                 if o.get("type") == "virtio_kicks"), {})
    guest = (boot.get("virtio") or {}).get("guest") or {}
    lost = sum(number_or_none(r.get("lost")) or 0 for r in cases.values())
    corrupt = sum(number_or_none(r.get("corrupt")) or 0 for r in cases.values())
    kick_cycles = kick.get("cycles") or {}
    single = pair.get("nic_a") or {}
    row = {"transport": transport, "ioeventfd": ioeventfd,
           "status": boot.get("status"),
           "guest_transport": guest.get("transport"),
           "notify": guest.get("notify"),
           "kick_cycles": kick_cycles.get("median"),
           "kick_min_cycles": kick_cycles.get("min"),
           "kick_ns": kick.get("ns_median"),
           "kick_single_cycles": single.get("median"),
           "kick_single_min_cycles": single.get("min"),
           "lost": lost, "corrupt": corrupt}
    for pol in POLICIES:
        row["pps_64_" + pol] = cases.get("net.64.%s" % pol, {}).get(
            "packets_per_s")
        row["pps_1500_" + pol] = cases.get("net.1500.%s" % pol, {}).get(
            "packets_per_s")
    return row


def render_matrix(rows):
    """The six-path table: kick cost and packet rates per notification path."""
    head = ["transport", "ioeventfd", "notify", "kick min", "kick median",
            "1 kick min", "1 kick median"]
    head += ["64B %s pkt/s" % p for p in POLICIES]
    head += ["1500B %s pkt/s" % p for p in POLICIES]
    head += ["lost", "corrupt", "status"]
    table = [head]
    for row in rows:
        cells = [row["transport"], row["ioeventfd"],
                 "%s/%s" % (row.get("guest_transport") or "-",
                            row.get("notify") or "-"),
                 _fmt(row.get("kick_min_cycles")), _fmt(row["kick_cycles"]),
                 _fmt(row.get("kick_single_min_cycles")),
                 _fmt(row.get("kick_single_cycles"))]
        cells += [_fmt(row["pps_64_" + p]) for p in POLICIES]
        cells += [_fmt(row["pps_1500_" + p]) for p in POLICIES]
        cells += [_fmt(row["lost"]), _fmt(row["corrupt"]),
                  str(row["status"])]
        table.append(cells)
    lines = ["virtio notification paths, cycles per kick (one boot each; "
             "kick = kick.alone, back-to-back doorbells; 1 kick = "
             "kick.interleaved, single timed kicks; min is the least "
             "disturbed by host load):"] + aligned(table)
    for key, what in (("kick_min_cycles", "kick.alone min"),
                      ("kick_cycles", "kick.alone median"),
                      ("kick_single_min_cycles", "single kick min")):
        base = {(r["transport"], r["ioeventfd"]): r.get(key) for r in rows}
        ratios = []
        for transport in TRANSPORTS:
            on, off = base.get((transport, "on")), base.get((transport, "off"))
            if number_or_none(on) and number_or_none(off):
                ratios.append("%s %.2fx" % (transport, off / on))
        if ratios:
            lines.append("%s cost ioeventfd=off / on: %s"
                         % (what, ", ".join(ratios)))
    return "\n".join(lines) + "\n"
