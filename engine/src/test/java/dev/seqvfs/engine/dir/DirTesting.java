package dev.seqvfs.engine.dir;

import dev.seqvfs.engine.inode.InodeAttrs;
import java.util.function.UnaryOperator;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The writer-only methods of {@link DirectoryInode}, for tests in other packages that play a
 * directory's writer (a rename coordinator's test standing in for a directory actor). Test sources
 * only; the library keeps these package-private.
 */
public final class DirTesting {
    private DirTesting() {}

    /** {@link DirectoryInode#casSnapshot}. */
    public static boolean casSnapshot(DirectoryInode d, DirSnapshot expect, DirSnapshot update) {
        return d.casSnapshot(expect, update);
    }

    /** {@link DirectoryInode#tryKill}. */
    public static boolean tryKill(DirectoryInode d, DirSnapshot expect) {
        return d.tryKill(expect);
    }

    /** {@link DirectoryInode#publishActorRelease}. */
    public static void publishActorRelease(DirectoryInode d, ActorRef<DirectoryActor.Command> ref) {
        d.publishActorRelease(ref);
    }

    /** {@link DirectoryInode#updateDirAttrs}. */
    public static InodeAttrs updateDirAttrs(DirectoryInode d, UnaryOperator<InodeAttrs> change) {
        return d.updateDirAttrs(change);
    }
}
