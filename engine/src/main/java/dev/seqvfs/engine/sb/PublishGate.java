package dev.seqvfs.engine.sb;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The gate that makes a directory writer's proof check and its publication one instant with respect
 * to the publications that can invalidate a proof (a cross-directory rename, a mount change): a
 * striped reader-writer latch ({@code percpu_rw_semaphore}, the "big reader lock").
 *
 * <p>A directory actor {@link #enter}s before it checks a command's path proof and {@link #exit}s
 * after it published the command's snapshot. A rename coordinator or a mount-table writer {@link
 * #close}s the gate before it takes its sequence lock (it waits for every writer inside to leave,
 * and no new one enters) and {@link #open}s it after it published. So a command that passed its
 * check publishes before the rename or mount that would have failed it, never after; without the
 * gate, a create whose path was checked before a rename moved its directory could publish after it,
 * in a place the path no longer named (found by {@code NamespaceLinearizabilityTest}).
 *
 * <h2>Concurrency</h2>
 *
 * Entering writes one counter of {@link #STRIPES}, chosen by the thread (padded to its own cache
 * line), so directory actors on different threads share no written line; closing is rare and pays
 * for scanning every stripe. Dekker over sequentially consistent atomics: an enterer increments its
 * stripe, then reads {@code closers}; a closer increments {@code closers}, then reads every stripe;
 * of the two, at least one sees the other (an enterer that sees the gate closing steps out and
 * waits). Nobody holding or entering the gate ever waits for a message. Lock order: gate, then the
 * rename lock, then the mount lock.
 */
public final class PublishGate {
    /** Stripes of the enter counters: enough that two threads rarely share one. */
    static final int STRIPES =
            Math.max(8, Integer.highestOneBit(Runtime.getRuntime().availableProcessors() * 4) * 2);

    /** Longs between two stripes: 128 bytes, two cache lines, so no two stripes share a line. */
    private static final int PAD = 16;

    private final AtomicLongArray stripes = new AtomicLongArray(STRIPES * PAD);
    private final AtomicInteger closers = new AtomicInteger();

    private static int stripeOf(Thread t) {
        long id = t.getId();
        return (int) (((id ^ (id >>> 16)) * 0x9E3779B1L) >>> 8) & (STRIPES - 1);
    }

    /**
     * Enters the gate, waiting (spinning) while it is closed. Returns the stripe to pass to {@link
     * #exit}. Held for the few stores of one directory publication, never across a message.
     *
     * @return the stripe entered
     */
    public int enter() {
        int s = stripeOf(Thread.currentThread()) * PAD;
        while (true) {
            stripes.getAndIncrement(s);
            if (closers.get() == 0) {
                return s;
            }
            stripes.getAndDecrement(s);
            while (closers.get() != 0) {
                Thread.onSpinWait();
            }
        }
    }

    /**
     * Leaves the gate entered with {@code stripe}.
     *
     * @param stripe what {@link #enter} returned
     */
    public void exit(int stripe) {
        stripes.getAndDecrement(stripe);
    }

    /**
     * Closes the gate and waits (spinning) until every writer inside has left. Call before taking
     * the rename or mount write lock; {@link #open} after releasing it.
     */
    public void close() {
        closers.getAndIncrement();
        for (int i = 0; i < STRIPES * PAD; i += PAD) {
            while (stripes.get(i) != 0) {
                Thread.onSpinWait();
            }
        }
    }

    /** Opens the gate again (one {@link #close} less). */
    public void open() {
        closers.getAndDecrement();
    }
}
