package dev.seqvfs.engine.fdtable;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Decides, once, between an asynchronous {@code open} installing its descriptor and its caller
 * withdrawing it (cancelling the open's future): whichever claims first wins, so a withdrawn open
 * never installs a descriptor, and a withdrawal that comes too late learns the descriptor the
 * caller now owns.
 *
 * <h2>States</h2>
 *
 * pending → withdrawn ({@link #tryWithdraw}, the caller), or pending → installing ({@link
 * #tryBeginInstall}, the {@link FdTableActor}) → installed {@code fd} ({@link #installed}, after
 * the table holding it is published). No other transition.
 *
 * <h2>Concurrency</h2>
 *
 * {@code state} is changed by compare-and-set (pending → withdrawn / installing) and by one release
 * store (installing → fd), read with acquire: a caller that reads an fd also sees the published
 * table that holds it. {@link #awaitInstalled} spins only across the few instructions of the
 * actor's handler between its claim and its publication (no message, no lock, no wait in between).
 */
public final class InstallClaim {
    private static final int PENDING = -1;
    private static final int WITHDRAWN = -2;
    private static final int INSTALLING = -3;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(InstallClaim.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // through STATE
    private volatile int state = PENDING;

    /**
     * Withdraws the open if its descriptor is not being installed yet.
     *
     * @return {@code true} if this call withdrew it (no descriptor will ever be installed under
     *     this claim); {@code false} if it was withdrawn before or is (being) installed
     */
    public boolean tryWithdraw() {
        return STATE.compareAndSet(this, PENDING, WITHDRAWN);
    }

    /**
     * Whether the open was withdrawn (a volatile read: ordered with a caller's volatile writes).
     *
     * @return whether the open was withdrawn
     */
    public boolean isWithdrawn() {
        return state == WITHDRAWN;
    }

    /**
     * Claims the install, for the {@link FdTableActor} only.
     *
     * @return {@code false} if the open was withdrawn (the actor must not install)
     */
    boolean tryBeginInstall() {
        return STATE.compareAndSet(this, PENDING, INSTALLING);
    }

    /** Records the installed descriptor (release), after its table is published; actor only. */
    void installed(int fd) {
        STATE.setRelease(this, fd);
    }

    /**
     * {@return the installed descriptor once the install this claim lost to is complete, spinning
     * (then yielding) while the actor is between its claim and its publication}
     *
     * @throws IllegalStateException if the install was never claimed (pending or withdrawn)
     */
    @SuppressWarnings("ThreadPriorityCheck") // Thread.yield: the backoff of a bounded spin, not for
    // correctness
    public int awaitInstalled() {
        for (int spins = 0; ; spins++) {
            int s = (int) STATE.getAcquire(this);
            if (s >= 0) {
                return s;
            }
            if (s != INSTALLING) {
                throw new IllegalStateException(
                        "awaitInstalled on a claim not being installed: " + s);
            }
            if (spins < 100) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }
}
