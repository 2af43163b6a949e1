"""A plain SVG chart of the comparison: requests per second of every tier and nginx at
each load scenario (grouped bars), and ELF bytes per tier (horizontal bars)."""

from xml.sax.saxutils import escape

WIDTH = 760
COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#7f7f7f"]
NGINX_COLOR = "#444444"


def _text(x, y, s, size=12, anchor="start", weight="normal"):
    return ('<text x="%.1f" y="%.1f" font-size="%d" text-anchor="%s" font-weight="%s">%s'
            '</text>' % (x, y, size, anchor, weight, escape(s)))


def _rect(x, y, w, h, color, title):
    return ('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s</title>'
            '</rect>' % (x, y, w, h, color, escape(title)))


def _row(result, key):
    for row in result["rows"]:
        if row["key"] == key:
            return row["values"]
    raise KeyError(key)


def _color(columns, name):
    return NGINX_COLOR if name == "nginx" else COLORS[columns.index(name) % len(COLORS)]


def render(result, scenario_names):
    """Returns the SVG document for result (table.py's JSON form)."""
    columns = result["columns"]
    out = []
    # Panel 1: requests/s per scenario.
    top, height, left = 40, 220, 70
    plot_w = WIDTH - left - 20
    rps = {s: _row(result, "rps/" + s) for s in scenario_names}
    peak = max([v for per in rps.values() for v in per.values() if v] + [1.0]) * 1.1
    out.append(_text(WIDTH / 2, 22, "Requests per second, one new connection per request",
                     14, "middle", "bold"))
    for k in range(5):
        value = peak * k / 4
        y = top + height - height * k / 4
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                   % (left, y, left + plot_w, y))
        out.append(_text(left - 6, y + 4, "{:,}".format(int(value)), 10, "end"))
    group_w = plot_w / max(len(scenario_names), 1)
    bar_w = group_w * 0.8 / len(columns)
    for g, scenario in enumerate(scenario_names):
        x0 = left + g * group_w + group_w * 0.1
        for b, name in enumerate(columns):
            value = rps[scenario].get(name) or 0
            h = height * value / peak
            out.append(_rect(x0 + b * bar_w, top + height - h, bar_w - 2, h,
                             _color(columns, name), "%s, %s: %.0f req/s"
                             % (name, scenario, value)))
        out.append(_text(x0 + group_w * 0.4, top + height + 16, scenario, 12, "middle"))
    legend_y = top + height + 36
    for b, name in enumerate(columns):
        x = left + b * 120
        out.append(_rect(x, legend_y - 10, 12, 12, _color(columns, name), name))
        out.append(_text(x + 16, legend_y, name))
    # Panel 2: ELF bytes per tier.
    tiers = result["tiers"]
    elf = _row(result, "elf_bytes")
    top2 = legend_y + 40
    out.append(_text(WIDTH / 2, top2, "ELF bytes per tier", 14, "middle", "bold"))
    biggest = max([elf[t] for t in tiers] + [1])
    bar_h = 22
    for i, name in enumerate(tiers):
        y = top2 + 14 + i * (bar_h + 8)
        w = (plot_w - 80) * elf[name] / biggest
        out.append(_text(left - 6, y + 15, name, 12, "end"))
        out.append(_rect(left, y, w, bar_h, _color(columns, name),
                         "%s: %d bytes" % (name, elf[name])))
        out.append(_text(left + w + 6, y + 15, "{:,} B".format(elf[name])))
    total_h = top2 + 14 + len(tiers) * (bar_h + 8) + 10
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
            'font-family="sans-serif">\n<rect width="100%%" height="100%%" fill="white"/>\n'
            % (WIDTH, total_h) + "\n".join(out) + "\n</svg>\n")
