package dev.seqvfs.nio;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Stream;

/**
 * The program {@code DefaultProviderTest} runs in a child JVM with SeqVFS as the default provider:
 * unmodified {@code java.nio.file} code (no SeqVFS type named) that writes a file at the path it is
 * given, reads it back, lists its directory, reads a JDK file and a temporary file, and prints what
 * it saw, one {@code key=value} line each.
 */
public final class DefaultProviderChild {
    private DefaultProviderChild() {}

    /**
     * Runs the probe.
     *
     * @param args the absolute path of the file to write
     * @throws Exception on any failure (the test reads the exit status and the output)
     */
    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        Files.createDirectories(file.getParent());
        Files.write(file, List.of("written through Path.of"), StandardCharsets.UTF_8);
        System.out.println("read=" + Files.readAllLines(file).get(0));
        try (Stream<Path> s = Files.list(file.getParent())) {
            System.out.println("list=" + s.map(p -> p.getFileName().toString()).toList());
        }
        System.out.println("default=" + FileSystems.getDefault().getClass().getName());
        System.out.println("paths=" + Paths.get(args[0]).getFileSystem().getClass().getName());
        System.out.println(
                "toPath=" + new File(args[0]).toPath().getFileSystem().getClass().getName());
        Path release = Path.of(System.getProperty("java.home"), "release");
        System.out.println("jdkRelease=" + Files.readString(release).contains("JAVA_VERSION"));
        Path tmp = Files.createTempFile("probe", ".txt");
        Files.writeString(tmp, "temp");
        System.out.println("tmp=" + tmp.getParent() + ":" + Files.readString(tmp));
        try {
            Files.writeString(release, "overwrite");
            System.out.println("jdkWrite=allowed");
        } catch (java.nio.file.FileSystemException e) {
            System.out.println("jdkWrite=" + e.getReason());
        }
        System.out.println(
                "fileUri=" + Path.of(java.net.URI.create("file://" + args[0])).equals(file));
        System.out.println("uriRoundTrip=" + Path.of(file.toUri()).equals(file));
        System.out.println("done");
    }
}
