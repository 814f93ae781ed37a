"""Exit statuses and the rules that turn a boot's evidence into one status.

Kept pure (no I/O) so every combination of guest END status, QEMU exit code,
timeout and garbled dump can be unit-tested."""

OK = 0
CHECK_FAILED = 1
BAD_INPUT = 2
EXCEPTION = 3
TIMEOUT = 4
QEMU_ERROR = 5
GARBLED = 6
BACKEND_ERROR = 7      # the vhost-user backend (testpmd) failed
REGRESSION = 10         # compare: at least one metric regressed
UNUSABLE = 11           # compare: an input file cannot be used
NO_INJECTION = 12       # sensitivity: the delay shim cannot act here
NOT_COMPARABLE = 13     # compare: files not measured alike, timing refused
ENV_DIFFERS = 14        # compare/ab/bisect: hosts differ in a cost field
BISECT_REFUSED = 15     # bisect: nothing to search for between the ends
BISECT_UNRESOLVED = 16  # bisect: the search ended with several candidates
LOCK_BUSY = 17          # another KVM measurement held the host's lock
HISTORY_CHANGE = 18     # history check: the newest runs start a change
HISTORY_UNUSABLE = 19   # history: the database is missing, damaged,
                        # newer, not a history, or locked by a writer
BISECT_UNCONFIRMED = 20  # bisect: the named commit failed its confirmation
STEP_ABORT = 128        # bisect-step: cannot judge (git bisect run stops)
INTERNAL = 70
INTERRUPTED = 130

# Guest "trapmeter END status=X" word -> runner exit status.
GUEST_STATUS = {"ok": OK, "check-failed": CHECK_FAILED,
                "bad-input": BAD_INPUT, "exception": EXCEPTION}

NAMES = {OK: "ok", CHECK_FAILED: "check-failed", BAD_INPUT: "bad-input",
         EXCEPTION: "exception", TIMEOUT: "timeout", QEMU_ERROR: "qemu-error",
         GARBLED: "garbled", BACKEND_ERROR: "backend-error",
         REGRESSION: "regression", NOT_COMPARABLE: "not-comparable",
         UNUSABLE: "unusable-input", NO_INJECTION: "no-injection",
         ENV_DIFFERS: "env-differs", BISECT_REFUSED: "bisect-refused",
         BISECT_UNRESOLVED: "bisect-unresolved", LOCK_BUSY: "lock-busy",
         HISTORY_CHANGE: "history-change",
         HISTORY_UNUSABLE: "history-unusable",
         BISECT_UNCONFIRMED: "bisect-unconfirmed", STEP_ABORT: "step-abort",
         INTERNAL: "internal-error",
         INTERRUPTED: "interrupted"}

EXIT_TABLE = """\
exit status (guest writes code C to isa-debug-exit; QEMU exits (C<<1)|1):
  runner  guest END     C  QEMU  meaning
  0       ok            0  1     run completed, all checks passed
  1       check-failed  1  3     a data check failed (some case read wrong
                                 data)
  2       bad-input     2  5     bad kernel command-line key/value, or bad
                                 runner option
  3       exception     3  7     guest CPU exception (register dump on COM1)
  4       -             -  -     timeout: runner killed QEMU
  5       -             -  -     QEMU could not start (or its files could
                                 not be prepared: disk full), build failed,
                                 KVM requested but unusable, or QEMU exited
                                 without a guest status (e.g. triple fault)
  6       -             -  -     dump cut or garbled (count/CRC/END/sealed
                                 status mismatch, bad line, output flood)
  7       -             -  -     vhost-user backend (testpmd) missing, too
                                 few cores, port start failed, not ready,
                                 or it died during the run
  10      compare: at least one metric regressed (others: 0 = none)
  11      compare: an input is unusable (unreadable, other schema or
          suites, truncated or edited: CRC/count/seal mismatch)
  12      sensitivity: the delay shim cannot act (TCG, KVM unusable, QEMU
          static or not calling ioctl through libc, shim not built, or its
          count of delayed exits disagrees with the measured exits)
  13      compare: timing verdicts refused, the files were not measured
          alike (samples per case, rounds, statistic, TSC rate or accel
          differ), or withheld, the files are not the two sides of one ab
          session (not interleaved); a regression among the rest (an exit
          count) still exits 10
  14      compare, ab, bisect: the two sides' hosts differ in a field that
          changes trap costs by itself (mitigations, microcode, backend,
          kernel, KVM parameters, ...): no verdict (--allow-env-diff FIELD)
  15      bisect: refused: good against bad flags no regression, good is
          judged the worse one, or an endpoint does not build
  16      bisect: the search ended with several candidate commits (skipped
          or untested steps between the last good and the first bad)
  17      run, ab, bisect, sensitivity: another KVM measurement held the
          host's KVM lock for the whole --lock-timeout (--no-lock skips it)
  18      history check: the newest runs of a series start a change
          (named: the last run before, the first after, the shift)
  19      history: the database cannot be used: missing, damaged (not
          SQLite, quick_check fails), of a newer schema, not a history,
          or locked by another writer past --busy-timeout; nothing was
          written
  20      bisect: the first bad commit it names failed its confirmation (an
          ab against its parent, and the endpoints again where no step was
          bad, did not show the change) or stayed undecided
  bisect-step (for git bisect run): 0 good, 1 bad, 125 skip (build failed
          or undecided), 128 cannot judge (bad options, unusable host or
          results: git bisect run stops)
  70      internal error in the runner; 130 interrupted (Ctrl-C)
If the END line and QEMU's exit code disagree, both are reported and the
worse status is used. With --repeat the worst status over boots is returned."""


def status_name(code):
    """Name used for "status" fields in results.json."""
    return NAMES.get(code, "exit-%d" % code)


def guest_code_from_qemu(rc):
    """Guest debug-exit code C recovered from QEMU's exit status, or None.

    Only odd statuses (C<<1)|1 with a known C carry a guest status; 0 means
    QEMU exited on its own (triple fault with -no-reboot, monitor quit)."""
    if rc is None or rc <= 0 or rc % 2 == 0:
        return None
    code = rc >> 1
    return code if code in (OK, CHECK_FAILED, BAD_INPUT, EXCEPTION) else None


class Outcome:
    """A decided status plus the human messages explaining it."""

    def __init__(self, code, messages=(), show_stderr=False):
        self.code = code
        self.messages = list(messages)
        self.show_stderr = show_stderr

    @property
    def name(self):
        return status_name(self.code)

    def __repr__(self):
        return "Outcome(%d, %r)" % (self.code, self.messages)


def _last_case_text(dump):
    return dump.last_case or "none (no case line received)"


def garbled_message(dump):
    """The "dump cut or garbled: ..." sentence for an invalid dump."""
    return "dump cut or garbled: " + "; ".join(dump.problems)


def _guest_outcome(dump):
    code = GUEST_STATUS[dump.end_status]
    if code == OK:
        return Outcome(OK)
    return Outcome(code, ["guest finished with END status=%s (exit %d)"
                          % (dump.end_status, code)])


def decide_from_dump(dump):
    """Status from the dump alone (the `parse` subcommand has no QEMU)."""
    if dump.problems:
        return Outcome(GARBLED, [garbled_message(dump)])
    return _guest_outcome(dump)


def decide_boot(dump, qemu_rc, timed_out, timeout_s=None, fatal=None):
    """Combine timeout, QEMU exit code and dump validity into one status.

    Precedence: timeout (4) and QEMU-level failures (5) are more specific
    than a cut dump (6); otherwise the END line and the QEMU exit code are
    cross-checked and the worse guest-derived status wins."""
    if fatal:
        return Outcome(QEMU_ERROR, ["QEMU reported '%s' and stopped the VM; "
                                    "runner killed QEMU (try --accel tcg); last "
                                    "case started: %s"
                                    % (fatal, _last_case_text(dump))],
                       True)
    if getattr(dump, "flood", None):
        return Outcome(GARBLED, ["%s; the runner stopped QEMU (last case "
                                 "started: %s)" % (dump.flood,
                                                   _last_case_text(dump))])
    if timed_out:
        return Outcome(TIMEOUT, ["timeout after %s s; last case started: %s"
                                 % (_fmt_seconds(timeout_s),
                                    _last_case_text(dump))], True)
    qcode = guest_code_from_qemu(qemu_rc)
    if dump.bytes_received == 0 and (qemu_rc == 1 or qcode is None):
        return Outcome(QEMU_ERROR, ["QEMU exited with status %s before any "
                                    "serial output" % qemu_rc], True)
    if qcode is None:
        return _no_guest_status(dump, qemu_rc)
    if dump.problems:
        return Outcome(GARBLED, [garbled_message(dump),
                                 "QEMU exit status %d (guest code %d)"
                                 % (qemu_rc, qcode)], True)
    return _cross_check(dump, qemu_rc, qcode)


def _no_guest_status(dump, qemu_rc):
    """QEMU ended without the guest writing isa-debug-exit."""
    msgs = ["QEMU exited with status %s without a guest status (triple "
            "fault, QEMU error or killed); last case started: %s"
            % (qemu_rc, _last_case_text(dump))]
    if dump.problems:
        msgs.append(garbled_message(dump))
    else:
        msgs.append("the dump itself ended with END status=%s"
                    % dump.end_status)
    return Outcome(QEMU_ERROR, msgs, True)


def _cross_check(dump, qemu_rc, qcode):
    """END line vs QEMU exit code: agree, or report both and take the
    worse."""
    dcode = GUEST_STATUS[dump.end_status]
    if dcode == qcode:
        return _guest_outcome(dump)
    worse = max(dcode, qcode)
    return Outcome(worse, ["guest status mismatch: END line says status=%s "
                           "(%d) but QEMU exit status %d means guest code %d; "
                           "using %d (%s)" % (dump.end_status, dcode, qemu_rc,
                                              qcode, worse,
                                              status_name(worse))])


def _fmt_seconds(value):
    if value is None:
        return "?"
    return ("%d" % value) if float(value).is_integer() else ("%g" % value)
