package dev.seqvfs.protocol;

import java.util.Locale;

/**
 * The calls of SeqVFS, named as Linux names its system calls ({@code syscalls(2)}): what a {@link
 * VfsException} says failed. {@link #toString()} is the Linux name ({@code "open"}, {@code
 * "close_range"}), as {@code strace} shows it.
 *
 * <p>A few entries are not system calls but steps that fail on their own: {@link #CREATE} (a
 * directory actor creating a name for {@code open}, {@code mkdir}, {@code mknod} or {@code
 * symlink}), {@link #NEW_TASK} (starting a task), {@link #REQUEST} (a message to an actor that went
 * unanswered), {@link #START} (starting an instance). A task's calls never fail with {@link
 * #CREATE} or {@link #REQUEST}: whatever step raised an error, the task names its own call (the
 * {@code *at} forms by their base call: {@code openat} is {@link #OPEN}, {@code unlinkat} with
 * {@code AT_REMOVEDIR} is {@link #RMDIR}).
 */
public enum Syscall {
    /** {@code access(2)}. */
    ACCESS,
    /**
     * Installing the descriptor of an anonymous inode (an eventfd, a socket): Linux's {@code
     * anon_inode_getfd}, not a system call.
     */
    ANON_INODE_GETFD,
    /** {@code chdir(2)}. */
    CHDIR,
    /** {@code chmod(2)}. */
    CHMOD,
    /** {@code chown(2)}. */
    CHOWN,
    /** {@code clone(2)}. */
    CLONE,
    /** {@code close(2)}. */
    CLOSE,
    /** {@code close_range(2)}. */
    CLOSE_RANGE,
    /**
     * A directory actor creating a name for {@code open}, {@code mkdir}, {@code mknod} or {@code
     * symlink}: not a system call.
     */
    CREATE,
    /** {@code dup(2)}. */
    DUP,
    /** {@code dup2(2)}. */
    DUP2,
    /** {@code dup3(2)}. */
    DUP3,
    /** {@code eventfd(2)}. */
    EVENTFD,
    /** {@code execve(2)}. */
    EXECVE,
    /** {@code _exit(2)}. */
    EXIT,
    /** {@code fallocate(2)}. */
    FALLOCATE,
    /** {@code fchdir(2)}. */
    FCHDIR,
    /** {@code fchmod(2)}. */
    FCHMOD,
    /** {@code fchown(2)}. */
    FCHOWN,
    /** {@code fcntl(2)}. */
    FCNTL,
    /** {@code fdatasync(2)}. */
    FDATASYNC,
    /** {@code fgetxattr(2)}. */
    FGETXATTR,
    /** {@code flistxattr(2)}. */
    FLISTXATTR,
    /** {@code flock(2)}. */
    FLOCK,
    /** {@code fork(2)}. */
    FORK,
    /** {@code fremovexattr(2)}. */
    FREMOVEXATTR,
    /** {@code fsetxattr(2)}. */
    FSETXATTR,
    /** {@code fstat(2)}. */
    FSTAT,
    /** {@code fstatfs(2)}. */
    FSTATFS,
    /** {@code fsync(2)}. */
    FSYNC,
    /** {@code ftruncate(2)}. */
    FTRUNCATE,
    /** {@code getcwd(2)}. */
    GETCWD,
    /** {@code getdents(2)}. */
    GETDENTS,
    /** {@code getxattr(2)}. */
    GETXATTR,
    /** {@code inotify_add_watch(2)}. */
    INOTIFY_ADD_WATCH,
    /** {@code inotify_init1(2)}. */
    INOTIFY_INIT1,
    /** {@code inotify_rm_watch(2)}. */
    INOTIFY_RM_WATCH,
    /** {@code lchown(2)}. */
    LCHOWN,
    /** {@code lgetxattr(2)}. */
    LGETXATTR,
    /** {@code link(2)}. */
    LINK,
    /** {@code listxattr(2)}. */
    LISTXATTR,
    /** {@code llistxattr(2)}. */
    LLISTXATTR,
    /** {@code lremovexattr(2)}. */
    LREMOVEXATTR,
    /** {@code lsetxattr(2)}. */
    LSETXATTR,
    /** {@code lseek(2)}. */
    LSEEK,
    /** {@code lstat(2)}. */
    LSTAT,
    /** {@code mkdir(2)}. */
    MKDIR,
    /** {@code mknod(2)}. */
    MKNOD,
    /** {@code mount(2)}. */
    MOUNT,
    /** Starting a task: not a system call. */
    NEW_TASK,
    /** {@code open(2)}. */
    OPEN,
    /** {@code pipe(2)}. */
    PIPE,
    /** {@code pipe2(2)}. */
    PIPE2,
    /** {@code poll(2)}. */
    POLL,
    /** {@code pread(2)}. */
    PREAD,
    /** {@code pwrite(2)}. */
    PWRITE,
    /** {@code read(2)}. */
    READ,
    /** {@code readlink(2)}. */
    READLINK,
    /** {@code readv(2)}. */
    READV,
    /** {@code removexattr(2)}. */
    REMOVEXATTR,
    /** {@code rename(2)}. */
    RENAME,
    /** A message to an actor that went unanswered: not a system call. */
    REQUEST,
    /** {@code rmdir(2)}. */
    RMDIR,
    /** {@code setxattr(2)}. */
    SETXATTR,
    /** {@code shutdown(2)}. */
    SHUTDOWN,
    /** {@code socket(2)}. */
    SOCKET,
    /** {@code socketpair(2)}. */
    SOCKETPAIR,
    /** Starting an instance: not a system call. */
    START,
    /** {@code stat(2)}. */
    STAT,
    /** {@code statfs(2)}. */
    STATFS,
    /** {@code symlink(2)}. */
    SYMLINK,
    /** {@code sync(2)}. */
    SYNC,
    /** {@code syncfs(2)}. */
    SYNCFS,
    /** {@code truncate(2)}. */
    TRUNCATE,
    /** {@code umask(2)}. */
    UMASK,
    /** {@code umount(2)}. */
    UMOUNT,
    /** {@code unlink(2)}. */
    UNLINK,
    /** {@code utimensat(2)}. */
    UTIMENSAT,
    /** {@code write(2)}. */
    WRITE,
    /** {@code writev(2)}. */
    WRITEV;

    private final String linuxName = name().toLowerCase(Locale.ROOT);

    /** Returns the Linux name of the call ({@code "open"}). */
    @Override
    public String toString() {
        return linuxName;
    }
}
