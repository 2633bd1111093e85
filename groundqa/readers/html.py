"""The main content of an HTML page, section by section, with trafilatura (Apache-2.0).

Saved web pages repeat menus, sidebars, cookie banners and footers on every page; indexed as they
are, those lines crowd out the article and can even contradict it. trafilatura keeps the main
content (scripts, styles, navigation and boilerplate dropped) and its headings; each heading starts
a new segment whose ``section`` is the heading path ("Ferries › Tickets"), so chunks stay within a
section and citations can name it. A top-level heading that repeats the page title is not part of
the path. Nothing is fetched: links, images and external resources are never followed.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from groundqa.datasets.loaders import Segment
from groundqa.readers import Extracted, ReadError

SECTION_SEPARATOR = " \u203a "
_SPACE = re.compile(r"\s+")
_HEADING_LEVEL = re.compile(r"h([1-6])", re.IGNORECASE)


@contextmanager
def _quiet() -> Iterator[None]:
    """trafilatura and htmldate log what they discard; the reader reports problems itself."""
    loggers = [logging.getLogger(name) for name in ("trafilatura", "htmldate", "courlan", "justext")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def _text(element: Any) -> str:
    return _SPACE.sub(" ", " ".join(element.itertext())).strip()


def _block(element: Any) -> str:
    """One block of the main content as plain text: lists as "- item" lines, tables as "a | b" rows."""
    tag = element.tag
    if tag == "list":
        items = [_text(item) for item in element.iter("item")]
        return "\n".join(f"- {item}" for item in items if item)
    if tag == "table":
        rows = [" | ".join(_text(cell) for cell in row.iter("cell")) for row in element.iter("row")]
        return "\n".join(row for row in rows if row.strip(" |"))
    return _text(element)


@lru_cache(maxsize=1)
def _config() -> Any:
    """trafilatura's settings, except that short pages count (its default wants 250 characters of main
    content and would drop a short help page) and no extensive date search is made."""
    from trafilatura.settings import use_config

    config = use_config()
    config.set("DEFAULT", "MIN_EXTRACTED_SIZE", "1")
    config.set("DEFAULT", "MIN_OUTPUT_SIZE", "1")
    config.set("DEFAULT", "EXTENSIVE_DATE_SEARCH", "off")
    return config


def _normal(text: str) -> str:
    return _SPACE.sub(" ", text).strip().casefold()


def read_html(data: bytes | str) -> Extracted:
    """The main content of the HTML page ``data``; :class:`ReadError` (one line) when it has none."""
    import trafilatura
    from lxml import etree

    with _quiet():
        try:
            xml = trafilatura.extract(
                data, output_format="xml", with_metadata=True, include_comments=False, include_tables=True,
                include_links=False, include_images=False, deduplicate=False, config=_config(),
            )
        except Exception as exc:  # a parser failure on a damaged page is that page's problem only
            raise ReadError(f"unreadable HTML ({' '.join(str(exc).split())[:120]})") from exc
    if not xml:
        raise ReadError("no main content found in the HTML page")
    try:
        root = etree.fromstring(xml.encode("utf-8"))
    except etree.XMLSyntaxError as exc:
        raise ReadError(f"unreadable HTML ({exc})") from exc
    main = root.find("main")
    if main is None:
        raise ReadError("no main content found in the HTML page")

    title = _SPACE.sub(" ", root.get("title") or "").strip()
    text_parts: list[str] = []
    offset = 0
    segments: list[Segment] = []
    path: list[tuple[int, str]] = []
    blocks: list[str] = []
    body_start = 0
    first_heading = ""

    def emit(piece: str) -> int:
        nonlocal offset
        if text_parts:
            text_parts.append("\n\n")
            offset += 2
        start = offset
        text_parts.append(piece)
        offset += len(piece)
        return start

    def close_section() -> None:
        if blocks:
            names = [name for _, name in path]
            if names and path[0][0] == 1 and _normal(names[0]) == _normal(title):
                names = names[1:]
            segments.append(Segment(text="\n\n".join(blocks), section=SECTION_SEPARATOR.join(names) or None,
                                    start=body_start))
        blocks.clear()

    for element in main:
        if not isinstance(element.tag, str):
            continue  # comments, processing instructions
        if element.tag == "head":
            heading = _text(element)
            if not heading:
                continue
            close_section()
            match = _HEADING_LEVEL.fullmatch(element.get("rend") or "")
            level = int(match.group(1)) if match else 2
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, heading))
            first_heading = first_heading or heading
            emit("#" * level + " " + heading)
            continue
        block = _block(element)
        if not block:
            continue
        start = emit(block)
        if not blocks:
            body_start = start
        blocks.append(block)
    close_section()
    title = title or first_heading
    if not segments:
        raise ReadError("no main content found in the HTML page")
    return Extracted(title=title, text="".join(text_parts), segments=segments)
