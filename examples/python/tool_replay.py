#!/usr/bin/env python3
"""Replays a recorded event script against a document with Quire's tool manager, prints
each tool change and annotation change, and saves the result.

    python3 examples/python/tool_replay.py IN.pdf SCRIPT.jsonl OUT.pdf

The script is JSON lines, one step a line (blank lines and lines starting with # are
skipped):

    {"tool": "square"}                                    make a built-in tool current
    {"event": "drag_begin", "page": 0, "x": 100, "y": 500}
    {"event": "drag_move", "page": 0, "x": 180, "y": 560}
    {"event": "drag_end", "page": 0, "x": 250, "y": 600}
    {"event": "tap", "page": 0, "x": 150, "y": 550}       also double_tap, long_press, cancel
    {"contents": "Check this"}                            the selected annotation's text
    {"field_value": "Ada Lovelace"}                       the selected form field's value
    {"style": {"color": [0, 0, 1], "border_width": 3, "author": "Ada"}}
    {"delete": true}   {"undo": true}   {"redo": true}   {"commit": true}

Tools are the names of quire.Tool in lower case (pan, annot_edit, ink, square, circle,
line, arrow, polygon, polyline, sticky_note, free_text, link, form_fill, signature,
highlight, underline, strikeout, squiggly). Points are in PDF user space; a host that
renders pages converts its pixels with quire.device_to_page first. The same script runs
with examples/c/tool_replay.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Dict

import quire


def describe(event: quire.ToolEvent) -> str:
    kind = event.kind.name.lower()
    if event.kind == quire.ToolEventKind.TOOL_CHANGED:
        assert event.from_tool is not None and event.to_tool is not None
        return "tool %s -> %s" % (event.from_tool.name.lower(), event.to_tool.name.lower())
    if event.kind == quire.ToolEventKind.LINK_ACTIVATED:
        return "link %s: %s" % (event.object_number, event.uri if event.uri else "page %s" % event.page_index)
    if event.kind == quire.ToolEventKind.UNHANDLED:
        return "unhandled %s on page %s at %s" % (event.pointer, event.page_index, event.point)
    return "%s %s" % (kind, event.object_number if event.object_number is not None else "-")


def step(tools: quire.ToolManager, doc: quire.Document, line: Dict[str, Any]) -> None:
    if "tool" in line:
        tools.tool = quire.Tool[str(line["tool"]).upper()]
    elif "event" in line:
        kind = quire.PointerKind[str(line["event"]).upper()]
        tools.send(kind, int(line.get("page", 0)), (float(line["x"]), float(line["y"])))
    elif "contents" in line:
        tools.set_selection_contents(line["contents"])
    elif "field_value" in line:
        tools.set_field_value(str(line["field_value"]))
    elif "style" in line:
        tools.set_style(**line["style"])
    elif line.get("delete"):
        tools.delete_selection()
    elif line.get("undo"):
        tools.undo()
    elif line.get("redo"):
        tools.redo()
    elif line.get("commit"):
        tools.commit()
    else:
        raise ValueError("unknown step %r" % (line,))


def main(argv: list) -> int:
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    src, script, out = argv[1:]
    with quire.Document(src) as doc:
        tools = quire.ToolManager(doc, on_event=lambda e: print(describe(e)))
        with open(script, encoding="utf-8") as f:
            for number, text in enumerate(f, 1):
                text = text.strip()
                if not text or text.startswith("#"):
                    continue
                try:
                    step(tools, doc, json.loads(text))
                except (quire.QuireError, ValueError, KeyError) as error:
                    print("%s:%d: %s" % (script, number, error), file=sys.stderr)
                    return 1
        tools.commit()
        tools.close()
        doc.save(out)
    print("saved %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
