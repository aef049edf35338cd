"""Draw the site's link-preview image, content/images/social.png (run once, committed).

    python scripts/social_image.py          # rewrite the PNG from the drawing below
    python scripts/social_image.py --check  # exit 1 if the committed PNG is not this drawing

Every page names this image in its Open Graph and Twitter card tags (overrides/main.html),
so a link to Ridgepoint shared in a chat or a feed reader shows the site's name rather than
nothing or a third-party placeholder. It is drawn as SVG here and rasterised by vl-convert
(already pinned for the prerendered charts; it bundles its fonts, so the result does not
depend on the machine's). The motif is the roofline the site is named after: a bandwidth
slope meeting a compute roof at the ridge point. 1200 x 630 px is the size Open Graph and
Twitter's large card expect. It lives outside assets/ so that the service worker does not
cache it at install (scripts/ridgepoint/finishing/offline.py): readers never load it, link previews
do.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import vl_convert

from ridgepoint.base.layout import repository

LAYOUT = repository()
ROOT = LAYOUT.root
IMAGE = LAYOUT.content / "images" / "social.png"
WIDTH, HEIGHT = 1200, 630
# Material's "blue grey" palette, the site's primary colour (mkdocs.yml), and its accent.
BACKGROUND, INK, MUTED, ACCENT = "#263238", "#ffffff", "#b0bec5", "#8c9eff"

SVG = f"""<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}"
  viewBox="0 0 {WIDTH} {HEIGHT}">
  <rect width="{WIDTH}" height="{HEIGHT}" fill="{BACKGROUND}"/>
  <polyline points="640,560 900,230 1140,230" fill="none" stroke="{ACCENT}" stroke-width="10"
    stroke-linejoin="round" stroke-linecap="round"/>
  <circle cx="900" cy="230" r="18" fill="{INK}"/>
  <text x="80" y="300" font-family="sans-serif" font-size="112" font-weight="bold"
    fill="{INK}">Ridgepoint</text>
  <text x="84" y="380" font-family="sans-serif" font-size="38" fill="{MUTED}">A field guide
    to LLM serving latency</text>
  <text x="84" y="430" font-family="sans-serif" font-size="38" fill="{MUTED}">that you can
    run</text>
</svg>
"""


def render() -> bytes:
    """The image's PNG bytes (deterministic for a given vl-convert)."""
    return vl_convert.svg_to_png(SVG, scale=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    drawn = render()
    if args.check:
        if IMAGE.exists() and IMAGE.read_bytes() == drawn:
            return 0
        print(f"{IMAGE.relative_to(ROOT)} is not what {Path(__file__).name} draws: "
              f"run python scripts/{Path(__file__).name}", file=sys.stderr)
        return 1
    IMAGE.parent.mkdir(parents=True, exist_ok=True)
    IMAGE.write_bytes(drawn)
    print(f"wrote {IMAGE.relative_to(ROOT)} ({len(drawn)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
