package dev.seqvfs.engine;

import dev.seqvfs.engine.anon.AnonFs;
import dev.seqvfs.engine.anon.AnonInode;
import dev.seqvfs.engine.anon.SocketEnd;
import dev.seqvfs.engine.fdtable.FdReply;
import dev.seqvfs.engine.fdtable.FdTableActor;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.fs.StreamFileOperations;
import dev.seqvfs.engine.pipe.Pipe;
import dev.seqvfs.engine.pipe.PipeEnd;
import dev.seqvfs.engine.reply.ReplyTo;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.SocketFlags;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;

/**
 * {@code pipe(2)}, {@code pipe2(2)}, {@code socket(2)}, {@code socketpair(2)}, {@code shutdown(2)}:
 * files on anonymous inodes. Creating one touches only the {@link AnonFs} (per-thread inode
 * numbers, striped counters) and the caller's descriptor table (one message installs every
 * descriptor of the call); closing one touches its own objects and one striped counter cell (seeds
 * 000, 002, 003).
 */
final class AnonCalls {
    /** {@code O_DIRECT}: {@code pipe2(2)} packet mode. */
    private static final int O_DIRECT = 040000;

    private final TaskContext t;

    AnonCalls(TaskContext t) {
        this.t = t;
    }

    private AnonFs anon() {
        return t.vfs().anonFs();
    }

    CompletableFuture<int[]> pipe2(int flags) {
        if ((flags & ~(OpenFlags.O_NONBLOCK | OpenFlags.O_CLOEXEC | O_DIRECT)) != 0) {
            throw new VfsException(Errno.EINVAL, Syscall.PIPE2, null);
        }
        Pipe pipe = new Pipe(t.vfs().shutdown());
        AnonInode inode =
                anon().create(
                                Mode.S_IFIFO | 0600,
                                t.cred().uid(),
                                t.cred().gid(),
                                "pipe",
                                PipeEnd.reopener(pipe));
        int status = flags & OpenFlags.O_NONBLOCK;
        OpenFile r =
                new OpenFile(
                        inode,
                        null,
                        null,
                        OpenFlags.O_RDONLY | status,
                        new PipeEnd(pipe, true),
                        inode.dentry());
        // create_pipe_files: O_DIRECT (packet mode) goes to the write end only
        OpenFile w =
                new OpenFile(
                        inode,
                        null,
                        null,
                        OpenFlags.O_WRONLY | status | (flags & O_DIRECT),
                        new PipeEnd(pipe, false),
                        inode.dentry());
        return installAll(new OpenFile[] {r, w}, (flags & OpenFlags.O_CLOEXEC) != 0, Syscall.PIPE2);
    }

    /** A new socket inode ({@code sock_alloc}): mode {@code S_IFSOCK | 0777}, the caller's ids. */
    private AnonInode socketInode() {
        return anon().create(
                        Mode.S_IFSOCK | 0777,
                        t.cred().uid(),
                        t.cred().gid(),
                        "socket",
                        AnonFs.NOT_REOPENABLE);
    }

    CompletableFuture<Integer> socket(int domain, int type, int protocol) {
        int base = checkSocket(domain, type, protocol, Syscall.SOCKET);
        AnonInode inode = socketInode();
        OpenFile f =
                new OpenFile(
                        inode,
                        null,
                        null,
                        OpenFlags.O_RDWR | (type & SocketFlags.SOCK_NONBLOCK),
                        new SocketEnd(domain, base, t.vfs().shutdown()),
                        inode.dentry());
        return installAll(
                        new OpenFile[] {f}, (type & SocketFlags.SOCK_CLOEXEC) != 0, Syscall.SOCKET)
                .thenApply(fds -> fds[0]);
    }

    CompletableFuture<int[]> socketpair(int domain, int type, int protocol) {
        int base = checkSocket(domain, type, protocol, Syscall.SOCKETPAIR);
        if (domain != SocketFlags.AF_UNIX) {
            // inet's proto_ops: sock_no_socketpair
            throw new VfsException(Errno.EOPNOTSUPP, Syscall.SOCKETPAIR, null);
        }
        SocketEnd[] ends = SocketEnd.pair(domain, base, t.vfs().shutdown());
        AnonInode ia = socketInode();
        AnonInode ib = socketInode();
        int status = type & SocketFlags.SOCK_NONBLOCK;
        OpenFile fa = new OpenFile(ia, null, null, OpenFlags.O_RDWR | status, ends[0], ia.dentry());
        OpenFile fb = new OpenFile(ib, null, null, OpenFlags.O_RDWR | status, ends[1], ib.dentry());
        return installAll(
                new OpenFile[] {fa, fb},
                (type & SocketFlags.SOCK_CLOEXEC) != 0,
                Syscall.SOCKETPAIR);
    }

    /** {@code NPROTO}: address families are below 46 ({@code AF_MAX}). */
    private static final int NPROTO = 46;

    /** {@code SOCK_MAX}: socket types are below 11. */
    private static final int SOCK_MAX = 11;

    /** {@code SOCK_TYPE_MASK}: the type bits of the type argument. */
    private static final int SOCK_TYPE_MASK = 0xf;

    /** {@code IPPROTO_MAX}: Internet protocols are below 263. */
    private static final int IPPROTO_MAX = 263;

    /**
     * The argument checks of {@code socket(2)} in Linux 6.18's order (measured on the host for
     * every family, type and protocol tried): type flags other than {@code SOCK_NONBLOCK} and
     * {@code SOCK_CLOEXEC} are {@code EINVAL}; a family outside [0, 46) is {@code EAFNOSUPPORT}; a
     * type outside [0, 11) is {@code EINVAL}; then the family's own checks ({@link #checkUnix},
     * {@link #checkInet}); any other family is {@code EAFNOSUPPORT} (SeqVFS models {@code AF_UNIX},
     * {@code AF_INET} and {@code AF_INET6} only).
     *
     * @return the socket type the socket gets
     */
    private static int checkSocket(int domain, int type, int protocol, Syscall op) {
        if ((type & ~SOCK_TYPE_MASK & ~(SocketFlags.SOCK_NONBLOCK | SocketFlags.SOCK_CLOEXEC))
                != 0) {
            throw new VfsException(Errno.EINVAL, op, null);
        }
        if (domain < 0 || domain >= NPROTO) {
            throw new VfsException(Errno.EAFNOSUPPORT, op, null);
        }
        int base = type & SOCK_TYPE_MASK;
        if (base >= SOCK_MAX) {
            throw new VfsException(Errno.EINVAL, op, null);
        }
        if (domain == SocketFlags.AF_UNIX) {
            return checkUnix(base, protocol, op);
        }
        if (domain == SocketFlags.AF_INET || domain == SocketFlags.AF_INET6) {
            return checkInet(domain, base, protocol, op);
        }
        throw new VfsException(Errno.EAFNOSUPPORT, op, null);
    }

    /**
     * {@code unix_create}: a protocol other than 0 or {@code PF_UNIX} (1) is {@code
     * EPROTONOSUPPORT}; {@code SOCK_RAW} becomes {@code SOCK_DGRAM}; types other than stream,
     * datagram and seqpacket are {@code ESOCKTNOSUPPORT}.
     */
    private static int checkUnix(int base, int protocol, Syscall op) {
        if (protocol != 0 && protocol != SocketFlags.AF_UNIX) {
            throw new VfsException(Errno.EPROTONOSUPPORT, op, null);
        }
        switch (base) {
            case SocketFlags.SOCK_STREAM:
            case SocketFlags.SOCK_SEQPACKET:
            case SocketFlags.SOCK_DGRAM:
                return base;
            case SocketFlags.SOCK_RAW:
                return SocketFlags.SOCK_DGRAM;
            default:
                throw new VfsException(Errno.ESOCKTNOSUPPORT, op, null);
        }
    }

    /**
     * {@code inet_create}/{@code inet6_create}: a protocol outside [0, 263) is {@code EINVAL};
     * {@code SOCK_STREAM} takes 0, TCP (6) or MPTCP (262), {@code SOCK_DGRAM} 0, UDP (17) or
     * UDP-Lite (136), other protocols being {@code EPROTONOSUPPORT}; an ICMP echo ("ping") socket
     * is {@code EACCES}, as the default {@code net.ipv4.ping_group_range} ("1 0") admits no group.
     * Raw sockets (and {@code AF_INET SOCK_PACKET}, which Linux turns into a packet socket) need
     * {@code CAP_NET_RAW}, which SeqVFS grants to no task: {@code EPERM} (a raw socket of protocol
     * 0 is {@code EPROTONOSUPPORT} first). Other types are {@code ESOCKTNOSUPPORT}.
     */
    private static int checkInet(int domain, int base, int protocol, Syscall op) {
        if (domain == SocketFlags.AF_INET && base == SOCK_PACKET) {
            // __sock_create: PF_INET + SOCK_PACKET is a PF_PACKET socket; packet_create wants
            // CAP_NET_RAW
            throw new VfsException(Errno.EPERM, op, null);
        }
        if (protocol < 0 || protocol >= IPPROTO_MAX) {
            throw new VfsException(Errno.EINVAL, op, null);
        }
        switch (base) {
            case SocketFlags.SOCK_STREAM:
                if (protocol == 0 || protocol == IPPROTO_TCP || protocol == IPPROTO_MPTCP) {
                    return base;
                }
                throw new VfsException(Errno.EPROTONOSUPPORT, op, null);
            case SocketFlags.SOCK_DGRAM:
                if (protocol == 0 || protocol == IPPROTO_UDP || protocol == IPPROTO_UDPLITE) {
                    return base;
                }
                if (protocol == (domain == SocketFlags.AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6)) {
                    throw new VfsException(Errno.EACCES, op, null);
                }
                throw new VfsException(Errno.EPROTONOSUPPORT, op, null);
            case SocketFlags.SOCK_RAW:
                throw new VfsException(
                        protocol == 0 ? Errno.EPROTONOSUPPORT : Errno.EPERM, op, null);
            default:
                throw new VfsException(Errno.ESOCKTNOSUPPORT, op, null);
        }
    }

    private static final int SOCK_PACKET = 10;
    private static final int IPPROTO_ICMP = 1;
    private static final int IPPROTO_TCP = 6;
    private static final int IPPROTO_UDP = 17;
    private static final int IPPROTO_ICMPV6 = 58;
    private static final int IPPROTO_UDPLITE = 136;
    private static final int IPPROTO_MPTCP = 262;

    /**
     * {@code anon_inode_getfd}: a file on a new anonymous inode named {@code [name]} whose reads
     * and writes are {@code ops}.
     */
    CompletableFuture<Integer> anonInodeGetFd(String name, StreamFileOperations ops, int flags) {
        if ((flags & ~(OpenFlags.O_NONBLOCK | OpenFlags.O_CLOEXEC | OpenFlags.O_ACCMODE)) != 0
                || name == null
                || ops == null) {
            throw new VfsException(Errno.EINVAL, Syscall.ANON_INODE_GETFD, null);
        }
        AnonInode inode =
                anon().create(
                                0600,
                                t.cred().uid(),
                                t.cred().gid(),
                                "[" + name + "]",
                                AnonFs.NOT_REOPENABLE);
        int acc =
                (flags & OpenFlags.O_ACCMODE) == 0 ? OpenFlags.O_RDWR : flags & OpenFlags.O_ACCMODE;
        OpenFile f =
                new OpenFile(
                        inode,
                        null,
                        null,
                        acc | (flags & OpenFlags.O_NONBLOCK),
                        ops,
                        inode.dentry());
        return installAll(
                        new OpenFile[] {f},
                        (flags & OpenFlags.O_CLOEXEC) != 0,
                        Syscall.ANON_INODE_GETFD)
                .thenApply(fds -> fds[0]);
    }

    void shutdown(int fd, int how) {
        SocketEnd.of(t.fget(fd, Syscall.SHUTDOWN), Syscall.SHUTDOWN).shutdown(how);
    }

    private CompletableFuture<int[]> installAll(OpenFile[] files, boolean cloexec, Syscall op) {
        return t.asker()
                .ask(
                        t.files().commands(),
                        (ReplyTo<FdReply> r) -> new FdTableActor.InstallAll(files, cloexec, r))
                .thenApply(
                        r -> {
                            if (r.error() != null) {
                                throw new VfsException(r.error(), op, null);
                            }
                            return r.fds();
                        });
    }
}
