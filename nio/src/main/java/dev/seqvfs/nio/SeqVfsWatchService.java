package dev.seqvfs.nio;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Inotify;
import dev.seqvfs.protocol.VfsException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.NotDirectoryException;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;

/**
 * A {@link WatchService} on the engine's inotify, as the JDK's {@code LinuxWatchService} is on the
 * kernel's: one inotify descriptor in the file system's task, one watch per registered directory
 * ({@code IN_CREATE | IN_MOVED_TO} for {@code ENTRY_CREATE}, {@code IN_DELETE | IN_MOVED_FROM} for
 * {@code ENTRY_DELETE}, {@code IN_MODIFY | IN_ATTRIB} for {@code ENTRY_MODIFY}). Pushed, never
 * polled: one asynchronous read of the descriptor is always pending, and the engine completes it on
 * the thread of the writer that queued the event (a directory actor, a writing thread), which turns
 * the records into the keys' events and signals them; {@link #take} parks on the queue of signalled
 * keys and on nothing else. No thread of its own, no timer.
 *
 * <p>Nothing is lost: the engine queues every event (merging only identical unread ones), and this
 * service moves them out at once; a key holds up to {@link Inotify#MAX_QUEUED_EVENTS} events before
 * its next ones are one {@code OVERFLOW}, and an {@code IN_Q_OVERFLOW} of the engine is an {@code
 * OVERFLOW} on every key. A watched directory that is deleted (or whose file system's watch goes:
 * {@code IN_IGNORED}) makes its key invalid and signals it, so {@code take()} wakes and {@code
 * reset()} returns {@code false}.
 *
 * <h2>Concurrency</h2>
 *
 * Keys by watch descriptor are guarded by this object's monitor; a key's state and events by its
 * own monitor (never held while taking this one); the signalled keys are a {@link
 * LinkedBlockingDeque}. The pump runs one read at a time (the next is started when the last one was
 * processed), so records are processed in the engine's queue order. {@code closed} is volatile.
 */
final class SeqVfsWatchService implements WatchService {
    private static final int IN_CREATE_MASK = Inotify.IN_CREATE | Inotify.IN_MOVED_TO;
    private static final int IN_DELETE_MASK = Inotify.IN_DELETE | Inotify.IN_MOVED_FROM;
    private static final int IN_MODIFY_MASK = Inotify.IN_MODIFY | Inotify.IN_ATTRIB;

    /** Queued on close so that every {@link #take} wakes; never handed out. */
    private final SeqVfsWatchKey closeMarker;

    private final SeqVfsFileSystem fs;
    private final VfsTask task;
    private final int fd;
    private final byte[] buf = new byte[64 * 1024];
    private final Map<Integer, SeqVfsWatchKey> keys = new HashMap<>();
    private final LinkedBlockingDeque<SeqVfsWatchKey> signalled = new LinkedBlockingDeque<>();
    private volatile boolean closed;
    private CompletableFuture<Integer> pending;
    private boolean pumping;

    SeqVfsWatchService(SeqVfsFileSystem fs) throws IOException {
        this.fs = fs;
        this.task = fs.task();
        try {
            this.fd = task.inotifyInit1(Inotify.IN_CLOEXEC);
        } catch (VfsException e) {
            throw Errors.forIo(e);
        }
        this.closeMarker = new SeqVfsWatchKey(this, null, -1);
    }

    /** {@code Path.register}: the key of {@code dir}, made or with its kinds replaced. */
    WatchKey register(SeqVfsPath dir, WatchEvent.Kind<?>[] events, WatchEvent.Modifier... mods)
            throws IOException {
        if (closed) {
            throw new ClosedWatchServiceException();
        }
        if (mods.length > 0) {
            throw new UnsupportedOperationException("modifier " + mods[0] + " not supported");
        }
        int mask = 0;
        for (WatchEvent.Kind<?> k : events) {
            if (k == StandardWatchEventKinds.ENTRY_CREATE) {
                mask |= IN_CREATE_MASK;
            } else if (k == StandardWatchEventKinds.ENTRY_DELETE) {
                mask |= IN_DELETE_MASK;
            } else if (k == StandardWatchEventKinds.ENTRY_MODIFY) {
                mask |= IN_MODIFY_MASK;
            } else if (k != StandardWatchEventKinds.OVERFLOW) {
                throw new UnsupportedOperationException(k.name());
            }
        }
        if (mask == 0) {
            throw new IllegalArgumentException("no events to register");
        }
        int wd;
        try {
            wd = task.inotifyAddWatch(fd, dir.filename(), mask | Inotify.IN_ONLYDIR);
        } catch (VfsException e) {
            if (e.errno() == Errno.ENOTDIR) {
                throw new NotDirectoryException(dir.toString());
            }
            if (e.errno() == Errno.EBADF && closed) {
                throw new ClosedWatchServiceException();
            }
            throw Errors.translate(e, dir, null);
        }
        SeqVfsWatchKey key;
        boolean start;
        synchronized (this) {
            key = keys.get(wd);
            if (key == null || !key.isValid()) {
                key = new SeqVfsWatchKey(this, dir, wd);
                keys.put(wd, key);
            }
            start = !pumping;
            pumping = true;
        }
        if (start) {
            pump();
        }
        return key;
    }

    /** {@code WatchKey.cancel}: forgets the key, then removes its watch. */
    void cancel(SeqVfsWatchKey key) {
        synchronized (this) {
            if (keys.get(key.wd()) == key) {
                keys.remove(key.wd());
            }
        }
        if (!closed) {
            try {
                task.inotifyRmWatch(fd, key.wd());
            } catch (VfsException e) {
                // the watch went already (its directory was deleted): nothing to remove
            }
        }
    }

    void signal(SeqVfsWatchKey key) {
        signalled.offer(key);
    }

    /** Keeps one read pending; processes reads that complete at once in a loop, not recursively. */
    private void pump() {
        while (!closed) {
            CompletableFuture<Integer> r;
            try {
                r = task.async().read(fd, buf, 0, buf.length);
            } catch (VfsException e) {
                return;
            }
            synchronized (this) {
                pending = r;
            }
            if (!r.isDone()) {
                var unused =
                        r.whenComplete(
                                (n, x) -> {
                                    if (x == null && !closed) {
                                        process(n);
                                        pump();
                                    }
                                });
                return;
            }
            if (r.isCompletedExceptionally()) {
                return;
            }
            process(r.join());
        }
    }

    /** Turns {@code n} bytes of {@code struct inotify_event} records into the keys' events. */
    private void process(int n) {
        ByteBuffer bb = ByteBuffer.wrap(buf, 0, n).order(ByteOrder.LITTLE_ENDIAN);
        while (bb.remaining() >= Inotify.EVENT_SIZE) {
            int wd = bb.getInt();
            int mask = bb.getInt();
            bb.getInt(); // cookie: the JDK's kinds do not pair moves
            int len = bb.getInt();
            byte[] name = null;
            if (len > 0) {
                int start = bb.position();
                int k = 0;
                while (k < len && buf[start + k] != 0) {
                    k++;
                }
                name = new byte[k];
                bb.get(name);
                bb.position(start + len);
            }
            dispatch(wd, mask, name);
        }
    }

    private void dispatch(int wd, int mask, byte[] name) {
        if ((mask & Inotify.IN_Q_OVERFLOW) != 0) {
            List<SeqVfsWatchKey> all;
            synchronized (this) {
                all = List.copyOf(keys.values());
            }
            for (SeqVfsWatchKey k : all) {
                k.add(StandardWatchEventKinds.OVERFLOW, null);
            }
            return;
        }
        SeqVfsWatchKey key;
        synchronized (this) {
            key = keys.get(wd);
            if (key != null && (mask & Inotify.IN_IGNORED) != 0) {
                keys.remove(wd);
            }
        }
        if (key == null) {
            return;
        }
        if ((mask & Inotify.IN_IGNORED) != 0) {
            key.invalidateAndSignal();
            return;
        }
        if (name == null) {
            return; // an event on the directory itself: no kind for it
        }
        SeqVfsPath context = new SeqVfsPath(fs, name);
        if ((mask & IN_CREATE_MASK) != 0) {
            key.add(StandardWatchEventKinds.ENTRY_CREATE, context);
        }
        if ((mask & IN_DELETE_MASK) != 0) {
            key.add(StandardWatchEventKinds.ENTRY_DELETE, context);
        }
        if ((mask & IN_MODIFY_MASK) != 0) {
            key.add(StandardWatchEventKinds.ENTRY_MODIFY, context);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new ClosedWatchServiceException();
        }
    }

    private WatchKey taken(SeqVfsWatchKey k) {
        if (k == closeMarker) {
            signalled.offer(closeMarker); // wake the next taker too
            throw new ClosedWatchServiceException();
        }
        return k;
    }

    @Override
    public WatchKey poll() {
        checkOpen();
        SeqVfsWatchKey k = signalled.poll();
        return k == null ? null : taken(k);
    }

    @Override
    public WatchKey poll(long timeout, TimeUnit unit) throws InterruptedException {
        checkOpen();
        SeqVfsWatchKey k = signalled.poll(timeout, unit);
        return k == null ? null : taken(k);
    }

    @Override
    public WatchKey take() throws InterruptedException {
        checkOpen();
        return taken(signalled.take());
    }

    /**
     * Closes the service: every key becomes invalid, the pending read is withdrawn, the inotify
     * descriptor is closed (its last reference removes every watch), and every thread in {@link
     * #take} or {@link #poll(long, TimeUnit)} wakes with {@link ClosedWatchServiceException}.
     * Idempotent.
     */
    @Override
    public void close() throws IOException {
        List<SeqVfsWatchKey> all;
        CompletableFuture<Integer> r;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            all = List.copyOf(keys.values());
            keys.clear();
            r = pending;
        }
        for (SeqVfsWatchKey k : all) {
            k.invalidate();
        }
        if (r != null) {
            r.cancel(false);
        }
        try {
            task.close(fd);
        } catch (VfsException e) {
            // the file system's close closed it already
        }
        fs.closedOne(this);
        signalled.offer(closeMarker);
    }

    boolean isClosed() {
        return closed;
    }
}
