package dev.seqvfs.tests.differential;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.EngineInternals;
import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.StatFs;
import dev.seqvfs.protocol.VfsException;
import java.nio.file.Path;
import java.util.List;

/**
 * One side of the file-data and remount differential tests: the calls on a file system whose root
 * is a tmpfs of its own (on the host, one {@link HostTmpfs} mounted for the test, with {@code
 * hostops} chrooted into it; in SeqVFS, the root tmpfs with the same options), each answered in one
 * canonical text: the count or {@code "0"} on success, the errno's name on failure ({@code
 * "ENOSPC"}), {@code "size=S blocks=B"} for {@link #fstatSize}, {@code "rw"} / {@code "ro"} for
 * {@link #statfsFlags}. Bytes written are all {@code 'x'}.
 */
interface DataSide extends AutoCloseable {
    /** {@code open(path, flags, mode)}: the descriptor. */
    String open(String path, int flags, int mode);

    /** {@code close(fd)}. */
    String close(int fd);

    /** {@code unlink(path)}. */
    String unlink(String path);

    /** {@code mkdir(path, mode)}. */
    String mkdir(String path, int mode);

    /** {@code write(fd, len bytes)}: the count. */
    String write(int fd, int len);

    /** {@code pwrite(fd, len bytes, off)}: the count. */
    String pwrite(int fd, int len, long off);

    /** {@code writev(fd, buffers of lens)}: the count. */
    String writev(int fd, int... lens);

    /** {@code ftruncate(fd, len)}. */
    String ftruncate(int fd, long len);

    /** {@code fallocate(fd, mode, off, len)}. */
    String fallocate(int fd, int mode, long off, long len);

    /** {@code fstat(fd)}: {@code "size=S blocks=B"} ({@code st_blocks} in 512-byte units). */
    String fstatSize(int fd);

    /** {@code fstatfs(fd)}: free blocks as {@code "bfree=N"}. */
    String fstatfsFree(int fd);

    /** {@code fstatfs(fd)}: {@code "ro"} or {@code "rw"} ({@code ST_RDONLY}). */
    String statfsFlags(int fd);

    /** {@code mount(NULL, "/", NULL, MS_REMOUNT [| MS_RDONLY], NULL)}: remounts the root tmpfs. */
    String remount(boolean readOnly);

    /** {@code mount(source, target, fstype, flags, data)}, any argument but flags may be null. */
    String mount(String source, String target, String fstype, long flags, String data);

    /** {@code umount2(target, flags)}. */
    String umount(String target, int flags);

    /** {@code fstatfs(fd)}: {@code "blocks=B bfree=F files=I ffree=J"}. */
    String statfsCounts(int fd);

    /**
     * The line of {@code /proc/self/mounts} for the mount at {@code target} (a path in the side's
     * root), less the mount point: {@code "source type options 0 0"}; {@code "none"} if no line.
     */
    String mountsLine(String target);

    /** {@code chdir(path)}. */
    String chdir(String path);

    /** {@code getcwd(2)}, the system call (not glibc's wrapper): the path, quoted. */
    String getcwd();

    @Override
    void close();

    /** Joins the fields of a {@code /proc/mounts} line, less the mount point (field 1). */
    static String withoutMountPoint(String[] f) {
        StringBuilder sb = new StringBuilder(f[0]);
        for (int i = 2; i < f.length; i++) {
            sb.append(' ').append(f[i]);
        }
        return sb.toString();
    }

    /** The host: {@code hostops} chrooted into a freshly mounted tmpfs. */
    final class Host implements DataSide {
        private final HostTmpfs tmpfs;
        private final HostSide server;

        /** Mounts a tmpfs with {@code options} and starts the server in it. */
        Host(String options) {
            tmpfs = new HostTmpfs(options);
            HostSide s;
            try {
                s = new HostSide(tmpfs.dir());
            } catch (RuntimeException e) {
                tmpfs.close();
                throw e;
            }
            server = s;
        }

        /** Returns where the tmpfs is mounted. */
        Path dir() {
            return tmpfs.dir();
        }

        private String call(String line) {
            String r = server.call(line);
            String[] f = r.split(" ", -1);
            if (f[0].equals("E")) {
                return Outcomes.errno(Integer.parseInt(f[1]));
            }
            if (!f[0].equals("O")) {
                throw new IllegalStateException("hostops: " + r + " for " + line);
            }
            return f.length > 1 ? r.substring(2) : "0";
        }

        @Override
        public String open(String path, int flags, int mode) {
            return call("OPEN -100 " + HostSide.arg(path) + " " + flags + " " + mode);
        }

        @Override
        public String close(int fd) {
            return call("CLOSE " + fd);
        }

        @Override
        public String unlink(String path) {
            return call("UNLINK -100 " + HostSide.arg(path) + " 0");
        }

        @Override
        public String mkdir(String path, int mode) {
            return call("MKDIR -100 " + HostSide.arg(path) + " " + mode);
        }

        @Override
        public String write(int fd, int len) {
            return call("WRITE " + fd + " " + len);
        }

        @Override
        public String pwrite(int fd, int len, long off) {
            return call("PWRITE " + fd + " " + len + " " + off);
        }

        @Override
        public String writev(int fd, int... lens) {
            StringBuilder sb = new StringBuilder("WRITEV " + fd + " " + lens.length);
            for (int l : lens) {
                sb.append(' ').append(l);
            }
            return call(sb.toString());
        }

        @Override
        public String ftruncate(int fd, long len) {
            return call("FTRUNCATE " + fd + " " + len);
        }

        @Override
        public String fallocate(int fd, int mode, long off, long len) {
            return call("FALLOCATE " + fd + " " + mode + " " + off + " " + len);
        }

        @Override
        public String fstatSize(int fd) {
            String r = call("FSTATSIZE " + fd);
            if (Character.isLetter(r.charAt(0))) {
                return r;
            }
            String[] f = r.split(" ", -1);
            return "size=" + f[0] + " blocks=" + f[1];
        }

        @Override
        public String fstatfsFree(int fd) {
            String r = call("FSTATFS " + fd);
            return Character.isLetter(r.charAt(0)) ? r : "bfree=" + r.split(" ", -1)[1];
        }

        @Override
        public String statfsFlags(int fd) {
            String r = call("FSTATFS " + fd);
            if (Character.isLetter(r.charAt(0))) {
                return r;
            }
            return (Long.parseLong(r.split(" ", -1)[3]) & MountFlags.ST_RDONLY) != 0 ? "ro" : "rw";
        }

        @Override
        public String remount(boolean readOnly) {
            long flags = MountFlags.MS_REMOUNT | (readOnly ? MountFlags.MS_RDONLY : 0);
            return call("MOUNT n " + HostSide.arg("/") + " n " + flags + " n");
        }

        @Override
        public String mount(String source, String target, String fstype, long flags, String data) {
            return call(
                    "MOUNT "
                            + nullable(source)
                            + " "
                            + nullable(target)
                            + " "
                            + nullable(fstype)
                            + " "
                            + flags
                            + " "
                            + nullable(data));
        }

        private static String nullable(String s) {
            return s == null ? "n" : HostSide.arg(s);
        }

        @Override
        public String umount(String target, int flags) {
            return call("UMOUNT " + HostSide.arg(target) + " " + flags);
        }

        @Override
        public String statfsCounts(int fd) {
            String r = call("FSTATFS " + fd);
            if (Character.isLetter(r.charAt(0))) {
                return r;
            }
            String[] f = r.split(" ", -1);
            return "blocks=" + f[0] + " bfree=" + f[1] + " files=" + f[4] + " ffree=" + f[5];
        }

        @Override
        public String chdir(String path) {
            return call("CHDIR " + HostSide.arg(path));
        }

        @Override
        public String getcwd() {
            String r = call("GETCWD");
            return r.startsWith("s") ? Outcomes.string(HostSide.unhex(r)) : r;
        }

        @Override
        public String mountsLine(String target) {
            String where = tmpfs.dir() + (target.startsWith("/") ? target : "/" + target);
            try {
                for (String l : java.nio.file.Files.readAllLines(Path.of("/proc/self/mounts"))) {
                    String[] f = l.split(" ", -1);
                    if (f.length > 3 && f[1].equals(where)) {
                        return withoutMountPoint(f);
                    }
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return "none";
        }

        @Override
        public void close() {
            try {
                server.close();
            } finally {
                tmpfs.close();
            }
        }
    }

    /** SeqVFS: an instance whose root tmpfs has the same options, and one root task. */
    final class Vfs implements DataSide {
        private final SeqVfs vfs;
        private final VfsTask t;

        /** Creates the instance with {@code seqvfs.root.options = options}, no /proc. */
        Vfs(String options) {
            this(options, false);
        }

        /**
         * Creates the instance with {@code seqvfs.root.options = options}, with procfs at {@code
         * /proc} or not.
         */
        Vfs(String options, boolean proc) {
            vfs =
                    SeqVfs.create(
                            ConfigFactory.parseString(
                                    "seqvfs.proc.mount = "
                                            + (proc ? "on" : "off")
                                            + "\nseqvfs.root.options = \""
                                            + options
                                            + "\""));
            t = vfs.newTask(Credentials.ROOT);
        }

        private interface Call {
            String run();
        }

        private static String guard(Call c) {
            try {
                return c.run();
            } catch (VfsException e) {
                return e.errno().name();
            }
        }

        private static String path(String p) {
            return p.startsWith("/") ? p : "/" + p;
        }

        @Override
        public String open(String path, int flags, int mode) {
            return guard(() -> Integer.toString(t.open(path(path), flags, mode)));
        }

        @Override
        public String close(int fd) {
            return guard(
                    () -> {
                        t.close(fd);
                        return "0";
                    });
        }

        @Override
        public String unlink(String path) {
            return guard(
                    () -> {
                        t.unlink(path(path));
                        return "0";
                    });
        }

        @Override
        public String mkdir(String path, int mode) {
            return guard(
                    () -> {
                        t.mkdir(path(path), mode);
                        return "0";
                    });
        }

        private static byte[] bytes(int len) {
            byte[] b = new byte[len];
            java.util.Arrays.fill(b, (byte) 'x');
            return b;
        }

        @Override
        public String write(int fd, int len) {
            return guard(() -> Integer.toString(t.write(fd, bytes(len))));
        }

        @Override
        public String pwrite(int fd, int len, long off) {
            return guard(() -> Integer.toString(t.pwrite(fd, bytes(len), 0, len, off)));
        }

        @Override
        public String writev(int fd, int... lens) {
            byte[][] iov = new byte[lens.length][];
            for (int i = 0; i < lens.length; i++) {
                iov[i] = bytes(lens[i]);
            }
            return guard(() -> Long.toString(t.writev(fd, iov)));
        }

        @Override
        public String ftruncate(int fd, long len) {
            return guard(
                    () -> {
                        t.ftruncate(fd, len);
                        return "0";
                    });
        }

        @Override
        public String fallocate(int fd, int mode, long off, long len) {
            return guard(
                    () -> {
                        EngineInternals.fallocate(t, fd, mode, off, len);
                        return "0";
                    });
        }

        @Override
        public String fstatSize(int fd) {
            return guard(
                    () -> {
                        Stat s = t.fstat(fd);
                        return "size=" + s.size() + " blocks=" + s.blocks();
                    });
        }

        @Override
        public String fstatfsFree(int fd) {
            return guard(() -> "bfree=" + t.fstatfs(fd).bfree());
        }

        @Override
        public String statfsFlags(int fd) {
            return guard(
                    () -> {
                        StatFs s = t.fstatfs(fd);
                        return (s.flags() & MountFlags.ST_RDONLY) != 0 ? "ro" : "rw";
                    });
        }

        @Override
        public String remount(boolean readOnly) {
            return guard(
                    () -> {
                        t.mount(
                                null,
                                "/",
                                null,
                                MountFlags.MS_REMOUNT | (readOnly ? MountFlags.MS_RDONLY : 0),
                                null);
                        return "0";
                    });
        }

        @Override
        public String mount(String source, String target, String fstype, long flags, String data) {
            return guard(
                    () -> {
                        t.mount(source, target == null ? null : path(target), fstype, flags, data);
                        return "0";
                    });
        }

        @Override
        public String umount(String target, int flags) {
            return guard(
                    () -> {
                        t.umount2(path(target), flags);
                        return "0";
                    });
        }

        @Override
        public String statfsCounts(int fd) {
            return guard(
                    () -> {
                        StatFs s = t.fstatfs(fd);
                        return "blocks="
                                + s.blocks()
                                + " bfree="
                                + s.bfree()
                                + " files="
                                + s.files()
                                + " ffree="
                                + s.ffree();
                    });
        }

        @Override
        public String mountsLine(String target) {
            return guard(() -> mountsLineOf(path(target)));
        }

        @Override
        public String chdir(String path) {
            return guard(
                    () -> {
                        t.chdir(path);
                        return "0";
                    });
        }

        @Override
        public String getcwd() {
            return guard(() -> Outcomes.string(t.getcwd()));
        }

        private String mountsLineOf(String where) {
            int fd = t.open("/proc/self/mounts", dev.seqvfs.protocol.OpenFlags.O_RDONLY, 0);
            StringBuilder text = new StringBuilder();
            try {
                byte[] buf = new byte[4096];
                int n;
                while ((n = t.read(fd, buf, 0, buf.length)) > 0) {
                    text.append(new String(buf, 0, n, java.nio.charset.StandardCharsets.UTF_8));
                }
            } finally {
                t.close(fd);
            }
            for (String l : text.toString().split("\n")) {
                String[] f = l.split(" ", -1);
                if (f.length > 3 && f[1].equals(where)) {
                    return withoutMountPoint(f);
                }
            }
            return "none";
        }

        /** Returns the instance's root task. */
        VfsTask task() {
            return t;
        }

        /** Returns Fsck's problems (every file closed). */
        List<String> fsck() {
            return Fsck.check(vfs, true);
        }

        @Override
        public void close() {
            vfs.close();
        }
    }
}
