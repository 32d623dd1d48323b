"""The figures."""
import json


from ladderreport.testing import RESULT, ROOT, run


def test_plot_writes_png_and_svg(tmp_path, capsys):
    code, _, err = run(["plot", str(RESULT.parent), str(ROOT / "results" / "specs"), "--out", str(tmp_path)], capsys)
    assert code == 0, err
    stems = [f"ladder-{RESULT.parent.name}", f"roofline-{RESULT.parent.name}", "machines"]
    names = [b["run_name"] for b in json.loads(RESULT.read_text())["benchmarks"]]
    if any(n.startswith("model/") for n in names):
        stems.append(f"model-{RESULT.parent.name}")
    if any(n.startswith("model-sweep/") for n in names):
        stems.append(f"model-sweep-{RESULT.parent.name}")
    for stem in stems:
        assert (tmp_path / f"{stem}.png").stat().st_size > 1000
        assert (tmp_path / f"{stem}.svg").read_text().startswith("<?xml")


def layout_problems(fig):
    """What makes a figure unfit for a slide: a size other than 1280 x 720, text under 12 pt, text
    outside the canvas (cut), or two texts overprinting each other."""
    from matplotlib.text import Text

    from ladderreport.slides import MIN_POINTS, SLIDE_DPI, SLIDE_INCHES
    problems = []
    width, height = (round(v * fig.dpi) for v in fig.get_size_inches())
    if (width, height) != (round(SLIDE_INCHES[0] * SLIDE_DPI), round(SLIDE_INCHES[1] * SLIDE_DPI)):
        problems.append(f"size {width}x{height}")
    renderer = fig.canvas.get_renderer()
    fig.draw(renderer)
    # Tick labels of ticks outside an axis's view are never drawn.
    undrawn = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not low - 1e-9 * abs(low) <= tick.get_loc() <= high + 1e-9 * abs(high):
                    undrawn.update((id(tick.label1), id(tick.label2)))
    texts = []
    for t in fig.findobj(Text):
        if not t.get_visible() or not t.get_text().strip() or id(t) in undrawn:
            continue
        box = t.get_window_extent(renderer)
        if box.width == 0 or box.height == 0:
            continue
        if t.get_fontsize() < MIN_POINTS:
            problems.append(f"{t.get_text()!r} at {t.get_fontsize():g} pt")
        if box.x0 < -1 or box.y0 < -1 or box.x1 > width + 1 or box.y1 > height + 1:
            problems.append(f"{t.get_text()!r} outside the canvas ({box.x0:.0f}, {box.y0:.0f}, {box.x1:.0f}, {box.y1:.0f})")
        texts.append((t.get_text(), box))
    for i, (a, box_a) in enumerate(texts):
        for b, box_b in texts[i + 1:]:
            overlap_x = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
            overlap_y = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
            if overlap_x > 2 and overlap_y > 2:
                problems.append(f"{a!r} overprints {b!r}")
    return problems


def test_every_figure_of_the_committed_runs_is_a_legible_slide():
    """Each figure report.py publish makes, from the committed runs: 1280 x 720, text at 12 pt or
    more, nothing cut at the canvas's edge, no text over another."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ladderreport.machines import load_machines
    from ladderreport.plots import make_figures
    measured, specs = load_machines([ROOT / "results"])
    figures = make_figures(measured, specs)
    assert len(figures) >= 3 * len(measured)
    found = {stem: layout_problems(fig) for _, stem, fig in figures}
    for _, _, fig in figures:
        plt.close(fig)
    assert not any(found.values()), {stem: problems for stem, problems in found.items() if problems}


def test_the_layout_check_finds_small_cut_and_overprinted_text():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ladderreport.slides import SLIDE_INCHES
    fig, ax = plt.subplots(figsize=SLIDE_INCHES)
    ax.text(0.5, 0.5, "small", fontsize=8, transform=ax.transAxes)
    ax.text(0.2, 0.2, "first label", fontsize=12, transform=ax.transAxes)
    ax.text(0.2, 0.2, "second label", fontsize=12, transform=ax.transAxes)
    ax.text(1.3, 0.5, "cut off at the right", fontsize=12, transform=ax.transAxes)
    problems = "\n".join(layout_problems(fig))
    plt.close(fig)
    assert "'small' at 8 pt" in problems
    assert "'first label' overprints 'second label'" in problems
    assert "'cut off at the right' outside the canvas" in problems
    fig, ax = plt.subplots(figsize=(8, 6))
    assert any(p.startswith("size 800x600") for p in layout_problems(fig))
    plt.close(fig)
