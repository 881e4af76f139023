package dev.seqvfs.load;

import de.erichseifert.vectorgraphics2d.VectorGraphics2D;
import de.erichseifert.vectorgraphics2d.svg.SVGProcessor;
import de.erichseifert.vectorgraphics2d.util.PageSize;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import javax.imageio.ImageIO;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * Draws a {@link LoadReport} (XChart) into one SVG or PNG file: ops per second over time,
 * one line per run; and, when the runs cover more than one client count, the scaling
 * curves below it (ops/s against clients, one line per target and variant).
 */
public final class Charts {
    private static final int WIDTH = 900;
    private static final int HEIGHT = 450;

    private Charts() {
    }

    /**
     * Checks that {@code file} names a format this class writes ({@code .svg} or
     * {@code .png}, any case), before a run spends minutes.
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
        List<XYChart> charts = new ArrayList<>();
        charts.add(throughput(report));
        XYChart scaling = scaling(report);
        if (scaling != null) {
            charts.add(scaling);
        }
        int height = HEIGHT * charts.size();
        boolean svg = file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".svg");
        if (svg) {
            VectorGraphics2D g = new VectorGraphics2D();
            paint(g, charts);
            try (OutputStream out = Files.newOutputStream(file)) {
                new SVGProcessor().getDocument(g.getCommands(), new PageSize(0, 0, WIDTH, height)).writeTo(out);
            }
        } else {
            BufferedImage img = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
            Graphics2D g = img.createGraphics();
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            paint(g, charts);
            g.dispose();
            ImageIO.write(img, "png", file.toFile());
        }
    }

    private static void paint(Graphics2D g, List<XYChart> charts) {
        for (int i = 0; i < charts.size(); i++) {
            Graphics2D part = (Graphics2D) g.create(0, i * HEIGHT, WIDTH, HEIGHT);
            charts.get(i).paint(part, WIDTH, HEIGHT);
            part.dispose();
        }
    }

    private static XYChart throughput(LoadReport report) {
        XYChart c = new XYChartBuilder().width(WIDTH).height(HEIGHT)
                .title(report.workload() + ": throughput per second").xAxisTitle("seconds since the run's start")
                .yAxisTitle("ops/s").build();
        style(c);
        Map<String, Integer> seen = new LinkedHashMap<>();
        for (RunResult r : report.runs()) {
            if (r.perSecond().isEmpty()) {
                continue;
            }
            double[] x = new double[r.perSecond().size()];
            double[] y = new double[x.length];
            for (int i = 0; i < x.length; i++) {
                x[i] = r.perSecond().get(i)[0];
                y[i] = r.perSecond().get(i)[1];
            }
            String name = r.name() + ", " + r.clients() + (r.clients() == 1 ? " client" : " clients");
            int n = seen.merge(name, 1, Integer::sum);
            c.addSeries(n == 1 ? name : name + " #" + n, x, y);
        }
        if (seen.isEmpty()) {
            c.addSeries("no run finished", new double[] {0}, new double[] {0});
        }
        return c;
    }

    private static XYChart scaling(LoadReport report) {
        TreeSet<Integer> counts = new TreeSet<>();
        Map<String, TreeSet<Integer>> byName = new LinkedHashMap<>();
        for (RunResult r : report.runs()) {
            counts.add(r.clients());
            byName.computeIfAbsent(r.name(), k -> new TreeSet<>()).add(r.clients());
        }
        if (counts.size() < 2) {
            return null;
        }
        XYChart c = new XYChartBuilder().width(WIDTH).height(HEIGHT)
                .title(report.workload() + ": scaling").xAxisTitle("clients").yAxisTitle("ops/s").build();
        style(c);
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
            c.addSeries(e.getKey(), x, y);
        }
        return c;
    }

    private static void style(XYChart c) {
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        c.getStyler().setYAxisMin(0.0);
        c.getStyler().setYAxisDecimalPattern("#,###");
        c.getStyler().setMarkerSize(5);
    }
}
