// @ts-check
// Python's start for a sim on the first screen, before the widget's script has loaded.
//
// The page loads this module right after its first sim, ahead of widget.js: it imports only
// the page's worker (python.js) and the rule for when a sim wants Python (wanted.js), both
// modules widget.js imports too, so the page holds one instance of each and the widget
// finds the worker started. widget.js needs nineteen modules before it runs, and on a busy
// machine the slowest of them arrived 200-400 ms after these three; Python's start (a
// worker, its scripts, several MB) waited for them. The rule is the widget's own: within
// about a screen of the viewport, and never under Save-Data, so a reader whose sim is far
// down the page still gets no Python byte until it nears.

import { start } from "./python.js";
import { whenNear } from "./wanted.js";

const first = document.querySelector("[data-sim]");
if (first && first.getAttribute("data-state") === "prerendered") whenNear(first, start);
