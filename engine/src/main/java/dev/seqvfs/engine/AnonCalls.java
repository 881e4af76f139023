package dev.seqvfs.engine;

import dev.seqvfs.actors.fdtable.FdReply;
import dev.seqvfs.actors.fdtable.FdTableActor;
import dev.seqvfs.actors.fdtable.OpenFile;
import dev.seqvfs.engine.anon.AnonFs;
import dev.seqvfs.engine.anon.AnonInode;
import dev.seqvfs.engine.anon.SocketEnd;
import dev.seqvfs.engine.pipe.Pipe;
import dev.seqvfs.engine.pipe.PipeEnd;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.SocketFlags;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;
import dev.seqvfs.actors.reply.ReplyTo;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * {@code pipe(2)}, {@code pipe2(2)}, {@code socket(2)}, {@code socketpair(2)},
 * {@code shutdown(2)}: files on anonymous inodes. Creating one touches only the
 * {@link AnonFs} (per-thread inode numbers, striped counters) and the caller's descriptor
 * table (one message installs every descriptor of the call); closing one touches its own
 * objects and one striped counter cell (seeds 000, 002, 003).
 */
final class AnonCalls {
    private final VfsTask t;

    AnonCalls(VfsTask t) {
        this.t = t;
    }

    private AnonFs anon() {
        return t.vfs().anonFs();
    }

    CompletableFuture<int[]> pipe2(int flags) {
        if ((flags & ~(OpenFlags.O_NONBLOCK | OpenFlags.O_CLOEXEC)) != 0) {
            throw new VfsException(Errno.EINVAL, "pipe2", null);
        }
        Pipe pipe = new Pipe();
        AnonInode inode = anon().create(Mode.S_IFIFO | 0600, t.cred().uid(), t.cred().gid(), "pipe", pipe);
        int status = flags & OpenFlags.O_NONBLOCK;
        OpenFile r = new OpenFile(inode, null, null, OpenFlags.O_RDONLY | status, new PipeEnd(pipe, true),
                inode.dentry());
        OpenFile w = new OpenFile(inode, null, null, OpenFlags.O_WRONLY | status, new PipeEnd(pipe, false),
                inode.dentry());
        return installAll(new OpenFile[] {r, w}, (flags & OpenFlags.O_CLOEXEC) != 0, "pipe2");
    }

    CompletableFuture<Integer> socket(int domain, int type, int protocol) {
        int base = checkSocket(domain, type, protocol, "socket");
        AnonInode inode = anon().create(Mode.S_IFSOCK | 0777, t.cred().uid(), t.cred().gid(), "socket",
                new SocketEnd(domain, base));
        OpenFile f = new OpenFile(inode, null, null, OpenFlags.O_RDWR | (type & SocketFlags.SOCK_NONBLOCK),
                (SocketEnd) inode.privateData(), inode.dentry());
        return installAll(new OpenFile[] {f}, (type & SocketFlags.SOCK_CLOEXEC) != 0, "socket").thenApply(fds -> fds[0]);
    }

    CompletableFuture<int[]> socketpair(int domain, int type, int protocol) {
        int base = checkSocket(domain, type, protocol, "socketpair");
        if (domain != SocketFlags.AF_UNIX) {
            throw new VfsException(Errno.EOPNOTSUPP, "socketpair", null);
        }
        Pipe aToB = new Pipe();
        Pipe bToA = new Pipe();
        SocketEnd a = new SocketEnd(domain, base, bToA, aToB);
        SocketEnd b = new SocketEnd(domain, base, aToB, bToA);
        AnonInode ia = anon().create(Mode.S_IFSOCK | 0777, t.cred().uid(), t.cred().gid(), "socket", a);
        AnonInode ib = anon().create(Mode.S_IFSOCK | 0777, t.cred().uid(), t.cred().gid(), "socket", b);
        int status = type & SocketFlags.SOCK_NONBLOCK;
        OpenFile fa = new OpenFile(ia, null, null, OpenFlags.O_RDWR | status, a, ia.dentry());
        OpenFile fb = new OpenFile(ib, null, null, OpenFlags.O_RDWR | status, b, ib.dentry());
        return installAll(new OpenFile[] {fa, fb}, (type & SocketFlags.SOCK_CLOEXEC) != 0, "socketpair");
    }

    private static int checkSocket(int domain, int type, int protocol, String op) {
        if (domain != SocketFlags.AF_UNIX && domain != SocketFlags.AF_INET && domain != SocketFlags.AF_INET6) {
            throw new VfsException(Errno.EAFNOSUPPORT, op, null);
        }
        int base = type & ~(SocketFlags.SOCK_NONBLOCK | SocketFlags.SOCK_CLOEXEC);
        if (base != SocketFlags.SOCK_STREAM && base != SocketFlags.SOCK_DGRAM && base != SocketFlags.SOCK_SEQPACKET) {
            throw new VfsException(Errno.EINVAL, op, null);
        }
        if (protocol < 0) {
            throw new VfsException(Errno.EINVAL, op, null);
        }
        return base;
    }

    /**
     * {@code anon_inode_getfd}: a file on a new anonymous inode named {@code [name]} whose
     * reads and writes are {@code ops}.
     */
    CompletableFuture<Integer> anonInodeGetFd(String name, dev.seqvfs.engine.pipe.StreamOps ops, int flags) {
        if ((flags & ~(OpenFlags.O_NONBLOCK | OpenFlags.O_CLOEXEC | OpenFlags.O_ACCMODE)) != 0
                || name == null || ops == null) {
            throw new VfsException(Errno.EINVAL, "anon_inode_getfd", null);
        }
        AnonInode inode = anon().create(0600, t.cred().uid(), t.cred().gid(), "[" + name + "]", ops);
        int acc = (flags & OpenFlags.O_ACCMODE) == 0 ? OpenFlags.O_RDWR : flags & OpenFlags.O_ACCMODE;
        OpenFile f = new OpenFile(inode, null, null, acc | (flags & OpenFlags.O_NONBLOCK), ops, inode.dentry());
        return installAll(new OpenFile[] {f}, (flags & OpenFlags.O_CLOEXEC) != 0, "anon_inode_getfd")
                .thenApply(fds -> fds[0]);
    }

    void shutdown(int fd, int how) {
        OpenFile f = t.fget(fd, "shutdown");
        if (!(f.ops() instanceof SocketEnd s)) {
            throw new VfsException(Errno.ENOTSOCK, "shutdown", null);
        }
        s.shutdown(how);
    }

    private CompletableFuture<int[]> installAll(OpenFile[] files, boolean cloexec, String op) {
        return t.asker().ask(t.files().actor(),
                        (ReplyTo<FdReply> r) -> new FdTableActor.InstallAll(files, cloexec, r))
                .thenApply(r -> {
                    if (r.error() != null) {
                        throw new VfsException(r.error(), op, null);
                    }
                    return r.fds();
                });
    }
}
