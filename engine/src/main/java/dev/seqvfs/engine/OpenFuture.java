package dev.seqvfs.engine;

import dev.seqvfs.engine.fdtable.InstallClaim;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.UnaryOperator;

/**
 * The future of an asynchronous {@code open}: completing it exceptionally from outside ({@link
 * #cancel}, {@link #completeExceptionally}, hence {@code orTimeout}) withdraws the open if its
 * descriptor is not installed yet, else it completes normally with that descriptor, which the
 * caller then owns.
 *
 * <h2>States</h2>
 *
 * in flight → completed by the open (its descriptor or its error), or in flight → withdrawn (the
 * {@link InstallClaim} won by the withdrawal: no descriptor will be installed; the in-flight
 * attempt is cancelled and every {@link #onWithdraw} hook runs once, on the withdrawing thread, so
 * a FIFO open waiting for its partner stops counting).
 *
 * <h2>Concurrency</h2>
 *
 * The race between the withdrawal and the install is decided by the claim's compare-and-set (see
 * {@link InstallClaim}); {@code hooks} and {@code withdrawn} are guarded by this object's monitor,
 * never held while a hook runs; {@code attempt} is written once (release, volatile) before the
 * first withdrawal can need it, or the withdrawal cancels it when it arrives later.
 */
final class OpenFuture extends CompletableFuture<Integer> {
    private final InstallClaim claim = new InstallClaim();
    private final List<Runnable> hooks = new ArrayList<>();
    private boolean withdrawn;
    private volatile CompletableFuture<?> attempt;

    /**
     * Turns the open's own failure into the caller's: names the call ({@link TaskContext#label}).
     */
    private final UnaryOperator<Throwable> label;

    /**
     * An open whose failures reach the caller through {@code label}.
     *
     * @param label applied to the open's own failure (not to a withdrawal's exception)
     */
    OpenFuture(UnaryOperator<Throwable> label) {
        this.label = label;
    }

    /** Returns the claim that the open's install must win. */
    InstallClaim claim() {
        return claim;
    }

    /**
     * Follows {@code result}, the open's own future: its outcome becomes this future's, and a
     * withdrawal cancels it.
     */
    void follow(CompletableFuture<Integer> result) {
        attempt = result;
        if (claim.isWithdrawn()) {
            result.cancel(false);
        }
        var unused =
                result.whenComplete(
                        (fd, e) -> {
                            if (claim.isWithdrawn()) {
                                return; // the withdrawal completes this future (the open fails for
                                // having been withdrawn)
                            }
                            if (e == null) {
                                super.complete(fd);
                            } else {
                                super.completeExceptionally(
                                        label.apply(
                                                e instanceof CompletionException
                                                                && e.getCause() != null
                                                        ? e.getCause()
                                                        : e));
                            }
                        });
    }

    /**
     * Registers {@code hook} to run if the open is withdrawn (at once, on this thread, if it
     * already was). Thread-safe.
     */
    void onWithdraw(Runnable hook) {
        synchronized (this) {
            if (!withdrawn) {
                hooks.add(hook);
                return;
            }
        }
        hook.run();
    }

    /**
     * Withdraws the open unless its descriptor is (being) installed.
     *
     * @return {@code true} if this call cancelled the open (no descriptor was or will be
     *     installed); {@code false} if the open had completed, or its descriptor was installed
     *     first: this future is then completed normally with it
     */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        return withdraw(new CancellationException());
    }

    /**
     * Withdraws the open as {@link #cancel} does, completing this future with {@code ex}.
     *
     * @return {@code true} if this call withdrew the open
     */
    @Override
    public boolean completeExceptionally(Throwable ex) {
        return withdraw(ex);
    }

    private boolean withdraw(Throwable ex) {
        if (isDone()) {
            return false;
        }
        if (!claim.tryWithdraw()) {
            if (claim.isWithdrawn()) {
                return super.completeExceptionally(ex); // a concurrent withdrawal won the claim
            }
            // Lost to the install: the caller owns the descriptor.
            super.complete(claim.awaitInstalled());
            return false;
        }
        boolean mine = super.completeExceptionally(ex);
        List<Runnable> run;
        synchronized (this) {
            withdrawn = true;
            run = new ArrayList<>(hooks);
            hooks.clear();
        }
        CompletableFuture<?> a = attempt;
        if (a != null) {
            a.cancel(false);
        }
        run.forEach(Runnable::run);
        return mine;
    }
}
