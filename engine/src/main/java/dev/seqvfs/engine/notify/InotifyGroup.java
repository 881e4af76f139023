package dev.seqvfs.engine.notify;

import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.fs.StreamFileOperations;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.wait.Shutdown;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Inotify;
import dev.seqvfs.protocol.Poll;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * An inotify instance ({@code struct fsnotify_group} with inotify's private data), the file
 * operations of an {@code anon_inode:inotify} file: its watches by watch descriptor and by inode,
 * and its queue of events. A {@code read} returns whole {@code struct inotify_event} records
 * ({@link Inotify}'s layout), as many as fit, waiting while the queue is empty unless {@code
 * O_NONBLOCK} ({@code EAGAIN}); a buffer too small for the first record is {@code EINVAL}, as
 * Linux's {@code inotify_read}. {@code write} is {@code EINVAL}; {@code poll} is readable while an
 * event is queued. The last close removes every watch.
 *
 * <h2>Concurrency</h2>
 *
 * Guarded by this object's monitor: the queue, the watch maps, the pending asynchronous reads.
 * Emitters ({@link Fsnotify}) take it for the copy of one event; blocking readers wait on it (an
 * interrupt is {@code EINTR}, its status left set; the instance's close wakes them through its
 * {@link Shutdown} and they fail with {@code EIO}); pending asynchronous reads are completed after
 * the monitor is released, on the emitter's thread. A pending read whose future its caller
 * completed (cancelled) meanwhile is dropped without taking an event, so a reader can withdraw its
 * read and let the descriptor's last reference go. The watch arrays of the inodes ({@link
 * Inode#casMarks}) are replaced by CAS under this monitor, so two groups may race on one inode's
 * array and the CAS loop settles it. Lock order: a group's monitor, never another one inside it,
 * and no engine lock is held when an emitter takes it (writers emit after their publication).
 *
 * <h2>Invariants</h2>
 *
 * Nothing queued is dropped except (a) an event identical to the last unread one (wd, mask, cookie
 * and name: Linux's {@code inotify_merge}), and (b) events past {@code maxQueued}, which are
 * replaced by one {@code IN_Q_OVERFLOW} (wd -1) at the queue's tail until a read makes room.
 */
public final class InotifyGroup implements StreamFileOperations {
    private final Shutdown shutdown;
    private final int maxQueued;
    private final ArrayDeque<Event> queue = new ArrayDeque<>();
    private final ArrayDeque<PendingRead> pendingReads = new ArrayDeque<>();
    private final Map<Integer, InotifyMark> byWd = new HashMap<>();
    private final Map<Inode, InotifyMark> byInode = new IdentityHashMap<>();
    private int nextWd = 1;
    private boolean released;

    /** One queued event; {@code name} is {@code null} for an event on the watched inode itself. */
    private record Event(int wd, int mask, int cookie, String name) {
        int size() {
            return Inotify.EVENT_SIZE + nameLen();
        }

        int nameLen() {
            // round_event_name_len: the name and at least one NUL, to a multiple of 16
            return name == null
                    ? 0
                    : (name.length() + Inotify.EVENT_SIZE)
                            / Inotify.EVENT_SIZE
                            * Inotify.EVENT_SIZE;
        }

        boolean sameAs(int w, int m, int c, String n) {
            return wd == w && mask == m && cookie == c && Objects.equals(name, n);
        }
    }

    private record PendingRead(byte[] dst, int off, int len, CompletableFuture<Integer> future) {}

    /**
     * Makes an instance with no watches.
     *
     * @param maxQueued events queued before {@code IN_Q_OVERFLOW} ({@code max_queued_events})
     * @param shutdown the instance's closed state, which ends every wait on this group
     */
    public InotifyGroup(int maxQueued, Shutdown shutdown) {
        if (maxQueued < 1) {
            throw new IllegalArgumentException("maxQueued " + maxQueued);
        }
        this.maxQueued = maxQueued;
        this.shutdown = shutdown;
    }

    /**
     * {@return the inotify instance open file {@code f} is the descriptor of}
     *
     * @param f an open file
     * @param op the call, for its error
     * @throws VfsException {@code EINVAL} if {@code f} is not an inotify descriptor ({@code
     *     inotify_add_watch}'s {@code f.file->f_op != &inotify_fops})
     */
    public static InotifyGroup of(OpenFile f, Syscall op) {
        if (f.ops() instanceof InotifyGroup g) {
            return g;
        }
        throw new VfsException(Errno.EINVAL, op, null);
    }

    /**
     * {@code inotify_add_watch}: watches {@code inode} for the events of {@code mask}, or changes
     * the mask of the watch it has (replaced, or with {@code IN_MASK_ADD} added to).
     *
     * @param inode the inode, found by the caller's walk
     * @param mask events and {@code IN_MASK_ADD}, {@code IN_MASK_CREATE}, {@code IN_ONESHOT},
     *     {@code IN_EXCL_UNLINK}
     * @return the watch descriptor: the same for the same inode while the watch lasts
     * @throws VfsException {@code EEXIST} ({@code IN_MASK_CREATE} and a watch exists), nothing
     *     changed
     */
    public synchronized int addWatch(Inode inode, int mask) {
        int events = mask & ~(Inotify.IN_MASK_ADD | Inotify.IN_MASK_CREATE);
        InotifyMark m = byInode.get(inode);
        if (m != null) {
            if ((mask & Inotify.IN_MASK_CREATE) != 0) {
                throw new VfsException(Errno.EEXIST, Syscall.INOTIFY_ADD_WATCH, null);
            }
            m.mask = (mask & Inotify.IN_MASK_ADD) != 0 ? m.mask | events : events;
            return m.wd;
        }
        if (released) {
            throw new VfsException(Errno.EBADF, Syscall.INOTIFY_ADD_WATCH, null);
        }
        m = new InotifyMark(inode, this, nextWd++, events);
        while (true) {
            InotifyMark[] cur = inode.marksAcquire();
            InotifyMark[] next;
            if (cur == null) {
                next = new InotifyMark[] {m};
            } else {
                next = Arrays.copyOf(cur, cur.length + 1);
                next[cur.length] = m;
            }
            if (inode.casMarks(cur, next)) {
                break;
            }
        }
        byWd.put(m.wd, m);
        byInode.put(inode, m);
        inode.owner().watchAdded(inode);
        return m.wd;
    }

    /**
     * {@code inotify_rm_watch}: removes the watch {@code wd} and queues its {@code IN_IGNORED}.
     *
     * @param wd the watch descriptor
     * @throws VfsException {@code EINVAL} (no such watch in this instance), nothing changed
     */
    public void rmWatch(int wd) {
        InotifyMark m;
        synchronized (this) {
            m = byWd.get(wd);
            if (m == null) {
                throw new VfsException(Errno.EINVAL, Syscall.INOTIFY_RM_WATCH, null);
            }
        }
        removeMark(m, true);
    }

    /**
     * Removes {@code m} from its inode and from this group; with {@code ignored}, queues its {@code
     * IN_IGNORED}. Does nothing if it was removed already.
     */
    void removeMark(InotifyMark m, boolean ignored) {
        List<Runnable> done;
        synchronized (this) {
            if (byWd.remove(m.wd) == null) {
                return;
            }
            byInode.remove(m.inode);
            detach(m);
            done = ignored ? append(m.wd, Inotify.IN_IGNORED, 0, null) : List.of();
        }
        done.forEach(Runnable::run);
    }

    private static void detach(InotifyMark m) {
        while (true) {
            InotifyMark[] cur = m.inode.marksAcquire();
            if (cur == null) {
                return;
            }
            InotifyMark[] next = null;
            int k = 0;
            if (cur.length > 1) {
                next = new InotifyMark[cur.length - 1];
                for (InotifyMark x : cur) {
                    if (x != m && k < next.length) {
                        next[k++] = x;
                    }
                }
                if (k != next.length) {
                    return; // m was not in the array
                }
            } else if (cur[0] != m) {
                return;
            }
            if (m.inode.casMarks(cur, next)) {
                return;
            }
        }
    }

    /** Queues an event for watch {@code m} (an emitter, after its mask check). */
    void queue(InotifyMark m, int mask, int cookie, String name) {
        List<Runnable> done;
        boolean oneshot;
        synchronized (this) {
            if (byWd.get(m.wd) != m) {
                return; // removed meanwhile
            }
            oneshot = (m.mask & Inotify.IN_ONESHOT) != 0;
            done = append(m.wd, mask, cookie, name);
        }
        done.forEach(Runnable::run);
        if (oneshot) {
            removeMark(m, true);
        }
    }

    /** Appends under the monitor; returns the completions of pending reads, to run after it. */
    private List<Runnable> append(int wd, int mask, int cookie, String name) {
        // fsnotify_insert_event: the overflow check first, then inotify_merge with the tail
        Event last = queue.peekLast();
        if (queue.size() >= maxQueued) {
            if (last != null && last.mask() == Inotify.IN_Q_OVERFLOW) {
                return List.of();
            }
            queue.add(new Event(-1, Inotify.IN_Q_OVERFLOW, 0, null));
        } else if (last != null && last.sameAs(wd, mask, cookie, name)) {
            return List.of();
        } else {
            queue.add(new Event(wd, mask, cookie, name));
        }
        notifyAll();
        if (pendingReads.isEmpty()) {
            return List.of();
        }
        List<Runnable> done = new ArrayList<>();
        while (!queue.isEmpty() && !pendingReads.isEmpty()) {
            PendingRead r = pendingReads.poll();
            if (r.future().isDone()) {
                continue; // withdrawn by its caller (cancel): it takes nothing
            }
            try {
                int n = drain(r.dst(), r.off(), r.len());
                done.add(() -> r.future().complete(n));
            } catch (VfsException e) {
                done.add(() -> r.future().completeExceptionally(e));
            }
        }
        return done;
    }

    /**
     * Copies whole records while they fit; the caller holds the monitor and the queue is not empty.
     */
    private int drain(byte[] dst, int off, int len) {
        int n = 0;
        while (!queue.isEmpty()) {
            Event e = queue.peek();
            int size = e.size();
            if (size > len - n) {
                if (n == 0) {
                    throw new VfsException(Errno.EINVAL, Syscall.READ, null);
                }
                break;
            }
            queue.poll();
            int p = off + n;
            putInt(dst, p, e.wd());
            putInt(dst, p + 4, e.mask());
            putInt(dst, p + 8, e.cookie());
            int nl = e.nameLen();
            putInt(dst, p + 12, nl);
            if (e.name() != null) {
                String s = e.name();
                for (int i = 0; i < s.length(); i++) {
                    dst[p + 16 + i] = (byte) s.charAt(i);
                }
                Arrays.fill(dst, p + 16 + s.length(), p + 16 + nl, (byte) 0);
            }
            n += size;
        }
        return n;
    }

    private static void putInt(byte[] b, int p, int v) {
        b[p] = (byte) v;
        b[p + 1] = (byte) (v >>> 8);
        b[p + 2] = (byte) (v >>> 16);
        b[p + 3] = (byte) (v >>> 24);
    }

    @Override
    public int read(OpenFile f, byte[] dst, int off, int len, boolean nonblock) {
        synchronized (this) {
            while (queue.isEmpty()) {
                if (nonblock) {
                    throw new VfsException(Errno.EAGAIN, Syscall.READ, null);
                }
                shutdown.awaitOn(this, 0, Syscall.READ);
            }
            return drain(dst, off, len);
        }
    }

    @Override
    public CompletableFuture<Integer> readAsync(OpenFile f, byte[] dst, int off, int len) {
        synchronized (this) {
            if (!queue.isEmpty() && pendingReads.isEmpty()) {
                try {
                    return CompletableFuture.completedFuture(drain(dst, off, len));
                } catch (VfsException e) {
                    return CompletableFuture.failedFuture(e);
                }
            }
            CompletableFuture<Integer> fut = new CompletableFuture<>();
            pendingReads.add(new PendingRead(dst, off, len, fut));
            return fut;
        }
    }

    /** {@code inotify_fops} has no {@code write}: {@code EINVAL}. */
    @Override
    public int write(OpenFile f, byte[] src, int off, int len, boolean nonblock) {
        throw new VfsException(Errno.EINVAL, Syscall.WRITE, null);
    }

    @Override
    public CompletableFuture<Integer> writeAsync(OpenFile f, byte[] src, int off, int len) {
        return CompletableFuture.failedFuture(new VfsException(Errno.EINVAL, Syscall.WRITE, null));
    }

    /** {@code inotify_poll}: readable ({@code POLLIN}) while an event is queued. */
    @Override
    public synchronized int poll(OpenFile f) {
        return queue.isEmpty() ? 0 : Poll.POLLIN | Poll.POLLRDNORM;
    }

    /** {@code inotify_release}: the last close removes every watch (no event is left to read). */
    @Override
    public void release(OpenFile f) {
        List<InotifyMark> all;
        synchronized (this) {
            released = true;
            all = new ArrayList<>(byWd.values());
        }
        for (InotifyMark m : all) {
            removeMark(m, false);
        }
        List<PendingRead> orphans;
        synchronized (this) {
            queue.clear();
            orphans = new ArrayList<>(pendingReads);
            pendingReads.clear();
        }
        for (PendingRead r : orphans) {
            r.future().completeExceptionally(new VfsException(Errno.EBADF, Syscall.READ, null));
        }
    }

    /** {@return the number of events queued (tests)} */
    public synchronized int queued() {
        return queue.size();
    }

    /** {@return the number of watches (tests)} */
    public synchronized int watches() {
        return byWd.size();
    }
}
