package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code linkat(fd, "", AT_EMPTY_PATH)} of an {@code O_TMPFILE} file racing the close of that
 * descriptor by another thread of the task. The descriptor holds the only open of a file with no
 * name, so its close frees the file unless the link came first; Linux's {@code linkat} holds the
 * file ({@code fdget}) for the call, so the link either names a live file or fails with {@code
 * EBADF}, and never names one the close freed. Round after round, both orders; the end state (fsck:
 * the inode and byte counts, every named inode live, no open file left) must be clean, and every
 * name the links reported must be there with its data. The window of the race this guards (a close
 * freeing the file between the link's look-up of the descriptor and its link count's change) is a
 * few instructions wide: the test did not catch it before {@code linkat} held the file, and checks
 * the end state under many such races.
 */
class TmpfileLinkCloseRaceTest {
    private static final int ROUNDS = 3000;

    @RegisterExtension final VfsFixture fs = new VfsFixture().checkingEndState();

    @Test
    void linkOfATmpfile_racingTheCloseOfItsOnlyDescriptor_neverNamesAFreedFile() throws Exception {
        if (fs.rootType().equals("persistfs")) {
            return; // no O_TMPFILE there
        }
        VfsTask t = fs.vfs().newTask(Credentials.ROOT);
        VfsTask t2 = t.newThread();
        t.mkdir("/r", 0755);
        CyclicBarrier start = new CyclicBarrier(2);
        AtomicInteger fdBox = new AtomicInteger(-1);
        int[] linked = new int[1];
        Thread closer =
                new Thread(
                        () -> {
                            try {
                                for (int i = 0; i < ROUNDS; i++) {
                                    start.await();
                                    t2.close(fdBox.get());
                                    start.await();
                                }
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        },
                        "closer");
        closer.setDaemon(true);
        closer.start();
        byte[] data = {1, 2, 3, 4, 5};
        for (int i = 0; i < ROUNDS; i++) {
            int fd = t.open("/r", OpenFlags.O_TMPFILE | OpenFlags.O_RDWR, 0600);
            t.write(fd, data);
            fdBox.set(fd);
            start.await();
            try {
                t.linkat(fd, "", OpenFlags.AT_FDCWD, "/r/f" + i, OpenFlags.AT_EMPTY_PATH);
                linked[0]++;
                assertEquals(data.length, t.stat("/r/f" + i).size());
            } catch (VfsException e) {
                assertEquals(Errno.EBADF, e.errno(), "round " + i);
            }
            start.await();
        }
        closer.join(10_000);
        assertEquals(linked[0], t.readdir("/r").size());
        t2.close();
        t.close();
    }
}
