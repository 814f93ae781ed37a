"""One ab session's configuration (SessionConfig): both sides' words and
plans, where their results and verdicts go, when it stops and how it
judges; check() refuses bad values before the first boot.  `ab`,
`sensitivity` and `bisect` each build one per session."""

import os
from dataclasses import dataclass, field
from typing import Optional

from ..guest import plan, rounds
from ..output import resultsfile
from ..stats import abtest, compare
from . import ab_sides
from . import compare as compare_cmd
from .common import OptionError, check_budget, check_outputs, probe_writable

DEFAULT_COUNT_BOOTS = 3     # boots per side that count exits (1, 2, 4)


@dataclass
class Outputs:
    """Where a session's verdicts go beside the table (compare's outputs)."""
    json: Optional[str] = None
    markdown: Optional[str] = None
    junit: Optional[str] = None
    plot: Optional[str] = None
    plot_engine: str = "auto"
    html: Optional[str] = None


@dataclass
class SessionConfig:
    """One ab session: both sides' words, where their results go, when it
    stops and how it judges.  check() refuses bad values before a boot."""
    sides: dict                     # make_sides
    a_json: str
    b_json: str
    thresholds: dict                # compare_cmd.check_verdict_options
    metrics: list
    max_boots: Optional[int] = None  # None: abtest's default for the budget
    budget: Optional[float] = None
    resolution: Optional[float] = None  # --resolution, relative
    # bisect: stop at the first look that flags a selected metric a
    # regression (the others need not be decided)
    stop_at_regression: bool = False
    looks: int = abtest.DEFAULT_LOOKS
    alpha: float = compare.DEFAULT_ALPHA
    rounds: int = rounds.DEFAULT_ROUNDS
    min_samples: int = plan.MIN_SAMPLES
    count_boots: int = DEFAULT_COUNT_BOOTS
    seed: int = compare.DEFAULT_SEED
    resamples: int = compare.DEFAULT_RESAMPLES
    stat: str = compare.DEFAULT_STAT
    verbose: bool = False
    outputs: Outputs = field(default_factory=Outputs)
    case_list: str = "the cases --case/--suite/--quick selected"
    allow_env_diff: list = field(default_factory=list)  # compare's option
    title: str = "ab"               # the status line's
    # side -> its RunPlan (ab_sides.side_plan), made by check()
    plans: dict = field(default_factory=dict)

    def check(self):
        self.max_boots = abtest.max_boots(self.max_boots, self.budget)
        if self.max_boots < 2 or self.max_boots > resultsfile.MAX_BOOTS:
            raise OptionError("--max-boots must be 2..%d"
                              % resultsfile.MAX_BOOTS)
        self.budget = check_budget(self.budget)
        if self.resolution is not None and not 0 < self.resolution < 1:
            raise OptionError("--resolution must be a percentage in (0, 100)")
        if not 1 <= self.looks <= 50:
            raise OptionError("--looks must be 1..50")
        for option, path in (("--a-json", self.a_json),
                             ("--b-json", self.b_json)):
            if not os.path.isdir(os.path.dirname(os.path.abspath(path))):
                raise OptionError("%s: directory does not exist" % path)
            probe_writable(option, path)
        check_outputs([], [("--a-json", self.a_json),
                           ("--b-json", self.b_json)]
                      + compare_cmd.verdict_outputs(self.outputs))
        if not 1 <= self.rounds <= rounds.MAX_ROUNDS:
            raise OptionError("--rounds must be 1..%d" % rounds.MAX_ROUNDS)
        if not 3 <= self.min_samples <= plan.MAX_SAMPLES:
            raise OptionError("--min-samples must be 3..%d" % plan.MAX_SAMPLES)
        if self.count_boots < 0:
            raise OptionError("--count-boots must be 0 or more")
        if not self.metrics:
            raise OptionError("--metrics: name at least one metric")
        for metric in self.metrics:
            compare_cmd.check_metric(metric, "--metrics")
        self.plans = {name: ab_sides.side_plan(name, words, qemu_args,
                                               self.rounds)
                      for name, (words, qemu_args) in self.sides.items()}
        return self
