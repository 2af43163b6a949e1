"""The comparison's chart (matplotlib, written as PNG and SVG): one panel per scenario
family (new connection per request, keep-alive, pipelined, files) with each server's
requests/s as a ratio to nginx on a log scale, and a panel of server CPU µs per request
in every scenario (log scale). Missing bars are servers without that figure (min serves
no files)."""

import math

import matplotlib

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402

PANEL_TITLES = {
    "close": "One new connection per request (Connection: close)",
    "keep-alive": "Keep-alive",
    "pipelined": "Pipelined, 16 requests per write",
    "files": "Files from the same tree",
}
TIER_COLORS = ["#1f77b4", "#9ecae1", "#2ca02c", "#98df8a", "#17becf", "#bcbd22"]
PEER_COLORS = {"nginx": "#444444", "h2o": "#d62728", "lighttpd": "#ff7f0e"}


def _row(rows, key):
    for row in rows:
        if row["key"] == key:
            return row
    return None


def colors(result):
    """{server: color}: blues and greens for the tiers, a fixed color per peer."""
    out = {t: TIER_COLORS[i % len(TIER_COLORS)] for i, t in enumerate(result["tiers"])}
    out.update({p: PEER_COLORS.get(p, "#7f7f7f") for p in result["peers"]})
    return out


def _ratio_label(value):
    return ("%g×" % value) if value >= 0.01 else ""


def _grouped_bars(ax, groups, columns, color, value_of):
    """Draws one group of bars per entry of groups, one bar per column; value_of(group,
    column) gives the height or None. Returns every drawn height."""
    width = 0.8 / len(columns)
    heights = []
    for b, column in enumerate(columns):
        xs, hs = [], []
        for g, group in enumerate(groups):
            v = value_of(group, column)
            if v is not None and v > 0:
                xs.append(g - 0.4 + width * (b + 0.5))
                hs.append(v)
        ax.bar(xs, hs, width * 0.92, color=color[column], label=column)
        heights += hs
    ax.set_xticks(range(len(groups)))
    pad = max(0.0, (3 - len(groups)) / 2)  # a lone group keeps the width of three
    ax.set_xlim(-0.55 - pad, len(groups) - 0.45 + pad)
    return heights


def _log_panel(ax, heights, labels, title, ylabel, tick_label):
    """Log y axis spanning heights in whole decades, tick labels by tick_label(value),
    x labels, title and a light grid."""
    ax.set_yscale("log")
    low = min(heights + [1.0])
    high = max(heights + [1.0])
    ax.set_ylim(10 ** math.floor(math.log10(low) - 0.05),
                10 ** math.ceil(math.log10(high) + 0.05))
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: tick_label(v)))
    ax.yaxis.set_minor_formatter(ticker.NullFormatter())
    ax.set_xticklabels(labels, fontsize=9)
    ax.set_title(title, fontsize=11)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", which="major", color="#dddddd")
    ax.set_axisbelow(True)


def figure(result, rows_key="rows", subtitle=""):
    """The figure for result (table.py's JSON form); rows_key picks the main rows or the
    pinned ones."""
    rows = result[rows_key]
    columns = result["columns"]
    color = colors(result)
    scenarios = result["scenarios"]
    families = [f for f in PANEL_TITLES if any(s["family"] == f for s in scenarios)]
    fig = plt.figure(figsize=(15, 13), dpi=100)
    grid = fig.add_gridspec(3, 2, height_ratios=[1, 1, 1.15], hspace=0.55, wspace=0.2)
    for i, family in enumerate(families):
        ax = fig.add_subplot(grid[i // 2, i % 2])
        names = [s["name"] for s in scenarios if s["family"] == family]

        def ratio(name, column):
            row = _row(rows, "rps/" + name)
            return row["ratio_to_nginx"][column] if row else None

        heights = _grouped_bars(ax, names, columns, color, ratio)
        _log_panel(ax, heights, [n.replace(", ", "\n") for n in names],
                   PANEL_TITLES[family], "requests/s ÷ nginx's (log)", _ratio_label)
        ax.axhline(1.0, color="black", linewidth=0.8)
    ax = fig.add_subplot(grid[2, :])
    names = [s["name"] for s in scenarios]

    def cpu(name, column):
        row = _row(rows, "cpu/" + name)
        return row["values"][column] if row else None

    heights = _grouped_bars(ax, names, columns, color, cpu)
    _log_panel(ax, heights, [n.replace(", ", "\n").replace(" c=", "\nc=") for n in names],
               "Server CPU per request (user + system, all the server's processes; "
               "lower is better)", "µs per request (log)", lambda v: "%g" % v)
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=len(columns), fontsize=11,
               frameon=False, bbox_to_anchor=(0.5, 0.965))
    d = result["details"]
    fig.suptitle("apollod tiers against nginx, h2o and lighttpd: requests/s as a ratio to "
                 "nginx, and server CPU per request%s\n(wrk on the same machine, %d s × "
                 "%d round(s) per server and scenario%s)"
                 % (subtitle, d["load_duration_s"], d["load_rounds"],
                    ", --quick" if d["quick"] else ""), fontsize=12, y=0.995)
    return fig


def render(result, stem):
    """Writes stem.png and stem.svg (and, after --pin, stem-pinned.png and .svg)."""
    jobs = [("rows", "", stem)]
    if "pinned_rows" in result:
        jobs.append(("pinned_rows", " (pinned: servers on CPU 0, wrk on CPU 1)",
                     stem + "-pinned"))
    for rows_key, subtitle, path in jobs:
        fig = figure(result, rows_key, subtitle)
        for ext in ("png", "svg"):
            fig.savefig("%s.%s" % (path, ext), bbox_inches="tight", facecolor="white")
        plt.close(fig)
