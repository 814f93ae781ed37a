"""Judging host fingerprints (system/fingerprint.py): the fields in which
two results differ, which of them change what a trap costs by themselves
(a verdict across them is refused unless the user allows the field), and
the host states known to add noise to a run.  Pure: takes the
fingerprint objects, reads nothing."""

# Fields whose difference alone moves trap costs: the verdict is refused.
COST_FIELDS = ("kernel.release", "kernel.cmdline", "backend", "kvm",
               "cpu", "smt", "vulnerabilities", "thp")
# Fields printed when they differ, never refused: the QEMU binary is what
# a comparison of two builds is about; frequency and idle states are noise.
INFO_FIELDS = ("qemu", "cpufreq", "idle")
# Differences in these say nothing about the host (another path, same file).
IGNORED = ("qemu.path", "qemu.realpath")
# The fields that follow from a side's binary, when the user gave the two
# sides different ones on purpose.
BINARY_FIELDS = {"qemu": ("qemu",), "bios": (), "testpmd": ()}


def fingerprint_of(doc):
    """The fingerprint of a results document, or None (older files)."""
    hst = doc.get("host") if isinstance(doc, dict) else None
    fp = hst.get("fingerprint") if isinstance(hst, dict) else None
    return fp if isinstance(fp, dict) else None


def flatten(obj, prefix=""):
    """{"a": {"b": 1}} -> {"a.b": 1}; lists, scalars and empty objects
    are leaves."""
    if isinstance(obj, dict) and obj:
        out = {}
        for key in sorted(obj, key=str):
            out.update(flatten(obj[key], "%s%s." % (prefix, key)))
        return out
    return {prefix[:-1]: obj} if prefix else {}


def within(field, names):
    """Is `field` one of `names` or below one of them ("kvm" covers
    "kvm.kvm.halt_poll_ns")?"""
    return any(field == n or field.startswith(n + ".") for n in names)


def differences(base_fp, cand_fp, on_purpose=()):
    """[(field, base value, candidate value, cost-changing)] of the fields
    that differ, less those `on_purpose` (the user set them apart)."""
    fb, fc = flatten(base_fp), flatten(cand_fp)
    out = []
    for field in sorted(set(fb) | set(fc)):
        vb, vc = fb.get(field), fc.get(field)
        if vb == vc or within(field, IGNORED) or within(field, on_purpose):
            continue
        out.append((field, vb, vc, within(field, COST_FIELDS)))
    return out


# At most this many difference lines (and refused names in the message):
# a fingerprint of 200,000 keys put 32 MB on stderr.
MAX_SHOWN = 20


def check(base_doc, cand_doc, allowed=(), on_purpose=(),
          labels=("base", "candidate")):
    """(lines to print, refused fields).  A cost-changing field that
    differs is refused unless it is within `allowed` (then a warning);
    a file without a fingerprint is accepted with a note.  At most
    MAX_SHOWN lines (refusals first), then one that counts the rest."""
    lines, refused = _check(base_doc, cand_doc, allowed, on_purpose, labels)
    if len(lines) > MAX_SHOWN:
        order = sorted(lines, key=lambda line: not line.startswith("refused"))
        lines = order[:MAX_SHOWN] + ["... and %d more host differences not "
                                     "shown" % (len(lines) - MAX_SHOWN)]
    return lines, refused


def _check(base_doc, cand_doc, allowed, on_purpose, labels):
    fps = [fingerprint_of(base_doc), fingerprint_of(cand_doc)]
    missing = [lab for lab, fp in zip(labels, fps) if fp is None]
    if missing:
        return (["note: %s has no host fingerprint (written before "
                 "results.json carried one): host differences not checked"
                 % " and ".join(missing)], [])
    lines, refused = [], []
    for field, vb, vc, cost in differences(fps[0], fps[1], on_purpose):
        what = "host %s differs: %s %s, %s %s" % (
            field, labels[0], _show(vb), labels[1], _show(vc))
        if cost and within(field, allowed):
            lines.append("warning: %s (allowed by --allow-env-diff: it "
                         "changes trap costs by itself)" % what)
        elif cost:
            lines.append("refused: %s (changes trap costs by itself)" % what)
            refused.append(field)
        else:
            lines.append("note: " + what)
    return lines, refused


def _show(value, width=60):
    text = "none" if value is None else repr(value)
    return text if len(text) <= width else text[:width - 3] + "..."


def refusal_message(refused):
    if len(refused) > MAX_SHOWN:
        groups = sorted({f.split(".")[0] for f in refused})
        names = "%s and %d more fields" % (", ".join(refused[:MAX_SHOWN]),
                                          len(refused) - MAX_SHOWN)
        allow = ",".join(groups[:MAX_SHOWN])
    else:
        names, allow = ", ".join(refused), ",".join(refused)
    return ("the two sides ran on hosts that differ in %s, which change "
            "trap costs by themselves: no verdict (--allow-env-diff %s to "
            "judge anyway)" % (names, allow))


def parse_allowed(items):
    """--allow-env-diff values (repeatable, comma lists) -> field names;
    ValueError names one that is no cost field nor a group of them (a
    typo would otherwise allow nothing, silently)."""
    names = [f.strip() for item in items or () for f in item.split(",")
             if f.strip()]
    unknown = [n for n in names if not known_field(n)]
    if unknown:
        raise ValueError("--allow-env-diff %s: not a field that changes trap "
                         "costs (one of %s, or a field below one, e.g. "
                         "vulnerabilities.retbleed)" % (
                             ",".join(unknown)[:200], ", ".join(COST_FIELDS)))
    return names


def known_field(name):
    """A cost field, one below it, or a group holding one ("kernel")."""
    return within(name, COST_FIELDS) or any(within(c, [name])
                                            for c in COST_FIELDS)


# ---------------------------------------------------------------- noise

def noise(facts, load=None):
    """Sentences naming the host states known to add noise to a run: a
    cpufreq governor other than performance, boost (turbo) on, other
    processes running when the boot started."""
    out = []
    freq = (facts or {}).get("cpufreq") or {}
    if freq.get("driver") is not None and freq.get("governor") != \
            "performance":
        out.append("cpufreq driver %s runs governor %s, not performance"
                   % (_plain(freq["driver"]), _plain(freq.get("governor"))))
    if freq.get("boost"):
        out.append("turbo/boost is on (its clock depends on the load of "
                   "the other cores)")
    others = (load or {}).get("running_others") or []
    if others:
        out.append("%d other process(es) were running when the boot "
                   "started (%s; load average %s)" % (
                       len(others), ", ".join(sorted(set(others))[:6]),
                       (load or {}).get("loadavg_1m")))
    return out


def _plain(value):
    if isinstance(value, dict):
        return "/".join("%s on CPUs %s" % (k, ",".join(map(str, v)))
                        for k, v in value.items())
    return str(value)
