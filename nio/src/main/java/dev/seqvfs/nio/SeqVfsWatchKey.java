package dev.seqvfs.nio;

import dev.seqvfs.protocol.Inotify;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A key of {@link SeqVfsWatchService}: one inotify watch on one directory, with the JDK's {@code
 * AbstractWatchKey} states (ready → signalled on the first event → ready again at {@link #reset} if
 * no event came meanwhile, else signalled again) and its merging of a repeated event (same kind and
 * context as the last one pending: its count grows).
 *
 * <h2>Concurrency</h2>
 *
 * State and pending events are guarded by this object's monitor; {@code valid} is volatile. A key
 * is signalled (queued on its service) at most once until its next reset.
 */
final class SeqVfsWatchKey implements WatchKey {
    private final SeqVfsWatchService service;
    private final SeqVfsPath dir;
    private final int wd;
    private volatile boolean valid = true;
    private boolean signalled;
    private List<Event<?>> events = new ArrayList<>();

    /** One event; {@code count} grows for a repeated one, under the key's monitor. */
    private static final class Event<T> implements WatchEvent<T> {
        private final WatchEvent.Kind<T> kind;
        private final T context;
        private int count = 1;

        Event(WatchEvent.Kind<T> kind, T context) {
            this.kind = kind;
            this.context = context;
        }

        @Override
        public WatchEvent.Kind<T> kind() {
            return kind;
        }

        @Override
        public synchronized int count() {
            return count;
        }

        @Override
        public T context() {
            return context;
        }

        synchronized void repeat() {
            count++;
        }

        @Override
        public String toString() {
            return kind + ":" + context;
        }
    }

    SeqVfsWatchKey(SeqVfsWatchService service, SeqVfsPath dir, int wd) {
        this.service = service;
        this.dir = dir;
        this.wd = wd;
    }

    int wd() {
        return wd;
    }

    /** Adds an event (or repeats the last one) and signals the key if it was ready. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    void add(WatchEvent.Kind<?> kind, Path context) {
        boolean signal;
        synchronized (this) {
            if (!valid) {
                return;
            }
            Event<?> last = events.isEmpty() ? null : events.get(events.size() - 1);
            if (last != null
                    && last.kind() == kind
                    && Objects.equals(last.context(), context)
                    && kind != StandardWatchEventKinds.ENTRY_CREATE
                    && kind != StandardWatchEventKinds.ENTRY_DELETE) {
                // AbstractWatchKey repeats a repeated event; a create or delete is kept apart, so
                // a fast create+delete+create sequence is seen whole (Jimfs #43, #68)
                last.repeat();
            } else if (last != null && last.kind() == StandardWatchEventKinds.OVERFLOW) {
                last.repeat();
            } else if (events.size() >= Inotify.MAX_QUEUED_EVENTS) {
                events.add(new Event(StandardWatchEventKinds.OVERFLOW, null));
            } else {
                events.add(new Event(kind, context));
            }
            signal = !signalled;
            signalled = true;
        }
        if (signal) {
            service.signal(this);
        }
    }

    /** The watch went ({@code IN_IGNORED}): invalid, and signalled so that a taker wakes. */
    void invalidateAndSignal() {
        boolean signal;
        synchronized (this) {
            valid = false;
            signal = !signalled;
            signalled = true;
        }
        if (signal) {
            service.signal(this);
        }
    }

    void invalidate() {
        valid = false;
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    @Override
    public synchronized List<WatchEvent<?>> pollEvents() {
        List<WatchEvent<?>> out = new ArrayList<>(events);
        events = new ArrayList<>();
        return out;
    }

    @Override
    public boolean reset() {
        boolean signal = false;
        synchronized (this) {
            if (!valid) {
                return false;
            }
            if (signalled) {
                if (events.isEmpty()) {
                    signalled = false;
                } else {
                    signal = true;
                }
            }
        }
        if (signal) {
            service.signal(this);
        }
        return true;
    }

    @Override
    public void cancel() {
        if (valid) {
            valid = false;
            service.cancel(this);
        }
    }

    @Override
    public Path watchable() {
        return dir;
    }

    @Override
    public String toString() {
        return "WatchKey[" + dir + ", wd=" + wd + "]";
    }
}
