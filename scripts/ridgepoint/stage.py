"""Write the staging tree (mkdocs.yml's docs_dir) from content, generated pages and feeds.

The whole tree is computed in memory first and only then synchronised to disk, so a
content error leaves the last good staging as it was. Synchronising writes a file only when
its bytes change and removes files no longer produced: `mkdocs serve` sees exactly what
changed, and a deleted article does not linger in the site.

Markdown from content/ is staged in this order, each step keeping line numbers so errors
point at the editor's file: figures (`{{ sim:... }}`), glossary links (explainers and
articles only), sim blocks (```sim -> widget HTML); then the front matter is rewritten with
its title and description escaped, since Material prints them unescaped.
"""

from __future__ import annotations

import posixpath
import re
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ridgepoint import urls
from ridgepoint.catalogue_module import sync_sims_module
from ridgepoint.config import SiteConfig
from ridgepoint.errors import ContentError, ContentErrors
from ridgepoint.feeds import generate_feeds
from ridgepoint.figures import FigureSource, render_figures
from ridgepoint.glossary_links import TermLinker
from ridgepoint.kinds import KINDS
from ridgepoint.layout import Layout
from ridgepoint.load import load_site, split_front_matter
from ridgepoint.markup import esc
from ridgepoint.model import Site
from ridgepoint.pages import generate_pages
from ridgepoint.robots import robots_txt
from ridgepoint.runtime import stage_runtime
from ridgepoint.sim_embed import render_sim_blocks
from ridgepoint.stagecache import StagedCache, context_digest

LINKED_SECTIONS = ("explainers/", "articles/")
ESCAPED_META = ("title", "description")
DESCRIPTION_FROM = ("summary", "hook")  # article, explainer
WIDGET_SCRIPT = "assets/sim/widget.js"  # also in mkdocs.yml's extra_javascript
SIM_MARKER = re.compile(r'data-sim="([A-Za-z_][A-Za-z0-9_]*)"')
# Folders under content/ that hold a YAML kind (the catalogue): not copied into the site.
DATA_FOLDERS = tuple(f"{kind.folder}/" for kind in KINDS if not kind.markdown)

Staged = bytes | Path  # file contents, or a file to copy


@dataclass
class StageReport:
    """What a staging run changed on disk (paths relative to the staging folder)."""

    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


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
    """Turns one loaded Site plus content/ into the staged files."""

    def __init__(self, layout: Layout, site: Site, config: SiteConfig) -> None:
        self.layout = layout
        self.site = site
        self.config = config
        self.linker = TermLinker(site.terms.values())
        self.figures = FigureSource(layout)
        self.cache = StagedCache(context_digest(layout, site.terms.values()), layout.staged)

    def markdown(self, relative: str, text: str) -> str:
        """One content page, staged (see the module docstring for the steps); from the
        cache when neither the page nor anything it depends on changed (stagecache.py)."""
        return self.cache.staged(relative, text, lambda: self._staged(relative, text))

    def _staged(self, relative: str, text: str) -> str:
        source = self.layout.relative(self.layout.content / relative)
        text = render_figures(text, source, self.figures)
        meta, body, _ = split_front_matter(text, source)
        head = text[: len(text) - len(body)]
        if relative.startswith(LINKED_SECTIONS):
            glossary = posixpath.relpath(
                urls.source_path(urls.GLOSSARY), posixpath.dirname(relative)
            )
            body = self.linker.link(body, glossary)
        script = urls.relative(urls.page_url(relative), WIDGET_SCRIPT)
        staged = render_sim_blocks(head + body, source, self.layout, script,
                                   urls.catalogue_links(urls.page_url(relative)))
        _, body, _ = split_front_matter(staged, source)
        return _front_matter(meta) + body

    def files(self) -> dict[str, Staged]:
        """Every staged file except the runtime: content, generated pages, feeds."""
        files: dict[str, Staged] = {}
        errors: list[ContentError] = []
        content = self.layout.content
        for path in sorted(content.rglob("*")):
            relative = path.relative_to(content).as_posix()
            if not path.is_file() or any(p.startswith(".") for p in relative.split("/")):
                continue
            if self.layout.relative(path).startswith(DATA_FOLDERS):
                continue  # a YAML kind's files are data, read through the Site, not assets
            if path.suffix == ".md":
                try:
                    files[relative] = self.markdown(relative, path.read_text("utf-8")).encode()
                except ContentErrors as problem:
                    errors.extend(problem.errors)
            else:
                files[relative] = path
        generated = {path: self.generated(path, text).encode()
                     for path, text in generate_pages(self.site).items()}
        generated |= generate_feeds(
            self.site, self.config.site_url, self.config.site_name, self.config.site_description
        )
        generated[urls.ROBOTS] = robots_txt(self.config.site_url)
        for path in sorted(generated.keys() & files.keys()):
            message = "would replace a page the pipeline generates"
            where = self.layout.relative(content / path)
            errors.append(ContentError(where, 1, "file", message, "another name"))
        if errors:
            raise ContentErrors(errors)
        return files | generated

    def generated(self, relative: str, text: str) -> str:
        """A generated page, its ```sim blocks (the catalogue's calculator) made widgets."""
        script = urls.relative(urls.page_url(relative), WIDGET_SCRIPT)
        return render_sim_blocks(text, f"generated page {relative}", self.layout, script,
                                 urls.catalogue_links(urls.page_url(relative)))

    def sim_modules(self, files: dict[str, Staged]) -> set[str]:
        """Sims the browser needs: each explainer's, and every widget on a staged page."""
        modules = {explainer.sim for explainer in self.site.explainers.values()}
        for path, data in files.items():
            if path.endswith(".md") and isinstance(data, bytes):
                modules.update(SIM_MARKER.findall(data.decode()))
        return modules


def _same(target: Path, data: Staged) -> bool:
    """Whether `target` already holds `data`. A copied file is the same when size and
    modification time match its source (copies keep the source's time, see sync): reading
    both, tens of MB with Python's runtime, on every rebuild would cost more than the rest
    of staging."""
    try:
        held = target.stat()
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(held.st_mode):
        return False
    if isinstance(data, Path):
        source = data.stat()
        return (held.st_size, held.st_mtime_ns) == (source.st_size, source.st_mtime_ns)
    return held.st_size == len(data) and target.read_bytes() == data


def sync(stage_dir: Path, files: dict[str, Staged]) -> StageReport:
    """Make `stage_dir` hold exactly `files`, touching only what differs."""
    report = StageReport()
    for relative, data in sorted(files.items(), key=lambda item: item[0]):
        target = stage_dir / relative
        if _same(target, data):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, Path):
            shutil.copy2(data, target)
        else:
            target.write_bytes(data)
        report.written.append(relative)
    for path in sorted(stage_dir.rglob("*"), reverse=True):
        relative = path.relative_to(stage_dir).as_posix()
        if path.is_file() and relative not in files:
            path.unlink()
            report.removed.append(relative)
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
    return report


def runtime_files(layout: Layout, runtime_dir: Path, modules: set[str]) -> dict[str, Staged]:
    """The browser runtime (ridgepoint.runtime), staged into its own folder first so that
    folder keeps its incremental copies and the staging tree has a single owner."""
    stage_runtime(layout, runtime_dir, modules)
    return {
        path.relative_to(runtime_dir).as_posix(): path
        for path in sorted(runtime_dir.rglob("*"))
        if path.is_file()
    }


def stage_site(
    layout: Layout, config_file: Path | None = None, stage_dir: Path | None = None
) -> StageReport:
    """Load and validate the layout's content, then stage it; raises ContentErrors, having
    written nothing, when content has problems, and StagingError when the runtime cannot
    be staged (a package missing, a sim importing what Pyodide lacks).

    `config_file` defaults to the layout's mkdocs.yml and `stage_dir` to its docs_dir, so a
    test can stage a fixture tree into a temporary folder.
    """
    config = SiteConfig.read(config_file or layout.mkdocs_yml)
    stage_dir = (stage_dir or config.docs_dir).resolve()
    sync_sims_module(layout)  # before anything imports the sims
    site = load_site(layout.root)
    stager = Stager(layout, site, config)
    files = stager.files()
    stager.cache.prune()
    files |= runtime_files(
        layout, stage_dir.parent / f"{stage_dir.name}.runtime", stager.sim_modules(files)
    )
    stage_dir.mkdir(parents=True, exist_ok=True)
    return sync(stage_dir, files)
