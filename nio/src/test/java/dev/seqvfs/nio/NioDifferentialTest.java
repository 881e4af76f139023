package dev.seqvfs.nio;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.Fsck;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The differential table: every scenario runs against the JDK's default provider in a fresh
 * directory under {@code /dev/shm} (the host kernel's tmpfs, Linux 6.18, as root) and against
 * SeqVFS in a fresh directory of a new {@code seqvfs:} file system (as root, umask 022), and every
 * step's rendering must be equal: the value returned, or the exception's class, file, other file
 * and reason string. Paths in both are shown relative to the scenario's directory ({@code $}).
 *
 * <p>Accepted differences, each rendered away on both sides rather than compared, with its reason
 * (the allow-list): inode and device numbers and {@code fileKey} values (two different file
 * systems); absolute times (compared only as equal or not to another time of the same side);
 * directory listing order (both are unspecified; compared sorted); {@code FileStore} sizes and
 * name; the {@code dos} view, which the JDK's Linux provider emulates on a {@code user.DOSATTRIB}
 * xattr and SeqVFS does not offer ({@code supportsFileAttributeView("dos")} is false; not in the
 * table). Nothing else is allowed to differ.
 */
class NioDifferentialTest {
    private static final Path SHM = Path.of("/dev/shm");
    private static SeqVfsFileSystem seqvfs;
    private static int counter;

    @BeforeAll
    static void up() {
        seqvfs = SeqVfsFileSystem.builder().name("differential").build();
    }

    @AfterAll
    static void down() throws IOException {
        assertEquals(List.of(), Fsck.check(seqvfs.engine(), true), "the engine's invariants");
        seqvfs.close();
    }

    /** One call; its result is rendered by {@link #render}. */
    interface Step {
        Object run(Path r) throws Exception;
    }

    record Scenario(String name, List<Step> steps) {}

    private static Scenario s(String name, Step... steps) {
        return new Scenario(name, List.of(steps));
    }

    private static String rel(Path root, Object p) {
        if (p == null) {
            return "null";
        }
        String s = p.toString();
        String r = root.toString();
        return s.replace(r, "$");
    }

    static String render(Path root, Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof Path p) {
            return "path " + rel(root, p);
        }
        if (v instanceof byte[] b) {
            return "bytes " + new String(b, UTF_8);
        }
        if (v instanceof BasicFileAttributes a) {
            return "attrs dir="
                    + a.isDirectory()
                    + " reg="
                    + a.isRegularFile()
                    + " link="
                    + a.isSymbolicLink()
                    + " other="
                    + a.isOther()
                    + " size="
                    + (a.isDirectory() ? "-" : a.size());
        }
        if (v instanceof Collection<?> c) {
            List<String> l = new ArrayList<>();
            for (Object o : c) {
                l.add(render(root, o));
            }
            l.sort(null);
            return "list " + l;
        }
        if (v instanceof Map<?, ?> m) {
            Map<String, String> t = new TreeMap<>();
            m.forEach((k, x) -> t.put(k.toString(), render(root, x)));
            return "map " + t;
        }
        if (v instanceof FileSystemException e) {
            return e.getClass().getSimpleName()
                    + " file="
                    + rel(root, e.getFile())
                    + " other="
                    + rel(root, e.getOtherFile())
                    + " reason="
                    + e.getReason();
        }
        if (v instanceof Throwable e) {
            return e.getClass().getSimpleName() + " " + rel(root, e.getMessage());
        }
        return v.getClass().getSimpleName() + " " + rel(root, v);
    }

    private static List<String> run(Scenario sc, Path root) {
        List<String> out = new ArrayList<>();
        for (Step st : sc.steps()) {
            Object v;
            try {
                v = st.run(root);
            } catch (Exception | Error e) {
                if (e instanceof AssertionError) {
                    throw (AssertionError) e;
                }
                v = e;
            }
            out.add(render(root, v));
        }
        return out;
    }

    private static Path freshSeqvfs() throws IOException {
        return Files.createDirectory(seqvfs.getPath("/t" + (++counter)));
    }

    @TestFactory
    Stream<DynamicTest> everyScenario_answersAsTheJdkDefaultProviderOnTmpfs() {
        Assumptions.assumeTrue(Files.isDirectory(SHM), "needs /dev/shm");
        return scenarios().stream()
                .map(
                        sc ->
                                DynamicTest.dynamicTest(
                                        sc.name(),
                                        () -> {
                                            Path host = Files.createTempDirectory(SHM, "nio-diff-");
                                            List<String> h;
                                            try {
                                                h = run(sc, host);
                                            } finally {
                                                deleteTree(host);
                                            }
                                            List<String> v = run(sc, freshSeqvfs());
                                            assertEquals(
                                                    String.join("\n", h),
                                                    String.join("\n", v),
                                                    sc.name());
                                        }));
    }

    @TestFactory
    Stream<DynamicTest> pathOperations_answerAsTheJdkDefaultProvider() {
        String[] paths = {
            "",
            "/",
            "a",
            "a/b",
            "/a",
            "/a/b",
            "a/b/c",
            "a/./b",
            "a/../b",
            "../a",
            "..",
            ".",
            "/..",
            "/a/../..",
            "a/b/../../..",
            "./a",
            "a//b/",
            "//a",
            "/a/b/c/..",
            "a/../../b",
            "b/c",
            "/b",
            ".a",
            "a/.",
            "a/..",
            "../../x"
        };
        List<DynamicTest> tests = new ArrayList<>();
        Path h0 = Path.of("/");
        Path v0 = seqvfs.getPath("/");
        tests.add(
                DynamicTest.dynamicTest(
                        "single-path operations",
                        () -> assertEquals(single(h0, paths), single(v0, paths))));
        tests.add(
                DynamicTest.dynamicTest(
                        "two-path operations (resolve, relativize, startsWith, endsWith)",
                        () -> assertEquals(pairs(h0, paths), pairs(v0, paths))));
        tests.add(
                DynamicTest.dynamicTest(
                        "glob and regex matchers",
                        () -> assertEquals(matchers(h0, paths), matchers(v0, paths))));
        return tests.stream();
    }

    private static String attempt(Step s, Path r) {
        try {
            return render(r, s.run(r));
        } catch (Exception e) {
            return render(r, e);
        }
    }

    private static List<String> single(Path any, String[] paths) {
        List<String> out = new ArrayList<>();
        for (String s : paths) {
            Path p = any.getFileSystem().getPath(s);
            out.add(
                    s
                            + ": str="
                            + p
                            + " norm="
                            + p.normalize()
                            + " parent="
                            + p.getParent()
                            + " name="
                            + p.getFileName()
                            + " count="
                            + p.getNameCount()
                            + " abs="
                            + p.isAbsolute()
                            + " root="
                            + p.getRoot()
                            + " sub="
                            + attempt(r -> p.subpath(0, Math.max(1, p.getNameCount() - 1)), any)
                            + " name0="
                            + attempt(r -> p.getName(0), any)
                            + " names="
                            + attempt(
                                    r -> {
                                        List<String> l = new ArrayList<>();
                                        p.forEach(x -> l.add(x.toString()));
                                        return String.join("|", l);
                                    },
                                    any)
                            + " hidden="
                            + attempt(r -> p.getFileSystem().provider().isHidden(p), any));
        }
        return out;
    }

    private static List<String> pairs(Path any, String[] paths) {
        List<String> out = new ArrayList<>();
        for (String a : paths) {
            for (String b : paths) {
                Path p = any.getFileSystem().getPath(a);
                Path q = any.getFileSystem().getPath(b);
                out.add(
                        a
                                + " ~ "
                                + b
                                + ": resolve="
                                + p.resolve(q)
                                + " sibling="
                                + attempt(r -> p.resolveSibling(q), any)
                                + " relativize="
                                + attempt(r -> p.relativize(q), any)
                                + " starts="
                                + p.startsWith(q)
                                + " ends="
                                + p.endsWith(q)
                                + " eq="
                                + p.equals(q)
                                + " cmp="
                                + Integer.signum(p.compareTo(q)));
            }
        }
        return out;
    }

    private static List<String> matchers(Path any, String[] paths) {
        String[] patterns = {
            "glob:*", "glob:**", "glob:a/*", "glob:a/**", "glob:*.{a,b}", "glob:?", "glob:[a-c]",
            "glob:[!a]", "glob:**/b", "glob:/a/*", "glob:\\*", "regex:a.*", "regex:[^/]*",
                    "glob:{a,/b}",
            "glob:.*", "glob:a[", "glob:{a,{b}}", "foo:x", "nocolon"
        };
        List<String> out = new ArrayList<>();
        for (String pat : patterns) {
            PathMatcher m;
            try {
                m = any.getFileSystem().getPathMatcher(pat);
            } catch (RuntimeException e) {
                out.add(pat + ": " + e.getClass().getSimpleName());
                continue;
            }
            StringBuilder sb = new StringBuilder(pat + ":");
            for (String s : paths) {
                if (m.matches(any.getFileSystem().getPath(s))) {
                    sb.append(' ').append(s.isEmpty() ? "''" : s);
                }
            }
            out.add(sb.toString());
        }
        return out;
    }

    private static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    private static String ls(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.joining(","));
        }
    }

    private static String walk(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.map(p -> dir.relativize(p).toString())
                    .sorted()
                    .collect(Collectors.joining(","));
        }
    }

    /** The table. Each scenario starts in an empty directory {@code $}. */
    static List<Scenario> scenarios() {
        List<Scenario> t = new ArrayList<>();
        t.add(
                s(
                        "createDirectory",
                        r -> Files.createDirectory(r.resolve("d")),
                        r -> Files.createDirectory(r.resolve("d")),
                        r -> Files.createDirectory(r.resolve("x/y")),
                        r -> Files.createDirectories(r.resolve("x/y/z")),
                        r -> Files.createDirectories(r.resolve("x/y/z")),
                        r -> Files.isDirectory(r.resolve("x/y")),
                        r -> Files.createFile(r.resolve("f")),
                        r -> Files.createDirectories(r.resolve("f/g")),
                        r -> Files.createDirectory(r.resolve("f/g")),
                        r -> Files.createDirectory(r.resolve("n".repeat(256))),
                        r -> Files.getPosixFilePermissions(r.resolve("d")),
                        r ->
                                Files.createDirectory(
                                        r.resolve("p"),
                                        PosixFilePermissions.asFileAttribute(
                                                PosixFilePermissions.fromString("rwxrwxrwx"))),
                        r ->
                                PosixFilePermissions.toString(
                                        Files.getPosixFilePermissions(r.resolve("p")))));
        t.add(
                s(
                        "createFile, write, read, options",
                        r -> Files.createFile(r.resolve("f")),
                        r -> Files.createFile(r.resolve("f")),
                        r -> Files.write(r.resolve("f"), b("hello")),
                        r -> Files.readAllBytes(r.resolve("f")),
                        r -> Files.size(r.resolve("f")),
                        r -> Files.write(r.resolve("f"), b(" world"), StandardOpenOption.APPEND),
                        r -> Files.readString(r.resolve("f")),
                        r -> Files.write(r.resolve("f"), b("x"), StandardOpenOption.CREATE_NEW),
                        r -> Files.write(r.resolve("f"), b("HE"), StandardOpenOption.WRITE),
                        r -> Files.readString(r.resolve("f")),
                        r ->
                                Files.write(
                                        r.resolve("f"),
                                        b("new"),
                                        StandardOpenOption.TRUNCATE_EXISTING,
                                        StandardOpenOption.WRITE),
                        r -> Files.readString(r.resolve("f")),
                        r -> Files.readAllBytes(r.resolve("missing")),
                        r -> Files.write(r.resolve("missing"), b("x"), StandardOpenOption.WRITE),
                        r ->
                                Files.newByteChannel(
                                        r.resolve("f"),
                                        StandardOpenOption.READ,
                                        StandardOpenOption.APPEND),
                        r ->
                                Files.newByteChannel(
                                        r.resolve("f"),
                                        StandardOpenOption.APPEND,
                                        StandardOpenOption.TRUNCATE_EXISTING),
                        r -> Files.createDirectory(r.resolve("d")),
                        r -> Files.write(r.resolve("d"), b("x")),
                        r -> Files.readAllBytes(r.resolve("d")),
                        r -> Files.write(r.resolve("f/x"), b("x")),
                        r -> Files.readAllBytes(r.resolve("f/x")),
                        r -> Files.writeString(r.resolve("n".repeat(256)), "x"),
                        r -> Files.readAllLines(r.resolve("f")),
                        r -> {
                            Files.writeString(r.resolve("g"), "1\n2\n3");
                            try (Stream<String> l = Files.lines(r.resolve("g"))) {
                                return l.collect(Collectors.toList());
                            }
                        },
                        r ->
                                PosixFilePermissions.toString(
                                        Files.getPosixFilePermissions(r.resolve("f"))),
                        r ->
                                Files.createFile(
                                        r.resolve("p"),
                                        PosixFilePermissions.asFileAttribute(
                                                PosixFilePermissions.fromString("rw-rw-rw-"))),
                        r ->
                                PosixFilePermissions.toString(
                                        Files.getPosixFilePermissions(r.resolve("p"))),
                        r -> Files.isReadable(r.resolve("f")),
                        r -> Files.isWritable(r.resolve("f")),
                        r -> Files.isExecutable(r.resolve("f")),
                        r -> Files.isExecutable(r.resolve("d")),
                        r -> Files.exists(r.resolve("missing")),
                        r -> Files.notExists(r.resolve("missing")),
                        r -> Files.isRegularFile(r.resolve("f")),
                        r -> Files.isSameFile(r.resolve("f"), r.resolve("d/../f")),
                        r -> Files.isSameFile(r.resolve("f"), r.resolve("g")),
                        r -> Files.isSameFile(r.resolve("f"), r.resolve("missing"))));
        t.add(
                s(
                        "delete",
                        r -> {
                            Files.delete(r.resolve("missing"));
                            return "deleted";
                        },
                        r -> Files.deleteIfExists(r.resolve("missing")),
                        r -> Files.createDirectories(r.resolve("d/e")),
                        r -> {
                            Files.delete(r.resolve("d"));
                            return "deleted";
                        },
                        r -> {
                            Files.delete(r.resolve("d/e"));
                            return "deleted";
                        },
                        r -> Files.deleteIfExists(r.resolve("d")),
                        r -> Files.createFile(r.resolve("f")),
                        r -> Files.deleteIfExists(r.resolve("f/x")),
                        r -> {
                            Files.delete(r.resolve("f/x"));
                            return "deleted";
                        },
                        r -> Files.createSymbolicLink(r.resolve("l"), r.resolve("f")),
                        r -> {
                            Files.delete(r.resolve("l"));
                            return "deleted";
                        },
                        r -> Files.exists(r.resolve("f"))));
        t.add(
                s(
                        "copy",
                        r -> Files.writeString(r.resolve("f"), "data"),
                        r -> Files.copy(r.resolve("f"), r.resolve("g")),
                        r -> Files.readString(r.resolve("g")),
                        r -> Files.copy(r.resolve("f"), r.resolve("g")),
                        r -> Files.copy(r.resolve("missing"), r.resolve("h")),
                        r -> Files.writeString(r.resolve("f"), "data2"),
                        r ->
                                Files.copy(
                                        r.resolve("f"),
                                        r.resolve("g"),
                                        StandardCopyOption.REPLACE_EXISTING),
                        r -> Files.readString(r.resolve("g")),
                        r -> Files.copy(r.resolve("f"), r.resolve("f")),
                        r -> Files.createDirectories(r.resolve("d/e")),
                        r -> Files.copy(r.resolve("d"), r.resolve("d2")),
                        r -> ls(r.resolve("d2")),
                        r ->
                                Files.copy(
                                        r.resolve("f"),
                                        r.resolve("d"),
                                        StandardCopyOption.REPLACE_EXISTING),
                        r ->
                                Files.copy(
                                        r.resolve("f"),
                                        r.resolve("d2"),
                                        StandardCopyOption.REPLACE_EXISTING),
                        r -> Files.isRegularFile(r.resolve("d2")),
                        r -> {
                            Files.setLastModifiedTime(
                                    r.resolve("f"), FileTime.fromMillis(1_000_000_123L));
                            Files.setPosixFilePermissions(
                                    r.resolve("f"), PosixFilePermissions.fromString("rwx------"));
                            return Files.copy(
                                    r.resolve("f"),
                                    r.resolve("c"),
                                    StandardCopyOption.COPY_ATTRIBUTES);
                        },
                        r -> Files.getLastModifiedTime(r.resolve("c")),
                        r ->
                                PosixFilePermissions.toString(
                                        Files.getPosixFilePermissions(r.resolve("c"))),
                        r -> Files.copy(r.resolve("f"), r.resolve("nc")),
                        r ->
                                PosixFilePermissions.toString(
                                        Files.getPosixFilePermissions(r.resolve("nc"))),
                        r -> Files.createSymbolicLink(r.resolve("l"), r.resolve("f").getFileName()),
                        r -> Files.copy(r.resolve("l"), r.resolve("l2"), LinkOption.NOFOLLOW_LINKS),
                        r -> Files.isSymbolicLink(r.resolve("l2")),
                        r -> Files.readSymbolicLink(r.resolve("l2")),
                        r -> Files.copy(r.resolve("l"), r.resolve("l3")),
                        r -> Files.isSymbolicLink(r.resolve("l3")),
                        r -> Files.copy(r.resolve("f"), r.resolve("x/y")),
                        r -> Files.copy(r.resolve("f"), r.resolve("f/y"))));
        t.add(
                s(
                        "move",
                        r -> Files.writeString(r.resolve("f"), "data"),
                        r -> Files.move(r.resolve("f"), r.resolve("g")),
                        r -> Files.exists(r.resolve("f")),
                        r -> Files.readString(r.resolve("g")),
                        r -> Files.writeString(r.resolve("f"), "other"),
                        r -> Files.move(r.resolve("f"), r.resolve("g")),
                        r ->
                                Files.move(
                                        r.resolve("f"),
                                        r.resolve("g"),
                                        StandardCopyOption.REPLACE_EXISTING),
                        r -> Files.readString(r.resolve("g")),
                        r -> Files.move(r.resolve("missing"), r.resolve("h")),
                        r ->
                                Files.move(
                                        r.resolve("g"),
                                        r.resolve("h"),
                                        StandardCopyOption.ATOMIC_MOVE),
                        r -> Files.createDirectories(r.resolve("d/e")),
                        r -> Files.createDirectories(r.resolve("n/m")),
                        r ->
                                Files.move(
                                        r.resolve("d"),
                                        r.resolve("n"),
                                        StandardCopyOption.REPLACE_EXISTING),
                        r ->
                                Files.move(
                                        r.resolve("d"),
                                        r.resolve("n"),
                                        StandardCopyOption.ATOMIC_MOVE),
                        r -> Files.move(r.resolve("d"), r.resolve("d/e/z")),
                        r ->
                                Files.move(
                                        r.resolve("d"),
                                        r.resolve("d/e/z"),
                                        StandardCopyOption.ATOMIC_MOVE),
                        r ->
                                Files.move(
                                        r.resolve("h"),
                                        r.resolve("n/m"),
                                        StandardCopyOption.ATOMIC_MOVE),
                        r ->
                                Files.move(
                                        r.resolve("n/m"),
                                        r.resolve("h"),
                                        StandardCopyOption.ATOMIC_MOVE),
                        r -> Files.move(r.resolve("h"), r.resolve("h")),
                        r -> Files.move(r.resolve("d"), r.resolve("d2")),
                        r -> walk(r)));
        t.add(
                s(
                        "symbolic and hard links",
                        r -> Files.writeString(r.resolve("f"), "data"),
                        r -> Files.createSymbolicLink(r.resolve("l"), r.resolve("f").getFileName()),
                        r -> Files.createSymbolicLink(r.resolve("l"), r.resolve("f").getFileName()),
                        r -> Files.readSymbolicLink(r.resolve("l")),
                        r -> Files.readSymbolicLink(r.resolve("f")),
                        r -> Files.readSymbolicLink(r.resolve("missing")),
                        r -> Files.readString(r.resolve("l")),
                        r -> Files.isSymbolicLink(r.resolve("l")),
                        r -> Files.readAttributes(r.resolve("l"), BasicFileAttributes.class),
                        r ->
                                Files.readAttributes(
                                        r.resolve("l"),
                                        BasicFileAttributes.class,
                                        LinkOption.NOFOLLOW_LINKS),
                        r ->
                                Files.createSymbolicLink(
                                        r.resolve("dangling"),
                                        r.getFileSystem().getPath("nowhere")),
                        r -> Files.exists(r.resolve("dangling")),
                        r -> Files.exists(r.resolve("dangling"), LinkOption.NOFOLLOW_LINKS),
                        r -> Files.readString(r.resolve("dangling")),
                        r ->
                                Files.createSymbolicLink(
                                        r.resolve("a"), r.getFileSystem().getPath("b")),
                        r ->
                                Files.createSymbolicLink(
                                        r.resolve("b"), r.getFileSystem().getPath("a")),
                        r -> Files.readString(r.resolve("a")),
                        r -> Files.newByteChannel(r.resolve("l"), LinkOption.NOFOLLOW_LINKS),
                        r -> Files.createLink(r.resolve("h"), r.resolve("f")),
                        r -> Files.createLink(r.resolve("h"), r.resolve("f")),
                        r -> Files.createLink(r.resolve("h2"), r.resolve("missing")),
                        r -> Files.getAttribute(r.resolve("f"), "unix:nlink"),
                        r -> Files.isSameFile(r.resolve("h"), r.resolve("f")),
                        r -> Files.isSameFile(r.resolve("l"), r.resolve("f")),
                        r -> Files.createDirectory(r.resolve("d")),
                        r -> Files.createLink(r.resolve("dl"), r.resolve("d")),
                        r -> Files.createSymbolicLink(r.resolve("ld"), r.resolve("d")),
                        r -> Files.writeString(r.resolve("ld/inner"), "x"),
                        r -> ls(r.resolve("d")),
                        r -> r.resolve("ld/inner").toRealPath(),
                        r -> r.resolve("ld/inner").toRealPath(LinkOption.NOFOLLOW_LINKS),
                        r -> r.resolve("ld/../f").toRealPath(),
                        r -> r.resolve("ld/../f").toRealPath(LinkOption.NOFOLLOW_LINKS),
                        r -> r.resolve("d/./../f").toRealPath(LinkOption.NOFOLLOW_LINKS),
                        r -> r.resolve("missing").toRealPath(),
                        r -> r.resolve("a").toRealPath(),
                        r -> r.resolve("f/x").toRealPath()));
        t.add(
                s(
                        "directory streams and walks",
                        r -> Files.createDirectories(r.resolve("d/e/f")),
                        r -> Files.writeString(r.resolve("d/a.txt"), "1"),
                        r -> Files.writeString(r.resolve("d/b.txt"), "22"),
                        r -> Files.writeString(r.resolve("d/c.log"), "333"),
                        r -> Files.writeString(r.resolve("d/e/f/deep.txt"), "4444"),
                        r -> ls(r.resolve("d")),
                        r -> {
                            List<String> l = new ArrayList<>();
                            try (DirectoryStream<Path> ds =
                                    Files.newDirectoryStream(r.resolve("d"), "*.txt")) {
                                ds.forEach(p -> l.add(p.getFileName().toString()));
                            }
                            l.sort(null);
                            return l;
                        },
                        r -> {
                            try (DirectoryStream<Path> ds =
                                    Files.newDirectoryStream(r.resolve("d"))) {
                                var unused = ds.iterator();
                                return ds.iterator();
                            }
                        },
                        r -> {
                            DirectoryStream<Path> ds = Files.newDirectoryStream(r.resolve("d"));
                            ds.close();
                            return ds.iterator();
                        },
                        r -> {
                            DirectoryStream<Path> ds = Files.newDirectoryStream(r.resolve("d"));
                            var it = ds.iterator();
                            ds.close();
                            return it.hasNext();
                        },
                        r -> Files.newDirectoryStream(r.resolve("d/a.txt")),
                        r -> Files.newDirectoryStream(r.resolve("missing")),
                        r -> walk(r.resolve("d")),
                        r -> {
                            try (Stream<Path> s =
                                    Files.find(
                                            r, 10, (p, a) -> a.isRegularFile() && a.size() > 2)) {
                                return s.map(p -> r.relativize(p).toString())
                                        .sorted()
                                        .collect(Collectors.toList());
                            }
                        },
                        r -> {
                            try (Stream<Path> s = Files.walk(r, 1)) {
                                return s.count();
                            }
                        },
                        r -> Files.createSymbolicLink(r.resolve("d/e/f/loop"), r.resolve("d")),
                        r -> {
                            List<String> l = new ArrayList<>();
                            try (Stream<Path> s =
                                    Files.walk(
                                            r.resolve("d"),
                                            java.nio.file.FileVisitOption.FOLLOW_LINKS)) {
                                s.forEach(p -> l.add(p.toString()));
                            } catch (java.io.UncheckedIOException e) {
                                return e.getCause();
                            }
                            return l;
                        },
                        r -> walk(r.resolve("missing"))));
        t.add(
                s(
                        "attributes",
                        r -> Files.writeString(r.resolve("f"), "12345"),
                        r ->
                                Files.readAttributes(
                                        r.resolve("f"),
                                        "size,isRegularFile,isDirectory,isSymbolicLink,isOther"),
                        r -> Files.readAttributes(r.resolve("f"), "posix:permissions,owner,group"),
                        r -> Files.readAttributes(r.resolve("f"), "unix:mode,nlink,uid,gid,rdev"),
                        r -> Files.readAttributes(r.resolve("f"), "unix:*").keySet(),
                        r -> Files.readAttributes(r.resolve("f"), "posix:*").keySet(),
                        r -> Files.readAttributes(r.resolve("f"), "*").keySet(),
                        r -> Files.readAttributes(r.resolve("f"), "basic:nope"),
                        r -> Files.readAttributes(r.resolve("f"), "nope:size"),
                        r -> Files.getOwner(r.resolve("f")),
                        r -> Files.getAttribute(r.resolve("f"), "owner:owner"),
                        r ->
                                Files.setLastModifiedTime(
                                        r.resolve("f"), FileTime.fromMillis(86_400_000L)),
                        r -> Files.getLastModifiedTime(r.resolve("f")),
                        r ->
                                Files.setAttribute(
                                        r.resolve("f"),
                                        "lastAccessTime",
                                        FileTime.fromMillis(1_000L)),
                        r -> Files.getAttribute(r.resolve("f"), "lastAccessTime"),
                        r -> Files.getAttribute(r.resolve("f"), "lastModifiedTime"),
                        r -> Files.setAttribute(r.resolve("f"), "unix:mode", 0600),
                        r ->
                                Integer.toOctalString(
                                        (Integer) Files.getAttribute(r.resolve("f"), "unix:mode")),
                        r ->
                                Files.setAttribute(
                                        r.resolve("f"),
                                        "posix:permissions",
                                        PosixFilePermissions.fromString("r--r-----")),
                        r ->
                                PosixFilePermissions.toString(
                                        Files.getPosixFilePermissions(r.resolve("f"))),
                        r -> Files.setAttribute(r.resolve("f"), "basic:nope", 1),
                        r -> Files.getAttribute(r.resolve("missing"), "size"),
                        r -> Files.getLastModifiedTime(r.resolve("missing")),
                        r -> Files.getFileStore(r.resolve("f")).type(),
                        r -> Files.getFileStore(r.resolve("missing")),
                        r -> Files.getFileStore(r.resolve("f")).supportsFileAttributeView("posix"),
                        r -> Files.getFileStore(r.resolve("f")).supportsFileAttributeView("user"),
                        r -> Files.getFileStore(r.resolve("f")).isReadOnly(),
                        r -> Files.isHidden(r.resolve(".hidden"))));
        t.add(
                s(
                        "user-defined attributes (xattrs)",
                        r -> Files.writeString(r.resolve("f"), "x"),
                        r -> {
                            UserDefinedFileAttributeView v =
                                    Files.getFileAttributeView(
                                            r.resolve("f"), UserDefinedFileAttributeView.class);
                            return v.write("mime", ByteBuffer.wrap(b("text/plain")));
                        },
                        r ->
                                Files.getFileAttributeView(
                                                r.resolve("f"), UserDefinedFileAttributeView.class)
                                        .list(),
                        r ->
                                Files.getFileAttributeView(
                                                r.resolve("f"), UserDefinedFileAttributeView.class)
                                        .size("mime"),
                        r -> {
                            ByteBuffer bb = ByteBuffer.allocate(64);
                            Files.getFileAttributeView(
                                            r.resolve("f"), UserDefinedFileAttributeView.class)
                                    .read("mime", bb);
                            return new String(bb.array(), 0, bb.position(), UTF_8);
                        },
                        r -> Files.getAttribute(r.resolve("f"), "user:mime"),
                        r -> Files.readAttributes(r.resolve("f"), "user:*").keySet(),
                        r -> Files.setAttribute(r.resolve("f"), "user:other", b("v")),
                        r ->
                                Files.getFileAttributeView(
                                                r.resolve("f"), UserDefinedFileAttributeView.class)
                                        .list(),
                        r -> {
                            Files.getFileAttributeView(
                                            r.resolve("f"), UserDefinedFileAttributeView.class)
                                    .delete("other");
                            return "deleted";
                        },
                        r -> {
                            Files.getFileAttributeView(
                                            r.resolve("f"), UserDefinedFileAttributeView.class)
                                    .delete("other");
                            return "deleted";
                        },
                        r ->
                                Files.getFileAttributeView(
                                                r.resolve("f"), UserDefinedFileAttributeView.class)
                                        .size("nope"),
                        r -> {
                            ByteBuffer bb = ByteBuffer.allocate(2);
                            return Files.getFileAttributeView(
                                            r.resolve("f"), UserDefinedFileAttributeView.class)
                                    .read("mime", bb);
                        },
                        r ->
                                Files.getFileAttributeView(
                                                r.resolve("f"), UserDefinedFileAttributeView.class)
                                        .write("n".repeat(251), ByteBuffer.wrap(b("v"))),
                        r ->
                                Files.getFileAttributeView(
                                                r.resolve("missing"),
                                                UserDefinedFileAttributeView.class)
                                        .list(),
                        r ->
                                Files.getFileAttributeView(
                                                r.resolve("f"), UserDefinedFileAttributeView.class)
                                        .write("big", ByteBuffer.allocate(65537))));
        t.add(
                s(
                        "NOFOLLOW_LINKS permission changes refuse a symbolic link, its target"
                                + " untouched (newcomer finding)",
                        r -> {
                            Files.write(r.resolve("tgt"), b("x"));
                            Files.setPosixFilePermissions(
                                    r.resolve("tgt"), PosixFilePermissions.fromString("rw-r--r--"));
                            return Files.createSymbolicLink(
                                    r.resolve("lnk"), r.getFileSystem().getPath("tgt"));
                        },
                        r -> {
                            Files.getFileAttributeView(
                                            r.resolve("lnk"),
                                            PosixFileAttributeView.class,
                                            LinkOption.NOFOLLOW_LINKS)
                                    .setPermissions(PosixFilePermissions.fromString("r--------"));
                            return "changed";
                        },
                        r ->
                                Files.setAttribute(
                                        r.resolve("lnk"),
                                        "posix:permissions",
                                        PosixFilePermissions.fromString("r--------"),
                                        LinkOption.NOFOLLOW_LINKS),
                        r ->
                                Files.setAttribute(
                                        r.resolve("lnk"),
                                        "unix:mode",
                                        0400,
                                        LinkOption.NOFOLLOW_LINKS),
                        r -> {
                            try (DirectoryStream<Path> ds = Files.newDirectoryStream(r)) {
                                ((SecureDirectoryStream<Path>) ds)
                                        .getFileAttributeView(
                                                r.getFileSystem().getPath("lnk"),
                                                PosixFileAttributeView.class,
                                                LinkOption.NOFOLLOW_LINKS)
                                        .setPermissions(
                                                PosixFilePermissions.fromString("r--------"));
                                return "changed";
                            }
                        },
                        r ->
                                PosixFilePermissions.toString(
                                        Files.getPosixFilePermissions(r.resolve("tgt"))),
                        r -> {
                            Files.getFileAttributeView(
                                            r.resolve("tgt"),
                                            PosixFileAttributeView.class,
                                            LinkOption.NOFOLLOW_LINKS)
                                    .setPermissions(PosixFilePermissions.fromString("rw-------"));
                            return PosixFilePermissions.toString(
                                    Files.getPosixFilePermissions(r.resolve("tgt")));
                        }));
        t.add(
                s(
                        "a lone surrogate in a path is malformed input (newcomer finding)",
                        r -> r.resolve("s\uD800x"),
                        r -> r.getFileSystem().getPath("s\uD801x"),
                        r -> r.resolve("ok\u00e9")));
        t.add(
                s(
                        "an APPEND channel's position is the file's size (newcomer finding)",
                        r -> {
                            Files.write(r.resolve("f"), b("0123456789"));
                            try (FileChannel c =
                                    FileChannel.open(
                                            r.resolve("f"),
                                            StandardOpenOption.WRITE,
                                            StandardOpenOption.APPEND)) {
                                long p0 = c.position();
                                c.write(ByteBuffer.wrap(b("ab")));
                                return List.of(p0, c.position(), c.size());
                            }
                        }));
        t.add(
                s(
                        "asynchronous channels' locks overlap as FileChannel's do (newcomer"
                                + " finding)",
                        r -> {
                            Files.write(r.resolve("f"), b("0123456789"));
                            try (AsynchronousFileChannel a =
                                            AsynchronousFileChannel.open(
                                                    r.resolve("f"),
                                                    StandardOpenOption.READ,
                                                    StandardOpenOption.WRITE);
                                    AsynchronousFileChannel b =
                                            AsynchronousFileChannel.open(
                                                    r.resolve("f"),
                                                    StandardOpenOption.READ,
                                                    StandardOpenOption.WRITE);
                                    FileChannel c =
                                            FileChannel.open(
                                                    r.resolve("f"), StandardOpenOption.WRITE)) {
                                FileLock l = a.lock().get();
                                List<String> out = new ArrayList<>();
                                out.add("locked " + l.isValid() + " " + l.isShared());
                                for (java.util.concurrent.Callable<Object> x :
                                        List.<java.util.concurrent.Callable<Object>>of(
                                                () -> a.tryLock(),
                                                () -> a.lock().get(),
                                                () -> b.tryLock(),
                                                () -> c.tryLock(),
                                                () -> a.tryLock(-1, 1, false))) {
                                    try {
                                        out.add("got " + x.call());
                                    } catch (Exception e) {
                                        Throwable w =
                                                e instanceof java.util.concurrent.ExecutionException
                                                        ? e.getCause()
                                                        : e;
                                        out.add(
                                                w.getClass().getSimpleName()
                                                        + " "
                                                        + w.getMessage());
                                    }
                                }
                                l.release();
                                FileLock again = b.tryLock();
                                out.add("after release " + (again != null && again.isValid()));
                                return out;
                            }
                        }));
        t.add(
                s(
                        "file channels into direct and read-only buffers",
                        r -> {
                            Files.write(r.resolve("f"), b("0123456789"));
                            try (FileChannel ch = FileChannel.open(r.resolve("f"))) {
                                ByteBuffer d = ByteBuffer.allocateDirect(16);
                                d.position(3).limit(8);
                                int n = ch.read(d, 4);
                                byte[] got = new byte[5];
                                d.get(3, got);
                                int end = ch.read(ByteBuffer.allocateDirect(4), 10);
                                return List.of(n, d.position(), new String(got, UTF_8), end);
                            }
                        },
                        r -> {
                            try (FileChannel ch = FileChannel.open(r.resolve("f"))) {
                                return ch.read(ByteBuffer.allocate(4).asReadOnlyBuffer(), 0);
                            }
                        },
                        r -> {
                            try (FileChannel ch = FileChannel.open(r.resolve("f"))) {
                                return ch.read(ByteBuffer.allocateDirect(4).asReadOnlyBuffer(), 0);
                            }
                        }));
        t.add(
                s(
                        "file channels",
                        r -> {
                            try (FileChannel ch =
                                    FileChannel.open(
                                            r.resolve("f"),
                                            StandardOpenOption.CREATE,
                                            StandardOpenOption.READ,
                                            StandardOpenOption.WRITE)) {
                                ch.write(ByteBuffer.wrap(b("0123456789")));
                                long p = ch.position();
                                long s0 = ch.size();
                                ch.position(2);
                                ByteBuffer bb = ByteBuffer.allocate(3);
                                ch.read(bb);
                                ch.truncate(5);
                                long p2 = ch.position();
                                ByteBuffer at = ByteBuffer.allocate(10);
                                int n = ch.read(at, 1);
                                ch.write(ByteBuffer.wrap(b("Z")), 8);
                                ch.force(true);
                                ByteBuffer eof = ByteBuffer.allocate(4);
                                int e = ch.read(eof, 100);
                                return List.of(
                                        p, s0, new String(bb.array(), UTF_8), p2, n, ch.size(), e);
                            }
                        },
                        r -> Files.readAllBytes(r.resolve("f")).length,
                        r -> {
                            try (FileChannel a =
                                            FileChannel.open(
                                                    r.resolve("f"), StandardOpenOption.READ);
                                    FileChannel b =
                                            FileChannel.open(
                                                    r.resolve("g"),
                                                    StandardOpenOption.CREATE,
                                                    StandardOpenOption.WRITE)) {
                                long n = a.transferTo(1, 3, b);
                                try (FileChannel c = FileChannel.open(r.resolve("f"))) {
                                    long m = b.transferFrom(c, 3, 100);
                                    return List.of(n, m, b.size());
                                }
                            }
                        },
                        r -> {
                            try (FileChannel a =
                                    FileChannel.open(r.resolve("f"), StandardOpenOption.READ)) {
                                return a.write(ByteBuffer.wrap(b("x")));
                            }
                        },
                        r -> {
                            try (FileChannel a =
                                    FileChannel.open(r.resolve("f"), StandardOpenOption.WRITE)) {
                                return a.read(ByteBuffer.allocate(1));
                            }
                        },
                        r -> {
                            try (FileChannel a =
                                    FileChannel.open(
                                            r.resolve("f"),
                                            StandardOpenOption.READ,
                                            StandardOpenOption.WRITE)) {
                                FileLock l1 = a.lock(0, 10, false);
                                String second;
                                try {
                                    a.lock(5, 10, false);
                                    second = "granted";
                                } catch (java.nio.channels.OverlappingFileLockException e) {
                                    second = "OverlappingFileLockException";
                                }
                                FileLock l3 = a.tryLock(20, 5, true);
                                boolean v1 = l1.isValid();
                                l1.release();
                                FileLock l4 = a.lock(5, 10, false);
                                return List.of(
                                        second,
                                        v1,
                                        l1.isValid(),
                                        l3 != null && l3.isShared(),
                                        l4.isValid());
                            }
                        },
                        r -> {
                            try (FileChannel a =
                                    FileChannel.open(r.resolve("f"), StandardOpenOption.WRITE)) {
                                return a.lock(0, 1, true);
                            }
                        },
                        r -> {
                            try (FileChannel a =
                                    FileChannel.open(r.resolve("f"), StandardOpenOption.READ)) {
                                return a.lock();
                            }
                        },
                        r -> {
                            FileChannel a =
                                    FileChannel.open(r.resolve("f"), StandardOpenOption.READ);
                            a.close();
                            return a.size();
                        },
                        r -> {
                            try (FileChannel a =
                                    FileChannel.open(
                                            r.resolve("f"),
                                            StandardOpenOption.WRITE,
                                            StandardOpenOption.APPEND)) {
                                a.write(ByteBuffer.wrap(b("END")));
                                return a.size();
                            }
                        },
                        r -> {
                            try (FileChannel a =
                                    FileChannel.open(
                                            r.resolve("t"),
                                            StandardOpenOption.CREATE_NEW,
                                            StandardOpenOption.WRITE,
                                            StandardOpenOption.DELETE_ON_CLOSE)) {
                                a.write(ByteBuffer.wrap(b("tmp")));
                            }
                            return Files.exists(r.resolve("t"));
                        },
                        r -> FileChannel.open(r.resolve("missing"), StandardOpenOption.READ),
                        r ->
                                FileChannel.open(
                                        r.resolve("f"),
                                        StandardOpenOption.CREATE_NEW,
                                        StandardOpenOption.WRITE)));
        t.add(
                s(
                        "asynchronous file channels",
                        r -> {
                            try (AsynchronousFileChannel ch =
                                    AsynchronousFileChannel.open(
                                            r.resolve("f"),
                                            StandardOpenOption.CREATE,
                                            StandardOpenOption.READ,
                                            StandardOpenOption.WRITE)) {
                                int w = ch.write(ByteBuffer.wrap(b("0123456789")), 0).get();
                                int w2 = ch.write(ByteBuffer.wrap(b("AB")), 20).get();
                                ByteBuffer bb = ByteBuffer.allocate(4);
                                int n = ch.read(bb, 3).get();
                                int eof = ch.read(ByteBuffer.allocate(4), 100).get();
                                long size = ch.size();
                                ch.truncate(5);
                                FileLock l = ch.lock(0, 3, false).get();
                                FileLock t2 = ch.tryLock(10, 3, true);
                                boolean v = l.isValid();
                                l.release();
                                java.util.concurrent.CompletableFuture<Integer> done =
                                        new java.util.concurrent.CompletableFuture<>();
                                ch.read(
                                        ByteBuffer.allocate(10),
                                        0,
                                        null,
                                        new java.nio.channels.CompletionHandler<Integer, Object>() {
                                            @Override
                                            public void completed(Integer result, Object a) {
                                                done.complete(result);
                                            }

                                            @Override
                                            public void failed(Throwable exc, Object a) {
                                                done.completeExceptionally(exc);
                                            }
                                        });
                                return List.of(
                                        w,
                                        w2,
                                        n,
                                        new String(bb.array(), UTF_8),
                                        eof,
                                        size,
                                        ch.size(),
                                        v,
                                        t2 != null,
                                        done.get());
                            }
                        },
                        r ->
                                AsynchronousFileChannel.open(
                                        r.resolve("missing"), StandardOpenOption.READ),
                        r -> {
                            try (AsynchronousFileChannel ch =
                                    AsynchronousFileChannel.open(
                                            r.resolve("f"), StandardOpenOption.READ)) {
                                return ch.write(ByteBuffer.wrap(b("x")), 0);
                            }
                        },
                        r -> {
                            AsynchronousFileChannel ch =
                                    AsynchronousFileChannel.open(
                                            r.resolve("f"), StandardOpenOption.READ);
                            ch.close();
                            try {
                                return ch.read(ByteBuffer.allocate(1), 0).get();
                            } catch (java.util.concurrent.ExecutionException e) {
                                return e.getCause();
                            }
                        }));
        t.add(
                s(
                        "secure directory streams (openat-style calls)",
                        r -> Files.createDirectories(r.resolve("d/sub/inner")),
                        r -> Files.writeString(r.resolve("d/a"), "a"),
                        r -> {
                            try (DirectoryStream<Path> ds =
                                    Files.newDirectoryStream(r.resolve("d"))) {
                                if (!(ds instanceof SecureDirectoryStream<Path> sds)) {
                                    return "not secure";
                                }
                                Path rd = r.getFileSystem().getPath("d2");
                                List<Object> out = new ArrayList<>();
                                try (SeekableByteChannel ch =
                                        sds.newByteChannel(
                                                r.getFileSystem().getPath("f"),
                                                Set.of(
                                                        StandardOpenOption.CREATE,
                                                        StandardOpenOption.WRITE))) {
                                    out.add(ch.write(ByteBuffer.wrap(b("via openat"))));
                                }
                                Files.move(r.resolve("d"), r.resolve(rd));
                                out.add(Files.readString(r.resolve("d2/f")));
                                out.add(
                                        attempt(
                                                x -> {
                                                    sds.deleteFile(
                                                            r.getFileSystem().getPath("missing"));
                                                    return "deleted";
                                                },
                                                r));
                                out.add(
                                        attempt(
                                                x -> {
                                                    sds.deleteDirectory(
                                                            r.getFileSystem().getPath("sub"));
                                                    return "deleted";
                                                },
                                                r));
                                out.add(
                                        attempt(
                                                x -> {
                                                    sds.deleteDirectory(
                                                            r.getFileSystem().getPath("a"));
                                                    return "deleted";
                                                },
                                                r));
                                sds.move(
                                        r.getFileSystem().getPath("a"),
                                        sds,
                                        r.getFileSystem().getPath("b"));
                                out.add(ls(r.resolve("d2")));
                                try (SecureDirectoryStream<Path> sub =
                                        sds.newDirectoryStream(r.getFileSystem().getPath("sub"))) {
                                    List<String> names = new ArrayList<>();
                                    sub.forEach(x -> names.add(r.relativize(x).toString()));
                                    out.add(names);
                                }
                                out.add(
                                        attempt(
                                                x ->
                                                        sds.newDirectoryStream(
                                                                r.getFileSystem().getPath("b")),
                                                r));
                                out.add(
                                        sds.getFileAttributeView(BasicFileAttributeView.class)
                                                .readAttributes()
                                                .isDirectory());
                                PosixFileAttributeView v =
                                        sds.getFileAttributeView(
                                                r.getFileSystem().getPath("b"),
                                                PosixFileAttributeView.class);
                                out.add(
                                        PosixFilePermissions.toString(
                                                v.readAttributes().permissions()));
                                v.setPermissions(PosixFilePermissions.fromString("rwx------"));
                                out.add(
                                        PosixFilePermissions.toString(
                                                Files.getPosixFilePermissions(r.resolve("d2/b"))));
                                out.add(
                                        attempt(
                                                x ->
                                                        sds.getFileAttributeView(
                                                                        r.getFileSystem()
                                                                                .getPath("missing"),
                                                                        BasicFileAttributeView
                                                                                .class)
                                                                .readAttributes(),
                                                r));
                                sds.deleteFile(r.getFileSystem().getPath("b"));
                                out.add(ls(r.resolve("d2")));
                                return out;
                            }
                        }));
        return t;
    }

    private static void deleteTree(Path p) throws IOException {
        try (Stream<Path> s = Files.walk(p)) {
            for (Path x : s.sorted((a, b2) -> b2.compareTo(a)).collect(Collectors.toList())) {
                Files.deleteIfExists(x);
            }
        }
    }

    @TestFactory
    Stream<DynamicTest> theTable_isLargeEnoughToMean_something() {
        int steps = scenarios().stream().mapToInt(s -> s.steps().size()).sum();
        return Stream.of(
                DynamicTest.dynamicTest(
                        "at least 200 steps", () -> assertTrue(steps >= 200, "steps: " + steps)),
                DynamicTest.dynamicTest(
                        "both sides' directory streams are secure (the scenario compares their calls)",
                        () -> {
                            for (Path d : List.of(SHM, seqvfs.getPath("/"))) {
                                try (DirectoryStream<Path> ds = Files.newDirectoryStream(d)) {
                                    assertTrue(ds instanceof SecureDirectoryStream, d.toString());
                                }
                            }
                        }));
    }
}
