package dev.seqvfs.fuse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.OpenFlags;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Specifies the mount's basic contract with host programs (here the JDK's own file calls on the
 * host path): what the host writes the engine holds and the reverse, at once (no kernel caching of
 * names or attributes), inode numbers are the engine's, and an unmount leaves nothing open.
 */
class FuseMountTest {

    @Test
    void userXattrs_setOnTheHost_areTheEngines_andTheEnginesAreSeenByTheHost() throws IOException {
        try (MountedVfs m = new MountedVfs()) {
            Files.writeString(m.path("x"), "data");
            java.nio.file.attribute.UserDefinedFileAttributeView view =
                    Files.getFileAttributeView(
                            m.path("x"),
                            java.nio.file.attribute.UserDefinedFileAttributeView.class);
            view.write("from-host", java.nio.ByteBuffer.wrap("h".getBytes(StandardCharsets.UTF_8)));
            VfsTask t = m.vfs.newTask(Credentials.ROOT);
            assertArrayEquals(
                    "h".getBytes(StandardCharsets.UTF_8), t.getxattr("/x", "user.from-host"));
            t.setxattr("/x", "user.from-engine", "e".getBytes(StandardCharsets.UTF_8), 0);
            assertEquals(
                    java.util.List.of("from-engine", "from-host"),
                    view.list().stream().sorted().toList());
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(view.size("from-engine"));
            view.read("from-engine", b);
            assertArrayEquals("e".getBytes(StandardCharsets.UTF_8), b.array());
            view.delete("from-host");
            assertEquals(java.util.List.of("user.from-engine"), t.listxattr("/x"));
            t.close();
        }
    }

    @Test
    void hostWrite_isSeenByTheEngine_andEngineWrite_isSeenByTheHost() throws IOException {
        try (MountedVfs m = new MountedVfs()) {
            Files.writeString(m.path("from-host"), "hello");
            VfsTask t = m.vfs.newTask(Credentials.ROOT);
            assertEquals(5, t.stat("/from-host").size());
            int fd = t.open("/from-engine", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
            t.write(fd, "engine".getBytes(StandardCharsets.UTF_8));
            t.close(fd);
            assertEquals("engine", Files.readString(m.path("from-engine")));
            t.rename("/from-engine", "/renamed");
            assertFalse(
                    Files.exists(m.path("from-engine")), "a rename inside the JVM is seen at once");
            assertEquals("engine", Files.readString(m.path("renamed")));
            assertEquals(
                    t.stat("/renamed").ino(),
                    ((Number) Files.getAttribute(m.path("renamed"), "unix:ino")).longValue(),
                    "use_ino: the host sees the engine's inode numbers");
            t.close();
        }
    }

    @Test
    void namespaceCalls_throughTheMount_behaveAsOnTmpfs() throws IOException {
        try (MountedVfs m = new MountedVfs()) {
            Files.createDirectories(m.path("a/b"));
            Files.writeString(m.path("a/b/f"), "x");
            Files.createSymbolicLink(m.path("a/l"), Path.of("b/f"));
            Files.createLink(m.path("a/h"), m.path("a/b/f"));
            assertEquals(2, Files.getAttribute(m.path("a/b/f"), "unix:nlink"));
            assertEquals("x", Files.readString(m.path("a/l")));
            assertEquals(Path.of("b/f"), Files.readSymbolicLink(m.path("a/l")));
            assertThrows(
                    FileAlreadyExistsException.class, () -> Files.createDirectory(m.path("a")));
            assertThrows(IOException.class, () -> Files.delete(m.path("a")), "ENOTEMPTY");
            Files.move(m.path("a/h"), m.path("h2"));
            assertThrows(NoSuchFileException.class, () -> Files.readString(m.path("a/h")));
            assertEquals("x", Files.readString(m.path("h2")));
        }
    }

    @Test
    void readdir_ofAThousandNames_listsEachOnce() throws IOException {
        try (MountedVfs m = new MountedVfs()) {
            Set<String> made = new TreeSet<>();
            for (int i = 0; i < 1000; i++) {
                String n = "file-with-a-long-name-to-fill-the-kernel-buffer-" + i;
                Files.createFile(m.path(n));
                made.add(n);
            }
            try (Stream<Path> s = Files.list(m.dir)) {
                List<String> listed =
                        s.map(p -> p.getFileName().toString()).collect(Collectors.toList());
                assertEquals(1000, listed.size());
                assertEquals(made, new TreeSet<>(listed));
            }
        }
    }

    @Test
    void fileRemovedWhileOpen_staysReadableAndWritable() throws IOException {
        try (MountedVfs m = new MountedVfs()) {
            Path p = m.path("f");
            try (FileChannel ch =
                    FileChannel.open(
                            p,
                            StandardOpenOption.CREATE,
                            StandardOpenOption.READ,
                            StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap("before".getBytes(StandardCharsets.UTF_8)));
                Files.delete(p);
                assertFalse(Files.exists(p));
                ch.write(ByteBuffer.wrap("+after".getBytes(StandardCharsets.UTF_8)));
                ByteBuffer b = ByteBuffer.allocate(64);
                ch.read(b, 0);
                assertEquals(
                        "before+after",
                        new String(b.array(), 0, b.position(), StandardCharsets.UTF_8));
            }
            try (Stream<Path> s = Files.list(m.dir)) {
                assertEquals(0, s.count(), "hard_remove: no .fuse_hidden file");
            }
        }
    }

    /**
     * Inodes with no name left answer as on tmpfs: {@code fstat} of a file removed while open (a
     * {@code GETATTR} of a node whose names are gone), {@code fchmod} of it, {@code stat(".")} in a
     * removed working directory, a file whose opening name was unlinked while a hard link remains.
     * (The libfuse 2 transport answered {@code ENOENT} to each: its path API had no path for them.)
     */
    @Test
    void namelessInodes_answerAsOnTmpfs() throws Exception {
        try (MountedVfs m = new MountedVfs()) {
            assertEquals("kernel", m.mount.transport());
            HostTools.Result r =
                    HostTools.sh(
                            m.dir,
                            30,
                            "set -e; exec 3<>f; printf data >&3; ln f g; rm f;"
                                    + " stat -L -c %h:%s /dev/fd/3; rm g; stat -L -c %h:%s /dev/fd/3;"
                                    + " chmod 600 /dev/fd/3; stat -L -c %a /dev/fd/3; exec 3>&-;"
                                    + " mkdir d; cd d; rmdir ../d; stat -c %h:%F .");
            assertEquals("1:4\n0:4\n600\n0:directory\n", r.output(), r.output());
            assertEquals(0, r.exit());
        }
    }

    /**
     * The mount a user other than root makes: {@code fusermount3} mounts and passes the device
     * descriptor back over a unix socket ({@code SCM_RIGHTS}). Made here by root through the same
     * path (a non-root user needs {@code /dev/fuse} readable and writable by it, which this
     * machine's may not be), then unmounted with {@code fusermount3 -u}.
     */
    @Test
    void mountThroughFusermount3_receivesTheDeviceOverASocket_andServes() throws Exception {
        Path dir = Files.createTempDirectory("seqvfs-fuse-fm-");
        try (dev.seqvfs.engine.SeqVfs vfs =
                dev.seqvfs.engine.SeqVfs.create(
                        FuseMount.engineConfig(com.typesafe.config.ConfigFactory.load()))) {
            KernelMount m = KernelMount.mount(vfs, dir, List.of("fsname=fm-test"), false);
            try {
                assertTrue(
                        Files.readString(Path.of("/proc/self/mounts"))
                                .contains("fm-test " + dir + " fuse.seqvfs "),
                        "mounted by fusermount3");
                Files.writeString(dir.resolve("f"), "through fusermount3");
                assertEquals("through fusermount3", Files.readString(dir.resolve("f")));
                assertEquals(19, vfs.newTask(Credentials.ROOT).stat("/f").size());
            } finally {
                assertTrue(m.unmount(), "fusermount3 -u");
                assertTrue(m.awaitUnmounted(10, java.util.concurrent.TimeUnit.SECONDS));
            }
        } finally {
            Files.deleteIfExists(dir);
        }
    }

    @Test
    void libfuse2Transport_stillServes_behindItsOption() throws IOException {
        try (MountedVfs m = new MountedVfs("transport=libfuse2")) {
            assertEquals("libfuse2", m.mount.transport());
            Files.writeString(m.path("f"), "old transport");
            assertEquals("old transport", Files.readString(m.path("f")));
        }
    }

    @Test
    void largeRandomFile_roundTripsByteForByte() throws IOException {
        try (MountedVfs m = new MountedVfs()) {
            byte[] data = new byte[3 * 1024 * 1024 + 12345];
            new Random(42).nextBytes(data);
            Files.write(m.path("big"), data);
            assertArrayEquals(data, Files.readAllBytes(m.path("big")));
            assertEquals(data.length, m.vfs.newTask(Credentials.ROOT).stat("/big").size());
        }
    }

    @Test
    void unmountFromOutside_endsTheMount() throws Exception {
        MountedVfs m = new MountedVfs();
        try {
            Process p =
                    new ProcessBuilder("fusermount", "-u", m.dir.toString()).inheritIO().start();
            assertEquals(0, p.waitFor());
            assertTrue(m.mount.awaitUnmounted(10, java.util.concurrent.TimeUnit.SECONDS));
            assertFalse(m.mount.isServing());
        } finally {
            m.close();
        }
    }

    @Test
    void thousandsOfRequestsFromFourThreads_startOnlyAFewWorkerThreads() throws Exception {
        try (MountedVfs m = new MountedVfs()) {
            java.lang.management.ThreadMXBean threads =
                    java.lang.management.ManagementFactory.getThreadMXBean();
            long before = threads.getTotalStartedThreadCount();
            List<Thread> clients = new java.util.ArrayList<>();
            List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
            for (int c = 0; c < 4; c++) {
                Path dir = Files.createDirectory(m.path("c" + c));
                Thread t =
                        new Thread(
                                () -> {
                                    try {
                                        for (int i = 0; i < 500; i++) {
                                            Path f = dir.resolve("f" + i);
                                            Files.writeString(f, "x");
                                            Files.readAttributes(
                                                    f,
                                                    java.nio.file.attribute.BasicFileAttributes
                                                            .class);
                                            Files.delete(f);
                                        }
                                    } catch (IOException | RuntimeException e) {
                                        failures.add(e);
                                    }
                                });
                clients.add(t);
                t.start();
            }
            for (Thread t : clients) {
                t.join();
            }
            assertEquals(List.of(), failures);
            long started = threads.getTotalStartedThreadCount() - before - clients.size();
            // libfuse 2's own loop started about one thread per request here (each attached to
            // the JVM anew); the transport's workers stay, so the pool only grows to the
            // concurrency
            assertTrue(started < 100, started + " threads started for some 10,000 requests");
        }
    }

    @Test
    void mount_onAMissingDirectory_failsWithNotADirectory() {
        FuseMountException e =
                assertThrows(
                        FuseMountException.class,
                        () ->
                                FuseMount.mount(
                                        dev.seqvfs.engine.SeqVfs.create(),
                                        Path.of("/nonexistent/seqvfs"),
                                        List.of()));
        assertEquals(FuseMountException.Reason.NOT_A_DIRECTORY, e.reason());
    }
}
