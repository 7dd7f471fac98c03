"""Every bound on what a user or a file controls, in one place: the library, the app and the
command line all ask this package, so that one student's input cannot take a shared server down.

- ``bounds``: the sizes and counts read before any work (pattern cost, file sizes, JSON depth);
- ``budget``: the time and memory of work that cannot be bounded by reading its input first
  (a split pattern that backtracks, a file's regexes), run in a worker process that is killed
  past its budget.

A refusal is a ValueError whose message names the bound and says what to change.
"""

from .bounds import *  # noqa: F403 - every bound, as `from bpe_core.limits import ...` reads it
from .bounds import (  # noqa: F401 - the private helpers some modules and tests read here
    _JSON_STRING,
    _JSON_TOKEN,
    _NOT_BRACKET,
    PatternCost,
    PatternSyntaxError,
    pattern_cost,
)
from .budget import (  # noqa: F401
    DEFAULT_MEMORY,
    DEFAULT_SECONDS,
    FILE_BUDGET,
    Budget,
    BudgetExceeded,
    MemoryBudgetExceeded,
    TimeBudgetExceeded,
    budget_for,
    clear_untrusted_budget,
    prestart_workers,
    read_budget,
    run_bounded,
    set_untrusted_budget,
    shutdown_workers,
    train_budget,
    untrusted_budget,
    workers_ready,
    workers_started,
)
