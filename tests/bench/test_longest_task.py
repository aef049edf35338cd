"""The bench's longest-task figure: the longest top-level task on a renderer main thread,
by wall time, with the CPU time the thread had within it."""

import pytest

from bench.chromium import TASK_EVENTS, longest_task

TASK = sorted(TASK_EVENTS)[0]


def thread(pid: int, tid: int, name: str) -> dict:
    return {"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": name}}


def task(pid: int, tid: int, wall_us: int, cpu_us: int, name: str = TASK) -> dict:
    return {"ph": "X", "name": name, "pid": pid, "tid": tid, "ts": 0, "dur": wall_us,
            "tdur": cpu_us}


def test_the_longest_main_thread_task_by_wall_time_with_its_cpu_time() -> None:
    events = [
        thread(1, 10, "CrRendererMain"), thread(1, 11, "DedicatedWorker thread"),
        task(1, 10, 30_000, 29_000),
        task(1, 10, 82_000, 27_000),  # waited for a core most of the time
        task(1, 11, 900_000, 900_000),  # the worker's, not the main thread's
        task(1, 10, 500_000, 500_000, name="Layout"),  # nested work, not a task
    ]
    found = longest_task(events)
    assert (found.wall_ms, found.cpu_ms) == (82.0, 27.0)


def test_a_trace_without_main_thread_tasks_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="no main-thread task"):
        longest_task([thread(1, 10, "CrRendererMain")])
