"""Interaction: from an input changed on a page to its answer on screen, for every sim.

Each sim is driven on a real page of the built site that embeds it (its explainer where it
has one), with every control the page shows set to the sim's defaults through the URL. The
bench changes a control as a reader on a keyboard does, by a real key press that Chromium
delivers as trusted input (a slider's ArrowRight or ArrowLeft moves it one step; a select's
ArrowDown or ArrowUp picks the next or previous option), so that Chromium's own Event
Timing sees the interaction as it would a reader's. The key is held KEY_HOLD_MS before it
is released, as a finger on a key does: a key released in the same instant as it was
pressed (Playwright's default), which no keyboard sends, has its keyup land between the
answer's two frames (the summary and first chart, then the other charts), and Chromium
then gave the keyup no paint until the next frame with anything new in it. On the
quantization explainer that was when the URL followed the change, 250 ms later
(controls.js, URL_DELAY_MS): keyups of 184-232 ms, its Event Timing p95 of 144-168 ms
although every change was on screen within 25 ms. Held 40 or 80 ms, no entry over 100 ms
in 3 runs each (24 changes a run); released at once, 1 to 2 in every run.

Three figures per change, each from the key's `keydown` (its event timestamp, when the
browser received it):

- to the summary and the first chart updated: the page's `ridgepoint:drawn:first` mark
  (content/assets/sim/drawn.js), made once the summary is written and the first chart
  drawn in the same task, so both are in the next frame;
- to every chart updated: `ridgepoint:drawn:all`;
- Chromium's interaction latency, as Interaction to Next Paint measures it: the longest
  Event Timing entry of the key's interaction (PerformanceObserver type "event",
  durationThreshold 16), from the key to the next paint after its handlers ran. An
  interaction under the threshold has no entry: it counts as 16 ms, an upper bound.

So a change measures the worker's run (Python), the message round trip and the chart
updates in the page; Event Timing measures how long the page kept the key from a paint.

The page runs ahead of a reader who steps (python.js and ahead.js: the next step of the
control moved or focused, answers kept), so most of these steps are answered from the page.
Each sim is therefore measured twice: as a reader steps, and with look-ahead off, every
change computed by the worker, which is what a typed value or a jump costs.

A reader reaches for a control (a pointer over it, a click, a Tab) before changing it, and
the page gets ready then (widget.js, prepare). So the bench first focuses the controls,
waits THINK_MS, and times the first change on its own: what a reader's first change costs.
The controls then take turns, each moving one step away from its default and back (a
choice to a neighbouring option and back). A round over every control is warm-up; then
CHANGES changes are timed.
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page

import sims
from bench.chromium import MainThreadTrace, cpu_by_thread, longest_task, wait_until
from bench.interaction_page import (
    EVENT_THRESHOLD_MS,
    FOCUS,
    FOCUS_SETTLE_MS,
    REACH,
    RECORDER,
    SETTLED,
)
from bench.pageload import OBSERVER
from bench.stats import percentile
from sims.kit.contract import Choice, Number, Text, defaults

CHANGES = 40
SLOWEST_SHOWN = 3  # changes named beside the p95: which controls set it
THINK_MS = 1000  # from reaching for the controls to the first change
KEY_HOLD_MS = 50  # from a key's keydown to its keyup: a short press of a physical key
CHANGE_TIMEOUT_MS = 10_000
_SIM_ELEMENT = re.compile(r'data-sim="(?P<module>\w+)" data-key="(?P<key>[\w-]+)"')


@dataclass
class Interaction:
    """One sim's interaction figures, each change timed from its key's keydown."""

    module: str
    page: str
    first_ms: float  # the first change (to every chart), THINK_MS after focusing the controls
    first_answer_ms: float  # the first change, to the summary and the first chart
    answer_p50_ms: float  # to the summary and the first chart updated
    answer_p95_ms: float
    p50_ms: float  # to every chart updated
    p95_ms: float
    max_ms: float
    event_p50_ms: float  # Chromium's Event Timing: the interaction's longest entry
    event_p95_ms: float
    event_max_ms: float
    under_threshold: int  # interactions with no entry (under EVENT_THRESHOLD_MS)
    changes: int
    cpu_p50_ms: float  # CPU time of the page's main thread and workers within a change
    cpu_p95_ms: float
    main_cpu_p95_ms: float  # of it, the page's main thread (script, style, layout, paint)
    worker_cpu_p95_ms: float  # and Python's worker (the sim's run and its JSON)
    slowest: str  # the slowest timed changes (to every chart), as `slowest` gives them
    slowest_answer: str  # and to the summary and the first chart
    longest_task_ms: float  # the longest main-thread task of the timed changes (wall)
    kept: int  # timed changes answered from the page (a step run ahead, or one back)
    ahead: bool  # whether the page ran ahead of the reader (python.js); off: all computed


def pages_by_sim(site: Path) -> dict[str, str]:
    """For each sim, a built page (path under the site) with a widget whose key is the
    sim's own name (its first widget on that page); explainers first."""
    found: dict[str, str] = {}
    pages = sorted(site.rglob("index.html"), key=lambda p: ("explainers" not in p.parts, str(p)))
    for path in pages:
        for match in _SIM_ELEMENT.finditer(path.read_text(encoding="utf-8")):
            if match["module"] == match["key"]:
                relative = path.parent.relative_to(site).as_posix()
                found.setdefault(match["module"], f"{relative}/")
    return found


def shown_inputs(site: Path, page: str, key: str) -> list[str]:
    """The inputs the widget `key` on `page` has controls for."""
    text = (site / page / "index.html").read_text(encoding="utf-8")
    start = text.index(f'data-key="{key}"')
    form = text[start:text.index("</form>", start)]
    return re.findall(r'data-input="(\w+)"', form)


def other_value(module: str, name: str) -> tuple[Any, str, str] | None:
    """A value next to the default that the sim accepts with every other input at its
    default, with the keys that move a control there and back: one step up or down for a
    number (a slider's ArrowRight or ArrowLeft), the next or previous option for a choice
    (a select's ArrowDown or ArrowUp). None if there is none (calculator's layout: expert
    parallel needs a mixture of experts, and the default model is dense), so that control
    cannot be changed on its own at the defaults."""
    sim = sims.load(module)
    spec = next(spec for spec in sim.INPUTS if spec.name == name)
    if isinstance(spec, Text):
        return None  # its values are the sim's own format: no neighbour to step to
    if isinstance(spec, Choice):
        at = list(spec.choices).index(spec.default)
        options = [(spec.choices[i], there, back)
                   for i, there, back in ((at + 1, "ArrowDown", "ArrowUp"),
                                          (at - 1, "ArrowUp", "ArrowDown"))
                   if 0 <= i < len(spec.choices)]
    else:
        assert isinstance(spec, Number)
        options = [(value, there, back)
                   for value, there, back in ((spec.default + spec.step, "ArrowRight", "ArrowLeft"),
                                              (spec.default - spec.step, "ArrowLeft", "ArrowRight"))
                   if spec.min <= value <= spec.max]
    for value, there, back in options:
        try:
            sim.simulate(**{name: value})
        except ValueError:
            continue
        return value, there, back
    return None


def _url(base: str, page: str, key: str, names: list[str], module: str) -> str:
    values = defaults(sims.load(module).INPUTS)
    query = urllib.parse.urlencode({f"{key}.{name}": values[name] for name in names})
    return f"{base}{page}?{query}"


def slowest(changes: list[tuple[str, Any]], durations: list[float],
            count: int = SLOWEST_SHOWN) -> str:
    """The `count` slowest of the timed `changes` ((input, value) each, with its duration),
    slowest first, as "input=value ms": the p95 of a few dozen changes is set by its
    slowest few, and an engineer cutting it needs to know which control's change they are."""
    ranked = sorted(zip(durations, changes, strict=True), key=lambda item: -item[0])[:count]
    return ", ".join(f"{name}={value} {ms:.1f} ms" for ms, (name, value) in ranked)


def _event_ms(events: list[dict[str, Any]], key_at: float, next_key_at: float) -> float | None:
    """The longest Event Timing entry of the interaction of the key pressed at `key_at`
    (entries of a later key excluded); None if it had none over the threshold."""
    durations = [event["duration"] for event in events
                 if event["interaction"] and key_at - 1 <= event["start"] < next_key_at - 1]
    return max(durations) if durations else None


def measure(context: BrowserContext, base: str, site: Path, module: str, page_path: str,
            changes: int = CHANGES, ahead: bool = True) -> Interaction:
    """Open the sim's page and time its first change, then `changes` changes after a
    warm-up round. With `ahead` off, the page neither runs ahead of the reader nor keeps
    answers (window.ridgepointAhead = false): every change is computed by the worker."""
    names = shown_inputs(site, page_path, module)
    values = defaults(sims.load(module).INPUTS)
    others = {name: other_value(module, name) for name in names}
    steps: list[tuple[str, Any, str]] = []
    for name in names:
        other = others[name]
        if other is not None:
            steps += [(name, other[0], other[1]), (name, values[name], other[2])]
    page: Page = context.new_page()

    def change(index: int) -> None:
        name, _, key = steps[index % len(steps)]
        count = page.evaluate(FOCUS, [module, name, FOCUS_SETTLE_MS])
        page.keyboard.press(key, delay=KEY_HOLD_MS)
        page.evaluate(SETTLED, [count, CHANGE_TIMEOUT_MS])

    try:
        page.add_init_script(OBSERVER)
        if not ahead:
            page.add_init_script("window.ridgepointAhead = false;")
        page.goto(_url(base, page_path, module, names, module))
        page.locator(f'[data-key="{module}"]').scroll_into_view_if_needed()  # as a reader
        # This widget: a page's other sims, further down, are never wanted here.
        wait_until(page, f"() => document.querySelector('[data-key=\"{module}\"]')"
                         ".dataset.state === 'ready'")
        page.evaluate(RECORDER, module)
        page.evaluate(REACH, module)
        page.wait_for_timeout(THINK_MS)
        # The first change, then a warm-up round over every step, then the timed changes,
        # traced (lightly) for the CPU time each had.
        change(0)
        for index in range(1, 1 + len(steps)):
            change(index)
        timed = range(1 + len(steps), 1 + len(steps) + changes)
        trace = MainThreadTrace(page)
        for index in timed:
            change(index)
        page.wait_for_timeout(300)  # Event Timing reports an interaction after its paint
        events = trace.events(page)
        seen = page.evaluate("window.__changes")
    finally:
        page.close()
    keys, first_marks, all_marks = seen["keys"], seen["first"], seen["all"]
    kept_at = seen["kept"]
    # Every change drew once: its marks are the last len(keys) of each list.
    first_marks, all_marks = first_marks[-len(keys):], all_marks[-len(keys):]
    answer = [first_marks[i] - keys[i] for i in range(len(keys))]
    whole = [all_marks[i] - keys[i] for i in range(len(keys))]
    ends = [*keys[1:], float("inf")]
    measured = [_event_ms(seen["events"], keys[i], ends[i]) for i in range(len(keys))]
    interaction = [EVENT_THRESHOLD_MS if ms is None else ms for ms in measured]
    threads = [cpu_by_thread(events, f"change-{index}")[1] for index in timed]
    cpu = [split["main"] + split["worker"] for split in threads]
    chosen = list(timed)
    durations = [whole[i] for i in chosen]
    answers = [answer[i] for i in chosen]
    latencies = [interaction[i] for i in chosen]
    named = [steps[i % len(steps)][:2] for i in chosen]
    return Interaction(
        module, page_path, whole[0], answer[0],
        percentile(answers, 0.5), percentile(answers, 0.95),
        percentile(durations, 0.5), percentile(durations, 0.95), max(durations),
        percentile(latencies, 0.5), percentile(latencies, 0.95), max(latencies),
        sum(measured[i] is None for i in chosen), len(durations),
        percentile(cpu, 0.5), percentile(cpu, 0.95),
        percentile([split["main"] for split in threads], 0.95),
        percentile([split["worker"] for split in threads], 0.95),
        slowest(named, durations), slowest(named, answers), longest_task(events).wall_ms,
        sum(any(keys[i] <= at < ends[i] for at in kept_at) for i in chosen), ahead)
