"""Listings: articles per tag (`tags/<tag>/`), all tags, all explainers, all articles.

The site's navigation links to the three index pages instead of to every item, so the nav
stays the same size however much content there is.
"""

from __future__ import annotations

from ridgepoint.base import urls
from ridgepoint.base.markup import count, esc, link
from ridgepoint.content.model import Site
from ridgepoint.pages.common import page, paragraph
from ridgepoint.pages.items import article_list, explainer_grid
from ridgepoint.pages.order import explainers_by_level, newest_articles


def tag_articles_page(site: Site, tag: str) -> str:
    """Articles carrying `tag`, newest update first."""
    here = urls.tag_articles(tag)
    label = site.tags[tag].label
    articles = newest_articles(a for a in site.articles.values() if tag in a.tags)
    hub = link(urls.relative(here, urls.hub(tag)), f"the {label} hub")
    title = f"Articles tagged {label}"
    feed = (urls.tag_feed(tag), label)
    if not articles:
        lede = f"No article carries this tag yet. Explainers, terms and readings are on {hub}."
        description = f"No article is tagged {label} yet; its hub lists what there is."
        return page(title, paragraph(lede, "rp-lede"), description=description, own_feed=feed)
    lede = (
        f"{esc(count(len(articles), 'article', 'articles'))}, newest update first. See also {hub}."
    )
    description = f"{count(len(articles), 'article', 'articles')} tagged {label}, newest first."
    return page(
        title, paragraph(lede, "rp-lede"), article_list(site, articles, here),
        description=description, own_feed=feed,
    )


def tags_page(site: Site) -> str:
    """Every tag in use: its description, hub, articles and feed."""
    here = urls.TAGS
    rows = []
    for tag in site.tags_in_use():
        info = site.tags[tag]
        follow = " · ".join(
            (
                link(urls.relative(here, urls.tag_articles(tag)), "articles"),
                link(urls.relative(here, urls.tag_feed(tag)), "Atom feed"),
            )
        )
        rows.append(
            f"<dt>{link(urls.relative(here, urls.hub(tag)), info.label)}</dt>"
            f'<dd>{esc(info.description)} <span class="rp-follow">{follow}</span></dd>'
        )
    body = "\n".join(rows)
    return page(
        "Tags", f'<dl class="rp-tags">\n{body}\n</dl>',
        description="Every topic on the site, each with its hub, its articles and its Atom feed.",
    )


def explainers_page(site: Site) -> str:
    """Every explainer as a card, beginner first."""
    explainers = explainers_by_level(site.explainers.values())
    lede = "Each explainer is a page of prose around one simulation that runs in your browser."
    return page(
        "Explainers",
        paragraph(esc(lede), "rp-lede"),
        explainer_grid(explainers, urls.EXPLAINERS) if explainers else "",
        description=f"{lede} Beginner first.",
    )


def articles_page(site: Site) -> str:
    """Every article, newest update first."""
    articles = newest_articles(site.articles.values())
    lede = "Long-form writing, newest update first."
    return page(
        "Articles",
        paragraph(esc(lede), "rp-lede"),
        article_list(site, articles, urls.ARTICLES) if articles else "",
        description="Long-form writing on LLM serving latency, newest update first.",
    )
