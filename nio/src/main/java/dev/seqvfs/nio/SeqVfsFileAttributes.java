package dev.seqvfs.nio;

import dev.seqvfs.protocol.Stat;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The attributes of one {@code stat(2)} answer, as the JDK's {@code UnixFileAttributes} presents
 * them: times in nanoseconds (whole seconds as seconds), {@code creationTime} the modification time
 * (no birth time), {@code fileKey} the device and inode numbers, {@code isOther} for FIFOs, sockets
 * and devices. Immutable.
 *
 * @param st the answer
 */
record SeqVfsFileAttributes(Stat st) implements PosixFileAttributes {
    static FileTime time(long nanos) {
        long sec = Math.floorDiv(nanos, 1_000_000_000L);
        long nsec = Math.floorMod(nanos, 1_000_000_000L);
        return nsec == 0
                ? FileTime.from(sec, TimeUnit.SECONDS)
                : FileTime.from(nanos, TimeUnit.NANOSECONDS);
    }

    static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> s = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] order = {
            PosixFilePermission.OTHERS_EXECUTE,
            PosixFilePermission.OTHERS_WRITE,
            PosixFilePermission.OTHERS_READ,
            PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.GROUP_READ,
            PosixFilePermission.OWNER_EXECUTE,
            PosixFilePermission.OWNER_WRITE,
            PosixFilePermission.OWNER_READ
        };
        for (int i = 0; i < order.length; i++) {
            if ((mode & (1 << i)) != 0) {
                s.add(order[i]);
            }
        }
        return s;
    }

    static int mode(Set<PosixFilePermission> perms) {
        int m = 0;
        for (PosixFilePermission p : perms) {
            switch (p) {
                case OWNER_READ:
                    m |= 0400;
                    break;
                case OWNER_WRITE:
                    m |= 0200;
                    break;
                case OWNER_EXECUTE:
                    m |= 0100;
                    break;
                case GROUP_READ:
                    m |= 040;
                    break;
                case GROUP_WRITE:
                    m |= 020;
                    break;
                case GROUP_EXECUTE:
                    m |= 010;
                    break;
                case OTHERS_READ:
                    m |= 04;
                    break;
                case OTHERS_WRITE:
                    m |= 02;
                    break;
                case OTHERS_EXECUTE:
                    m |= 01;
                    break;
            }
        }
        return m;
    }

    @Override
    public FileTime lastModifiedTime() {
        return time(st.mtimeNanos());
    }

    @Override
    public FileTime lastAccessTime() {
        return time(st.atimeNanos());
    }

    @Override
    public FileTime creationTime() {
        return lastModifiedTime();
    }

    @Override
    public boolean isRegularFile() {
        return st.isRegular();
    }

    @Override
    public boolean isDirectory() {
        return st.isDirectory();
    }

    @Override
    public boolean isSymbolicLink() {
        return st.isSymlink();
    }

    @Override
    public boolean isOther() {
        return !isRegularFile() && !isDirectory() && !isSymbolicLink();
    }

    @Override
    public long size() {
        return st.size();
    }

    @Override
    public Object fileKey() {
        return new FileKey(st.dev(), st.ino());
    }

    @Override
    public UserPrincipal owner() {
        return Principals.user(st.uid());
    }

    @Override
    public GroupPrincipal group() {
        return Principals.group(st.gid());
    }

    @Override
    public Set<PosixFilePermission> permissions() {
        return permissions(st.mode());
    }
}
