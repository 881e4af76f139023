package dev.seqvfs.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.Fsck;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A Maven-style build layout written and read by two threads at once (issue 10's real-client test):
 * a writer thread writes {@code target/classes/p/C<i>.class} files the way build tools do (to a
 * temporary name, then {@code ATOMIC_MOVE} over the final one, again and again), while a reader
 * thread walks {@code target/classes} and reads every file it finds. Every read must see one whole
 * version (a file's bytes are its name and version repeated, so a torn or mixed read is detected),
 * never a partial one, and a {@code .class} file, once there, never vanishes between the listing
 * and the read (each replacement is one {@code rename(2)}). At the end the tree holds every file's
 * last version and no temporary file, and the engine's invariants hold.
 */
class ConcurrentBuildLayoutTest {
    private static final int FILES = 50;
    private static final int ROUNDS = 40;

    private static byte[] content(int file, int version) {
        byte[] unit =
                ("C" + file + "@" + version + ";")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] b = new byte[unit.length * (200 + file)];
        for (int i = 0; i < b.length; i += unit.length) {
            System.arraycopy(unit, 0, b, i, unit.length);
        }
        return b;
    }

    private static boolean whole(byte[] b) {
        int semi = 0;
        while (semi < b.length && b[semi] != ';') {
            semi++;
        }
        if (semi == b.length || b.length % (semi + 1) != 0) {
            return false;
        }
        byte[] unit = Arrays.copyOf(b, semi + 1);
        for (int i = 0; i < b.length; i += unit.length) {
            if (!Arrays.equals(b, i, i + unit.length, unit, 0, unit.length)) {
                return false;
            }
        }
        return true;
    }

    @Test
    void writerAndReader_atOnce_readsSeeWholeFilesOnly_andTheTreeEndsComplete() throws Exception {
        try (SeqVfsFileSystem fs = SeqVfsFileSystem.builder().build()) {
            Path classes = Files.createDirectories(fs.getPath("/project/target/classes/p"));
            AtomicBoolean done = new AtomicBoolean();
            AtomicInteger reads = new AtomicInteger();
            List<String> problems = java.util.Collections.synchronizedList(new ArrayList<>());
            CountDownLatch start = new CountDownLatch(2);
            Thread writer =
                    new Thread(
                            () -> {
                                try {
                                    start.countDown();
                                    start.await();
                                    for (int v = 0; v < ROUNDS; v++) {
                                        for (int f = 0; f < FILES; f++) {
                                            Path tmp = classes.resolve("C" + f + ".class.tmp");
                                            Files.write(tmp, content(f, v));
                                            Files.move(
                                                    tmp,
                                                    classes.resolve("C" + f + ".class"),
                                                    StandardCopyOption.ATOMIC_MOVE,
                                                    StandardCopyOption.REPLACE_EXISTING);
                                        }
                                    }
                                } catch (Exception e) {
                                    problems.add("writer: " + e);
                                } finally {
                                    done.set(true);
                                }
                            },
                            "writer");
            Thread reader =
                    new Thread(
                            () -> {
                                try {
                                    start.countDown();
                                    start.await();
                                    while (!done.get()) {
                                        List<Path> seen = new ArrayList<>();
                                        // walkFileTree, not Files.walk: a temporary file renamed
                                        // away between the listing and its lstat is a visit
                                        // failure to skip (the JDK's provider does the same)
                                        Files.walkFileTree(
                                                fs.getPath("/project/target"),
                                                new java.nio.file.SimpleFileVisitor<>() {
                                                    @Override
                                                    public java.nio.file.FileVisitResult visitFile(
                                                            Path p,
                                                            java.nio.file.attribute
                                                                            .BasicFileAttributes
                                                                    a) {
                                                        if (p.toString().endsWith(".class")) {
                                                            seen.add(p);
                                                        }
                                                        return java.nio.file.FileVisitResult
                                                                .CONTINUE;
                                                    }

                                                    @Override
                                                    public java.nio.file.FileVisitResult
                                                            visitFileFailed(
                                                                    Path p, java.io.IOException e) {
                                                        if (!p.toString().endsWith(".tmp")) {
                                                            problems.add(
                                                                    "cannot visit " + p + ": " + e);
                                                        }
                                                        return java.nio.file.FileVisitResult
                                                                .CONTINUE;
                                                    }
                                                });
                                        for (Path p : seen) {
                                            try {
                                                byte[] b = Files.readAllBytes(p);
                                                reads.incrementAndGet();
                                                if (!whole(b)) {
                                                    problems.add(
                                                            "torn read of "
                                                                    + p
                                                                    + ": "
                                                                    + b.length
                                                                    + " bytes");
                                                }
                                            } catch (NoSuchFileException e) {
                                                problems.add("a .class file vanished: " + p);
                                            }
                                        }
                                    }
                                } catch (Exception e) {
                                    problems.add("reader: " + e);
                                }
                            },
                            "reader");
            writer.start();
            reader.start();
            writer.join(120_000);
            reader.join(120_000);
            assertEquals(List.of(), problems);
            assertTrue(reads.get() > 0, "the reader read something");
            for (int f = 0; f < FILES; f++) {
                assertTrue(
                        Arrays.equals(
                                content(f, ROUNDS - 1),
                                Files.readAllBytes(classes.resolve("C" + f + ".class"))),
                        "C" + f);
            }
            try (Stream<Path> s = Files.list(classes)) {
                assertEquals(FILES, s.count(), "no temporary file left");
            }
            assertEquals(List.of(), Fsck.check(fs.engine(), true));
        }
    }
}
