package dev.seqvfs.load;

import de.erichseifert.vectorgraphics2d.VectorGraphics2D;
import java.awt.Font;
import java.awt.Shape;
import java.awt.font.TextLayout;
import java.awt.geom.AffineTransform;
import java.awt.geom.Path2D;
import java.awt.geom.PathIterator;
import java.awt.geom.Rectangle2D;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A {@link VectorGraphics2D} that writes a chart's text as text. XChart never calls {@code
 * drawString}: it fills each label's outline ({@link TextLayout#getOutline}), so an SVG of it holds
 * every glyph as a {@code <path>}, which a reader cannot select, search or restyle. This graphics
 * knows the strings the chart may draw (its titles, series names and, through the axes' formatting
 * functions, every tick label: {@link #expect}) and the fonts it draws them in; a filled shape that
 * is exactly the outline of one of them, upright or turned a quarter left (the y axis's title), is
 * drawn with {@code drawString} instead, which the SVG processor writes as a {@code <text>}
 * element. Every other shape is filled as usual.
 *
 * <p>Not thread-safe: one chart painted by one thread. The copies {@link #create()} makes share the
 * expected strings.
 */
final class SvgTextGraphics extends VectorGraphics2D {
    /** Coordinates closer than this are the same (outlines are floats). */
    private static final double EPSILON = 1e-3;

    /** What the chart may write, and the outlines computed for it so far. */
    private static final class Expected {
        final Set<Font> fonts = new LinkedHashSet<>();
        final Set<String> pending = new LinkedHashSet<>();
        final Set<String> done = new LinkedHashSet<>();

        /** Outlines by their number of path segments, the first, cheap key. */
        final Map<Integer, List<Outline>> bySegments = new HashMap<>();
    }

    /** One string in one font, upright or turned, as TextLayout outlines it at the origin. */
    @SuppressWarnings("ArrayRecordComponent") // matched by same(...), never by equals
    private record Outline(
            String text,
            Font font,
            boolean turned,
            double[] coords,
            int[] types,
            Rectangle2D bounds) {}

    private final Expected expected;

    /**
     * Set while {@link #drawText} runs: a fill then is the processor's own, never text to recover.
     */
    private boolean drawing;

    /** Creates one that expects no text yet. */
    SvgTextGraphics() {
        this.expected = new Expected();
    }

    /** Adds a font the chart draws text in. */
    void font(Font f) {
        if (f != null && expected.fonts.add(f)) {
            expected.pending.addAll(expected.done);
            expected.done.clear();
        }
    }

    /** Adds a string the chart may draw (null and blank strings are ignored). */
    void expect(String text) {
        if (text != null && !text.isBlank() && !expected.done.contains(text)) {
            expected.pending.add(text);
        }
    }

    /** Draws {@code s} as text if it is the outline of an expected string, else fills it. */
    @Override
    public void fill(Shape s) {
        if (!drawing && s instanceof Path2D && drawnAsText(s)) {
            return;
        }
        super.fill(s);
    }

    /** Draws {@code s} as the text it outlines and returns true, or returns false. */
    private boolean drawnAsText(Shape s) {
        compilePending();
        List<double[]> coords = new ArrayList<>();
        List<Integer> types = new ArrayList<>();
        double[] seg = new double[6];
        for (PathIterator it = s.getPathIterator(null); !it.isDone(); it.next()) {
            int type = it.currentSegment(seg);
            types.add(type);
            coords.add(seg.clone());
        }
        List<Outline> candidates = expected.bySegments.get(types.size());
        if (candidates == null) {
            return false;
        }
        Rectangle2D b = s.getBounds2D();
        for (Outline o : candidates) {
            if (Math.abs(o.bounds().getWidth() - b.getWidth()) > EPSILON
                    || Math.abs(o.bounds().getHeight() - b.getHeight()) > EPSILON) {
                continue;
            }
            double dx = b.getMinX() - o.bounds().getMinX();
            double dy = b.getMinY() - o.bounds().getMinY();
            if (same(o, types, coords, dx, dy)) {
                drawText(o, dx, dy);
                return true;
            }
        }
        return false;
    }

    private static boolean same(
            Outline o, List<Integer> types, List<double[]> coords, double dx, double dy) {
        int k = 0;
        for (int i = 0; i < types.size(); i++) {
            int type = types.get(i);
            if (type != o.types()[i]) {
                return false;
            }
            int n = points(type);
            double[] c = coords.get(i);
            for (int j = 0; j < n; j++) {
                if (Math.abs(c[2 * j] - dx - o.coords()[k++]) > EPSILON
                        || Math.abs(c[2 * j + 1] - dy - o.coords()[k++]) > EPSILON) {
                    return false;
                }
            }
        }
        return true;
    }

    private void drawText(Outline o, double dx, double dy) {
        AffineTransform saved = getTransform();
        Font font = getFont();
        translate(dx, dy);
        if (o.turned()) {
            rotate(-Math.PI / 2);
        }
        setFont(o.font());
        drawing = true;
        try {
            drawString(o.text(), 0f, 0f);
        } finally {
            drawing = false;
            setFont(font);
            setTransform(saved);
        }
    }

    private void compilePending() {
        if (expected.pending.isEmpty()) {
            return;
        }
        for (String text : expected.pending) {
            for (Font f : expected.fonts) {
                TextLayout layout = new TextLayout(text, f, getFontRenderContext());
                add(text, f, false, layout.getOutline(null));
                add(
                        text,
                        f,
                        true,
                        layout.getOutline(AffineTransform.getRotateInstance(-Math.PI / 2)));
            }
            expected.done.add(text);
        }
        expected.pending.clear();
    }

    private void add(String text, Font f, boolean turned, Shape outline) {
        List<Double> coords = new ArrayList<>();
        List<Integer> types = new ArrayList<>();
        double[] seg = new double[6];
        for (PathIterator it = outline.getPathIterator(null); !it.isDone(); it.next()) {
            int type = it.currentSegment(seg);
            types.add(type);
            for (int j = 0; j < 2 * points(type); j++) {
                coords.add(seg[j]);
            }
        }
        Outline o =
                new Outline(
                        text,
                        f,
                        turned,
                        coords.stream().mapToDouble(Double::doubleValue).toArray(),
                        types.stream().mapToInt(Integer::intValue).toArray(),
                        outline.getBounds2D());
        expected.bySegments.computeIfAbsent(types.size(), k -> new ArrayList<>()).add(o);
    }

    /** Returns the points a path segment of {@code type} carries. */
    private static int points(int type) {
        return switch (type) {
            case PathIterator.SEG_MOVETO, PathIterator.SEG_LINETO -> 1;
            case PathIterator.SEG_QUADTO -> 2;
            case PathIterator.SEG_CUBICTO -> 3;
            default -> 0;
        };
    }
}
