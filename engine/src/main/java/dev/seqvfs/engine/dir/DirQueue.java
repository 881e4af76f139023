package dev.seqvfs.engine.dir;

import dev.seqvfs.engine.sb.Superblock;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.apache.pekko.actor.typed.RecipientRef;

/**
 * The combining queue in front of one directory's {@link DirectoryActor}: callers append their
 * namespace commands here ({@link #submit}), and the actor, woken by one {@link
 * DirectoryActor.Drain}, applies every command waiting as one batch with one publication (flat
 * combining; the descriptor table's {@code FilesStruct} has the same protocol).
 *
 * <h2>Concurrency</h2>
 *
 * Lock-free; any thread submits, only the directory's actor polls.
 *
 * <ul>
 *   <li>{@code queue}: a {@link ConcurrentLinkedQueue}; an append happens-before the poll that
 *       returns it.
 *   <li>{@code wip}: the submits not yet accounted for, changed by atomic read-modify-writes only.
 *       A submit appends, then raises {@code wip}; the one that raised it from 0 tells the actor
 *       {@link DirectoryActor.Drain} (spawning it first if the directory has none: {@link
 *       Superblock#tellDirectory}). The actor polls until the queue is empty, then lowers {@code
 *       wip} by what it saw when it started and goes round again until it reaches 0. So every
 *       command appended has a {@code Drain} on its way or is seen by a drain in progress.
 *   <li><b>The drain token.</b> Whoever raised {@code wip} from 0 (or was handed the drain by the
 *       one who did) is the directory's only drainer until {@code wip} is back at 0, and so the
 *       only party that runs the actor's state: a submit that raises {@code wip} from 0 either runs
 *       the drain itself, on the actor's calling-thread executor ({@link DirectoryActor#runInline},
 *       the inline drain: no Pekko message, no mailbox), or tells the actor {@link
 *       DirectoryActor.Drain}. An inline drain that meets a command only the actor may handle (a
 *       rename's prepare, the unmount) hands the rest to the actor with one {@code Drain}, keeping
 *       {@code wip} above 0 meanwhile; the actor likewise keeps it while it is prepared for a
 *       cross-directory rename. The actor routes every command that reaches its mailbox through
 *       this queue ({@link #submitOwn}), so it too runs its state only while it holds the token.
 *       The atomic updates of {@code wip} order one drainer's writes before the next one's reads
 *       (each release is an {@code addAndGet}, each take a {@code getAndIncrement} of the same
 *       field; a hand-over is a Pekko {@code tell}).
 *   <li>{@code drainer}: the actor that drains inline, published once by the actor when it is made
 *       (release) and cleared when it stops; read with acquire by the submit that took the token.
 *   <li>{@link #CLOSED}, a bit of {@code wip}, is set once, by {@link #close} (the actor stopped):
 *       from then on a submit answers its command as a gone directory's actor would ({@link
 *       DirectoryActor.Command#failGone}), and a command appended just before the close is answered
 *       by exactly one of the closer (its poll) and its submitter (its {@code remove}), whichever
 *       takes it out of the queue.
 * </ul>
 *
 * Created on a directory's first submit ({@link DirectoryInode#commandQueue()}); a directory never
 * written costs no queue.
 */
public final class DirQueue implements RecipientRef<DirectoryActor.Command> {
    /** The bit of {@code wip} that {@link #close} sets. */
    static final int CLOSED = 1 << 30;

    private final DirectoryInode dir;
    private final ConcurrentLinkedQueue<DirectoryActor.Command> queue =
            new ConcurrentLinkedQueue<>();
    private final AtomicInteger wip = new AtomicInteger();
    private final DirectoryActor.Drain drain;
    private final LongAdder batches = new LongAdder();
    private final LongAdder combined = new LongAdder();

    /** The actor that may drain inline, or {@code null}; see the class comment. */
    private volatile DirectoryActor drainer;

    DirQueue(DirectoryInode dir) {
        this.dir = dir;
        this.drain = new DirectoryActor.Drain(this);
    }

    /** {@return the directory whose commands this queue holds} */
    public DirectoryInode dir() {
        return dir;
    }

    /**
     * Queues {@code c} for the directory's actor and, if the queue was idle, tells the actor to
     * drain. Never blocks; lock-free.
     *
     * @param c a command that expects a reply ({@link DirectoryActor.Create}, {@link
     *     DirectoryActor.Unlink}, ...)
     * @param sb the directory's superblock, which spawns the actor if there is none yet
     */
    public void submit(DirectoryActor.Command c, Superblock sb) {
        if ((wip.get() & CLOSED) != 0) {
            c.failGone(dir);
            return;
        }
        queue.offer(c);
        int before = wip.getAndIncrement();
        if ((before & CLOSED) != 0) {
            // Closed after the check: the closer may have drained before the append. Whoever
            // takes c out of the queue answers it.
            if (queue.remove(c)) {
                c.failGone(dir);
            }
            return;
        }
        if (before == 0) {
            // this submit holds the drain token: drain on the actor's executor, else by message
            DirectoryActor a = drainer;
            if (a == null || !a.runInline()) {
                sb.tellDirectory(dir, drain);
            }
        }
    }

    /**
     * Queues {@code c} on behalf of the directory's actor, which received it in its mailbox; the
     * actor only. Never blocks.
     *
     * @param c the command
     * @return whether the actor now holds the drain token (the queue was idle), so that it must
     *     drain; {@code false} if another drainer will reach {@code c}, or the queue is closed
     *     ({@code c} then answered as gone)
     */
    boolean submitOwn(DirectoryActor.Command c) {
        if ((wip.get() & CLOSED) != 0) {
            c.failGone(dir);
            return false;
        }
        queue.offer(c);
        int before = wip.getAndIncrement();
        if ((before & CLOSED) != 0) {
            if (queue.remove(c)) {
                c.failGone(dir);
            }
            return false;
        }
        return before == 0;
    }

    /** {@return the {@link DirectoryActor.Drain} that hands this queue's drain to its actor} */
    DirectoryActor.Drain drain() {
        return drain;
    }

    /**
     * Publishes (release) the actor that may drain inline; by that actor, once, as it is made.
     *
     * @param a the directory's actor
     */
    void attach(DirectoryActor a) {
        drainer = a;
    }

    /**
     * Clears the inline drainer if it is {@code a}; by {@code a} as it stops.
     *
     * @param a the actor that stops
     */
    void detach(DirectoryActor a) {
        if (drainer == a) {
            drainer = null;
        }
    }

    /**
     * {@link #submit}s {@code c}, with the directory's owner as its superblock: a queue is where
     * callers send a directory's commands.
     *
     * @param c the command
     */
    @Override
    public void tell(DirectoryActor.Command c) {
        submit(c, (Superblock) dir.owner());
    }

    /** {@return the next queued command, or {@code null}}; the actor only. */
    DirectoryActor.Command poll() {
        return queue.poll();
    }

    /** {@return the submits not yet accounted for}; the actor only, as a drain starts. */
    int pending() {
        return wip.get() & ~CLOSED;
    }

    /**
     * Accounts for {@code n} submits whose commands the actor has taken.
     *
     * @param n the count the drain saw when it started its round
     * @return the submits still unaccounted for: 0 ends the drain
     */
    int accounted(int n) {
        return wip.addAndGet(-n) & ~CLOSED;
    }

    /**
     * Closes the queue for good (its actor stopped) and answers every command still in it as a gone
     * directory's actor would. Idempotent.
     */
    void close() {
        wip.getAndUpdate(w -> w | CLOSED);
        DirectoryActor.Command c;
        while ((c = queue.poll()) != null) {
            c.failGone(dir);
        }
    }

    /**
     * Counts one published batch of {@code size} commands.
     *
     * @param size the commands it applied
     */
    void countBatch(int size) {
        batches.increment();
        if (size > 1) {
            combined.increment();
        }
    }

    /**
     * {@return {batches published, batches of more than one command}} from this queue's drains (for
     * tests and benchmarks; a sum of counters, not a snapshot)
     */
    public long[] batchCounts() {
        return new long[] {batches.sum(), combined.sum()};
    }
}
