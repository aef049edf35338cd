"""Where everything is: the repository's layout, declared once and handed to whoever needs it.

No other module computes a root or joins a folder name onto one. The entry points
(scripts/build.py, check.py, serve.py, bench.py, the MkDocs hook) and the tests call
`repository()` once and pass the Layout down; a library function that touches a file takes
the Layout, or the one path of it that it needs, as a parameter. So a test can stage a
fixture tree into a temporary folder, and a bench can build synthetic content, with the
same code the real build runs.

A layout has two halves. The content tree (`root`) is what an editor writes: mkdocs.yml,
content/ and each content kind's folder (glossary/, feed/, ...: those folders are declared
with their kinds, in ridgepoint.content.kinds). The code (`code`) is the repository whose sims,
npm packages, scripts and caches serve that content; it is the content tree itself for the
repository, and the repository for a fixture or synthetic tree, which holds content only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Layout:
    """Absolute paths of one content tree and of the code that builds it."""

    root: Path  # the content tree
    code: Path  # the repository holding sims/, node_modules/, scripts/ and build/cache/
    content: Path  # pages and assets, staged into MkDocs' docs_dir
    experiments: Path  # measured results that `{{ data:... }}` figures read
    mkdocs_yml: Path
    site: Path  # where `make build` puts the built site
    sims: Path  # the sims package: run natively, shipped to the browser
    node_modules: Path  # Pyodide and the chart library, pinned by package-lock.json
    scripts: Path  # the entry points
    build: Path  # what builds and benches write besides site/: staging, caches, bench.json
    editor_values: Path  # the value sets editors complete from (ridgepoint.editing.valuesets)
    cache: Path  # build caches, safe to delete (README: Performance), one folder each for:
    sim_runs: Path  # native sim results (ridgepoint.sims.simrun)
    sim_code: Path  # each sims file's imports and compiled code (ridgepoint.sims.compiledfiles)
    charts: Path  # prerendered chart SVGs (ridgepoint.sims.charts)
    staged: Path  # staged pages (ridgepoint.staging.stagecache)
    parsed: Path  # content files parsed and schema-checked (ridgepoint.content.parsememo)
    csp_scans: Path  # each built page's inline scripts and styles (ridgepoint.finishing.csp)
    snapshots: Path  # the Pyodide memory snapshot (ridgepoint.browser.snapshot)
    packed: Path  # runtime files gzipped once (ridgepoint.browser.packed)

    @classmethod
    def of(cls, root: Path, code: Path | None = None) -> Layout:
        """The layout of the content tree `root`, served by the code in `code` (default:
        `root` itself, a whole repository)."""
        root = root.resolve()
        code = root if code is None else code.resolve()
        cache = code / "build" / "cache"
        return cls(
            root=root,
            code=code,
            content=root / "content",
            experiments=root / "content" / "data" / "experiments",
            mkdocs_yml=root / "mkdocs.yml",
            site=root / "site",
            sims=code / "sims",
            node_modules=code / "node_modules",
            scripts=code / "scripts",
            build=code / "build",
            editor_values=code / "build" / "editor" / "values.schema.json",
            cache=cache,
            sim_runs=cache / "sim-runs",
            sim_code=cache / "sim-code",
            charts=cache / "vl-svg",
            staged=cache / "staged",
            parsed=cache / "parsed",
            csp_scans=cache / "csp-scans.json",
            snapshots=cache / "pyodide-snapshot",
            packed=cache / "packed",
        )

    def with_content(self, root: Path) -> Layout:
        """Another content tree (a fixture, synthetic content) served by this layout's code."""
        return Layout.of(root, self.code)

    def relative(self, path: Path) -> str:
        """`path` as content errors name it: relative to the content tree, forward slashes."""
        return path.relative_to(self.root).as_posix()


def repository() -> Layout:
    """The layout of the repository this package belongs to (scripts/ridgepoint/ in it).

    For entry points and tests only; everything else is handed a Layout.
    """
    return Layout.of(Path(__file__).resolve().parents[3])
