package dev.seqvfs.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code relativize} and {@code normalize} as the JDK 17 Linux provider gives them, on the cases
 * around {@code ..}, {@code .} and the empty path where the in-memory peers answer otherwise (issue
 * 10 cites JDK-8211711 for them). The host's provider is the oracle: each call is made on {@code
 * FileSystems.getDefault()} and on SeqVFS, and the results, or the exception classes, must be
 * equal.
 */
class PathPeerIssuesTest {
    private static SeqVfsFileSystem fs;

    @BeforeAll
    static void open() {
        fs = SeqVfsFileSystem.builder().name("jdk8211711").build();
    }

    @AfterAll
    static void close() throws IOException {
        fs.close();
    }

    private static final String[][] RELATIVIZE = {
        {"a/b", "a/b/c/d"},
        {"a/b/c/d", "a/b"},
        {"a/b/c", "a/x"},
        {"a/..", "b"},
        {"..", "a"},
        {"a", ".."},
        {"../a", "../b"},
        {"../..", ".."},
        {"a/b/..", "a/c"},
        {"a/./b", "a/c"},
        {"x/../y", "../z"},
        {"", "a"},
        {"a", ""},
        {"", ""},
        {".", "a"},
        {"a", "."},
        {"/a/b", "/a/../c"},
        {"/a/../c", "/a/b"},
        {"/a", "/"},
        {"/", "/a/b"},
        {"/a", "b"},
        {"a", "/b"},
    };

    private static final String[] NORMALIZE = {
        "a/../..",
        "../a/..",
        "a/./b/../../..",
        "/..",
        "/a/../..",
        "",
        ".",
        "./a",
        "a/.",
        "a//b/",
        "../../a/../b",
        "a/b/../../../c",
        "/./a/./",
        "..",
        "./..",
        "a/../b/../c/."
    };

    private static String outcome(java.util.function.Supplier<Path> call) {
        try {
            return "= " + call.get();
        } catch (RuntimeException e) {
            return "! " + e.getClass().getName();
        }
    }

    @Test
    void jdk8211711_relativize_isTheJdkLinuxProvidersResult() {
        FileSystem host = FileSystems.getDefault();
        List<String> want = new ArrayList<>();
        List<String> got = new ArrayList<>();
        for (String[] c : RELATIVIZE) {
            want.add(
                    c[0]
                            + " -> "
                            + c[1]
                            + " "
                            + outcome(() -> host.getPath(c[0]).relativize(host.getPath(c[1]))));
            got.add(
                    c[0]
                            + " -> "
                            + c[1]
                            + " "
                            + outcome(() -> fs.getPath(c[0]).relativize(fs.getPath(c[1]))));
        }
        assertEquals(String.join("\n", want), String.join("\n", got));
    }

    @Test
    void jdk8211711_normalize_isTheJdkLinuxProvidersResult() {
        FileSystem host = FileSystems.getDefault();
        List<String> want = new ArrayList<>();
        List<String> got = new ArrayList<>();
        for (String p : NORMALIZE) {
            want.add("'" + p + "' " + outcome(() -> host.getPath(p).normalize()));
            got.add("'" + p + "' " + outcome(() -> fs.getPath(p).normalize()));
            // and the relativize that undoes a resolve, where both are normal
            want.add(
                    "'"
                            + p
                            + "' r "
                            + outcome(
                                    () ->
                                            host.getPath("q")
                                                    .relativize(host.getPath("q").resolve(p))
                                                    .normalize()));
            got.add(
                    "'"
                            + p
                            + "' r "
                            + outcome(
                                    () ->
                                            fs.getPath("q")
                                                    .relativize(fs.getPath("q").resolve(p))
                                                    .normalize()));
        }
        assertEquals(String.join("\n", want), String.join("\n", got));
    }
}
