package dev.seqvfs.junit;

import dev.seqvfs.engine.Fsck;
import dev.seqvfs.nio.SeqVfsFileSystem;
import dev.seqvfs.protocol.MountFlags;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.FileSystem;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A JUnit 5 extension that gives each test a fresh SeqVFS file system:
 * {@code @ExtendWith(SeqVfsExtension.class)}, then a parameter or field annotated {@link
 * TempSeqVfs} of type {@link FileSystem}, {@link SeqVfsFileSystem} or {@link Path} (the root).
 * After the test, the engine's invariant check ({@link Fsck}: link counts, parent links, no
 * orphans, the superblock's accounting) runs and a problem fails the test; then everything is
 * closed. A fresh file system costs about 44 us after the first (README, "A fresh instance").
 *
 * <p>A file system with an initial tree ({@link TempSeqVfs#directories()}, {@link
 * TempSeqVfs#resources()}) is built once per test class for each distinct annotation and kept until
 * the class is done; each test gets its own {@link SeqVfsFileSystem#fork fork} of it, with the same
 * contents and private to the test (README, "Forks").
 *
 * <p>With a {@code uid} other than 0 the test gets a view with those credentials of an engine whose
 * initial tree root made. Thread-safe as JUnit uses it: one store per test.
 */
public final class SeqVfsExtension
        implements ParameterResolver, BeforeEachCallback, AfterEachCallback {
    private static final ExtensionContext.Namespace NS =
            ExtensionContext.Namespace.create(SeqVfsExtension.class);

    /** Creates the extension (JUnit does). */
    public SeqVfsExtension() {}

    /** The file systems of one test, closed by {@link #afterEach}. */
    private static final class Made {
        final List<SeqVfsFileSystem> roots = new ArrayList<>();
        final List<SeqVfsFileSystem> views = new ArrayList<>();
    }

    private static Made made(ExtensionContext ctx) {
        return ctx.getStore(NS).getOrComputeIfAbsent(Made.class, k -> new Made(), Made.class);
    }

    private static SeqVfsFileSystem create(TempSeqVfs a, ExtensionContext ctx) {
        Made m = made(ctx);
        String name = "junit-" + m.roots.size();
        SeqVfsFileSystem root;
        if (a.resources().length == 0 && a.directories().length == 0) {
            root = build(a, ctx, name); // nothing to share: a fresh one costs what a fork does
        } else {
            root = fixture(a, ctx).fork(name);
        }
        m.roots.add(root);
        if (a.uid() == 0 && a.gid() == 0) {
            return root;
        }
        SeqVfsFileSystem view =
                SeqVfsFileSystem.builder()
                        .name("junit-view-" + m.views.size())
                        .engine(root.engine())
                        .user(a.uid(), a.gid())
                        .build();
        m.views.add(view);
        return view;
    }

    /**
     * Builds a file system as {@code a} asks: its limits, directories, resources and read-only
     * state.
     */
    private static SeqVfsFileSystem build(TempSeqVfs a, ExtensionContext ctx, String name) {
        SeqVfsFileSystem.Builder b =
                SeqVfsFileSystem.builder().name(name).directories(a.directories());
        if (a.maxBytes() >= 0) {
            b.maxBytes(a.maxBytes());
        }
        if (a.maxInodes() >= 0) {
            b.maxInodes(a.maxInodes());
        }
        SeqVfsFileSystem root = b.build();
        try {
            for (String r : a.resources()) {
                copyResource(r, root.getPath("/"), ctx);
            }
            if (a.readOnly()) {
                root.task()
                        .mount(null, "/", null, MountFlags.MS_REMOUNT | MountFlags.MS_RDONLY, null);
            }
        } catch (IOException e) {
            closeQuietly(root);
            throw new ExtensionConfigurationException("cannot copy the initial tree", e);
        } catch (RuntimeException e) {
            closeQuietly(root);
            throw e;
        }
        return root;
    }

    /** The shared fixtures of one test class, by annotation, closed after the class. */
    private static final class Fixtures implements ExtensionContext.Store.CloseableResource {
        final Map<TempSeqVfs, SeqVfsFileSystem> byAnnotation = new HashMap<>();

        @Override
        public void close() {
            for (SeqVfsFileSystem fs : byAnnotation.values()) {
                closeQuietly(fs);
            }
        }
    }

    /**
     * The file system {@code a} asks for, built once per test class (the first time a test asks)
     * and kept until the class is done; each test gets a {@link SeqVfsFileSystem#fork} of it.
     */
    private static SeqVfsFileSystem fixture(TempSeqVfs a, ExtensionContext ctx) {
        ExtensionContext c = ctx;
        while (c.getTestMethod().isPresent() && c.getParent().isPresent()) {
            c = c.getParent().get();
        }
        Fixtures f =
                c.getStore(NS)
                        .getOrComputeIfAbsent(Fixtures.class, k -> new Fixtures(), Fixtures.class);
        synchronized (f) {
            SeqVfsFileSystem fs = f.byAnnotation.get(a);
            if (fs == null) {
                fs = build(a, ctx, "junit-fixture-" + f.byAnnotation.size());
                f.byAnnotation.put(a, fs);
            }
            return fs;
        }
    }

    private static void closeQuietly(SeqVfsFileSystem fs) {
        try {
            fs.close();
        } catch (IOException e) {
            // closing an in-memory file system does no I/O; nothing to report
        }
    }

    private static void copyResource(String name, Path to, ExtensionContext ctx)
            throws IOException {
        ClassLoader cl = ctx.getRequiredTestClass().getClassLoader();
        URL url = cl.getResource(name);
        if (url == null || !"file".equals(url.getProtocol())) {
            throw new ExtensionConfigurationException(
                    "resource directory not found on the file system: " + name);
        }
        Path from;
        try {
            from = Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new ExtensionConfigurationException("bad resource URL " + url, e);
        }
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
                        Files.write(
                                to.resolve(from.relativize(file).toString()),
                                Files.readAllBytes(file));
                        return FileVisitResult.CONTINUE;
                    }
                });
    }

    private static boolean injectable(Class<?> type) {
        return type == FileSystem.class || type == SeqVfsFileSystem.class || type == Path.class;
    }

    private static Object valueFor(Class<?> type, SeqVfsFileSystem fs) {
        return type == Path.class ? fs.getPath("/") : fs;
    }

    @Override
    public boolean supportsParameter(ParameterContext pc, ExtensionContext ec) {
        return pc.isAnnotated(TempSeqVfs.class) && injectable(pc.getParameter().getType());
    }

    @Override
    public Object resolveParameter(ParameterContext pc, ExtensionContext ec) {
        TempSeqVfs a =
                pc.findAnnotation(TempSeqVfs.class)
                        .orElseThrow(() -> new ParameterResolutionException("no @TempSeqVfs"));
        return valueFor(pc.getParameter().getType(), create(a, ec));
    }

    @Override
    public void beforeEach(ExtensionContext ctx) throws IllegalAccessException {
        Object test = ctx.getRequiredTestInstance();
        for (Class<?> c = test.getClass(); c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                TempSeqVfs a = f.getAnnotation(TempSeqVfs.class);
                if (a == null) {
                    continue;
                }
                if (Modifier.isStatic(f.getModifiers()) || !injectable(f.getType())) {
                    throw new ExtensionConfigurationException(
                            "@TempSeqVfs field must be a non-static FileSystem, SeqVfsFileSystem or"
                                    + " Path: "
                                    + f);
                }
                f.setAccessible(true);
                f.set(test, valueFor(f.getType(), create(a, ctx)));
            }
        }
    }

    /**
     * Runs {@link Fsck} on every engine the test used, then closes them; a problem fails the test
     * (an {@link AssertionError} listing them) after everything is closed.
     */
    @Override
    public void afterEach(ExtensionContext ctx) throws IOException {
        Made m = ctx.getStore(NS).remove(Made.class, Made.class);
        if (m == null) {
            return;
        }
        List<String> problems = new ArrayList<>();
        for (SeqVfsFileSystem root : m.roots) {
            if (root.isOpen()) {
                problems.addAll(Fsck.check(root.engine(), false));
            }
        }
        for (SeqVfsFileSystem v : m.views) {
            v.close();
        }
        for (SeqVfsFileSystem r : m.roots) {
            r.close();
        }
        if (!problems.isEmpty()) {
            throw new AssertionError("SeqVFS invariant check (Fsck) failed: " + problems);
        }
    }
}
