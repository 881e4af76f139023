package dev.seqvfs.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * The cause of a {@link VfsException}. Bug class: {@code initCause} on an exception made by
 * Throwable's stack-trace-free constructor, which records a null cause as given, threw
 * IllegalStateException ("Can't overwrite cause") instead of keeping the cause, so a mount that
 * failed with EIO surfaced as that IllegalStateException.
 */
class VfsExceptionTest {
    @Test
    void initCause_keepsTheCause_once_andWithContextCarriesIt() {
        IOException io = new IOException("disk gone");
        VfsException e = new VfsException(Errno.EIO, Syscall.MOUNT, "/mnt");
        assertSame(e, e.initCause(io));
        assertSame(io, e.getCause());
        assertThrows(IllegalStateException.class, () -> e.initCause(new IOException("again")));
        VfsException self = new VfsException(Errno.EIO, Syscall.MOUNT, null);
        assertThrows(IllegalArgumentException.class, () -> self.initCause(self));
        VfsException moved = e.withContext(Syscall.OPEN, "/mnt/f", null);
        assertEquals(Errno.EIO, moved.errno());
        assertSame(io, moved.getCause());
    }
}
