package dev.seqvfs.load;

import de.erichseifert.vectorgraphics2d.svg.SVGProcessor;
import de.erichseifert.vectorgraphics2d.util.PageSize;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Function;
import javax.imageio.ImageIO;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.Marker;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws a {@link LoadReport} (XChart) into one SVG or PNG file: ops per second over time, one line
 * per run; and, when the runs cover more than one client count, the scaling curves below it (ops/s
 * against clients, one line per target and variant).
 *
 * <p><b>Readable at any length.</b> When every run lasted at most {@link Meter#FINE_LIMIT_NANOS}
 * (30 s), the throughput panel plots the rate of each 0.1 s ({@link RunResult#fine}), so a 2-s run
 * is 20 points, not 2; longer runs plot each second. Both axes start at 0, the time axis ends at
 * the longest run, and every point has a marker. A target (and variant) keeps its colour in both
 * panels, a client count its marker; the colours are strong ones, distinguishable on white and in
 * grey. The clients axis has whole-number ticks only. In an SVG, text is text ({@link
 * SvgTextGraphics}).
 */
public final class Charts {
    private static final int WIDTH = 900;
    private static final int HEIGHT = 450;

    /** About the plot area's width in pixels: the chart's, less the y axis's labels and title. */
    private static final int PLOT_WIDTH = 780;

    /**
     * Strong, distinguishable colours: blue, vermillion, green, purple, crimson, black, brown,
     * teal.
     */
    private static final Color[] COLORS = {
        new Color(0x0B5FA5),
        new Color(0xD55E00),
        new Color(0x1B8A3A),
        new Color(0x7A2EA8),
        new Color(0xA6192E),
        new Color(0x000000),
        new Color(0x8C564B),
        new Color(0x0E7C7C)
    };

    private static final Marker[] MARKERS = {
        SeriesMarkers.CIRCLE,
        SeriesMarkers.DIAMOND,
        SeriesMarkers.SQUARE,
        SeriesMarkers.TRIANGLE_UP,
        SeriesMarkers.TRIANGLE_DOWN,
        SeriesMarkers.CROSS,
        SeriesMarkers.PLUS,
        SeriesMarkers.OVAL
    };

    private Charts() {}

    /** Returns the series colours, in the order targets get them. */
    static List<Color> palette() {
        return List.of(COLORS);
    }

    /**
     * Checks that {@code file} names a format this class writes ({@code .svg} or {@code .png}, any
     * case), before a run spends minutes.
     *
     * @throws LoadException otherwise
     */
    public static void checkName(Path file) {
        String n = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (!n.endsWith(".svg") && !n.endsWith(".png")) {
            throw new LoadException("--chart " + file + ": the file name must end in .svg or .png");
        }
    }

    /** Draws the report's charts into {@code file} (SVG or PNG by its extension). */
    public static void write(LoadReport report, Path file) throws IOException {
        checkName(file);
        boolean svg = file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".svg");
        SvgTextGraphics text = svg ? new SvgTextGraphics() : null;
        Consumer<String> expect = text == null ? s -> {} : text::expect;
        List<XYChart> charts = new ArrayList<>();
        charts.add(throughput(report, expect));
        XYChart scaling = scaling(report, expect);
        if (scaling != null) {
            charts.add(scaling);
        }
        int height = HEIGHT * charts.size();
        if (svg) {
            for (XYChart c : charts) {
                Styler st = c.getStyler();
                text.font(st.getChartTitleFont());
                text.font(st.getLegendFont());
                text.font(c.getStyler().getAxisTitleFont());
                text.font(c.getStyler().getAxisTickLabelsFont());
                expect.accept(c.getTitle());
                expect.accept(c.getXAxisTitle());
                expect.accept(c.getYAxisTitle());
            }
            paint(text, charts);
            ByteArrayOutputStream doc = new ByteArrayOutputStream();
            new SVGProcessor()
                    .getDocument(text.getCommands(), new PageSize(0, 0, WIDTH, height))
                    .writeTo(doc);
            try (OutputStream out = Files.newOutputStream(file)) {
                out.write(
                        svgDefaults(doc.toString(StandardCharsets.UTF_8))
                                .getBytes(StandardCharsets.UTF_8));
            }
        } else {
            BufferedImage img = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
            Graphics2D g = img.createGraphics();
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(
                    RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            paint(g, charts);
            g.dispose();
            ImageIO.write(img, "png", file.toFile());
        }
    }

    /**
     * Returns VectorGraphics2D's SVG with the defaults it assumes made explicit: it leaves out the
     * size and family of text in its default font (12 pt Dialog), which a browser would draw at 16
     * px in its own serif face; the root element now says 12 px sans-serif, and every named family
     * falls back to sans-serif.
     */
    static String svgDefaults(String svg) {
        return svg.replaceFirst("<svg ", "<svg style=\"font-size:12px;font-family:sans-serif\" ")
                .replaceAll(
                        "font-family:&quot;([^&;]*)&quot;;",
                        "font-family:&quot;$1&quot;,sans-serif;");
    }

    private static void paint(Graphics2D g, List<XYChart> charts) {
        for (int i = 0; i < charts.size(); i++) {
            Graphics2D part = (Graphics2D) g.create(0, i * HEIGHT, WIDTH, HEIGHT);
            charts.get(i).paint(part, WIDTH, HEIGHT);
            part.dispose();
        }
    }

    /** Returns whether the throughput panel plots each 0.1 s: every run fits the fine series. */
    static boolean fine(LoadReport report) {
        for (RunResult r : report.runs()) {
            if (r.elapsedNanos() > Meter.FINE_LIMIT_NANOS || r.fine().isEmpty()) {
                return false;
            }
        }
        return !report.runs().isEmpty();
    }

    private static XYChart throughput(LoadReport report, Consumer<String> expect) {
        boolean fine = fine(report);
        XYChart c =
                new XYChartBuilder()
                        .width(WIDTH)
                        .height(HEIGHT)
                        .title(
                                report.workload()
                                        + (fine
                                                ? ": throughput, each 0.1 s"
                                                : ": throughput, each second"))
                        .xAxisTitle("seconds since the run's start")
                        .yAxisTitle("ops/s")
                        .build();
        style(c, expect);
        Map<String, Integer> colors = colorsByName(report);
        Map<Integer, Integer> markers = markersByClients(report);
        Map<String, Integer> seen = new LinkedHashMap<>();
        double longest = 0;
        for (RunResult r : report.runs()) {
            List<double[]> points = fine ? r.fine() : r.perSecond();
            if (points.isEmpty()) {
                continue;
            }
            double[] x = new double[points.size()];
            double[] y = new double[x.length];
            for (int i = 0; i < x.length; i++) {
                x[i] = points.get(i)[0];
                y[i] = points.get(i)[1];
            }
            longest = Math.max(longest, x[x.length - 1]);
            String name =
                    r.name() + ", " + r.clients() + (r.clients() == 1 ? " client" : " clients");
            int n = seen.merge(name, 1, Integer::sum);
            String label = n == 1 ? name : name + " #" + n;
            expect.accept(label);
            XYSeries s = c.addSeries(label, x, y);
            look(s, colors.get(r.name()), markers.get(r.clients()));
        }
        if (seen.isEmpty()) {
            expect.accept("no run finished");
            c.addSeries("no run finished", new double[] {0}, new double[] {0});
        } else {
            c.getStyler().setXAxisMin(0.0);
            c.getStyler().setXAxisMax(longest);
        }
        return c;
    }

    private static XYChart scaling(LoadReport report, Consumer<String> expect) {
        TreeSet<Integer> counts = new TreeSet<>();
        Map<String, TreeSet<Integer>> byName = new LinkedHashMap<>();
        for (RunResult r : report.runs()) {
            counts.add(r.clients());
            byName.computeIfAbsent(r.name(), k -> new TreeSet<>()).add(r.clients());
        }
        if (counts.size() < 2) {
            return null;
        }
        XYChart c =
                new XYChartBuilder()
                        .width(WIDTH)
                        .height(HEIGHT)
                        .title(report.workload() + ": scaling")
                        .xAxisTitle("clients")
                        .yAxisTitle("ops/s")
                        .build();
        style(c, expect);
        c.getStyler().setxAxisTickLabelsFormattingFunction(recording(Charts::clientsTick, expect));
        // XChart steps its ticks by 1, 2 or 5 times a power of ten, at about this many pixels
        // apart: as far apart as one client on the plot makes every step a whole one
        double span = counts.last() - counts.first();
        c.getStyler()
                .setXAxisTickMarkSpacingHint(
                        Math.max(
                                c.getStyler().getXAxisTickMarkSpacingHint(),
                                (int) Math.ceil(PLOT_WIDTH / span)));
        Map<String, Integer> colors = colorsByName(report);
        for (Map.Entry<String, TreeSet<Integer>> e : byName.entrySet()) {
            double[] x = new double[e.getValue().size()];
            double[] y = new double[x.length];
            int i = 0;
            for (int clients : e.getValue()) {
                String[] parts = e.getKey().split(" ", 2);
                RunResult r = report.find(parts[0], parts.length > 1 ? parts[1] : "", clients);
                x[i] = clients;
                y[i++] = r == null ? 0 : r.opsPerSec();
            }
            expect.accept(e.getKey());
            look(c.addSeries(e.getKey(), x, y), colors.get(e.getKey()), 0);
        }
        return c;
    }

    /**
     * Returns the label of a tick on the clients axis: the count for a whole number, nothing
     * otherwise (the tick spacing hint already keeps the ticks at whole counts).
     */
    static String clientsTick(double v) {
        return v == Math.rint(v) ? String.format(Locale.ROOT, "%,d", (long) v) : "";
    }

    /** Returns the y axis's label of {@code v}: a count with thousands separators. */
    static String countTick(double v) {
        return v == Math.rint(v)
                ? String.format(Locale.ROOT, "%,d", (long) v)
                : String.format(Locale.ROOT, "%,.2f", v);
    }

    private static Function<Double, String> recording(
            Function<Double, String> f, Consumer<String> expect) {
        return v -> {
            String s = f.apply(v);
            expect.accept(s);
            return s;
        };
    }

    private static Map<String, Integer> colorsByName(LoadReport report) {
        Map<String, Integer> m = new LinkedHashMap<>();
        for (RunResult r : report.runs()) {
            m.putIfAbsent(r.name(), m.size() % COLORS.length);
        }
        return m;
    }

    private static Map<Integer, Integer> markersByClients(LoadReport report) {
        Map<Integer, Integer> m = new LinkedHashMap<>();
        for (int clients : new TreeSet<>(report.runs().stream().map(RunResult::clients).toList())) {
            m.put(clients, m.size() % MARKERS.length);
        }
        return m;
    }

    private static void look(XYSeries s, int color, int marker) {
        s.setLineColor(COLORS[color]);
        s.setMarkerColor(COLORS[color]);
        s.setMarker(MARKERS[marker]);
        s.setLineStyle(new BasicStroke(2f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND));
    }

    private static void style(XYChart c, Consumer<String> expect) {
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        c.getStyler().setChartBackgroundColor(Color.WHITE);
        c.getStyler().setPlotBackgroundColor(Color.WHITE);
        c.getStyler().setPlotBorderColor(Color.DARK_GRAY);
        c.getStyler().setLegendBorderColor(Color.DARK_GRAY);
        c.getStyler().setPlotGridLinesColor(new Color(0xCCCCCC));
        c.getStyler().setChartFontColor(Color.BLACK);
        c.getStyler().setAxisTickLabelsColor(Color.BLACK);
        c.getStyler().setYAxisMin(0.0);
        c.getStyler().setyAxisTickLabelsFormattingFunction(recording(Charts::countTick, expect));
        c.getStyler().setxAxisTickLabelsFormattingFunction(recording(Charts::secondsTick, expect));
        c.getStyler().setMarkerSize(7);
    }

    /** Returns the label of a tick on the time axis: seconds, as few decimals as it needs. */
    static String secondsTick(double v) {
        String s = String.format(Locale.ROOT, "%.3f", v);
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }
}
