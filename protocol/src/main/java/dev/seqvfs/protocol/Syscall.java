package dev.seqvfs.protocol;

import java.util.Locale;

/**
 * The calls of SeqVFS, named as Linux names its system calls ({@code syscalls(2)}): what a
 * {@link VfsException} says failed. {@link #toString()} is the Linux name
 * ({@code "open"}, {@code "close_range"}), as {@code strace} shows it.
 *
 * <p>A few entries are not system calls but steps that fail on their own:
 * {@link #CREATE} (a directory actor creating a name for {@code open}, {@code mkdir},
 * {@code mknod} or {@code symlink}), {@link #NEW_TASK} (starting a task), {@link #REQUEST}
 * (a message to an actor that went unanswered), {@link #START} (starting an instance).
 */
public enum Syscall {
    ACCESS, ANON_INODE_GETFD, CHDIR, CHMOD, CHOWN, CLONE, CLOSE, CLOSE_RANGE, CREATE, DUP, DUP2, DUP3,
    EVENTFD, EXECVE, EXIT, FALLOCATE, FCHDIR, FCHMOD, FCHOWN, FCNTL, FDATASYNC, FLOCK, FORK, FSTAT, FSTATFS,
    FSYNC, FTRUNCATE, GETCWD, GETDENTS, LINK, LSEEK, LSTAT, MKDIR, MKNOD, MOUNT, NEW_TASK, OPEN, PIPE, PIPE2,
    POLL, PREAD, PWRITE, READ, READLINK, READV, RENAME, REQUEST, RMDIR, SHUTDOWN, SOCKET, SOCKETPAIR, START,
    STAT, STATFS, SYMLINK, TRUNCATE, UMASK, UMOUNT, UNLINK, UTIMENSAT, WRITE, WRITEV;

    private final String linuxName = name().toLowerCase(Locale.ROOT);

    /** Returns the Linux name of the call ({@code "open"}). */
    @Override
    public String toString() {
        return linuxName;
    }
}
