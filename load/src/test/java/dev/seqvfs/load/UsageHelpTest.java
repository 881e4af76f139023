package dev.seqvfs.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Specifies every {@code --help} of {@code seqvfs}: lines of at most 80 columns, broken only at
 * spaces, so that a path, an option with its value or an example command is never split across two
 * lines (picocli's own wrapping breaks after '.' and '/', as in {@code src.} / {@code zip}).
 */
class UsageHelpTest {
    /** Every command that has a {@code --help}. */
    private static final String[][] COMMANDS = {
        {},
        {"load"},
        {"load", "dbench"},
        {"load", "makestat"},
        {"load", "socket-close"},
        {"load", "pipe-close"},
        {"load", "lookup"}
    };

    /**
     * Returns {@code seqvfs args... --help} as printed with a usage width of {@code width} columns.
     */
    private static String help(int width, String... args) {
        StringWriter out = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(new StringWriter(), true));
        if (width > 0) {
            cl.setUsageHelpWidth(width);
        }
        List<String> all = new ArrayList<>(Arrays.asList(args));
        all.add("--help");
        assertEquals(0, cl.execute(all.toArray(String[]::new)));
        return out.toString();
    }

    private static List<String> tokens(String text) {
        return Arrays.asList(text.strip().split("\\s+"));
    }

    @Test
    void help_ofEveryCommand_breaksLinesOnlyAtSpaces() {
        for (String[] args : COMMANDS) {
            String name = String.join(" ", args);
            String narrow = help(0, args);
            String wide = help(10_000, args);
            List<String> expected = tokens(wide);
            List<String> actual = tokens(narrow);
            for (int i = 0; i < Math.min(expected.size(), actual.size()); i++) {
                assertEquals(
                        expected.get(i),
                        actual.get(i),
                        "seqvfs " + name + " --help splits a token:\n" + narrow);
            }
            assertEquals(expected.size(), actual.size(), "seqvfs " + name + " --help:\n" + narrow);
        }
    }

    @Test
    void help_ofEveryCommand_fitsEightyColumns() {
        for (String[] args : COMMANDS) {
            for (String line : help(0, args).lines().toList()) {
                assertTrue(
                        line.length() <= 80,
                        "seqvfs "
                                + String.join(" ", args)
                                + " --help: "
                                + line.length()
                                + " columns: "
                                + line);
            }
        }
    }

    @Test
    void makestatHelp_keepsTheExampleTreePathWhole() {
        String h = help(0, "load", "makestat");
        assertTrue(h.contains("/usr/lib/jvm/temurin-25-jdk-amd64/lib/src.zip"), h);
        assertTrue(h.contains("[--chart=FILE.svg|png]"), h);
    }

    @Test
    void socketCloseHelp_keepsTheConfigKeyWhole() {
        String h = help(0, "load", "socket-close");
        assertTrue(h.contains("seqvfs.anon.shared-root"), h);
    }
}
