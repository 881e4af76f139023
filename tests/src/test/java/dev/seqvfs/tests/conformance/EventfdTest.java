package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Io.le64;
import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code eventfd(2)}: an unsigned 64-bit counter behind a file; a write of 8 bytes adds
 * its value, a read of at least 8 bytes returns the counter and resets it (with {@code
 * EFD_SEMAPHORE}: returns 1 and decrements), a read waits while the counter is 0 and a write while
 * the sum would pass {@code 0xfffffffffffffffe}; {@code EFD_NONBLOCK} makes both EAGAIN instead,
 * {@code EFD_CLOEXEC} sets {@code FD_CLOEXEC}. Errnos: EINVAL (a read buffer shorter than 8 bytes,
 * a write of any length but 8 (Linux 6.18 refuses longer ones too, though the man page names only
 * shorter ones), a write of {@code 0xffffffffffffffff}, an initial value that is not an unsigned
 * int, flags other than {@code EFD_SEMAPHORE}, {@code EFD_NONBLOCK}, {@code EFD_CLOEXEC}; an {@code
 * lseek} whence above {@code SEEK_HOLE}), EAGAIN, ESPIPE (positional I/O). {@code lseek} succeeds
 * and returns 0 whatever the offset and whence ({@code noop_llseek}). The file is an anonymous
 * inode of mode 0600 with no type bits. Measured on Linux 6.18.
 */
@FileSystemContract
@Timeout(10)
class EventfdTest {
    private static final int EFD_SEMAPHORE = 1;
    private static final int EFD_NONBLOCK = OpenFlags.O_NONBLOCK;
    private static final int EFD_CLOEXEC = OpenFlags.O_CLOEXEC;

    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void task() {
        t = fs.root();
    }

    private long readValue(int fd) {
        byte[] b = new byte[8];
        assertEquals(8, t.read(fd, b, 0, 8));
        return le64(b);
    }

    private void add(int fd, long v) {
        assertEquals(8, t.write(fd, le64(v)));
    }

    @Test
    void eventfd_readReturnsTheInitialValueAndResetsTheCounter() {
        int e = t.eventfd(42, EFD_NONBLOCK);
        assertEquals(42, readValue(e));
        assertErrno(Errno.EAGAIN, () -> readValue(e));
        t.close(e);
    }

    @Test
    void eventfd_writesAddUp() {
        int e = t.eventfd(1, EFD_NONBLOCK);
        add(e, 2);
        add(e, 0x1_0000_0000L);
        add(e, 0);
        assertEquals(0x1_0000_0003L, readValue(e));
        t.close(e);
    }

    @Test
    void eventfd_semaphore_readsOneAtATime() {
        int e = t.eventfd(2, EFD_SEMAPHORE | EFD_NONBLOCK);
        add(e, 1);
        assertEquals(1, readValue(e));
        assertEquals(1, readValue(e));
        assertEquals(1, readValue(e));
        assertErrno(Errno.EAGAIN, () -> readValue(e));
        t.close(e);
    }

    @Test
    void read_longerBuffer_returnsEightBytes() {
        int e = t.eventfd(7, 0);
        byte[] b = new byte[16];
        assertEquals(8, t.read(e, b, 0, 16));
        assertEquals(7, le64(b));
        t.close(e);
    }

    @Test
    void read_zeroCounterBlocking_completesWhenAWriteArrives() throws Exception {
        int e = t.eventfd(0, 0);
        byte[] b = new byte[8];
        CompletableFuture<Integer> pending = t.async().read(e, b, 0, 8);
        assertFalse(pending.isDone());
        add(e, 5);
        assertEquals(8, pending.get(10, TimeUnit.SECONDS));
        assertEquals(5, le64(b));
        t.close(e);
    }

    @Test
    void write_pastTheMaximumNonblocking_failsWithEAGAINAndKeepsTheCounter() {
        int e = t.eventfd(0, EFD_NONBLOCK);
        add(e, 0xfffffffffffffffeL);
        assertErrno(Errno.EAGAIN, () -> add(e, 1));
        assertEquals(0xfffffffffffffffeL, readValue(e));
        add(e, 1);
        assertEquals(1, readValue(e));
        t.close(e);
    }

    @Test
    void write_allOnes_failsWithEINVAL() {
        int e = t.eventfd(3, EFD_NONBLOCK);
        assertErrno(Errno.EINVAL, () -> t.write(e, le64(-1L)));
        assertEquals(3, readValue(e));
        t.close(e);
    }

    @Test
    void readWrite_bufferShorterThanEightBytes_failWithEINVAL() {
        int e = t.eventfd(3, EFD_NONBLOCK);
        assertErrno(Errno.EINVAL, () -> t.read(e, new byte[7], 0, 7));
        assertErrno(Errno.EINVAL, () -> t.write(e, new byte[8], 0, 7));
        assertErrno(Errno.EINVAL, () -> t.read(e, new byte[8], 1, 7));
        assertEquals(3, readValue(e));
        t.close(e);
    }

    @Test
    void eventfd_initialValueNotAnUnsignedInt_failsWithEINVAL() {
        assertErrno(Errno.EINVAL, () -> t.eventfd(-1, 0));
        assertErrno(Errno.EINVAL, () -> t.eventfd(0x1_0000_0000L, 0));
        int e = t.eventfd(0xffffffffL, 0);
        assertEquals(0xffffffffL, readValue(e));
        t.close(e);
    }

    @Test
    void eventfd_unknownFlags_failWithEINVAL() {
        // O_RDWR (2); O_WRONLY is 1, which is EFD_SEMAPHORE.
        assertErrno(Errno.EINVAL, () -> t.eventfd(0, OpenFlags.O_RDWR));
        assertErrno(Errno.EINVAL, () -> t.eventfd(0, 8));
        assertErrno(Errno.EINVAL, () -> t.eventfd(0, OpenFlags.O_APPEND));
        assertEquals(0, t.eventfd(0, 0));
        t.close(0);
    }

    @Test
    void eventfd_flags_showInFcntl() {
        int e = t.eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC | EFD_SEMAPHORE);
        assertEquals(OpenFlags.O_RDWR | OpenFlags.O_NONBLOCK, t.fcntl(e, Fcntl.F_GETFL, 0));
        assertEquals(Fcntl.FD_CLOEXEC, t.fcntl(e, Fcntl.F_GETFD, 0));
        int plain = t.eventfd(0, 0);
        assertEquals(OpenFlags.O_RDWR, t.fcntl(plain, Fcntl.F_GETFL, 0));
        assertEquals(0, t.fcntl(plain, Fcntl.F_GETFD, 0));
        t.close(e);
        t.close(plain);
    }

    @Test
    void fstat_eventfd_isAnAnonymousInodeOfMode0600() {
        int e = t.eventfd(0, 0);
        Stat s = t.fstat(e);
        assertEquals(0600, s.mode());
        assertEquals(0, s.size());
        assertEquals(1, s.nlink());
        t.close(e);
    }

    @Test
    void write_longerThanEightBytes_failsWithEINVAL() {
        int e = t.eventfd(1, 0);
        byte[] sixteen = new byte[16];
        System.arraycopy(le64(5), 0, sixteen, 0, 8);
        assertErrno(Errno.EINVAL, () -> t.write(e, sixteen, 0, 16));
        assertErrno(Errno.EINVAL, () -> t.write(e, sixteen, 0, 9));
        assertEquals(1, readValue(e));
        t.close(e);
    }

    @Test
    void lseek_eventfd_returnsZeroWhateverTheArguments() {
        int e = t.eventfd(3, 0);
        assertEquals(0, t.lseek(e, 0, VfsTask.SEEK_SET));
        assertEquals(0, t.lseek(e, 5, VfsTask.SEEK_CUR));
        assertEquals(0, t.lseek(e, -5, VfsTask.SEEK_SET));
        assertEquals(0, t.lseek(e, 0, VfsTask.SEEK_END));
        assertEquals(0, t.lseek(e, 0, VfsTask.SEEK_DATA));
        assertEquals(3, readValue(e));
        t.close(e);
    }

    @Test
    void lseek_eventfdWhenceAboveSeekHole_failsWithEINVAL() {
        int e = t.eventfd(0, 0);
        assertErrno(Errno.EINVAL, () -> t.lseek(e, 0, 5));
        assertErrno(Errno.EINVAL, () -> t.lseek(e, 0, 7));
        t.close(e);
    }

    @Test
    void preadPwrite_eventfd_failWithESPIPE() {
        int e = t.eventfd(1, 0);
        assertErrno(Errno.ESPIPE, () -> t.pread(e, new byte[8], 0, 8, 0));
        assertErrno(Errno.ESPIPE, () -> t.pwrite(e, le64(1), 0, 8, 0));
        assertEquals(1, readValue(e));
        t.close(e);
    }

    @Test
    void eventfd_sharedThroughDup_isOneCounter() {
        int e = t.eventfd(0, EFD_NONBLOCK);
        int d = t.dup(e);
        add(e, 4);
        assertEquals(4, readValue(d));
        assertErrno(Errno.EAGAIN, () -> readValue(e));
        t.close(e);
        t.close(d);
    }
}
