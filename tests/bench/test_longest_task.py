"""The bench's longest-task figure: the longest top-level task on a renderer main thread,
by wall time, with the CPU time the thread had within it."""

import pytest

from bench.chromium import TASK_EVENTS, cpu_by_thread, cpu_within, longest_task

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


def at(event: dict, ts: int) -> dict:
    return {**event, "ts": ts}


def mark(pid: int, name: str, ts: int) -> dict:
    return {"ph": "R", "cat": "blink.user_timing", "name": name, "pid": pid, "tid": 10, "ts": ts}


def test_a_change_counts_the_cpu_of_the_main_thread_and_the_workers_within_its_marks() -> None:
    events = [
        thread(1, 10, "CrRendererMain"), thread(1, 11, "DedicatedWorker thread"),
        thread(2, 20, "CrRendererMain"),
        mark(1, "change-3:start", 100_000), mark(1, "change-3:end", 130_000),
        at(task(1, 10, 10_000, 4_000), 100_000),  # wholly inside: its CPU
        at(task(1, 10, 2_000, 2_000), 101_000),  # nested in the one above: not again
        at(task(1, 11, 8_000, 8_000), 110_000),  # Python's run in the worker
        at(task(1, 10, 20_000, 10_000), 120_000),  # half inside: half its CPU
        at(task(2, 20, 30_000, 30_000), 100_000),  # another page's renderer
        at(task(1, 10, 5_000, 5_000), 140_000),  # after the change
    ]
    wall, cpu = cpu_within(events, "change-3")
    assert (wall, cpu) == (30.0, 4.0 + 8.0 + 5.0)
    assert cpu_by_thread(events, "change-3") == (30.0, {"main": 4.0 + 5.0, "worker": 8.0})
