"""The handbook's mkdocs plugin (``plugins: - mcp-handbook`` in mkdocs.yml, an entry point of the package).

One object owns what a build knows (:class:`~.state.SiteData`: the corpus, parsed once per build, the proofs,
the history) and answers mkdocs' documented events with it:

- ``on_config``: parse the content (a content error stops the build with every diagnostic, no traceback), set
  ``site_url`` from handbook.yml, reuse highlighted code, add the Markdown extension that links rule ids;
- ``on_files``: add the pages made from the model; ``on_nav``: order the navigation as the checklist;
- ``on_page_markdown``: a rule file becomes its whole page, tagged and placed in the checklist;
- ``on_page_context``: put in the finished HTML the page deferred past Markdown and the search index;
- ``on_post_build``: keep the highlighted blocks, write the downloads beside the pages;
- ``on_serve``: ``mkdocs serve`` (and ``mcp-handbook serve``) also rebuild on an edit to a probe, the recorded
  proofs or the templates.

No state lives in a module: mkdocs keeps one plugin instance per configured plugin (across the rebuilds of
``mkdocs serve`` too), and every build starts over in ``on_config``. The macros pluglet finds the same
instance through the build's config (:func:`handbook_plugin`).

A caller that has already parsed the content (``mcp-handbook build``) hands it to the plugin instance of the
config it is about to build: ``handbook_plugin(config).use_corpus(corpus)``; that build takes it instead of
parsing again, and the next one parses afresh (through the parse cache, keyed by every content file's bytes,
so an edited rule is never served from an old parse).
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import jinja2
from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority, get_plugin_logger
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation, Section
from mkdocs.structure.pages import Page
from mkdocs.utils import clean_directory

from ..model import Corpus, Rule
from .generated import generated_pages, navigation
from .highlight_cache import install as install_highlight_cache
from .inputs import EVIDENCE, PROBES, shared_inputs
from .links import rule_src
from .mentions import Mentions, MentionsExtension
from .rule_page import page_meta, rule_page
from .state import ContentError, SiteData, load_site_data
from .widgets import fill

log = get_plugin_logger(__name__)
NAME = "mcp-handbook"
"""The plugin's name: its entry point in pyproject.toml and its entry under ``plugins:`` in mkdocs.yml."""
WATCHED = (PROBES, EVIDENCE)
"""Beside what mkdocs serve watches itself (docs_dir: the rules and handbook.yml; mkdocs.yml): what a rule page
shows from outside content/ (a probe's source decides whether its recorded proofs are current), relative to
the handbook root. The templates (the theme's ``custom_dir``) are added from the config."""


class HandbookConfig(base.Config):
    version_selector = c.Type(bool, default=False)
    """Keep Material's version selector (``extra.version``): only for a site published among other versions
    (``mcp-handbook publish``), where ``../versions.json`` exists. A site built or served alone leaves it out,
    so it works offline and asks for nothing that is not there."""
    downloads = c.Type(bool, default=True)
    """Write every export (worksheets, rules.json, the skill) into ``downloads/`` beside the pages."""


class HandbookPlugin(BasePlugin[HandbookConfig]):
    """The site's one plugin; see the module docstring for the events it answers."""

    supports_multiple_instances = False

    def __init__(self) -> None:
        self.data: SiteData | None = None
        self.serving = False
        self.dirty = False
        self._inputs: str | None = None
        self._given: Corpus | None = None
        self._rules_by_src: dict[str, Rule] = {}
        self._mention_targets: dict[str, tuple[str, str]] = {}
        self._current: Mentions | None = None
        self._downloads: Executor | None = None
        self._templates = KeptBytecode()

    def use_corpus(self, corpus: Corpus) -> None:
        """Let the next build take ``corpus``, which the caller parsed from this config's handbook, as its own."""
        self._given = corpus

    def site_data(self) -> SiteData:
        """This build's data; a reader that runs outside a build (no ``on_config`` yet) is a bug, said plainly."""
        if self.data is None:
            raise PluginError(f"the {NAME} plugin has no build data yet: it is read before its on_config ran")
        return self.data

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.serving = command == "serve"
        self.dirty = dirty
        self._inputs = None

    @event_priority(100)  # before the macros and tags plugins read anything
    def on_config(self, config: Any) -> Any:
        corpus, self._given = self._given, None
        try:
            data = load_site_data(config, corpus)
        except ContentError as exc:
            raise PluginError(str(exc)) from None
        data.highlight = install_highlight_cache(config)
        data.defer_html = True  # on_page_context puts the deferred HTML in
        self.data = data
        self._rules_by_src = {rule_src(r): r for r in data.corpus.rules}
        self._mention_targets = {r.id: (rule_src(r), r.title) for r in data.corpus.rules}
        if not self.config.version_selector:
            config["extra"].pop("version", None)
        if not self.serving:  # mkdocs serve sets its own address as site_url
            config["site_url"] = published_root(data.corpus)
        extensions = config["markdown_extensions"]
        if not any(isinstance(e, MentionsExtension) for e in extensions):  # a config built twice gets it once
            extensions.append(MentionsExtension(lambda: self._current))
        return config

    def on_pre_build(self, *, config: Any) -> None:
        """A dirty rebuild (``mcp-handbook serve``, ``mkdocs serve --dirty``) renders only the pages whose source
        changed. That is exact for an edit to a rule's prose, which no page but its own shows; after any other
        edit (front matter, a block, another page, a probe, the proofs, the templates, mkdocs.yml) the site folder
        is emptied first, so every page is rebuilt, as in a clean build."""
        if not self.dirty:
            self._finish_downloads()  # mkdocs empties site_dir next
            return
        inputs = shared_inputs(Path(config["config_file_path"]).resolve().parent, config["theme"].custom_dir)
        if self._inputs is not None and inputs != self._inputs:
            self._finish_downloads()
            clean_directory(config["site_dir"])
        self._inputs = inputs

    def on_files(self, files: Files, *, config: Any) -> Files:
        """Add the generated pages; a real file at the same path wins."""
        for src, markdown in generated_pages(self.site_data().corpus).items():
            if files.get_file_from_path(src) is None:
                files.append(File.generated(config, src, content=markdown))
        return files

    def on_nav(self, nav: Navigation, *, config: Any, files: Files) -> Navigation:
        """The navigation in checklist order: fixed pages, gates with their rules, tags, then any page not placed."""
        pages = {f.src_uri: f.page for f in files.documentation_pages() if isinstance(f.page, Page)}
        return ordered_navigation(navigation(self.site_data().corpus, pages), pages)

    def on_env(self, env: jinja2.Environment, *, config: Any, files: Files) -> jinja2.Environment:
        """Keep the theme's compiled templates from one build to the next (mkdocs makes a new environment per
        build, and compiling Material's templates is a quarter of a rebuild after a one-page edit)."""
        if self.serving:
            env.bytecode_cache = self._templates
        return env

    @event_priority(100)  # before the tags plugin reads the page's tags, and before the macros run
    def on_page_markdown(self, markdown: str, *, page: Page, config: Any, files: Files) -> str:
        """A rule file's markdown becomes its full page; tag it, place it in the checklist, hide its TOC."""
        data = self.site_data()
        rule = self._rules_by_src.get(page.file.src_uri) if page.file.abs_src_path else None
        self._current = None if rule is None else Mentions(page.file.src_uri, rule.id, self._mention_targets)
        if rule is None:
            return markdown
        page.meta.update(page_meta(data.corpus, rule))
        return rule_page(data.corpus, rule, data=data)

    @event_priority(-100)  # after the search plugin has indexed the page
    def on_page_context(self, context: Any, *, page: Page, config: Any, nav: Navigation) -> Any:
        """Put the finished HTML into the page where the macros left markers: the large widgets and the deferred
        panels, once Markdown and the search index are done with the page, so neither parses them."""
        data = self.site_data()
        src = page.file.src_uri
        page.content = fill(data.put_late(src, page.content or ""), data.corpus, from_src=src, directory_urls=data.directory_urls)
        return context

    def on_post_build(self, *, config: Any) -> None:
        """Keep the blocks this build highlighted; write the downloads (while serving, in a process beside the
        server: a reader sees the edited page without waiting for the skill bundle)."""
        data = self.site_data()
        if data.highlight is not None:
            data.highlight.save()
        if not self.config.downloads:
            return
        folder = Path(config["site_dir"]) / "downloads"
        if self.serving:
            if self._downloads is None:  # one process, started once, writes them in turn: the server's own
                context = multiprocessing.get_context("spawn")  # process keeps its CPU for the next rebuild
                self._downloads = ProcessPoolExecutor(max_workers=1, mp_context=context)
            self._downloads.submit(write_downloads, data.corpus, folder).add_done_callback(_report_failure)
        else:
            write_downloads(data.corpus, folder)

    def on_serve(self, server: Any, *, config: Any, builder: Any) -> Any:
        """Rebuild on an edit to what a page shows from outside docs_dir: the probes, the recorded proofs and the
        templates (the theme's custom_dir, without the installed theme, which mkdocs watches only when asked)."""
        root = Path(config["config_file_path"]).resolve().parent
        custom = config["theme"].custom_dir
        for path in (*(root / p for p in WATCHED), *([Path(custom)] if custom else [])):
            if path.exists():
                server.watch(str(path))
        return server

    def on_shutdown(self) -> None:
        self._finish_downloads()
        self.serving = False

    def _finish_downloads(self) -> None:
        """Wait for the downloads being written (before site_dir is emptied, and when serving stops)."""
        if self._downloads is not None:
            self._downloads.shutdown(wait=True)
            self._downloads = None


class KeptBytecode(jinja2.BytecodeCache):
    """Compiled templates in memory, by Jinja's key; Jinja itself checks each against its source's checksum,
    so an edited template is compiled again."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if (code := self.compiled.get(bucket.key)) is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


def _report_failure(done: Future[None]) -> None:
    if (error := done.exception()) is not None:
        log.error(f"the downloads were not written: {error!r}")


def write_downloads(corpus: Corpus, folder: Path) -> None:
    from ..export import make_downloads, write_downloads as write

    write(corpus, folder, make_downloads(corpus))


def published_root(corpus: Corpus) -> str:
    """This version's own site, where ``Corpus.page_url`` puts its rule pages: ``site:`` in handbook.yml, then the
    version. mkdocs.yml names no site_url, so the canonical links and the sitemap can never disagree with it."""
    return f"{corpus.site}{corpus.version}/" if corpus.site else ""


def ordered_navigation(spec: list[Any], pages: dict[str, Page]) -> Navigation:
    """A Navigation of the pages mkdocs made, arranged as ``spec`` says (mkdocs' own nav format: ``{title: src}``,
    ``{title: [...]}`` for a section, or a bare ``src``), with parent, previous and next links set."""
    items = [_item(entry, pages) for entry in spec]
    in_order = _pages_of(items)
    for before, page, after in zip([None, *in_order[:-1]], in_order, [*in_order[1:], None]):
        page.previous_page, page.next_page = before, after
    _set_parents(items, None)
    return Navigation(items, in_order)


def _item(entry: Any, pages: dict[str, Page]) -> Any:
    if isinstance(entry, str):
        return pages[entry]
    ((title, value),) = entry.items()
    if isinstance(value, str):
        page = pages[value]
        page.title = title
        return page
    return Section(title, [_item(child, pages) for child in value])


def _pages_of(items: list[Any]) -> list[Page]:
    found: list[Page] = []
    for item in items:
        found.extend(_pages_of(item.children) if isinstance(item, Section) else [item])
    return found


def _set_parents(items: list[Any], parent: Section | None) -> None:
    for item in items:
        item.parent = parent
        if isinstance(item, Section):
            _set_parents(item.children, item)


def handbook_plugin(config: Any) -> HandbookPlugin:
    """The build's instance of this plugin, from its config (what the macros pluglet and the CLI reach it by)."""
    plugin = config["plugins"].get(NAME)
    if not isinstance(plugin, HandbookPlugin):
        raise PluginError(f"mkdocs.yml does not list the {NAME} plugin under plugins:")
    return plugin
