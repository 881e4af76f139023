package dev.seqvfs.engine.walk;

import dev.seqvfs.engine.mount.MountTable;
import dev.seqvfs.engine.sb.NamespaceLocks;

/** Where a walk reads the mount table and the sequence locks from (the namespace). */
public interface MountSource {
    /**
     * Loads the current mount table with acquire.
     *
     * @return the current mount table with acquire
     */
    MountTable mountTableAcquire();

    /** {@return the instance's rename and mount locks} */
    NamespaceLocks locks();
}
