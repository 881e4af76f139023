package dev.seqvfs.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Side results a fork hands back to {@link BenchMain}: tab-separated lines appended to the file
 * named by the {@code seqvfs.bench.report} system property (nothing without it).
 */
final class Report {
    /** The system property naming the report file. */
    static final String PROPERTY = "seqvfs.bench.report";

    private Report() {}

    static synchronized void append(String line) {
        String file = System.getProperty(PROPERTY);
        if (file == null) {
            return;
        }
        try {
            Files.writeString(
                    Paths.get(file),
                    line + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<String[]> read(Path file) throws IOException {
        List<String[]> rows = new ArrayList<>();
        if (Files.exists(file)) {
            for (String l : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (!l.isBlank()) {
                    rows.add(l.split("\t", -1));
                }
            }
        }
        return rows;
    }
}
