package dev.seqvfs.nio;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.Fsck;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.StandardLocation;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Unmodified JDK code over SeqVFS: {@code Files.walkFileTree} copies the JDK's {@code src.zip} tree
 * (opened with the JDK's zip file system) into SeqVFS and back out to {@code /dev/shm}, and every
 * file's SHA-256 must match at each step; {@code javax.tools.JavaCompiler} compiles a multi-file
 * project whose sources and class output are in SeqVFS, and the classes, loaded from SeqVFS, run;
 * the zip file system writes and reads a zip stored in SeqVFS.
 */
class RealClientsTest {
    /** The first JDK source archive that exists (JDK 17's Debian package ships none). */
    static Path srcZip() {
        try (Stream<Path> s = Files.list(Path.of("/usr/lib/jvm"))) {
            for (Path jdk : s.sorted().collect(Collectors.toList())) {
                Path z = jdk.resolve("lib/src.zip");
                if (Files.isRegularFile(z)) {
                    return z;
                }
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }

    static Map<String, String> digests(Path root) throws IOException {
        Map<String, String> out = new TreeMap<>();
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
        Files.walkFileTree(
                root,
                new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                            throws IOException {
                        md.reset();
                        try (InputStream in = Files.newInputStream(file)) {
                            byte[] buf = new byte[65536];
                            int n;
                            while ((n = in.read(buf)) > 0) {
                                md.update(buf, 0, n);
                            }
                        }
                        out.put(
                                root.relativize(file).toString(),
                                HexFormat.of().formatHex(md.digest()));
                        return FileVisitResult.CONTINUE;
                    }
                });
        return out;
    }

    static void copyTree(Path from, Path to) throws IOException {
        Files.walkFileTree(
                from,
                new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
                            throws IOException {
                        Files.createDirectories(to.resolve(from.relativize(dir).toString()));
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                            throws IOException {
                        Files.copy(
                                file,
                                to.resolve(from.relativize(file).toString()),
                                StandardCopyOption.REPLACE_EXISTING);
                        return FileVisitResult.CONTINUE;
                    }
                });
    }

    @Test
    void srcZipTree_copiedInAndOutWithWalkFileTree_keepsEveryChecksum() throws IOException {
        Path zip = srcZip();
        Assumptions.assumeTrue(zip != null, "no JDK src.zip under /usr/lib/jvm");
        try (FileSystem zfs = FileSystems.newFileSystem(zip);
                SeqVfsFileSystem fs = SeqVfsFileSystem.builder().build()) {
            Path zroot = zfs.getPath("/");
            Map<String, String> original = digests(zroot);
            assertTrue(original.size() > 10_000, "files: " + original.size());
            Path in = fs.getPath("/src");
            copyTree(zroot, in);
            assertEquals(original, digests(in));
            Path out = Files.createTempDirectory(Path.of("/dev/shm"), "seqvfs-src-");
            try {
                copyTree(in, out);
                assertEquals(original, digests(out));
            } finally {
                try (Stream<Path> s = Files.walk(out)) {
                    for (Path p : s.sorted((a, b) -> b.compareTo(a)).collect(Collectors.toList())) {
                        Files.delete(p);
                    }
                }
            }
            assertEquals(List.of(), Fsck.check(fs.engine(), true));
        }
    }

    @Test
    void javaCompiler_compilesAProjectInSeqVfs_andItsClassesRunFromSeqVfs() throws Exception {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        Assumptions.assumeTrue(javac != null, "no system Java compiler");
        try (SeqVfsFileSystem fs = SeqVfsFileSystem.builder().build()) {
            Path src = Files.createDirectories(fs.getPath("/project/src/main/java/demo/util"));
            Path classes = Files.createDirectories(fs.getPath("/project/target/classes"));
            Files.writeString(
                    src.getParent().resolve("Main.java"),
                    "package demo;\n"
                            + "import demo.util.Greeter;\n"
                            + "public class Main {\n"
                            + "  public static void main(String[] a) {\n"
                            + "    System.out.print(new Greeter(\"seqvfs\").greet());\n"
                            + "  }\n"
                            + "}\n");
            Files.writeString(
                    src.resolve("Greeter.java"),
                    "package demo.util;\n"
                            + "public record Greeter(String name) {\n"
                            + "  public String greet() { return Strings.hello() + \", \" + name; }\n"
                            + "}\n");
            Files.writeString(
                    src.resolve("Strings.java"),
                    "package demo.util;\n"
                            + "final class Strings {\n"
                            + "  static String hello() { return \"hello\"; }\n"
                            + "}\n");
            try (StandardJavaFileManager fm = javac.getStandardFileManager(null, null, UTF_8)) {
                fm.setLocationFromPaths(StandardLocation.CLASS_OUTPUT, List.of(classes));
                List<Path> sources;
                try (Stream<Path> s = Files.walk(fs.getPath("/project/src"))) {
                    sources =
                            s.filter(p -> p.toString().endsWith(".java"))
                                    .collect(Collectors.toList());
                }
                boolean ok =
                        javac.getTask(
                                        null,
                                        fm,
                                        null,
                                        List.of("--release", "17"),
                                        null,
                                        fm.getJavaFileObjectsFromPaths(sources))
                                .call();
                assertTrue(ok, "javac failed");
            }
            assertTrue(Files.isRegularFile(classes.resolve("demo/util/Greeter.class")));
            ClassLoader loader =
                    new ClassLoader(null) {
                        @Override
                        protected Class<?> findClass(String name) throws ClassNotFoundException {
                            Path c = classes.resolve(name.replace('.', '/') + ".class");
                            try {
                                byte[] b = Files.readAllBytes(c);
                                return defineClass(name, b, 0, b.length);
                            } catch (IOException e) {
                                throw new ClassNotFoundException(name, e);
                            }
                        }
                    };
            Method main = loader.loadClass("demo.Main").getMethod("main", String[].class);
            assertEquals("hello, seqvfs", run(main));
        }
    }

    @Test
    void urlClassLoader_loadsClassesAndResourcesFromSeqVfsUrls() throws Exception {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        Assumptions.assumeTrue(javac != null, "no system Java compiler");
        try (FileSystem fs = FileSystems.newFileSystem(URI.create("seqvfs://classes/"), Map.of())) {
            Path src = Files.createDirectories(fs.getPath("/src/demo"));
            Path out = Files.createDirectories(fs.getPath("/out"));
            Files.writeString(
                    src.resolve("Main.java"),
                    "package demo;\n"
                            + "public class Main {\n"
                            + "  public static void main(String[] a) throws Exception {\n"
                            + "    try (var in = Main.class.getResourceAsStream(\"/greeting.txt\")) {\n"
                            + "      System.out.print(new String(in.readAllBytes()));\n"
                            + "    }\n"
                            + "  }\n"
                            + "}\n");
            Files.writeString(out.resolve("greeting.txt"), "hello through a seqvfs: URL");
            try (StandardJavaFileManager fm = javac.getStandardFileManager(null, null, UTF_8)) {
                fm.setLocationFromPaths(StandardLocation.CLASS_OUTPUT, List.of(out));
                assertTrue(
                        javac.getTask(
                                        null,
                                        fm,
                                        null,
                                        List.of("--release", "17"),
                                        null,
                                        fm.getJavaFileObjectsFromPaths(
                                                List.of(src.resolve("Main.java"))))
                                .call());
            }
            java.net.URL url = out.toUri().toURL();
            assertEquals("seqvfs://classes/out/", url.toString());
            try (java.net.URLClassLoader loader =
                    new java.net.URLClassLoader(new java.net.URL[] {url}, null)) {
                Method main = loader.loadClass("demo.Main").getMethod("main", String[].class);
                assertEquals("hello through a seqvfs: URL", run(main));
            }
            try (InputStream in =
                    new java.net.URL("seqvfs://classes/out/greeting.txt").openStream()) {
                assertEquals("hello through a seqvfs: URL", new String(in.readAllBytes(), UTF_8));
            }
            org.junit.jupiter.api.Assertions.assertThrows(
                    java.io.FileNotFoundException.class,
                    () -> new java.net.URL("seqvfs://classes/nope").openStream());
        }
    }

    private static String run(Method main) throws Exception {
        {
            PrintStream old = System.out;
            ByteArrayOutputStream captured = new ByteArrayOutputStream();
            System.setOut(new PrintStream(captured, true, UTF_8));
            try {
                main.invoke(null, (Object) new String[0]);
            } finally {
                System.setOut(old);
            }
            return captured.toString(UTF_8);
        }
    }

    @Test
    void zipFileSystem_writesAndReadsAZipStoredInSeqVfs() throws IOException {
        try (SeqVfsFileSystem fs = SeqVfsFileSystem.builder().build()) {
            Path zip = fs.getPath("/archive.zip");
            try (FileSystem z = FileSystems.newFileSystem(zip, Map.of("create", "true"))) {
                Files.createDirectories(z.getPath("/a/b"));
                Files.writeString(z.getPath("/a/b/hello.txt"), "hello from a zip in seqvfs");
            }
            assertTrue(Files.size(zip) > 0);
            try (FileSystem z = FileSystems.newFileSystem(zip)) {
                assertEquals(
                        "hello from a zip in seqvfs",
                        Files.readString(z.getPath("/a/b/hello.txt")));
            }
            URI u = zip.toUri();
            assertEquals("seqvfs", u.getScheme());
        }
    }
}
