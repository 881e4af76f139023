package dev.seqvfs.load.makestat;

import dev.seqvfs.load.LoadException;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipFile;

/**
 * A real source tree to import: a directory of the host, or a zip file (such as the JDK's {@code
 * lib/src.zip}). Lists its directories (parents before children, including those a zip only
 * implies) and its regular files with their sizes and modification times, and opens a file's
 * contents.
 *
 * <p>Paths are relative, {@code /}-separated, without {@code .} or {@code ..}: a zip entry that
 * would escape the tree ({@code ../x}, an absolute name) is refused. A directory's symbolic links
 * and special files are skipped (and counted): a build tree's make stats its sources, which are
 * regular files.
 *
 * <p>Not thread-safe: one importer reads it.
 */
public final class SourceTree implements Closeable {
    /**
     * A regular file: relative path, size in bytes, modification time in milliseconds since the
     * epoch.
     */
    public record FileEntry(String path, long size, long mtimeMillis) {}

    private final Path source;
    private final ZipFile zip;
    private final List<String> dirs;
    private final List<FileEntry> files;
    private final int skipped;

    private SourceTree(
            Path source, ZipFile zip, List<String> dirs, List<FileEntry> files, int skipped) {
        this.source = source;
        this.zip = zip;
        this.dirs = dirs;
        this.files = files;
        this.skipped = skipped;
    }

    /**
     * Reads the tree at {@code source}: a directory, or else a zip file.
     *
     * @throws LoadException {@code source} is missing (or a dangling symbolic link), is neither a
     *     directory nor a readable zip file, or holds an entry that escapes it
     */
    public static SourceTree open(Path source) {
        if (!Files.exists(source)) {
            if (Files.isSymbolicLink(source)) {
                String target;
                try {
                    target = Files.readSymbolicLink(source).toString();
                } catch (IOException e) {
                    target = "?";
                }
                throw LoadException.usage(
                        "--tree "
                                + source
                                + ": a dangling symbolic link (to "
                                + target
                                + "): no such file or directory");
            }
            throw LoadException.usage("--tree " + source + ": no such file or directory");
        }
        if (Files.isDirectory(source)) {
            return directory(source);
        }
        return zip(source);
    }

    private static SourceTree directory(Path source) {
        List<String> dirs = new ArrayList<>();
        List<FileEntry> files = new ArrayList<>();
        int skipped = 0;
        try (Stream<Path> all = Files.walk(source)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                if (p.equals(source)) {
                    continue;
                }
                String rel =
                        source.relativize(p)
                                .toString()
                                .replace(p.getFileSystem().getSeparator(), "/");
                BasicFileAttributes a =
                        Files.readAttributes(
                                p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (a.isDirectory()) {
                    dirs.add(rel);
                } else if (a.isRegularFile()) {
                    files.add(new FileEntry(rel, a.size(), a.lastModifiedTime().toMillis()));
                } else {
                    skipped++;
                }
            }
        } catch (IOException | UncheckedIOException e) {
            throw LoadException.usage(
                    "--tree " + source + ": cannot read the directory: " + e.getMessage(), e);
        }
        Collections.sort(dirs);
        return new SourceTree(source, null, dirs, files, skipped);
    }

    private static SourceTree zip(Path source) {
        ZipFile zip;
        try {
            zip = new ZipFile(source.toFile());
        } catch (ZipException e) {
            throw LoadException.usage(
                    "--tree "
                            + source
                            + ": not a readable zip file ("
                            + e.getMessage()
                            + "); give a directory or a zip file",
                    e);
        } catch (NoSuchFileException e) {
            throw LoadException.usage("--tree " + source + ": no such file or directory", e);
        } catch (IOException e) {
            throw LoadException.usage(
                    "--tree " + source + ": cannot read it as a zip file: " + e, e);
        }
        try {
            TreeSet<String> dirs = new TreeSet<>();
            TreeMap<String, FileEntry> files = new TreeMap<>();
            Enumeration<? extends ZipEntry> en = zip.entries();
            while (en.hasMoreElements()) {
                ZipEntry e = en.nextElement();
                String name = clean(source, e.getName());
                if (name.isEmpty()) {
                    continue;
                }
                if (e.isDirectory()) {
                    dirs.add(name);
                } else {
                    long size = e.getSize();
                    if (size < 0) {
                        size = count(zip, e);
                    }
                    files.put(name, new FileEntry(name, size, e.getTime()));
                }
                for (int i = name.indexOf('/'); i > 0; i = name.indexOf('/', i + 1)) {
                    dirs.add(name.substring(0, i));
                }
            }
            for (String d : dirs) {
                if (files.containsKey(d)) {
                    throw LoadException.usage(
                            "--tree " + source + ": " + d + " is both a file and a directory");
                }
            }
            return new SourceTree(
                    source, zip, new ArrayList<>(dirs), new ArrayList<>(files.values()), 0);
        } catch (RuntimeException | IOException e) {
            try {
                zip.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            if (e instanceof LoadException le) {
                throw le;
            }
            throw LoadException.usage(
                    "--tree " + source + ": not a readable zip file (" + e.getMessage() + ")", e);
        }
    }

    /** Normalizes a zip entry name; refuses one that escapes the tree. */
    private static String clean(Path source, String name) {
        String n = name.replace('\\', '/');
        if (n.startsWith("/")) {
            throw LoadException.usage(
                    "--tree " + source + ": entry " + name + " is an absolute path");
        }
        StringBuilder out = new StringBuilder();
        for (String part : n.split("/", -1)) {
            if (part.isEmpty() || part.equals(".")) {
                continue;
            }
            if (part.equals("..")) {
                throw LoadException.usage(
                        "--tree " + source + ": entry " + name + " escapes the tree (..)");
            }
            if (out.length() > 0) {
                out.append('/');
            }
            out.append(part);
        }
        return out.toString();
    }

    private static long count(ZipFile zip, ZipEntry e) throws IOException {
        try (InputStream in = zip.getInputStream(e)) {
            return in.transferTo(OutputStream.nullOutputStream());
        }
    }

    /** Returns where the tree was read from. */
    public Path source() {
        return source;
    }

    /** Returns whether it is a zip file. */
    public boolean isZip() {
        return zip != null;
    }

    /** Returns the directories, parents before children. */
    public List<String> dirs() {
        return Collections.unmodifiableList(dirs);
    }

    /** Returns the regular files. */
    public List<FileEntry> files() {
        return Collections.unmodifiableList(files);
    }

    /** Returns the total size of the files, in bytes. */
    public long bytes() {
        long sum = 0;
        for (FileEntry f : files) {
            sum += f.size();
        }
        return sum;
    }

    /** Returns how many symbolic links and special files a directory tree had (not imported). */
    public int skipped() {
        return skipped;
    }

    /** Opens a file's contents. */
    public InputStream open(FileEntry f) throws IOException {
        if (zip != null) {
            ZipEntry e = zip.getEntry(f.path());
            if (e == null) {
                // a name that clean() changed: find the entry by its cleaned name
                Enumeration<? extends ZipEntry> en = zip.entries();
                while (en.hasMoreElements()) {
                    ZipEntry z = en.nextElement();
                    if (!z.isDirectory() && clean(source, z.getName()).equals(f.path())) {
                        e = z;
                        break;
                    }
                }
            }
            if (e == null) {
                throw new IOException("no entry " + f.path());
            }
            return zip.getInputStream(e);
        }
        return Files.newInputStream(source.resolve(f.path()));
    }

    @Override
    public void close() throws IOException {
        if (zip != null) {
            zip.close();
        }
    }
}
