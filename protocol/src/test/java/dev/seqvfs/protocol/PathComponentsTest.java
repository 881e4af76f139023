package dev.seqvfs.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link PathComponents} against a plain split of the path on {@code '/'}. */
class PathComponentsTest {
    @Test
    void components_matchASplitOnSlashes() {
        for (String p :
                List.of(
                        "",
                        "/",
                        "//",
                        "a",
                        "/a",
                        "a/",
                        "//a//b///",
                        "./../.../..a/a..",
                        "/0123456789abcdef/0123456789abcdefg/01234567/012345678",
                        "x\u0100y/z")) {
            PathComponents c = PathComponents.of(p);
            List<String> names = new ArrayList<>();
            for (String n : p.split("/")) {
                if (!n.isEmpty()) {
                    names.add(n);
                }
            }
            assertEquals(names.size(), c.count(), p);
            for (int i = 0; i < c.count(); i++) {
                String n = names.get(i);
                assertEquals(n, p.substring(c.start(i), c.end(i)), p);
                assertEquals(n.hashCode(), c.hash(i), p);
                int kind =
                        n.chars().anyMatch(ch -> ch > 0xFF)
                                ? PathComponents.WIDE
                                : n.equals(".")
                                        ? PathComponents.DOT
                                        : n.equals("..")
                                                ? PathComponents.DOTDOT
                                                : PathComponents.NAME;
                assertEquals(kind, c.kind(i), p + " " + n);
                if (kind != PathComponents.WIDE) {
                    assertEquals(packed(n, 0), c.word0(i), n);
                    assertEquals(packed(n, 8), c.word1(i), n);
                }
            }
        }
    }

    /** Chars {@code from..from+7} of {@code n}, one per byte, low byte first. */
    private static long packed(String n, int from) {
        long w = 0;
        for (int i = from; i < Math.min(n.length(), from + 8); i++) {
            w |= (long) n.charAt(i) << ((i - from) * 8);
        }
        return w;
    }
}
