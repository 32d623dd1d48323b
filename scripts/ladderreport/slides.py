"""Every figure is a slide: 1280 x 720 pixels, no text under 12 pt (test_plots checks each)."""
SLIDE_INCHES, SLIDE_DPI = (12.8, 7.2), 100
SLIDE_STYLE = {"font.size": 12, "axes.titlesize": 14, "axes.labelsize": 13, "xtick.labelsize": 12,
               "ytick.labelsize": 12, "legend.fontsize": 12, "figure.titlesize": 14, "figure.dpi": SLIDE_DPI}
MIN_POINTS = 12
