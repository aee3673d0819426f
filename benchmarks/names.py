"""Names the command line needs before anything heavy is imported (so `wva --help` stays fast)."""

PATTERNS = ("single", "chain", "route", "orchestrate", "parallel", "evaluate_optimize", "agent")
# The graph drawn from the agent's walks on a few instances, compiled into a workflow and run on the others
# (`benchmarks.studies.drawn`, into a results folder's `drawn/` sub-folder): a comparator, never one of the
# seven patterns a family designs, so `wva bench`'s own runs.csv is unchanged by it.
DRAWN = "drawn"
DEFAULT_TASKS = ("pipeline", "support", "fanout", "multihop", "repair", "explore", "debug", "explore:readable=true")
# Built-in families outside the default run: `walks` (agent walks of known drawability, for checking the measure),
# `bugfix` (seeded bugs in real stdlib modules, real test runs: too slow for the default run)
EXTRA_TASKS = ("walks", "bugfix")

# The default model of `wva bench`, `run` and `sweep`: the simulator getting one decision in ten wrong.
# A perfect simulator (plain `sim`, error_rate 0) would show only which designs *can* succeed; errors
# are what make compounding, recovery and the price of flexibility visible. Stated in every output.
DEFAULT_MODEL = "sim:error_rate=0.1"

# Instances per task of the default `wva bench`. Chosen when 60 held every family's verdict on seeds 0-3 and 20
# did not. Measured again with the fair comparators (`python -m benchmarks.studies.stability verdicts
# --instances 60`): fanout and repair hold on every seed, pipeline, multihop and support do not (support's
# edge is +0.01 at 400 instances, so a 60-instance sample can land on either side of the rule's lines).
# Kept at 60, a run of seconds: a verdict that matters is sized with `wva plan` or `--until-decided`
# (docs/criterion.md, "Stable across seeds?").
DEFAULT_INSTANCES = 60

# The largest sweep `wva bench` accepts, per task: past it a typo (`--instances 99999999999999999999`) would
# build instances for hours before the first trial. 100,000 instances of 7 patterns x 3 trials is 2.1 million
# trials per task, far past any sweep a paid account runs; the plan's per-task index of instance ids stays
# under ~20 MB at this size (docs/reliability.md).
MAX_INSTANCES = 100_000
MAX_TRIALS = 1_000

# `wva bench --until-decided`'s batch: the instances each task still running adds at each look. A third of the
# default run, so `--until-decided` alone looks at 20, 40 and 60 instances. A smaller batch stops a little
# sooner on average but makes twice the looks, each a pause in which every trial of the batch must end, and
# rests the first look's intervals on fewer instances (tests/test_until_decided.py measures both batches;
# docs/stopping-early.md).
DEFAULT_BATCH = 20

# The default `wva bench` is decided, not fixed (docs/stopping-early.md, "The default run"): every design runs
# on a pilot of DEFAULT_INSTANCES instances x DEFAULT_TRIALS trial, then the agent and each task's declared
# workflow run on, in the folder's `decided/` sub-folder, in batches of DECIDED_BATCH up to DECIDED_CAP
# instances, under O'Brien-Fleming spending, until the verdict is decided. One trial per instance: the agent -
# workflow difference barely varies between instances (intraclass correlation 0-0.16 on the 60 x 3 run), so an
# instance's second and third trials add almost what a new instance adds, and new instances also cover inputs;
# pass^k needs --trials 3. The cap is the size `wva plan` asks for on a one-trial 60-instance pilot to decide a
# 0.05 margin at 80% power at the spread's upper limit (the 60 x 3 pilot asked for 326-352 instances of 3
# trials; one trial carries about a third of their information; on a one-trial pilot it asks for 448 on pipeline
# and 948 on multihop). Five looks keep the pauses between looks, each a sweep over a growing folder, few.
DEFAULT_TRIALS = 1
DECIDED = "decided"
DECIDED_CAP = 1000
DECIDED_BATCH = 200

# The default `wva bench`'s repeats phase (docs/stopping-early.md, "The default run"): drawability judges a model
# decision drawn only when it depends on the instance (agreement within an instance's trials clearly above agreement
# between instances), which one trial per instance cannot show. So when the sweep runs fewer than REPEATS_TRIALS
# trials per instance, the agent alone runs REPEATS_TRIALS trials on each task's first REPEATS_INSTANCES instances
# (the pilot's first ones) in the folder's `repeats/` sub-folder, and drawability is read there. The instance count
# is the one knob of its size: the smallest at which the known-truth table of drawability still holds is being
# measured; change it here.
REPEATS = "repeats"
REPEATS_INSTANCES = 40
REPEATS_TRIALS = 3

SCORE_TIMEOUT_S = 60.0  # a scorer's own code, per trial (`--score-timeout`)
# One attempt of a model call, whole, on a provider model (`--request-timeout`, `patterns.deadline`). The SDK's own
# default is 600 s per read; a non-streamed reply of 1,024 tokens takes well under a minute. 300 s leaves room for
# long outputs and a slow queue, and with the retry policy's 600 s bound on a call's retries (`RetryPolicy.
# max_total_s`) a call can never hold a trial past about 15 minutes. The pre-flight's 1-token request gets
# min(this, 30 s) (`benchmarks.harness.preflight`).
REQUEST_TIMEOUT_S = 300.0
# (a model grader's calls have their own timeouts)

# The verdict's margins (`benchmarks.criterion.verdict`): five points of success, and a saving of 10% to count
# as cheaper. docs/criterion.md, "The method".
DEFAULT_MARGIN = 0.05
DEFAULT_COST_MARGIN = 0.10
