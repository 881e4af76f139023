package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.VfsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The cross-directory rename coordinator answers every rename, including one whose source parent
 * was removed before the call reached it ({@code renameat2(2)}: {@code ENOENT} "a directory
 * component in oldpath does not exist").
 *
 * <pre>
 * /gone   made, opened (the descriptor keeps it), removed
 * /to     the target parent
 * </pre>
 */
class RenameCoordinatorTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture().checkingEndState();

    /**
     * Regression: a removed directory that never had an actor could not prepare; its failure reply
     * carried no directory, the coordinator filed it as the target's, kept the real target prepared
     * (stashing every call on it) and answered EIO after its five-second prepare timeout. In the
     * stress tier this showed as {@code rename("/t2/n3/n0", "/t0/n0")} failing with EIO while
     * /t2/n3 was removed.
     */
    @Test
    void renameat_fromDirectoryRemovedWhileOpen_failsWithENOENT() {
        VfsTask t = fs.root();
        t.mkdir("/gone", 0755);
        t.mkdir("/to", 0755);
        int fd = t.open("/gone", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        t.rmdir("/gone");
        VfsException e =
                assertThrows(
                        VfsException.class,
                        () -> t.renameat2(fd, "x", VfsTask.AT_FDCWD, "/to/x", 0));
        assertEquals(Errno.ENOENT, e.errno());
        t.mkdir("/to/y", 0755);
        t.close(fd);
    }
}
