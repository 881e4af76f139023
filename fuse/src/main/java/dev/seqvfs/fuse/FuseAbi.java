package dev.seqvfs.fuse;

/**
 * The FUSE kernel protocol as far as this server speaks it: opcodes, flags and the byte offsets of
 * the structures of {@code include/uapi/linux/fuse.h}, protocol 7.38 (Linux 6.1's header; a newer
 * kernel speaks the minor version the server answers with, INIT's rule). Names are the header's;
 * every structure is little-endian on the architectures this runs on (x86-64, aarch64) and padded
 * to 8 bytes as the header pads it.
 *
 * <p>Constants only; no state.
 */
final class FuseAbi {
    private FuseAbi() {}

    /** The protocol version this server speaks ({@code FUSE_KERNEL_VERSION}). */
    static final int KERNEL_VERSION = 7;

    /** The newest minor version this server speaks ({@code FUSE_KERNEL_MINOR_VERSION} of 7.38). */
    static final int KERNEL_MINOR_VERSION = 38;

    /** The oldest minor version it accepts (7.31: Linux 5.4, with every opcode used here). */
    static final int MIN_MINOR_VERSION = 31;

    /** {@code FUSE_ROOT_ID}: the root's node id. */
    static final long ROOT_ID = 1;

    /** {@code FUSE_MIN_READ_BUFFER}. */
    static final int MIN_READ_BUFFER = 8192;

    // ---------------------------------------------------------------- opcodes (enum fuse_opcode)

    static final int LOOKUP = 1;
    static final int FORGET = 2;
    static final int GETATTR = 3;
    static final int SETATTR = 4;
    static final int READLINK = 5;
    static final int SYMLINK = 6;
    static final int MKNOD = 8;
    static final int MKDIR = 9;
    static final int UNLINK = 10;
    static final int RMDIR = 11;
    static final int RENAME = 12;
    static final int LINK = 13;
    static final int OPEN = 14;
    static final int READ = 15;
    static final int WRITE = 16;
    static final int STATFS = 17;
    static final int RELEASE = 18;
    static final int FSYNC = 20;
    static final int SETXATTR = 21;
    static final int GETXATTR = 22;
    static final int LISTXATTR = 23;
    static final int REMOVEXATTR = 24;
    static final int FLUSH = 25;
    static final int INIT = 26;
    static final int OPENDIR = 27;
    static final int READDIR = 28;
    static final int RELEASEDIR = 29;
    static final int FSYNCDIR = 30;
    static final int GETLK = 31;
    static final int SETLK = 32;
    static final int SETLKW = 33;
    static final int ACCESS = 34;
    static final int CREATE = 35;
    static final int INTERRUPT = 36;
    static final int BMAP = 37;
    static final int DESTROY = 38;
    static final int IOCTL = 39;
    static final int POLL = 40;
    static final int NOTIFY_REPLY = 41;
    static final int BATCH_FORGET = 42;
    static final int FALLOCATE = 43;
    static final int READDIRPLUS = 44;
    static final int RENAME2 = 45;
    static final int LSEEK = 46;
    static final int COPY_FILE_RANGE = 47;
    static final int SYNCFS = 50;
    static final int TMPFILE = 51;

    // ---------------------------------------------------------------- notify codes

    static final int NOTIFY_INVAL_INODE = 2;
    static final int NOTIFY_INVAL_ENTRY = 3;
    static final int NOTIFY_DELETE = 6;

    // ---------------------------------------------------------------- INIT flags

    static final int ASYNC_READ = 1;
    static final int POSIX_LOCKS = 1 << 1;
    static final int ATOMIC_O_TRUNC = 1 << 3;
    static final int BIG_WRITES = 1 << 5;
    static final int FLOCK_LOCKS = 1 << 10;
    static final int AUTO_INVAL_DATA = 1 << 12;
    static final int DO_READDIRPLUS = 1 << 13;
    static final int READDIRPLUS_AUTO = 1 << 14;
    static final int PARALLEL_DIROPS = 1 << 18;
    static final int HANDLE_KILLPRIV = 1 << 19;
    static final int MAX_PAGES = 1 << 22;
    static final int CACHE_SYMLINKS = 1 << 23;
    static final int HANDLE_KILLPRIV_V2 = 1 << 28;
    static final int INIT_EXT = 1 << 30;

    // ---------------------------------------------------------------- other flags

    /** {@code fuse_setattr_in.valid} bits. */
    static final int FATTR_MODE = 1;

    static final int FATTR_UID = 1 << 1;
    static final int FATTR_GID = 1 << 2;
    static final int FATTR_SIZE = 1 << 3;
    static final int FATTR_ATIME = 1 << 4;
    static final int FATTR_MTIME = 1 << 5;
    static final int FATTR_FH = 1 << 6;
    static final int FATTR_ATIME_NOW = 1 << 7;
    static final int FATTR_MTIME_NOW = 1 << 8;
    static final int FATTR_LOCKOWNER = 1 << 9;
    static final int FATTR_CTIME = 1 << 10;
    static final int FATTR_KILL_SUIDGID = 1 << 11;

    /** {@code fuse_open_out.open_flags}. */
    static final int FOPEN_KEEP_CACHE = 1 << 1;

    static final int FOPEN_CACHE_DIR = 1 << 3;

    /** {@code fuse_getattr_in.getattr_flags}: {@code fh} is valid. */
    static final int GETATTR_FH = 1;

    /** {@code fuse_lk_in.lk_flags}: a {@code flock(2)}, not a POSIX lock. */
    static final int LK_FLOCK = 1;

    /** {@code fuse_release_in.release_flags}. */
    static final int RELEASE_FLOCK_UNLOCK = 1 << 1;

    /** {@code fuse_fsync_in.fsync_flags}. */
    static final int FSYNC_FDATASYNC = 1;

    /** The low bit of an {@code INTERRUPT} request's own unique ({@code FUSE_INT_REQ_BIT}). */
    static final long INT_REQ_BIT = 1;

    // ---------------------------------------------------------------- sizes and offsets

    /** {@code struct fuse_in_header}: 40 bytes. */
    static final int IN_HEADER = 40;

    static final int IN_LEN = 0;
    static final int IN_OPCODE = 4;
    static final int IN_UNIQUE = 8;
    static final int IN_NODEID = 16;
    static final int IN_UID = 24;
    static final int IN_GID = 28;
    static final int IN_PID = 32;

    /** {@code struct fuse_out_header}: {@code len}, {@code error}, {@code unique}; 16 bytes. */
    static final int OUT_HEADER = 16;

    /** {@code struct fuse_attr}: 88 bytes. */
    static final int ATTR_SIZE = 88;

    /** {@code struct fuse_entry_out}: nodeid, generation, timeouts, then the attr at 40. */
    static final int ENTRY_OUT = 128;

    /** {@code struct fuse_attr_out}: the timeout, then the attr at 16. */
    static final int ATTR_OUT = 104;

    /** {@code struct fuse_open_out}. */
    static final int OPEN_OUT = 16;

    /** {@code struct fuse_init_out}. */
    static final int INIT_OUT = 64;

    /** {@code struct fuse_statfs_out}. */
    static final int STATFS_OUT = 80;

    /** {@code struct fuse_dirent} without its name. */
    static final int DIRENT = 24;

    /** {@code struct fuse_write_in}: 40 bytes; the data follows. */
    static final int WRITE_IN = 40;

    /** {@code struct fuse_notify_inval_entry_out}. */
    static final int NOTIFY_INVAL_ENTRY_OUT = 16;

    /** {@code struct fuse_notify_inval_inode_out}. */
    static final int NOTIFY_INVAL_INODE_OUT = 24;

    /** {@code struct fuse_notify_delete_out}. */
    static final int NOTIFY_DELETE_OUT = 24;

    /** {@code FUSE_REC_ALIGN}: records are padded to 8 bytes. */
    static int align8(int n) {
        return (n + 7) & ~7;
    }
}
