"""The address a site is published at, checked before anything is built for it.

Every feed entry's id and every canonical link is made from site_url, and a feed reader
keeps an entry's id forever: a site published with a local address (the default, for
`make build` and `make serve`) would give every subscriber ids that can never be corrected
without showing each entry again as new. So `make publish` refuses an address that is
unset, not http(s), or one that only this machine can reach.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

EXAMPLE = "make publish SITE_URL=https://example.org/ridgepoint/"


class PublishError(ValueError):
    """The site cannot be published at this address; the message is one line."""


def _local(host: str) -> bool:
    """Whether `host` names this machine only: localhost, a loopback or unspecified address."""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def publication_url(value: str | None) -> str:
    """`value` as the site_url to publish with (ending in "/"), or PublishError saying why not."""
    if not value or not value.strip():
        raise PublishError(f"SITE_URL is not set: say where the site will be served, e.g. "
                           f"{EXAMPLE} (feed ids are made from it and are permanent)")
    url = value.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise PublishError(f"SITE_URL={url} is not an http(s) address with a host: e.g. "
                           f"{EXAMPLE}")
    if _local(parts.hostname):
        raise PublishError(f"SITE_URL={url} is local to this machine ({parts.hostname}): "
                           f"publish with the address readers will use, e.g. {EXAMPLE} "
                           "(feed ids are made from it and are permanent)")
    if parts.query or parts.fragment:
        raise PublishError(f"SITE_URL={url} has a query or fragment: give the site's folder, "
                           f"e.g. {EXAMPLE}")
    return url if url.endswith("/") else url + "/"
