"""Write the staging tree (mkdocs.yml's docs_dir) from content, generated pages and feeds.

The whole tree is computed in memory first and only then synchronised to disk
(ridgepoint.staging.sync), so a content error leaves the last good staging as it was.

Markdown from content/ is staged in this order, each step keeping line numbers so errors
point at the editor's file: figures and claims (`{{ sim:... }}`, `{{ claim:... }}`, also in
the front matter), glossary links (explainers and articles only), sim blocks (```sim ->
widget HTML); then the front matter is rewritten with its title and description escaped,
since Material prints them unescaped. Each page is checked first against the built page's
Content Security Policy (ridgepoint.prose.sourcepolicy), and every page's links against every
staged file (ridgepoint.prose.links).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection
from pathlib import Path

import yaml

from ridgepoint.base import urls
from ridgepoint.base.config import SiteConfig
from ridgepoint.base.errors import ContentError, ContentErrors
from ridgepoint.base.layout import Layout
from ridgepoint.base.markup import esc
from ridgepoint.browser.modulegraph import static_imports
from ridgepoint.browser.runtime import stage_runtime
from ridgepoint.catalogue.sims_module import sync_sims_module
from ridgepoint.content.kinds import KINDS
from ridgepoint.content.load import load_site, split_front_matter
from ridgepoint.content.model import Site
from ridgepoint.content.parsememo import ParseMemo
from ridgepoint.pages import generate_pages
from ridgepoint.pages.feeds import generate_feeds
from ridgepoint.pages.robots import robots_txt
from ridgepoint.prose.figures import FigureSource, render_figures, with_figures
from ridgepoint.prose.glossary_links import TermLinker
from ridgepoint.prose.links import broken_links
from ridgepoint.prose.sourcepolicy import refusals
from ridgepoint.sims.embed import check_sim_blocks, render_sim_blocks
from ridgepoint.sims.simrun import SimRuns
from ridgepoint.sims.widget import WidgetScript
from ridgepoint.staging.stagecache import StagedCache, context_digest, term_digest
from ridgepoint.staging.sync import Staged, StageReport, sync

LINKED_SECTIONS = ("explainers/", "articles/")
ESCAPED_META = ("title", "description")
DESCRIPTION_FROM = ("summary", "hook")  # article, explainer
WIDGET_SCRIPT = "assets/sim/widget.js"  # also in mkdocs.yml's extra_javascript
SIM_MARKER = re.compile(r'data-sim="([A-Za-z_][A-Za-z0-9_]*)"')
# Folders under content/ that hold a YAML kind (the catalogue): not copied into the site.
DATA_FOLDERS = tuple(f"{kind.folder}/" for kind in KINDS if not kind.markdown)


def _front_matter(meta: dict[str, object]) -> str:
    """Front matter for MkDocs: strings Material prints raw are escaped; an article's
    summary or an explainer's hook becomes the page description."""
    staged = dict(meta)
    for key in DESCRIPTION_FROM:
        if isinstance(meta.get(key), str):
            staged.setdefault("description", meta[key])
    for key in ESCAPED_META:
        if isinstance(staged.get(key), str):
            staged[key] = esc(str(staged[key]))
    if not staged:
        return ""
    dumped = yaml.safe_dump(staged, allow_unicode=True, sort_keys=False, width=1_000_000)
    return f"---\n{dumped}---\n"


class Stager:
    """Turns one loaded Site plus content/ into the staged files, with one version of the
    sims (`runs`: every page of a staging sees the same sims).

    With `check_only` (`make check`), each page gets every check staging makes (the
    Content Security Policy's rules at the source's lines, figures, sim blocks) and nothing
    is rendered: no glossary links, no widgets or charts, no cache entries written."""

    def __init__(self, layout: Layout, site: Site, config: SiteConfig, runs: SimRuns,
                 check_only: bool = False) -> None:
        self.layout = layout
        self.site = with_figures(site, FigureSource(layout, runs.run))  # hooks, summaries
        self.config = config
        self.runs = runs
        self.check_only = check_only
        self.linker = TermLinker(site.terms.values())
        self.widget_imports = static_imports(layout.content / WIDGET_SCRIPT)
        context = context_digest(layout, site.terms.values(), self.widget_imports)
        self.cache = StagedCache(context, layout.staged, self._current)

    def markdown(self, relative: str, text: str) -> str:
        """One content page, staged (see the module docstring for the steps); from the
        cache when neither the page nor anything it depends on changed (stagecache.py). A
        page with a current cache entry staged without errors, so `check_only` skips it."""
        if self.check_only:
            return self.cache.get(relative, text) or self._stage(relative, text)
        return self.cache.staged(relative, text, lambda: self._staged(relative, text))

    def _staged(self, relative: str, text: str) -> tuple[str, dict[str, str]]:
        """The staged page and what it used (stagecache.py), each with its digest."""
        self.runs.used.clear()
        self.linker.used.clear()
        staged = self._stage(relative, text)
        uses = [f"sim:{module}" for module in self.runs.used]
        uses += [f"term:{slug}" for slug in self.linker.used]
        return staged, {name: self._current(name) for name in sorted(uses)}

    def _current(self, dependency: str) -> str:
        """The digest a page's dependency has now (LookupError once it is gone)."""
        kind, _, name = dependency.partition(":")
        if kind == "sim":
            return self.runs.digest(name)
        if kind == "term" and name in self.site.terms:
            return term_digest(self.site.terms[name])
        raise LookupError(dependency)

    def _stage(self, relative: str, text: str) -> str:
        """The page staged, or ContentErrors with every problem each step found."""
        source = self.layout.relative(self.layout.content / relative)
        _, body, body_line = split_front_matter(text, source)
        errors = refusals(body, source, body_line)
        try:
            text = render_figures(text, source, FigureSource(self.layout, self.runs.run))
        except ContentErrors as problem:
            errors += problem.errors  # the blocks are still checked, on the unfilled text
        if self.check_only:
            errors += check_sim_blocks(text, source, self.runs)
            if errors:
                raise ContentErrors(errors)
            return text
        meta, body, _ = split_front_matter(text, source)  # its placeholders filled in
        head = text[: len(text) - len(body)]
        if relative.startswith(LINKED_SECTIONS):
            glossary = posixpath.relpath(
                urls.source_path(urls.GLOSSARY), posixpath.dirname(relative)
            )
            body = self.linker.link(body, glossary)
        try:
            staged = render_sim_blocks(head + body, source, self.runs, self.layout.charts,
                                       self._widget_script(relative),
                                       urls.catalogue_links(urls.page_url(relative)))
        except ContentErrors as problem:
            raise ContentErrors([*errors, *problem.errors]) from None
        if errors:
            raise ContentErrors(errors)
        _, body, _ = split_front_matter(staged, source)
        return _front_matter(meta) + body

    def files(self) -> dict[str, Staged]:
        """Every staged file except the runtime: content, generated pages, feeds."""
        files: dict[str, Staged] = {}
        errors: list[ContentError] = []
        content = self.layout.content
        pages: dict[str, str] = {}  # each content page's source text, for its links
        for path in sorted(content.rglob("*")):
            relative = path.relative_to(content).as_posix()
            if not path.is_file() or any(p.startswith(".") for p in relative.split("/")):
                continue
            if self.layout.relative(path).startswith(DATA_FOLDERS):
                continue  # a YAML kind's files are data, read through the Site, not assets
            if path.suffix == ".md":
                pages[relative] = path.read_text("utf-8")
                try:
                    files[relative] = self.markdown(relative, pages[relative]).encode()
                except ContentErrors as problem:
                    errors.extend(problem.errors)
            else:
                files[relative] = path
        generated = {path: self.generated(path, text).encode() for path, text in generate_pages(
            self.site, self.runs.code, None if self.check_only else self.layout.charts).items()}
        generated |= generate_feeds(
            self.site, self.config.site_url, self.config.site_name, self.config.site_description
        )
        generated[urls.ROBOTS] = robots_txt(self.config.site_url)
        for path in sorted(generated.keys() & files.keys()):
            message = "would replace a page the pipeline generates"
            where = self.layout.relative(content / path)
            errors.append(ContentError(where, 1, "file", message, "another name"))
        errors += self._broken_links(pages, files.keys() | pages.keys() | generated.keys())
        if errors:
            raise ContentErrors(errors)
        return files | generated

    def generated(self, relative: str, text: str) -> str:
        """A generated page, its ```sim blocks (the catalogue's calculator) made widgets, or
        only checked under `check_only`."""
        source = f"generated page {relative}"
        if self.check_only:
            errors = check_sim_blocks(text, source, self.runs)
            if errors:
                raise ContentErrors(errors)
            return text
        return render_sim_blocks(text, source, self.runs, self.layout.charts,
                                 self._widget_script(relative),
                                 urls.catalogue_links(urls.page_url(relative)))

    def _widget_script(self, relative: str) -> WidgetScript:  # as the page refers to it
        return WidgetScript(urls.relative(urls.page_url(relative), WIDGET_SCRIPT),
                            self.widget_imports)

    def _broken_links(self, pages: dict[str, str], staged: set[str]) -> list[ContentError]:
        """Every page's links against every staged file: outside the staged-page cache,
        since a link breaks when its target goes, not when its own page changes."""
        return [
            error for relative, text in pages.items()
            for error in broken_links(text, relative,
                                      self.layout.relative(self.layout.content / relative), staged)
        ]

    def sim_modules(self, files: dict[str, Staged]) -> set[str]:
        """Sims the browser needs: each explainer's, and every widget on a staged page."""
        modules = {explainer.sim for explainer in self.site.explainers.values()}
        for path, data in files.items():
            if path.endswith(".md") and isinstance(data, bytes):
                modules.update(SIM_MARKER.findall(data.decode()))
        return modules


def runtime_files(
    layout: Layout, runtime_dir: Path, modules: set[str], runs: SimRuns
) -> dict[str, Staged]:
    """The browser runtime (ridgepoint.browser.runtime), staged into its own folder first so that
    folder keeps its incremental copies and the staging tree has a single owner."""
    stage_runtime(layout, runtime_dir, modules, runs.source)
    return {
        path.relative_to(runtime_dir).as_posix(): path
        for path in sorted(runtime_dir.rglob("*"))
        if path.is_file()
    }


def load_content(layout: Layout, runs: SimRuns, sim_modules: Collection[str] | None = None,
                 memo: ParseMemo | None = None) -> Site:
    """The layout's content, loaded and checked against the sims as they are now (or the
    names `sim_modules`, as a fixture may fix them), with the layout's kept parses unless
    given a `memo`. A sim that does not import is reported with the content's own problems,
    not instead of them (explainers are then checked against the sims' file names)."""
    broken: list[ContentError] = []
    names = sim_modules
    if names is None:
        try:
            names = runs.code.names
        except ContentErrors as errors:
            broken = errors.errors
            names = runs.source.module_names()
    try:
        site = load_site(layout.root, names, memo=memo or ParseMemo(layout.parsed))
    except ContentErrors as errors:
        raise ContentErrors([*broken, *errors.errors]) from None
    if broken:
        raise ContentErrors(broken)
    return site


def current_sims(layout: Layout) -> SimRuns:
    """The layout's sims as they are now, read after their catalogue module is brought up to
    date with the catalogue YAML (ridgepoint.catalogue.sims_module): its bytes are part of what
    the sim-run cache and the snapshot are keyed by."""
    sync_sims_module(layout)
    return SimRuns.of(layout)


def check_content(layout: Layout, config_file: Path | None = None,
                  sim_modules: Collection[str] | None = None) -> Site:
    """Every rule staging enforces on content, without staging (`make check`): the loaded
    Site, or ContentErrors holding every problem."""
    config = SiteConfig.read(config_file or layout.mkdocs_yml)
    runs = current_sims(layout)
    site = load_content(layout, runs, sim_modules)
    Stager(layout, site, config, runs, check_only=True).files()
    return site


def stage_site(
    layout: Layout, config_file: Path | None = None, stage_dir: Path | None = None,
    memo: ParseMemo | None = None,
) -> StageReport:
    """Load and validate the layout's content, then stage it; raises ContentErrors, having
    written nothing, when content (or a sim) has problems, and StagingError when the
    runtime cannot be staged (a package missing).

    `config_file` defaults to the layout's mkdocs.yml and `stage_dir` to its docs_dir, so a
    test can stage a fixture tree into a temporary folder. `memo` keeps each file's parse
    across stagings (the serve hook's; ridgepoint.content.parsememo).
    """
    config = SiteConfig.read(config_file or layout.mkdocs_yml)
    stage_dir = (stage_dir or config.docs_dir).resolve()
    runs = current_sims(layout)
    stager = Stager(layout, load_content(layout, runs, memo=memo), config, runs)
    files = stager.files()
    stager.cache.prune()
    runs.source.prune()
    files |= runtime_files(
        layout, stage_dir.parent / f"{stage_dir.name}.runtime", stager.sim_modules(files), runs
    )
    stage_dir.mkdir(parents=True, exist_ok=True)
    return sync(stage_dir, files)
