"""`run --virtio-matrix`: six boots, one plan per notification path (3
transports x ioeventfd on/off, session/plan.py matrix_plans), into one
results.json, and one table (guest/virtio.py render_matrix).  A boot that
ends 2-7 but a timeout stops the matrix; the worst status wins."""

import sys

from ..guest import virtio
from ..session.plan import matrix_plans
from ..session.runner import run_plan
from ..values import exitstatus
from .common import say


def run(plan, record, con):
    """Each path's boot; returns the worst status."""
    worst, rows = exitstatus.OK, []
    for transport, ioeventfd, one in matrix_plans(plan):
        say("virtio matrix: transport %s, ioeventfd=%s" % (transport,
                                                          ioeventfd))
        code, _dumps = run_plan(one, record, con)
        record.boots[-1]["index"] = len(record.boots) - 1
        rows.append(virtio.matrix_row(transport, ioeventfd, record.boots[-1]))
        worst = max(worst, code)
        if code >= exitstatus.BAD_INPUT and code != exitstatus.TIMEOUT:
            say("virtio matrix: stopping (status %s)"
                % exitstatus.status_name(code))
            break
    record.summary = {"virtio_matrix": rows}
    sys.stdout.write("\n" + virtio.render_matrix(rows))
    sys.stdout.flush()
    return worst
