package dev.seqvfs.nio;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.protocol.VfsException;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;

/**
 * {@code Files.copy} within one file system or between two SeqVFS file systems (each path through
 * its own file system's task), as the JDK's {@code UnixCopyFile.copy} (JDK 17): the target made
 * with the source's mode (less the umask); with {@code COPY_ATTRIBUTES} also its owner (an {@code
 * EPERM} ignored), mode, {@code user.} xattrs and times (to the microsecond, as JDK 17's {@code
 * futimes}); a failed copy removes the target it made. Not atomic. Stateless.
 */
final class Copies {
    private static final int CHUNK = 64 * 1024;

    private Copies() {}

    static Stat stat(SeqVfsPath p, boolean follow) throws IOException {
        try {
            VfsTask t = p.getFileSystem().task();
            return follow ? t.stat(p.filename()) : t.lstat(p.filename());
        } catch (VfsException e) {
            throw Errors.translate(e, p, null);
        }
    }

    static void copy(SeqVfsPath s, SeqVfsPath d, boolean replace, boolean attrs, boolean follow)
            throws IOException {
        VfsTask ts = s.getFileSystem().task();
        VfsTask t = d.getFileSystem().task();
        boolean sameFs = s.getFileSystem() == d.getFileSystem();
        Stat st = stat(s, follow);
        Stat dt = null;
        try {
            dt = t.lstat(d.filename());
        } catch (VfsException e) {
            // as UnixCopyFile: a target that cannot be looked up is taken as absent
        }
        if (dt != null) {
            if (sameFs && dt.dev() == st.dev() && dt.ino() == st.ino()) {
                return;
            }
            if (!replace) {
                throw new FileAlreadyExistsException(d.toString());
            }
            try {
                if (dt.isDirectory()) {
                    t.rmdir(d.filename());
                } else {
                    t.unlink(d.filename());
                }
            } catch (VfsException e) {
                if (dt.isDirectory()
                        && (e.errno() == Errno.EEXIST || e.errno() == Errno.ENOTEMPTY)) {
                    throw new DirectoryNotEmptyException(d.toString());
                }
                throw Errors.translate(e, d, null);
            }
        }
        int perm = st.mode() & Mode.PERMISSION_MASK;
        if (st.isDirectory()) {
            try {
                t.mkdir(d.filename(), perm);
            } catch (VfsException e) {
                throw Errors.translate(e, d, null);
            }
            if (attrs) {
                finish(ts, t, s, d, st, true, false);
            }
            return;
        }
        if (st.isSymlink()) {
            try {
                t.symlink(ts.readlink(s.filename()), d.filename());
                if (attrs) {
                    try {
                        t.lchown(d.filename(), st.uid(), st.gid());
                    } catch (VfsException e) {
                        if (e.errno() != Errno.EPERM) {
                            throw e;
                        }
                    }
                }
            } catch (VfsException e) {
                throw Errors.translate(e, d, null);
            }
            return;
        }
        if (!st.isRegular()) {
            try {
                t.mknod(d.filename(), st.mode(), st.rdev());
            } catch (VfsException e) {
                throw Errors.translate(e, d, null);
            }
            if (attrs) {
                finish(ts, t, s, d, st, false, false);
            }
            return;
        }
        int in;
        try {
            in = ts.open(s.filename(), OpenFlags.O_RDONLY | OpenFlags.O_CLOEXEC, 0);
        } catch (VfsException e) {
            throw Errors.translate(e, s, null);
        }
        try {
            int out;
            try {
                out =
                        t.open(
                                d.filename(),
                                OpenFlags.O_WRONLY
                                        | OpenFlags.O_CREAT
                                        | OpenFlags.O_EXCL
                                        | OpenFlags.O_CLOEXEC,
                                perm);
            } catch (VfsException e) {
                throw Errors.translate(e, d, null);
            }
            boolean done = false;
            try {
                byte[] buf = new byte[CHUNK];
                while (true) {
                    int n = ts.read(in, buf, 0, buf.length);
                    if (n <= 0) {
                        break;
                    }
                    int off = 0;
                    while (off < n) {
                        off += t.write(out, buf, off, n - off);
                    }
                }
                done = true;
            } catch (VfsException e) {
                throw new java.nio.file.FileSystemException(
                        s.toString(), d.toString(), Errors.reason(e.errno()));
            } finally {
                t.close(out);
                if (!done) {
                    try {
                        t.unlink(d.filename());
                    } catch (VfsException e) {
                        // best effort, as the JDK's
                    }
                }
            }
        } finally {
            ts.close(in);
        }
        if (attrs) {
            finish(ts, t, s, d, st, false, true);
        }
    }

    /**
     * Copies the attributes: read from {@code s} by {@code ts}, written to {@code d} by {@code t}.
     */
    private static void finish(
            VfsTask ts,
            VfsTask t,
            SeqVfsPath s,
            SeqVfsPath d,
            Stat st,
            boolean dir,
            boolean regular)
            throws IOException {
        try {
            try {
                t.chown(d.filename(), st.uid(), st.gid());
            } catch (VfsException e) {
                if (e.errno() != Errno.EPERM) {
                    throw e;
                }
            }
            t.chmod(d.filename(), st.mode() & Mode.PERMISSION_MASK);
            if (dir || regular) {
                for (String n : ts.listxattr(s.filename())) {
                    if (n.startsWith("user.")) {
                        try {
                            t.setxattr(d.filename(), n, ts.getxattr(s.filename(), n), 0);
                        } catch (VfsException e) {
                            // the JDK ignores a failed xattr copy too
                        }
                    }
                }
            }
            t.utimensat(
                    OpenFlags.AT_FDCWD,
                    d.filename(),
                    micros(st.atimeNanos()),
                    micros(st.mtimeNanos()),
                    0);
        } catch (VfsException e) {
            throw Errors.translate(e, d, null);
        }
    }

    private static Timespec micros(long nanos) {
        long sec = Math.floorDiv(nanos, 1_000_000_000L);
        long ns = Math.floorMod(nanos, 1_000_000_000L);
        return new Timespec(sec, ns / 1000 * 1000);
    }
}
