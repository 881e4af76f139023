package dev.seqvfs.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Specifies {@code --chart} ({@link Charts}): an SVG whose text is {@code <text>} elements (titles,
 * axis titles, series names, tick labels), not glyph outlines; whole-number ticks only on the
 * clients axis; the throughput of runs up to 30 s plotted each 0.1 s, of longer ones each second;
 * strong colours (at least 3:1 against the white background, as WCAG asks of graphics); a PNG of
 * 900 pixels by 450 per panel.
 */
class ChartsTest {
    @TempDir Path tmp;

    /** A run of {@code seconds}, its rate sampled every 0.1 s and every second. */
    private static RunResult run(String target, int clients, double seconds) {
        List<double[]> fine = new ArrayList<>();
        for (int i = 1; i <= Math.round(seconds * 10); i++) {
            fine.add(new double[] {i / 10.0, 100_000.0 * clients + 1000 * i});
        }
        List<double[]> perSecond = new ArrayList<>();
        for (int i = 1; i <= Math.ceil(seconds); i++) {
            perSecond.add(new double[] {Math.min(i, seconds), 100_000.0 * clients});
        }
        long ops = (long) (100_000 * clients * seconds);
        return new RunResult(
                target,
                "",
                clients,
                ops,
                (long) (seconds * 1e9),
                new Histogram(3),
                perSecond,
                fine,
                false);
    }

    /** socket-close at 1, 2 and 4 clients on seqvfs and host, each run 2 s. */
    private static LoadReport report(double seconds) {
        LoadReport r = new LoadReport("socket-close", "close(socket())");
        for (int c : new int[] {1, 2, 4}) {
            r.add(run("seqvfs", c, seconds));
            r.add(run("host", c, seconds));
        }
        return r;
    }

    /** The {@code <text>} elements of an SVG, with the translation of their group. */
    private record Label(String text, double x, double y) {}

    private static List<Label> labels(Path svg) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        Document d = f.newDocumentBuilder().parse(svg.toFile());
        NodeList texts = d.getElementsByTagName("text");
        Pattern translate = Pattern.compile("translate\\(([-0-9.]+) ([-0-9.]+)\\)");
        List<Label> out = new ArrayList<>();
        for (int i = 0; i < texts.getLength(); i++) {
            Element t = (Element) texts.item(i);
            Element g = (Element) t.getParentNode();
            Matcher m = translate.matcher(g.getAttribute("transform"));
            out.add(
                    m.find()
                            ? new Label(
                                    t.getTextContent(),
                                    Double.parseDouble(m.group(1)),
                                    Double.parseDouble(m.group(2)))
                            : new Label(t.getTextContent(), Double.NaN, Double.NaN));
        }
        return out;
    }

    @Test
    void svg_writesEveryTitleSeriesNameAndTickLabelAsText() throws Exception {
        Path svg = tmp.resolve("c.svg");
        Charts.write(report(2), svg);

        Set<String> texts = new TreeSet<>();
        labels(svg).forEach(l -> texts.add(l.text()));
        for (String s :
                List.of(
                        "socket-close: throughput, each 0.1 s",
                        "socket-close: scaling",
                        "clients",
                        "ops/s",
                        "seconds since the run's start",
                        "seqvfs, 1 client",
                        "host, 4 clients",
                        "seqvfs",
                        "host",
                        "0",
                        "400,000")) {
            assertTrue(texts.contains(s), s + " not in " + texts);
        }
        String xml = java.nio.file.Files.readString(svg);
        assertTrue(
                xml.contains("<svg style=\"font-size:12px;font-family:sans-serif\""),
                "the default text size");
        // lines and markers are straight segments; a glyph's outline has curves (C, Q)
        Matcher curve = Pattern.compile("<path d=\"[^\"]*[CQ][^\"]*\"").matcher(xml);
        assertFalse(
                curve.find(), "a glyph outline is left: " + (curve.hitEnd() ? "" : curve.group()));
    }

    @Test
    void svg_clientsAxis_hasWholeNumberTicksOnly() throws Exception {
        Path svg = tmp.resolve("c.svg");
        Charts.write(report(2), svg);

        // the clients axis's labels: the lowest numeric labels of the second panel
        List<Label> numbers =
                labels(svg).stream()
                        .filter(l -> l.y() > 450 && l.text().matches("[0-9][0-9,.]*"))
                        .toList();
        double bottom = numbers.stream().mapToDouble(Label::y).max().orElseThrow();
        List<String> ticks =
                numbers.stream().filter(l -> l.y() > bottom - 1).map(Label::text).toList();
        assertEquals(List.of("1", "2", "3", "4"), ticks.stream().sorted().toList());
    }

    @Test
    void throughput_ofShortRuns_isPlottedEachTenthOfASecond_ofLongOnesEachSecond() {
        assertTrue(Charts.fine(report(2)));
        assertFalse(Charts.fine(report(40)));
    }

    @Test
    void clientsTick_labelsWholeCountsOnly() {
        assertEquals("2", Charts.clientsTick(2));
        assertEquals("4,096", Charts.clientsTick(4096));
        assertEquals("", Charts.clientsTick(1.5));
    }

    @Test
    void palette_everyColour_hasAtLeastThreeToOneContrastOnWhite() {
        for (Color c : Charts.palette()) {
            double contrast = 1.05 / (luminance(c) + 0.05);
            assertTrue(
                    contrast >= 3, String.format("#%06x: %.2f:1", c.getRGB() & 0xffffff, contrast));
        }
        assertEquals(
                Charts.palette().size(),
                new TreeSet<>(Charts.palette().stream().map(Color::getRGB).toList()).size(),
                "distinct colours");
    }

    /** WCAG 2 relative luminance. */
    private static double luminance(Color c) {
        double[] rgb = {c.getRed() / 255.0, c.getGreen() / 255.0, c.getBlue() / 255.0};
        for (int i = 0; i < 3; i++) {
            rgb[i] = rgb[i] <= 0.03928 ? rgb[i] / 12.92 : Math.pow((rgb[i] + 0.055) / 1.055, 2.4);
        }
        return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
    }

    @Test
    void png_isNineHundredPixelsWideAndFourHundredFiftyHighPerPanel() throws Exception {
        Path png = tmp.resolve("c.png");
        Charts.write(report(2), png);

        BufferedImage img = ImageIO.read(png.toFile());
        assertEquals(900, img.getWidth());
        assertEquals(900, img.getHeight());
    }
}
