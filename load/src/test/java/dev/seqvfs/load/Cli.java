package dev.seqvfs.load;

import dev.seqvfs.cli.Main;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import picocli.CommandLine;

/** Test helpers: runs {@code seqvfs} in-process and builds small source trees. */
final class Cli {
    /** What a run printed and returned. */
    record Result(int exit, String out, String err) {}

    private Cli() {}

    /** Runs {@code seqvfs args...} in this JVM, capturing stdout and stderr. */
    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new Result(exit, out.toString(), err.toString());
    }

    /**
     * Writes a zip of this tree (one explicit directory entry, the others implied):
     *
     * <pre>
     * top/                 explicit entry
     * top/a.txt            "hello"          (5 bytes)
     * top/sub/b.java       "class B {}\n"   (11 bytes)
     * top/sub/deep/c.bin   1000 bytes of 7
     * README               ""               (0 bytes)
     * </pre>
     *
     * with modification times 2001-09-09T01:46:40Z plus the file's size in seconds.
     */
    static Path smallZip(Path dir) throws IOException {
        Path zip = dir.resolve("small.zip");
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(zip))) {
            out.putNextEntry(new ZipEntry("top/"));
            out.closeEntry();
            entry(out, "top/a.txt", "hello".getBytes(StandardCharsets.UTF_8));
            entry(out, "top/sub/b.java", "class B {}\n".getBytes(StandardCharsets.UTF_8));
            byte[] c = new byte[1000];
            java.util.Arrays.fill(c, (byte) 7);
            entry(out, "top/sub/deep/c.bin", c);
            entry(out, "README", new byte[0]);
        }
        return zip;
    }

    /**
     * The modification time {@link #smallZip} gives a file of {@code size} bytes, in milliseconds.
     */
    static long mtimeMillis(long size) {
        return 1_000_000_000_000L + size * 1000;
    }

    private static void entry(ZipOutputStream out, String name, byte[] data) throws IOException {
        ZipEntry e = new ZipEntry(name);
        e.setLastModifiedTime(FileTime.fromMillis(mtimeMillis(data.length)));
        out.putNextEntry(e);
        out.write(data);
        out.closeEntry();
    }

    /** Writes bytes that are not a zip file. */
    static Path corruptZip(Path dir) throws IOException {
        Path p = dir.resolve("corrupt.zip");
        try (OutputStream out = Files.newOutputStream(p)) {
            out.write(
                    "PK\u0003\u0004 this is not really a zip archive"
                            .getBytes(StandardCharsets.UTF_8));
        }
        return p;
    }
}
