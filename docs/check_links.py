"""Check the built guide's internal links: every relative link reaches a file, and every
#fragment an element id (or a named anchor) in that file. External links (http, https, mailto)
are not followed: the guide is checked offline, where nothing outside it can be reached.

    python3 docs/check_links.py target/guide

Exits 1 and lists every broken link (file, link, why) if any is broken, else 0.
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

EXTERNAL = ("http", "https", "mailto", "ftp", "data", "javascript")


class Page(HTMLParser):
    """The ids a page defines and the links it holds."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value)
            if name == "href" and tag in ("a", "link") or name == "src" and tag in ("img", "script"):
                self.links.append(value)


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def broken_links(root: Path) -> list[str]:
    pages = {path.resolve(): parse(path) for path in root.rglob("*.html")}
    problems = []
    for path, page in sorted(pages.items()):
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme in EXTERNAL or parts.netloc:
                continue
            target = path if not parts.path else (path.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            shown = f"{path.relative_to(root.resolve())}: {link}"
            if not target.is_file():
                problems.append(f"{shown}: no such file")
                continue
            fragment = unquote(parts.fragment)
            if fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else parse(target).ids
                if fragment not in ids:
                    problems.append(f"{shown}: no element has the id `{fragment}`")
    return problems


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = Path(sys.argv[1])
    if not root.is_dir():
        print(f"check_links: {root} is not a directory; build the guide first", file=sys.stderr)
        return 2
    problems = broken_links(root)
    for problem in problems:
        print(f"broken link: {problem}", file=sys.stderr)
    pages = sum(1 for _ in root.rglob("*.html"))
    if problems:
        print(f"check_links: {len(problems)} broken link(s) in {pages} pages", file=sys.stderr)
        return 1
    print(f"check_links: every internal link and anchor in {pages} pages resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
