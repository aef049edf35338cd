"""A small in-memory Site for generator and feed tests, independent of the loader."""

from __future__ import annotations

from datetime import date

from ridgepoint.model import Article, Explainer, Hub, HubSection, Reading, Site, Tag, Term

SITE_URL = "https://ridgepoint.test/"


def make_sample_site() -> Site:
    """A Site exercising every listing rule: plural and singular counts, a hub with a
    two-section path, a tag without a hub file, readings off the path, same-day ties,
    long author lists, a reading without a URL and strings that need escaping."""
    tags = {
        "latency": Tag("latency", "Latency", "How long a reader waits."),
        "decode": Tag("decode", "Decode", "One token at a time."),
        "batching": Tag("batching", "Batching", "Many requests, one pass."),
    }
    terms = {
        "time-to-first-token": Term(
            "time-to-first-token",
            "Time to first token",
            'The wait until the first token, "queue" & prefill included.',
            ("latency",),
            "TTFT",
            ("inter-token-latency",),
        ),
        "inter-token-latency": Term(
            "inter-token-latency",
            "Inter-token latency",
            "The gap between two tokens.",
            ("latency", "decode"),
            "ITL",
        ),
        "goodput": Term("goodput", "Goodput", "Throughput that met its targets.", ("batching",)),
    }
    readings = {
        "paper": Reading(
            "paper",
            "paper",
            "A Paper *With* Stars",
            ("Ann A", "Bob B", "Cat C", "Dan D"),
            date(2026, 3, 1),
            ("latency", "decode"),
            "Read it for the method.",
            "Conf 2024",
            "https://example.org/paper",
        ),
        "talk": Reading(
            "talk",
            "talk",
            "A Talk",
            ("Eve E",),
            date(2026, 3, 1),
            ("latency",),
            "Same day as the paper, earlier by title.",
        ),
        "probe": Reading(
            "probe",
            "article",
            "<script>alert(1)</script>",
            ("Fay <b>F</b>",),
            date(2026, 1, 5),
            ("decode",),
            "<script>alert(1)</script> & *stars*",
        ),
        "extra": Reading(
            "extra",
            "code",
            "Off the Path",
            ("Gus G", "Hal H", "Ian I"),
            date(2026, 4, 1),
            ("latency",),
            "Tagged but not on the path.",
            None,
            "https://example.org/extra",
        ),
    }
    hubs = {
        "latency": Hub(
            "latency",
            "Where the wait goes.",
            (
                HubSection("Mental models", "Read first.", ("talk",)),
                HubSection("Current *work*", "Then these.", ("paper", "probe")),
            ),
        )
    }
    explainers = {
        "batching": Explainer(
            "batching",
            "A batch is as slow as its slowest",
            "beginner",
            "Run the batch.",
            "batching",
            ("latency", "batching"),
        ),
        "roofline": Explainer(
            "roofline",
            "Two phases, two bottlenecks",
            "intermediate",
            "Move the dot.",
            "roofline",
            ("latency",),
        ),
    }
    articles = {
        "older": Article(
            "older",
            "Older & <em>wiser</em>",
            "Updated last.",
            ("latency", "decode"),
            date(2026, 1, 1),
            date(2026, 5, 1),
        ),
        "newer": Article(
            "newer", "Newer", "Updated first.", ("latency",), date(2026, 2, 1), date(2026, 2, 2)
        ),
    }
    return Site(tags, terms, readings, hubs, explainers, articles)
