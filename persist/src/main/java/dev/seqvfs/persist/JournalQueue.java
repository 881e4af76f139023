package dev.seqvfs.persist;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * The one way events reach a directory's entity ({@link DirectoryEntity}): in the order they are
 * submitted, one {@link DirectoryEntity.Append} in flight at a time, and whatever is submitted
 * meanwhile sent together as the next one (group commit across the directory actor's batches, the
 * rename coordinator's move halves and recovery's roll-forward: one {@code persist(List)} for all).
 * So a directory's journal is always a prefix of the order its changes were made in, whoever made
 * them.
 *
 * <p>An append larger than {@link #MAX_EVENTS} goes alone; submissions are not split.
 *
 * <p>Thread-safe: the queue's state is guarded by this object's monitor; the ask and the
 * completions run outside it.
 */
final class JournalQueue {
    /** Events coalesced into one append at most (a larger submission still goes whole). */
    static final int MAX_EVENTS = 1000;

    private record Submission(List<DirEvent> events, CompletableFuture<Void> done) {}

    private final ActorRef<DirectoryEntity.Command> entity;
    private final Scheduler scheduler;
    private final Duration timeout;

    /** Submissions not yet sent, in order; guarded by this. */
    private final List<Submission> waiting = new ArrayList<>();

    /** Events in {@link #waiting}; guarded by this. */
    private int waitingEvents;

    /** Whether an append is in flight; guarded by this. */
    private boolean sending;

    /** Appends sent to the entity (tests: how far submissions were coalesced). */
    final java.util.concurrent.atomic.AtomicLong appends =
            new java.util.concurrent.atomic.AtomicLong();

    JournalQueue(ActorRef<DirectoryEntity.Command> entity, Scheduler scheduler, Duration timeout) {
        this.entity = entity;
        this.scheduler = scheduler;
        this.timeout = timeout;
    }

    /**
     * Submits {@code events} (none: a barrier) and returns a future that completes once they are in
     * the journal, together with everything submitted before them, or fails if their append failed
     * or timed out.
     *
     * @param events the events, in order
     * @return when they are durable
     */
    CompletableFuture<Void> submit(List<DirEvent> events) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        boolean start;
        synchronized (this) {
            if (events.isEmpty() && !sending && waiting.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            waiting.add(new Submission(List.copyOf(events), done));
            waitingEvents += events.size();
            start = !sending;
            sending = true;
        }
        if (start) {
            sendNext();
        }
        return done;
    }

    /**
     * {@return a plain future completed, on the thread that completes {@code s}, as {@code s}
     * completes, with no value}
     *
     * <p>Why not {@code s.thenApply(...)}: the stage an ask returns is Scala's {@code
     * FutureConverters} wrapper, which turns every dependent stage into an {@code ...Async} one on
     * {@code CompletableFuture}'s default executor; with fewer than 3 processors the common pool
     * has parallelism 1 and that executor starts a new thread per task (measured: 9,400 threads
     * started in 12 s of the persistence benchmark, one per journal write). An explicit executor
     * that runs the task where it is handed over avoids both the thread and the hop.
     */
    static CompletableFuture<Void> plain(CompletionStage<?> s) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        s.whenCompleteAsync(
                (v, e) -> {
                    if (e != null) {
                        f.completeExceptionally(e);
                    } else {
                        f.complete(null);
                    }
                },
                Runnable::run);
        return f;
    }

    /** {@return how many events wait behind the append in flight} */
    synchronized int backlog() {
        return waitingEvents;
    }

    /** {@return whether nothing is in flight or waiting} */
    synchronized boolean idle() {
        return !sending && waiting.isEmpty();
    }

    /**
     * Tests: while set and not complete, nothing more is sent (a store that is slow for this
     * directory); the queue resumes when it completes. Volatile.
     */
    private volatile CompletableFuture<Void> held;

    /**
     * Tests: holds back every append not yet sent until {@code until} completes.
     *
     * @param until completes to let the queue go on
     */
    void holdUntil(CompletableFuture<Void> until) {
        held = until;
    }

    private void sendNext() {
        CompletableFuture<Void> h = held;
        if (h != null && !h.isDone()) {
            // "sending" stays set meanwhile: submissions wait
            CompletableFuture<Void> unused = h.whenComplete((v, e) -> sendNext());
            return;
        }
        List<Submission> batch = new ArrayList<>();
        List<DirEvent> events = new ArrayList<>();
        synchronized (this) {
            while (!waiting.isEmpty()
                    && (batch.isEmpty()
                            || events.size() + waiting.get(0).events().size() <= MAX_EVENTS)) {
                Submission s = waiting.remove(0);
                batch.add(s);
                events.addAll(s.events());
                waitingEvents -= s.events().size();
            }
            if (batch.isEmpty()) {
                sending = false;
                return;
            }
        }
        CompletableFuture<Void> sent;
        if (events.isEmpty()) {
            sent = CompletableFuture.completedFuture(null); // only barriers: all before are done
        } else {
            appends.incrementAndGet();
            sent =
                    plain(
                            AskPattern.<DirectoryEntity.Command, DirectoryEntity.Appended>ask(
                                    entity,
                                    r -> new DirectoryEntity.Append(events, r),
                                    timeout,
                                    scheduler));
        }
        sent.whenComplete(
                (ok, failure) -> {
                    // the next append first: a caller woken below finds the queue idle if
                    // nothing else was submitted (the entity keeps the appends in order either way)
                    sendNext();
                    for (Submission s : batch) {
                        if (failure == null) {
                            s.done().complete(null);
                        } else {
                            s.done().completeExceptionally(failure);
                        }
                    }
                });
    }
}
