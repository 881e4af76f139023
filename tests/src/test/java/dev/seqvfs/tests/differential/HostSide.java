package dev.seqvfs.tests.differential;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The host kernel's side: a fresh sandbox directory on {@code /dev/shm} and a {@code hostops} child
 * process chrooted into it, which makes each call with the real system call (see {@code
 * src/test/c/hostops.c} for the line protocol). The final tree is read from outside the chroot with
 * {@code java.nio}'s {@code unix:} attributes.
 *
 * <p>A watchdog kills the child if one call takes more than {@link #CALL_TIMEOUT_SECONDS} (a call
 * that blocks is a harness bug: the server must never open a FIFO).
 */
final class HostSide implements Side {
    static final int CALL_TIMEOUT_SECONDS = 10;
    private static final ScheduledExecutorService WATCHDOG =
            Executors.newSingleThreadScheduledExecutor(
                    r -> {
                        Thread t = new Thread(r, "hostops-watchdog");
                        t.setDaemon(true);
                        return t;
                    });
    private static final HexFormat HEX = HexFormat.of();

    /**
     * Sandboxes not yet removed; a shutdown hook removes them if the JVM exits mid-try (a shrinking
     * timeout).
     */
    private static final Set<Path> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> LIVE.forEach(HostSide::deleteQuietly),
                                "hostops-sandbox-cleanup"));
    }

    private final Path sandbox;
    private final boolean ownsSandbox;
    private final Process proc;
    private final Writer toServer;
    private final BufferedReader fromServer;
    private final Outcomes out = new Outcomes();

    HostSide() {
        this(newSandbox(), true);
    }

    /**
     * A server chrooted into {@code sandbox}, an empty directory the caller made and removes (a
     * tmpfs it mounted there, see {@link HostTmpfs}); {@link #close} leaves it in place.
     */
    HostSide(Path sandbox) {
        this(sandbox, false);
    }

    private static Path newSandbox() {
        try {
            Path p = Files.createTempDirectory(HostKernel.SHM, "seqvfs-diff-");
            LIVE.add(p);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private HostSide(Path sandbox, boolean ownsSandbox) {
        this.sandbox = sandbox;
        this.ownsSandbox = ownsSandbox;
        try {
            proc =
                    new ProcessBuilder(HostKernel.binary().toString(), sandbox.toString())
                            .redirectError(ProcessBuilder.Redirect.DISCARD)
                            .start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        toServer = new OutputStreamWriter(proc.getOutputStream(), StandardCharsets.US_ASCII);
        fromServer =
                new BufferedReader(
                        new InputStreamReader(proc.getInputStream(), StandardCharsets.US_ASCII));
        String ready = readLine("startup");
        if (!"READY".equals(ready)) {
            close();
            throw new IllegalStateException("hostops did not start: " + ready);
        }
    }

    @Override
    public String name() {
        return "host";
    }

    @Override
    public String apply(Op op) {
        String line = request(op);
        try {
            toServer.write(line);
            toServer.write('\n');
            toServer.flush();
        } catch (IOException e) {
            throw new IllegalStateException("hostops died before " + op, e);
        }
        String reply = readLine(op.toString());
        if (reply.equals("S")) {
            return Outcomes.SKIPPED;
        }
        String[] f = reply.split(" ", -1);
        if (f[0].equals("E")) {
            return Outcomes.errno(Integer.parseInt(f[1]));
        }
        if (!f[0].equals("O")) {
            throw new IllegalStateException("hostops: " + reply + " for " + op);
        }
        switch (op.kind()) {
            case STAT:
            case FSTAT:
                return out.stat(
                        Integer.parseInt(f[1]),
                        Long.parseLong(f[2]),
                        Integer.parseInt(f[3]),
                        Integer.parseInt(f[4]),
                        Long.parseLong(f[5]),
                        Long.parseUnsignedLong(f[6]));
            case READLINK:
            case GETCWD:
                return Outcomes.string(unhex(f[1]));
            case GETDENTS:
                List<Outcomes.Dirent> entries = new ArrayList<>();
                int n = Integer.parseInt(f[1]);
                for (int i = 0; i < n; i++) {
                    entries.add(
                            new Outcomes.Dirent(
                                    unhex(f[2 + 3 * i]),
                                    Integer.parseInt(f[3 + 3 * i]),
                                    Long.parseUnsignedLong(f[4 + 3 * i])));
                }
                return out.listing(entries);
            case OPEN:
                return Outcomes.number(Long.parseLong(f[1]));
            case UMASK:
                return Op.oct(Integer.parseInt(f[1]));
            default:
                return Outcomes.ok();
        }
    }

    /**
     * Sends one request line as it is (see {@code hostops.c} for the verbs) and returns the
     * server's answer line: {@code "O ..."}, {@code "E errno"}, or {@code "S"}.
     */
    String call(String line) {
        try {
            toServer.write(line);
            toServer.write('\n');
            toServer.flush();
        } catch (IOException e) {
            throw new IllegalStateException("hostops died before " + line, e);
        }
        String reply = readLine(line);
        if (reply.startsWith("X")) {
            throw new IllegalStateException("hostops: " + reply + " for " + line);
        }
        return reply;
    }

    /**
     * Encodes a path argument for {@link #call}: {@code "s"} + hex of its UTF-8 bytes, {@code "n"}
     * for null.
     */
    static String arg(String path) {
        return s(path);
    }

    private static String request(Op op) {
        switch (op.kind()) {
            case MKDIR:
                return line("MKDIR", op.fd(), s(op.path()), op.a());
            case MKNOD:
                return line("MKNOD", op.fd(), s(op.path()), op.a());
            case SYMLINK:
                return line("SYMLINK", s(op.path2()), op.fd(), s(op.path()));
            case LINK:
                return line("LINK", op.fd(), s(op.path()), op.fd2(), s(op.path2()), op.flags());
            case UNLINK:
                return line("UNLINK", op.fd(), s(op.path()), op.flags());
            case RENAME:
                return line("RENAME", op.fd(), s(op.path()), op.fd2(), s(op.path2()), op.flags());
            case READLINK:
                return line("READLINK", op.fd(), s(op.path()));
            case STAT:
                return line("STAT", op.fd(), s(op.path()), op.flags());
            case OPEN:
                return line("OPEN", op.fd(), s(op.path()), op.flags(), op.a());
            case CLOSE:
                return line("CLOSE", op.fd());
            case FSTAT:
                return line("FSTAT", op.fd());
            case GETDENTS:
                return line("GETDENTS", op.fd());
            case CHMOD:
                return line("CHMOD", op.fd(), s(op.path()), op.a(), op.flags());
            case CHOWN:
                return line("CHOWN", op.fd(), s(op.path()), op.a(), op.b(), op.flags());
            case UTIMENS:
                return line("UTIMENS", op.fd(), s(op.path()), op.a(), op.flags());
            case ACCESS:
                return line("ACCESS", op.fd(), s(op.path()), op.a(), op.flags());
            case CHDIR:
                return line("CHDIR", s(op.path()));
            case FCHDIR:
                return line("FCHDIR", op.fd());
            case GETCWD:
                return line("GETCWD");
            case UMASK:
                return line("UMASK", op.a());
            default:
                throw new IllegalStateException(op.kind().name());
        }
    }

    private static String line(String verb, Object... args) {
        StringBuilder sb = new StringBuilder(verb);
        for (Object a : args) {
            sb.append(' ').append(a);
        }
        return sb.toString();
    }

    /** Encodes a path argument: {@code "s"} + hex of its UTF-8 bytes, {@code "n"} for null. */
    private static String s(String path) {
        return path == null ? "n" : "s" + HEX.formatHex(path.getBytes(StandardCharsets.UTF_8));
    }

    /** Decodes a {@code hostops} string token ({@code "s"} and hex bytes). */
    static String unhex(String token) {
        return new String(HEX.parseHex(token.substring(1)), StandardCharsets.UTF_8);
    }

    private String readLine(String what) {
        ScheduledFuture<?> kill =
                WATCHDOG.schedule(proc::destroyForcibly, CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        try {
            String l = fromServer.readLine();
            if (l == null) {
                throw new IllegalStateException(
                        "hostops died or hung (killed after "
                                + CALL_TIMEOUT_SECONDS
                                + " s) on "
                                + what);
            }
            return l;
        } catch (IOException e) {
            throw new IllegalStateException("hostops died on " + what, e);
        } finally {
            kill.cancel(false);
        }
    }

    @Override
    public List<String> tree() {
        List<String> lines = new ArrayList<>();
        try {
            walk(sandbox, "/", new Outcomes(), lines);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return lines;
    }

    private static void walk(Path p, String name, Outcomes ids, List<String> lines)
            throws IOException {
        Map<String, Object> a =
                Files.readAttributes(
                        p, "unix:mode,nlink,uid,gid,size,ino", LinkOption.NOFOLLOW_LINKS);
        int mode = (Integer) a.get("mode");
        String target = Files.isSymbolicLink(p) ? Files.readSymbolicLink(p).toString() : null;
        lines.add(
                Outcomes.treeLine(
                        name,
                        mode,
                        ((Number) a.get("nlink")).longValue(),
                        (Integer) a.get("uid"),
                        (Integer) a.get("gid"),
                        (Long) a.get("size"),
                        target,
                        ids.inode((Long) a.get("ino"))));
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            List<String> names = new ArrayList<>();
            try (Stream<Path> s = Files.list(p)) {
                s.forEach(c -> names.add(c.getFileName().toString()));
            }
            names.sort(null);
            for (String n : names) {
                walk(p.resolve(n), name.equals("/") ? "/" + n : name + "/" + n, ids, lines);
            }
        }
    }

    /** Closes descriptors {@code 0..max} in the server (ignoring the closed ones). */
    void closeAll(int max) {
        for (int fd = 0; fd <= max; fd++) {
            apply(Op.close(fd));
        }
    }

    @Override
    public void close() {
        try {
            toServer.close();
        } catch (IOException e) {
            // the server is gone already
        }
        try {
            if (!proc.waitFor(5, TimeUnit.SECONDS)) {
                proc.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (ownsSandbox) {
            deleteTree(sandbox);
            LIVE.remove(sandbox);
        }
    }

    private static void deleteQuietly(Path root) {
        try {
            deleteTree(root);
        } catch (RuntimeException e) {
            // best effort at exit
        }
    }

    private static void deleteTree(Path root) {
        try {
            Files.walkFileTree(
                    root,
                    new SimpleFileVisitor<>() {
                        @Override
                        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                                throws IOException {
                            Files.delete(file);
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult visitFileFailed(Path file, IOException exc)
                                throws IOException {
                            Files.deleteIfExists(file);
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult postVisitDirectory(Path dir, IOException exc)
                                throws IOException {
                            Files.delete(dir);
                            return FileVisitResult.CONTINUE;
                        }
                    });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove sandbox " + root, e);
        }
    }
}
