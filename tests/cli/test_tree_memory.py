"""The summary line's peak memory is the process tree's: this process and its live workers (and
theirs), added up at each sample, the largest sum kept. Sizes are counted, nothing is timed."""

import os
import subprocess
import sys
import time

import pytest

from bpe_lab.cli.progress import CAN_SAMPLE, TreeMemory, tree_rss

MB = 1_000_000
pytestmark = pytest.mark.skipif(not CAN_SAMPLE, reason="no /proc: the tree is not sampled here")

# a child that holds `size` written bytes (so they are resident), says so, and waits for stdin
HOLDER = ("import sys; held = b'x' * {size}; print('holding', flush=True); sys.stdin.read()")
# a child that starts a holder of its own and waits with it: the holder is a grandchild
PARENT = ("import subprocess, sys; p = subprocess.Popen([sys.executable, '-c', {code!r}],"
          " stdin=sys.stdin, stdout=subprocess.PIPE, text=True);"
          " print(p.stdout.readline().strip(), flush=True); p.wait()")


def start(code: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "holding"
    return proc


def test_the_peak_counts_a_live_childs_memory_and_keeps_it_after_the_child_ends():
    memory = TreeMemory()
    alone = memory.sample()
    child = start(HOLDER.format(size=120 * MB))
    try:
        with_child = memory.sample()
    finally:
        child.communicate("")
    after = memory.sample()
    assert with_child >= alone + 120 * MB
    assert after < with_child - 100 * MB  # the child's memory is gone from the tree...
    assert memory.peak >= alone + 120 * MB  # ...but not from its peak
    assert memory.samples == 3


def test_grandchildren_count_too():
    memory = TreeMemory()
    alone = memory.sample()
    parent = start(PARENT.format(code=HOLDER.format(size=80 * MB)))
    try:
        assert memory.sample() >= alone + 80 * MB
    finally:
        parent.communicate("")


def test_another_root_is_that_process_and_its_tree_only():
    child = start(HOLDER.format(size=60 * MB))
    try:
        memory = TreeMemory(root=child.pid)
        held = memory.sample()
        assert 60 * MB <= held < 60 * MB + 60 * MB  # the holder: its bytes and an interpreter
    finally:
        child.communicate("")
    assert tree_rss(child.pid) == 0  # gone: nothing is counted for it


def test_the_sampler_thread_samples_while_it_runs_and_the_words_say_the_tree():
    alone = tree_rss(os.getpid())
    with TreeMemory(interval=0.01) as memory:
        child = start(HOLDER.format(size=50 * MB))
        seen = memory.samples
        while memory.samples < seen + 2:  # the thread's own samples, with the child holding
            time.sleep(0.01)
        child.communicate("")
    assert memory.peak >= alone + 50 * MB
    assert memory.words().startswith("peak memory ") and memory.words().endswith(
        " MB over the process tree")
