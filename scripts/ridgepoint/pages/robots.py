"""`robots.txt`: the site may be crawled, and its sitemap is here.

Crawlers read robots.txt only at a host's root, so on a site published under a path
(https://example.org/ridgepoint/) this file is served but not read; the sitemap it names is
still the one MkDocs writes from site_url, and the pages carry their canonical addresses.
"""

from __future__ import annotations

from ridgepoint.base import urls


def robots_txt(site_url: str) -> bytes:
    """Everything allowed, and the sitemap's absolute URL (`site_url` ends in "/")."""
    return f"User-agent: *\nAllow: /\n\nSitemap: {site_url}{urls.SITEMAP}\n".encode()
