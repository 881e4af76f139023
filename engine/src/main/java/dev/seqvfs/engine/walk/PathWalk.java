package dev.seqvfs.engine.walk;

import dev.seqvfs.engine.sb.NamespaceLocks;
import dev.seqvfs.protocol.PathComponents;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.locks.StampedLock;

/**
 * Runs path walks: optimistic ("RCU-walk", seed 004) first, then the locked ref-walk.
 *
 * <h2>Protocol</h2>
 *
 * <ol>
 *   <li>Sample the mount sequence ({@code tryOptimisticRead}); a zero stamp (a writer is
 *       publishing) counts as a failed attempt.
 *   <li>Run the caller's {@link WalkFunction} over published snapshots: no lock, no message, no
 *       store to shared memory. Every lookup and every parent-link read ({@code ..}) goes into the
 *       walk's trail. An error it raises is held, not yet reported: a negative answer needs the
 *       same validation as a positive one.
 *   <li>Sample the rename sequence of every directory on the trail ({@code d_seq}: odd while a
 *       cross-directory rename publishes a change of it), check the trail ({@link Nameidata}),
 *       sample the rename sequences again and validate the mount stamp; if all hold, return the
 *       answer or throw the held error. While only a rename sequence fails, check again.
 *   <li>After {@code optimisticAttempts} failures, take the read sides of both locks (spinning,
 *       never parking: writers hold them for a few stores) and walk again, repeating only while the
 *       trail fails (a same-directory change hit a name on the path). Cross-directory renames and
 *       mount changes cannot happen meanwhile.
 * </ol>
 *
 * <h2>Why the rename sequences only cover the validation</h2>
 *
 * Every value the walk read that can change (a directory's entry for a name, a directory's parent
 * link) is re-read by the trail check; snapshots, dentries and links are new objects at each
 * publication and never come back, so an unchanged one was unchanged all along. Positive reads
 * therefore held together at every instant between the walk's last read and the start of the check,
 * and a negative lookup ends the walk (it is the last read). The one thing the trail cannot see is
 * a cross-directory rename that is half published (its two parents' snapshots are two stores): that
 * needs no such rename of a directory on the trail to be publishing over the check, which the same
 * even rename sequences before and after it prove (the coordinator makes the sequence of every
 * directory it changes odd around its stores, inside the rename write lock). A rename that began
 * and ended while the walk ran therefore costs the walk nothing unless it touched a name the walk
 * used, and a rename of directories off the trail costs it nothing at all: the walk reads no line
 * that rename writes (Linux's per-dentry {@code d_seq} gives the same property; a single rename
 * sequence for the whole instance, as this walk sampled before, put every walk on the line every
 * rename wrote). The mount sequence still covers the whole walk: mount changes are rare, and the
 * walk reads the mount table once.
 *
 * <p>Retries and ref-walks are counted in {@link NamespaceLocks#walkRetries} and {@link
 * NamespaceLocks#refWalks} (striped counters, touched only on the slow paths).
 *
 * <p>Thread-safe; holds no state of its own besides configuration.
 */
public final class PathWalk {
    /** Validation re-checks per attempt while a cross-directory rename holds the sequence. */
    private static final int VALIDATION_SPINS = 64;

    private final MountSource ns;
    private final int optimisticAttempts;

    /**
     * Creates a walker.
     *
     * @param ns mount table and locks
     * @param optimisticAttempts optimistic tries before the ref-walk (at least 1)
     */
    public PathWalk(MountSource ns, int optimisticAttempts) {
        this.ns = ns;
        this.optimisticAttempts = Math.max(1, optimisticAttempts);
    }

    NamespaceLocks locks() {
        return ns.locks();
    }

    /**
     * Walks {@code path} from {@code start} (or the task's root for absolute paths) and returns
     * what {@code fn} computed from a validated walk.
     *
     * @param <T> what {@code fn} answers
     * @param ctx the task
     * @param start where relative paths start (the cwd or a directory descriptor)
     * @param path the path, internal form
     * @param op the system call's name, for errors
     * @param fn the reading part of the call
     * @return {@code fn}'s answer
     * @throws VfsException the error {@code fn} raised in a validated walk
     */
    public <T> T walk(WalkContext ctx, VfsPath start, String path, Syscall op, WalkFunction<T> fn) {
        return walk(ctx, start, path, null, op, fn);
    }

    /**
     * As {@link #walk(WalkContext, VfsPath, String, Syscall, WalkFunction)}, for a path whose
     * components were parsed ahead: the walk reads them from {@code comps} instead of scanning the
     * path's chars.
     *
     * @param <T> what {@code fn} answers
     * @param ctx the task
     * @param start where relative paths start (the cwd or a directory descriptor)
     * @param path the path, internal form
     * @param comps {@code path}'s components ({@link PathComponents#of}), or {@code null}
     * @param op the system call's name, for errors
     * @param fn the reading part of the call
     * @return {@code fn}'s answer
     * @throws VfsException the error {@code fn} raised in a validated walk
     */
    public <T> T walk(
            WalkContext ctx,
            VfsPath start,
            String path,
            PathComponents comps,
            Syscall op,
            WalkFunction<T> fn) {
        NamespaceLocks locks = ns.locks();
        StampedLock ml = locks.mount;
        Nameidata nd = new Nameidata(this, ctx, start, path, comps, op);
        for (int attempt = 0; attempt < optimisticAttempts; attempt++) {
            long ms = ml.tryOptimisticRead();
            if (ms != 0) {
                nd.reset(ns.mountTableAcquire());
                T answer = null;
                RuntimeException error = null;
                try {
                    answer = fn.apply(nd);
                } catch (RuntimeException e) {
                    error = e;
                }
                // The rename sequences only have to cover the validation itself (class comment).
                // While only a sequence fails and the trail holds, re-check; do not re-walk.
                for (int check = 0; check < VALIDATION_SPINS; check++) {
                    int v = nd.checkTrail();
                    if (v == Nameidata.CHANGED || !ml.validate(ms)) {
                        break;
                    }
                    if (v == Nameidata.HOLDS) {
                        if (error != null) {
                            throw error;
                        }
                        return answer;
                    }
                    Thread.onSpinWait();
                }
            } else {
                Thread.onSpinWait();
            }
            locks.walkRetries.increment();
        }
        return refWalk(nd, locks, fn);
    }

    private <T> T refWalk(Nameidata nd, NamespaceLocks locks, WalkFunction<T> fn) {
        locks.refWalks.increment();
        long rs;
        while ((rs = locks.rename.tryReadLock()) == 0) {
            Thread.onSpinWait();
        }
        try {
            long ms = locks.mountReadLockSpin();
            try {
                while (true) {
                    nd.reset(ns.mountTableAcquire());
                    T answer = null;
                    VfsException error = null;
                    try {
                        answer = fn.apply(nd);
                    } catch (VfsException e) {
                        error = e;
                    }
                    if (nd.validateTrail()) {
                        if (error != null) {
                            throw error;
                        }
                        return answer;
                    }
                    locks.walkRetries.increment();
                }
            } finally {
                locks.mount.unlockRead(ms);
            }
        } finally {
            locks.rename.unlockRead(rs);
        }
    }
}
