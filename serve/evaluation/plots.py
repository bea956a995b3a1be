"""PNG plots of evaluation reports (router and replies): histograms and bar charts, matplotlib's Agg backend
(no display on a server or in CI)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def pyplot() -> Any:
    """matplotlib.pyplot on the Agg backend; imported on use, the server never loads it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def histograms_png(
    path: Path,
    panels: list[tuple[str, str, dict[str, list[float]]]],
    bins: int | list[float] = 20,
    ylabel: str = "cases",
) -> None:
    """One panel per (title, x label, {series name: values}); series are stacked so every case counts once."""
    plt = pyplot()
    from matplotlib.ticker import MaxNLocator

    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4), squeeze=False)
    for ax, (title, xlabel, series) in zip(axes[0], panels, strict=True):
        # a series keeps its colour across panels even where it is empty in one of them
        named = [(name, values, f"C{i}") for i, (name, values) in enumerate(series.items()) if values]
        if named:
            ax.hist(
                [v for _, v, _ in named],
                bins=bins,
                stacked=True,
                label=[n for n, _, _ in named],
                color=[c for _, _, c in named],
            )
            ax.legend(fontsize=8)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def grouped_bars_png(
    path: Path,
    groups: dict[str, dict[str, float]],
    title: str,
    ylabel: str,
    measures: list[str] | None = None,
) -> None:
    """Bars of {group: {measure: value}}, one cluster per group, measures in the given order (default: as
    first seen); a measure a group lacks leaves a gap."""
    plt = pyplot()
    measures = measures or list(dict.fromkeys(m for values in groups.values() for m in values))
    width = 0.8 / max(len(measures), 1)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.35 * len(groups) * len(measures) + 2), 4.5))
    for j, measure in enumerate(measures):
        xs = [i + j * width for i, values in enumerate(groups.values()) if measure in values]
        ys = [values[measure] for values in groups.values() if measure in values]
        bars = ax.bar(xs, ys, width, label=measure)
        ax.bar_label(bars, fmt="%.0f", fontsize=7)  # a 0 is a result too, and an empty bar hides it
    ax.set_xticks([i + width * (len(measures) - 1) / 2 for i in range(len(groups))], list(groups))
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)


def horizontal_bars_png(path: Path, values: dict[str, float], title: str, xlabel: str) -> None:
    """One bar per name, in the given order from the top (e.g. per-intent F1, worst first)."""
    plt = pyplot()
    names = list(values)
    fig, ax = plt.subplots(figsize=(7, max(3.0, 0.22 * len(names) + 1)))
    ax.barh(range(len(names)), [values[n] for n in names], color="tab:blue")
    ax.set_yticks(range(len(names)), names, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
