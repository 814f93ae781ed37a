"""What `trapmeter bisect` and `bisect-step` run with: their options
checked once into a frozen BisectPlan (the build, the sessions' ab and
run options, the metrics and thresholds, where they write), read by every
step and session and never an edit of the parsed options.  The
repository's top directory, --out and --json are filled in (a new plan,
dataclasses.replace) once git and the file system have been asked."""

import argparse
import dataclasses
import types
from typing import Optional

from ..system import gitbuild
from . import compare as compare_cmd
from .bisect_out import check_seconds
from .common import OptionError

# ab options bisect sets itself for each session
OWN_AB_OPTIONS = ("--a-qemu", "--b-qemu", "--a-args", "--b-args",
                  "--a-json", "--b-json", "--budget")
# each session writes its own verdicts into --out
OWN_OUTPUTS = ("--json", "--junit", "--markdown", "--plot", "--plot-engine",
               "--html")
# the options a plan takes as they were parsed (argparse dest); a
# bisect-step option bisect lacks (or the reverse) is None
PARSED = ("repo", "good", "bad", "build", "binary", "binary_as",
          "build_timeout", "good_binary", "reference", "out", "budget",
          "no_build", "max_boots", "looks", "alpha", "rounds", "min_samples",
          "count_boots", "seed", "resamples", "stat", "verbose")


@dataclasses.dataclass(frozen=True)
class BisectPlan:
    """One bisection's (or one bisect-step's) options, checked."""
    repo: str                   # the repository's top directory, once resolved
    build: str
    binary: str
    binary_as: str
    build_timeout: float
    budget: Optional[float]
    no_build: bool
    # the sessions: run options, metrics, thresholds, ab's settings
    run_options: tuple
    metric_names: tuple
    thresholds: types.MappingProxyType
    max_boots: Optional[int]
    looks: int
    alpha: float
    rounds: int
    min_samples: int
    count_boots: int
    seed: int
    resamples: int
    stat: str
    verbose: bool
    allow_env_diff: tuple
    good: Optional[str] = None
    bad: Optional[str] = None           # bisect
    good_binary: Optional[str] = None   # bisect-step
    reference: Optional[str] = None     # bisect-step
    out: Optional[str] = None           # absolute, once resolved
    json: Optional[str] = None          # bisect's result file


def from_args(args):
    """The plan of bisect's or bisect-step's parsed options (read, never
    written): what both check alike, before any git or file."""
    check_seconds("--build-timeout", args.build_timeout)
    check_seconds("--budget", args.budget)
    why = gitbuild.binary_error(args.binary)
    if why:
        raise OptionError(why)
    run_options = tuple(getattr(args, "run_options", ()))
    for word in run_options:
        if word.split("=")[0] in OWN_AB_OPTIONS:
            raise OptionError("%s is set by bisect itself" % word)
    metric_names = tuple(m for m in args.metrics.split(",") if m)
    if not metric_names:
        raise OptionError("--metrics: name at least one metric")
    thresholds = compare_cmd.check_verdict_options(verdict_options(args))
    values = {name: getattr(args, name, None) for name in PARSED}
    return BisectPlan(
        json=getattr(args, "json", None), run_options=run_options,
        metric_names=metric_names,
        thresholds=types.MappingProxyType(thresholds),
        allow_env_diff=tuple(getattr(args, "allow_env_diff", ())),
        **values)


def verdict_options(args):
    """The options compare checks, as a session's verdicts see them: no
    output of compare's own but bisect's --json (each session writes its
    verdicts into --out)."""
    values = dict(vars(args), json=getattr(args, "json", None))
    for opt in OWN_OUTPUTS[1:]:
        values[opt[2:].replace("-", "_")] = None
    return argparse.Namespace(**values)
