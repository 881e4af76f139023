package dev.seqvfs.engine;

import dev.seqvfs.engine.dir.DirReply;
import dev.seqvfs.engine.dir.DirectoryActor;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.dispatch.CallingThreadExecutor;
import dev.seqvfs.engine.reply.ReplyCollector;
import dev.seqvfs.engine.reply.ReplyTo;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.engine.wait.Shutdown;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.RecipientRef;

/**
 * Request-reply with the engine's actors, for the embedding API.
 *
 * <p>A request registers a plain {@link CompletableFuture} with one of the instance's {@link
 * ReplyCollector}s' registries (chosen by the calling thread, so threads rarely share one) and
 * sends the command with a {@link ReplyTo} naming that registry and the request's id; the actor's
 * reply completes the future directly (no reply message). Because the engine's actors run on the
 * calling-thread dispatcher, a request from a plain thread to an idle actor is processed, and its
 * reply delivered, on the asking thread before {@code tell} returns, so the blocking twin's {@code
 * join} usually finds the future done and never parks.
 *
 * <p>Why not Pekko's ask pattern: it makes a temporary actor and schedules a timeout per request,
 * and the scheduler keeps the cancelled timer until its deadline (10 s by default): millions of
 * live objects and GC pauses under load. Here one periodic sweep per collector actor fails requests
 * past {@code seqvfs.ask-timeout}. The guardian's requests (a task's descriptor table, a mount's
 * superblock) take the same path: the collectors exist before the first of them (the engine's root
 * spawns them with the guardian).
 *
 * <p>Thread-safe.
 */
final class Asker {
    /** How long a blocked caller waits before parking, in nanoseconds (measured: 50 us). */
    static final long SPIN_NANOS = 50_000;

    /** Of which the first part spins on the CPU; the rest yields it between checks. */
    static final long PURE_SPIN_NANOS = 2_000;

    /** One collector: its actor and the registry it completes. */
    record Slot(ActorRef<ReplyCollector.Command> ref, ReplyCollector.Pending pending) {}

    private final Duration timeout;
    private volatile Slot[] slots = new Slot[0];

    /**
     * The instance's closed state: read by every {@link #ask} after it registers (a volatile read).
     */
    private final Shutdown shutdown;

    Asker(Duration timeout, Shutdown shutdown) {
        this.timeout = timeout;
        this.shutdown = shutdown;
    }

    /** Installs the collectors, once, before the first {@link #ask}. */
    void attach(Slot[] collectors) {
        this.slots = collectors.clone();
    }

    /**
     * Sends {@code make(replyTo)} to {@code target} and returns the reply's future, a plain {@link
     * CompletableFuture} whose dependent stages run synchronously on the thread that delivers the
     * reply. Fails with a {@link TimeoutException} after the ask timeout.
     */
    <Req, Rep> CompletableFuture<Rep> ask(
            RecipientRef<Req> target, Function<ReplyTo<Rep>, Req> make) {
        Slot[] s = slots;
        Slot slot = s[(int) (Thread.currentThread().getId() % s.length)];
        CompletableFuture<Rep> f = new CompletableFuture<>();
        long id = slot.pending().register(f, System.nanoTime() + timeout.toNanos());
        if (shutdown.isShutDown()) {
            // Registered after close began: failPending may not have seen it (register CASes
            // its slot, then reads the state; close writes the state, then fails what it finds
            // in the slots), so fail it here. Nothing is sent.
            f.completeExceptionally(Shutdown.error(Syscall.REQUEST));
            return f;
        }
        target.tell(make.apply(new ReplyTo<>(slot.pending(), id)));
        return f;
    }

    /**
     * Fails every request still waiting for its reply with {@code EIO}, at once, on this thread: a
     * caller parked in {@link #join} returns, an async call's future fails. Called by {@link
     * SeqVfs#close()} after the instance is shut down (so every later {@link #ask} fails by itself)
     * and before its actors stop; a reply that comes later completes nothing (its {@link
     * ReplyTo#tryTell} says so, and the replier undoes what it would have handed over).
     */
    void failPending() {
        for (Slot s : slots) {
            s.pending().failAll();
        }
    }

    /**
     * Sends a command to a directory's actor through the directory's combining queue ({@link
     * dev.seqvfs.engine.dir.DirQueue}), which has the superblock actor spawn the directory's actor
     * when the directory has none yet.
     */
    CompletableFuture<DirReply> askDir(
            DirectoryInode dir, Function<ReplyTo<DirReply>, DirectoryActor.Command> make) {
        if (dir.owner() instanceof Superblock unmounted && unmounted.isDeactivated()) {
            // Its actors stop (or stopped): answer as a gone directory's actor would, at once.
            return ask((RecipientRef<DirectoryActor.Command>) c -> c.failGone(dir), make);
        }
        // through the directory's combining queue, which spawns the actor if there is none
        return ask(dir.commandQueue(), make);
    }

    /** Turns a directory reply into a value or a {@link VfsException} naming the call. */
    static DirReply check(DirReply r, Syscall op, CharSequence path, CharSequence other) {
        if (r.error() != null) {
            throw new VfsException(r.error(), op, path, other);
        }
        return r;
    }

    /**
     * Runs, on this thread, what the calling-thread dispatcher has queued on it ({@link
     * CallingThreadExecutor#runQueuedTask()}) until {@code f} is done or nothing is left, before a
     * caller waits for {@code f}. Inside an actor's handler (a dependent stage of a reply runs
     * where the replying actor runs) the actor that will complete {@code f} may be queued behind
     * that handler on this very thread, where it would wait for the timeout. The actors of every
     * instance sharing an actor system share its dispatcher, so this covers a call to another
     * instance too. Outside any handler it returns at once.
     *
     * @return whether {@code f} is done
     */
    static boolean helpUntilDone(CompletableFuture<?> f) {
        while (!f.isDone() && CallingThreadExecutor.runQueuedTask()) {
            // ran one queued mailbox
        }
        return f.isDone();
    }

    /**
     * Waits for a future, unwrapping its {@link VfsException}; a timeout or an unexpected failure
     * becomes {@code EIO}. The wait is not interruptible (Linux's uninterruptible sleep, as {@code
     * mkdir} sleeps on its directory's lock): a command once sent cannot be withdrawn, so an {@code
     * EINTR} here would report as failed a call whose actor may still apply it. An interrupt
     * therefore does not end the wait; the thread's interrupt status is set again when it returns
     * or throws. The wait still ends: at the reply, at the ask timeout ({@code EIO}), or at the
     * instance's close ({@link #failPending}: {@code EIO}).
     */
    @SuppressWarnings(
            "ThreadPriorityCheck") // Thread.yield: the measured backoff of the spin below, not for
    // correctness
    <T> T join(CompletableFuture<T> f, Syscall op, CharSequence path) {
        try {
            if (f.isDone()) {
                return f.join();
            }
            if (helpUntilDone(f)) {
                return f.join();
            }
            // Another thread may be running the actor inline and about to reply: wait briefly
            // before parking (cuts p99 from ~5-20 us to ~1.5 us). Spin only a little, then
            // yield: with more runnable threads than CPUs, the thread running the actor may
            // be the one preempted, and a spinning waiter would hold the CPU it needs.
            long start = System.nanoTime();
            long now = start;
            while (!f.isDone() && now - start < SPIN_NANOS) {
                if (now - start < PURE_SPIN_NANOS) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
                now = System.nanoTime();
            }
            if (f.isDone()) {
                return f.join();
            }
            return getUninterruptibly(f, now + timeout.toNanos() + 1_000_000_000L);
        } catch (CompletionException | ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof VfsException v) {
                throw v;
            }
            throw new VfsException(Errno.EIO, op, path);
        } catch (TimeoutException e) {
            throw new VfsException(Errno.EIO, op, path);
        }
    }

    /**
     * {@code f.get} until {@code deadline} ({@link System#nanoTime()}), through interrupts: each
     * one is remembered and the wait goes on; the interrupt status is set again before this returns
     * or throws.
     */
    private static <T> T getUninterruptibly(CompletableFuture<T> f, long deadline)
            throws ExecutionException, TimeoutException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return f.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
