"""``python -m experiments.streaming``: measure, and rewrite the result file."""

from experiments.streaming.measure import main

raise SystemExit(main())
