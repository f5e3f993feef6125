#!/usr/bin/env python3
"""Draws the documentation's pictures as SVG into the AFNetworking catalog's Resources:

  layers.svg        the layers: modules, manager, task, transport, what carries a transfer
  performance.svg   request overhead and large transfers, read from BENCHMARKS.md's tables

`docs-images.py` writes them; `docs-images.py --check` fails when a committed picture differs
from what this script draws (so a figure changed in BENCHMARKS.md is redrawn). Standard library
only.
"""
import os
import re
import sys
from xml.sax.saxutils import escape

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESOURCES = os.path.join(ROOT, "Sources/AFNetworking/AFNetworking.docc/Resources")
FONT = 'font-family="-apple-system, Helvetica, Arial, sans-serif"'
URLSESSION_COLOUR, MANAGER_COLOUR = "#9aa5b1", "#1f6fb2"


def text(x, y, content, size=13, anchor="middle", weight="normal", fill="#1d1d1f"):
    return (f'<text x="{x}" y="{y}" {FONT} font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}">{escape(content)}</text>')


def box(x, y, width, height, title, lines=(), fill="#eef4fb", stroke="#1f6fb2"):
    parts = [f'<rect x="{x}" y="{y}" width="{width}" height="{height}" rx="6" fill="{fill}" stroke="{stroke}"/>',
             text(x + width / 2, y + 20, title, 14, weight="bold")]
    for index, line in enumerate(lines):
        parts.append(text(x + width / 2, y + 38 + 16 * index, line, 12))
    return parts


def layers():
    width, parts = 900, []
    parts += box(20, 10, 860, 34, "Your code: import AFNetworking", fill="#ffffff", stroke="#6e6e73")
    modules = [("AFSerialization", ["request and response", "serializers"]),
               ("AFSession", ["managers, retries,", "cache, cookies, streams"]),
               ("AFSecurity", ["SecurityPolicy, X.509,", "hostname matching"]),
               ("AFReachability", ["NetworkReachabilityManager", "on rtnetlink"])]
    for index, (name, lines) in enumerate(modules):
        parts += box(20 + index * 217, 58, 209, 70, name, lines)
    parts.append(text(20, 148, "a request goes down, its response comes back up:", 12, anchor="start", fill="#6e6e73"))
    rows = [("Manager", "URLSessionManager, HTTPSessionManager: serializers, interceptors, cache, cookie jar, event monitors, overrides"),
            ("Task", "the manager's own task (a URLSessionDataTask to callers): its handlers, progress, metrics, limits"),
            ("Transport (AFTransport)", "HTTPTransport: .libcurl (the default), .urlSession, or a test's stub")]
    y = 158
    for title, line in rows:
        parts += box(20, y, 860, 50, title, [line])
        parts.append(f'<path d="M450 {y + 50} v10" stroke="#1f6fb2" stroke-width="2" marker-end="url(#arrow)"/>')
        y += 62
    carriers = [("libcurl and OpenSSL", ["one multi handle on the transport's", "queue; loaded with dlopen"]),
                ("URLSession's own protocol", ["FoundationNetworking,", "on request or as the fallback"]),
                ("StubTransport, TestServer", ["AFNetworkingTesting: in the", "process, or on loopback"])]
    for index, (name, lines) in enumerate(carriers):
        parts += box(20 + index * 290, y, 280, 70, name, lines, fill="#f5f5f7", stroke="#6e6e73")
    height = y + 80
    defs = ('<defs><marker id="arrow" markerWidth="8" markerHeight="8" refX="4" refY="4" orient="auto">'
            '<path d="M0,0 L8,4 L0,8 z" fill="#1f6fb2"/></marker></defs>')
    return svg(width, height, [defs] + parts, "The layers of AFNetworking for Linux")


def table(markdown, heading):
    """The rows of the first table after `heading`, as lists of cells."""
    section = markdown.split(heading, 1)[1]
    rows = [line for line in section.split("\n") if line.startswith("|")]
    start = next(index for index, line in enumerate(section.split("\n")) if line.startswith("|"))
    rows = []
    for line in section.split("\n")[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows[2:]


def numbers(cell):
    return [float(value.replace(",", "")) for value in re.findall(r"\d[\d,]*(?:\.\d+)?", cell)]


def performance():
    markdown = open(os.path.join(ROOT, "BENCHMARKS.md"), encoding="utf-8").read()
    overhead = [(row[0], numbers(row[1])[:2], numbers(row[2])[:2]) for row in table(markdown, "## Request overhead")]
    transfers = [(row[0], numbers(row[1])[0], numbers(row[2])[0]) for row in table(markdown, "## Large transfers")
                 if not row[0].startswith("8 x")]
    width, parts = 900, []
    # Left: requests per second by requests in flight, each bar the low end of the range, its
    # lighter top the rest of the range.
    left, top, plot_height, plot_width = 70, 60, 260, 330
    parts.append(text(left + plot_width / 2, 24, "Small GETs to nginx: requests per second", 15, weight="bold"))
    parts.append(text(left + plot_width / 2, 42, "medians of two runs, as a range; URLSession vs the manager", 12, fill="#6e6e73"))
    ceiling = max(high for _, _, (low, high) in overhead) * 1.1
    parts += axis(left, top, plot_width, plot_height, ceiling, 2000)
    group = plot_width / len(overhead)
    for index, (inflight, urlsession, manager) in enumerate(overhead):
        x = left + index * group + group * 0.12
        for offset, (low, high), colour in ((0, urlsession, URLSESSION_COLOUR), (1, manager, MANAGER_COLOUR)):
            bar_x = x + offset * group * 0.44
            parts += range_bar(bar_x, group * 0.32, top, plot_height, ceiling, low, high, colour)
        parts.append(text(left + index * group + group / 2, top + plot_height + 18, f"{inflight} in flight", 12))
    # Right: large transfers, MiB/s.
    left2, plot_width2 = 520, 360
    parts.append(text(left2 + plot_width2 / 2, 24, "Large transfers on loopback: MiB/s", 15, weight="bold"))
    parts.append(text(left2 + plot_width2 / 2, 42, "URLSession's own tasks vs the manager", 12, fill="#6e6e73"))
    ceiling2 = max(max(a, b) for _, a, b in transfers) * 1.1
    parts += axis(left2, top, plot_width2, plot_height, ceiling2, 500)
    group2 = plot_width2 / len(transfers)
    labels = {0: ["80 GETs of 10 MB", "in memory"], 1: ["80 downloads", "of 10 MB"], 2: ["one 1 GiB", "download"],
              3: ["one 1 GiB upload", "from a file"]}
    for index, (label, urlsession, manager) in enumerate(transfers):
        x = left2 + index * group2 + group2 * 0.15
        for offset, value, colour in ((0, urlsession, URLSESSION_COLOUR), (1, manager, MANAGER_COLOUR)):
            parts += range_bar(x + offset * group2 * 0.36, group2 * 0.32, top, plot_height, ceiling2, value, value, colour)
        for line_index, line in enumerate(labels.get(index, [label])):
            parts.append(text(left2 + index * group2 + group2 / 2, top + plot_height + 18 + 14 * line_index, line, 11))
    legend_y = top + plot_height + 58
    for index, (name, colour) in enumerate((("URLSession", URLSESSION_COLOUR), ("AFNetworking manager (libcurl transport)", MANAGER_COLOUR))):
        x = 300 + index * 150
        parts.append(f'<rect x="{x}" y="{legend_y - 11}" width="14" height="14" fill="{colour}"/>')
        parts.append(text(x + 20, legend_y, name, 12, anchor="start"))
    parts.append(text(width / 2, legend_y + 24, "Figures from BENCHMARKS.md (scripts/benchmark.sh, 2 cores, Debian 12, Swift 6.3.1)", 11, fill="#6e6e73"))
    return svg(width, legend_y + 36, parts, "Benchmark figures: URLSession against the manager")


def axis(left, top, width, height, ceiling, step):
    parts = [f'<line x1="{left}" y1="{top + height}" x2="{left + width}" y2="{top + height}" stroke="#6e6e73"/>']
    value = 0
    while value <= ceiling:
        y = top + height - height * value / ceiling
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + width}" y2="{y:.1f}" stroke="#e5e5ea"/>')
        parts.append(text(left - 6, y + 4, f"{value:,.0f}", 11, anchor="end", fill="#6e6e73"))
        value += step
    return parts


def range_bar(x, width, top, height, ceiling, low, high, colour):
    base = top + height
    low_y, high_y = base - height * low / ceiling, base - height * high / ceiling
    parts = [f'<rect x="{x:.1f}" y="{low_y:.1f}" width="{width:.1f}" height="{base - low_y:.1f}" fill="{colour}"/>']
    if high > low:
        parts.append(f'<rect x="{x:.1f}" y="{high_y:.1f}" width="{width:.1f}" height="{low_y - high_y:.1f}" '
                     f'fill="{colour}" fill-opacity="0.45"/>')
    label = f"{low:,.0f}" if high == low else f"{low:,.0f}-{high:,.0f}"
    parts.append(text(x + width / 2, high_y - 4, label, 9))
    return parts


def svg(width, height, parts, title):
    body = "\n".join(parts)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height:.0f}" '
            f'viewBox="0 0 {width} {height:.0f}" role="img">\n<title>{escape(title)}</title>\n'
            f'<rect width="100%" height="100%" fill="#ffffff"/>\n{body}\n</svg>\n')


if __name__ == "__main__":
    pictures = {"layers.svg": layers(), "performance.svg": performance()}
    stale = []
    for name, content in pictures.items():
        path = os.path.join(RESOURCES, name)
        if "--check" in sys.argv:
            if not os.path.exists(path) or open(path, encoding="utf-8").read() != content:
                stale.append(name)
        else:
            with open(path, "w", encoding="utf-8") as file:
                file.write(content)
    if stale:
        raise SystemExit(f"docs: {', '.join(stale)} differ from what scripts/docs-images.py draws: run it and commit them")
